import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type Twilio from 'twilio';
import type RequestClient from 'twilio/lib/base/RequestClient.js';

// The Twilio SDK holds about 20 MiB once loaded: it is required only when a Twilio sender is made
// (TWILIO_ACCOUNT_SID set), so a server on the outbox, or with no SMS at all, never loads it. Its
// CommonJS modules are loaded with require, so they are found the same way whatever ESM interop
// the runtime (Node, vitest) applies; the Response class is the module's `exports.default`.
const load = createRequire(import.meta.url);
type TwilioResponse = new (statusCode: number, body: string, headers: Record<string, string>) => unknown;

// SMS delivery: the embedded outbox (files under $DATA_DIR/sms-outbox, like the mail outbox) or
// Twilio through its official SDK. The recovery phone domain sees only SmsSender.

export interface SmsMessage {
  /** E.164. */
  to: string;
  body: string;
  /** What the message is (`recoveryPhoneCode`); the outbox names files after it. */
  kind: string;
  /** The code in the message; the outbox logs it outside production. */
  code?: string;
}

export interface SmsSender {
  /** Which transport this is (shown by the health page and logs). */
  readonly name: 'outbox' | 'twilio';
  send(message: SmsMessage): Promise<void>;
}

/** A delivery that failed (Twilio refused it or could not be reached). */
export class SmsDeliveryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SmsDeliveryError';
  }
}

/** The embedded default: each SMS is a JSON file in `dir`; outside production a log line shows the code. */
export class SmsOutboxSender implements SmsSender {
  readonly name = 'outbox' as const;
  private seq = 0;

  constructor(readonly dir: string, private readonly log: FastifyBaseLogger, private readonly logCodes: boolean) {}

  async send(m: SmsMessage): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const file = `${stamp}-${String(++this.seq).padStart(4, '0')}-${m.kind}.json`;
    await writeFile(join(this.dir, file), JSON.stringify({ to: m.to, kind: m.kind, body: m.body }, null, 2));
    if (this.logCodes) this.log.info({ to: m.to, kind: m.kind, ...(m.code ? { code: m.code } : {}), file }, m.code ? `sms to ${m.to}: code ${m.code}` : `sms to ${m.to}`);
  }
}

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  /** The sending number, or… */
  from?: string;
  /** …a messaging service that picks it. */
  messagingServiceSid?: string;
  /**
   * Another origin for the API (a local fake in tests). The SDK has no base-URL option, so its
   * HTTP client is replaced by one that sends the same request to this origin.
   */
  apiUrl?: string;
}

/** An HTTP client for the Twilio SDK that sends its requests to `origin` with fetch. */
function redirectingClient(origin: string): RequestClient {
  const Response = (load('twilio/lib/http/response.js') as { default: TwilioResponse }).default;
  const client = {
    async request(opts: { method: string; uri: string; username?: string; password?: string; headers?: Record<string, string>; params?: Record<string, unknown>; data?: Record<string, unknown> }) {
      const target = new URL(opts.uri);
      const base = new URL(origin);
      target.protocol = base.protocol;
      target.host = base.host;
      for (const [k, v] of Object.entries(opts.params ?? {})) target.searchParams.append(k, String(v));
      const headers: Record<string, string> = { ...(opts.headers ?? {}) };
      if (opts.username !== undefined) headers.Authorization = `Basic ${Buffer.from(`${opts.username}:${opts.password ?? ''}`).toString('base64')}`;
      let body: string | undefined;
      if (opts.data && opts.method.toLowerCase() !== 'get') {
        const form = new URLSearchParams();
        for (const [k, v] of Object.entries(opts.data)) {
          if (v === undefined) continue;
          for (const item of Array.isArray(v) ? v : [v]) form.append(k, String(item));
        }
        body = form.toString();
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
      }
      const res = await fetch(target, { method: opts.method.toUpperCase(), headers, body, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      const responseHeaders: Record<string, string> = {};
      res.headers.forEach((value, name) => { responseHeaders[name] = value; });
      return new Response(res.status, text, responseHeaders);
    },
  };
  return client as unknown as RequestClient;
}

/** Twilio's Messages API through the official SDK. */
export class TwilioSmsSender implements SmsSender {
  readonly name = 'twilio' as const;
  private readonly client: ReturnType<typeof Twilio>;

  constructor(private readonly opts: TwilioOptions) {
    const twilio = load('twilio') as typeof Twilio;
    this.client = twilio(opts.accountSid, opts.authToken, opts.apiUrl ? { httpClient: redirectingClient(opts.apiUrl) } : {});
  }

  async send(m: SmsMessage): Promise<void> {
    const sender = this.opts.messagingServiceSid ? { messagingServiceSid: this.opts.messagingServiceSid } : { from: this.opts.from! };
    try {
      await this.client.messages.create({ to: m.to, body: m.body, ...sender });
    } catch (err) {
      const e = err as { status?: number; code?: number; message?: string };
      throw new SmsDeliveryError(`Twilio refused the message (${e.status ?? '?'}/${e.code ?? '?'}): ${e.message ?? 'unknown error'}`);
    }
  }
}
