import { ConfigError } from '../../config-schema.js';

// The settings of one webhook target (a domain's `<NAME>_WEBHOOK_URL` and `_SECRET`): parsed and
// checked the same way wherever a domain declares a target (support, newsletters).

/** Parses a target URL: http(s) only. */
export function webhookUrl(raw: string): string {
  const u = new URL(raw);
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('must be an http(s) URL');
  return u.toString();
}

/** Issue 13: a webhook is signed with a real key, and in production it travels over https. */
export function checkWebhookTarget(name: string, target: { webhookUrl: string; webhookSecret: string }, production: boolean): void {
  const { webhookUrl: url, webhookSecret: secret } = target;
  // Tickets and addresses travel in these bodies: the signature proves them, https hides them.
  if (url && production && !url.startsWith('https://')) throw new ConfigError(`${name}_WEBHOOK_URL must be https when NODE_ENV=production`);
  if (url && secret.length < 32) throw new ConfigError(`${name}_WEBHOOK_SECRET must be at least 32 characters when ${name}_WEBHOOK_URL is set (receivers check the signature with it)`);
}
