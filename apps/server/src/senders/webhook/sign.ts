import { createHmac } from 'node:crypto';
import { constantTimeStringEqual } from '@tessera/protocol';

/** The header that carries the signature of a webhook body. */
export const SIGNATURE_HEADER = 'tessera-signature';
/** The header that names a delivery: the same on each retry, so receivers can drop duplicates. */
export const DELIVERY_HEADER = 'tessera-delivery';
/** The header that names the event (`support.ticket`, `newsletters.updated`, `account.deleted`). */
export const EVENT_HEADER = 'tessera-event';

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`: the time is signed with the body,
 * so a receiver that refuses old timestamps is safe from a replay of a captured delivery.
 */
export function signWebhook(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** What a receiver does (tests and the portal's example): true when `header` signs `body` and is at most `toleranceSeconds` old. */
export function verifyWebhook(secret: string, body: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const m = /^t=(\d{1,12}),v1=([0-9a-f]{64})$/.exec(header);
  if (!m) return false;
  const t = Number(m[1]);
  if (Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  return constantTimeStringEqual(signWebhook(secret, body, t), header);
}
