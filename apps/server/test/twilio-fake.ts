import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';

// A local stand-in for Twilio's Messages API (POST /2010-04-01/Accounts/{sid}/Messages.json), on
// 127.0.0.1: the server's Twilio SDK is pointed at it with TWILIO_API_URL. It checks the Basic
// credentials like Twilio does, records each message, and answers with Twilio's JSON shape.

export interface FakeSms {
  accountSid: string;
  to: string;
  from?: string;
  messagingServiceSid?: string;
  body: string;
}

export class TwilioFake {
  readonly accountSid = `AC${randomBytes(16).toString('hex')}`;
  readonly authToken = randomBytes(16).toString('hex');
  readonly from = '+15005550006';
  readonly messages: FakeSms[] = [];
  /** Set to make the next sends fail with Twilio's error shape (e.g. 21211, invalid 'To'). */
  failWith: { status: number; code: number; message: string } | null = null;
  private server: Server | null = null;
  url = '';

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const reply = (status: number, body: unknown) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        const match = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(req.url ?? '');
        if (req.method !== 'POST' || !match) return reply(404, { code: 20404, message: 'The requested resource was not found', status: 404 });
        const expected = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString('base64')}`;
        if (req.headers.authorization !== expected || match[1] !== this.accountSid) return reply(401, { code: 20003, message: 'Authenticate', status: 401 });
        if (this.failWith) return reply(this.failWith.status, { code: this.failWith.code, message: this.failWith.message, status: this.failWith.status });
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        const sms: FakeSms = {
          accountSid: match[1], to: form.get('To') ?? '', body: form.get('Body') ?? '',
          ...(form.get('From') ? { from: form.get('From')! } : {}),
          ...(form.get('MessagingServiceSid') ? { messagingServiceSid: form.get('MessagingServiceSid')! } : {}),
        };
        this.messages.push(sms);
        return reply(201, {
          sid: `SM${randomBytes(16).toString('hex')}`, account_sid: sms.accountSid, to: sms.to, from: sms.from ?? null,
          messaging_service_sid: sms.messagingServiceSid ?? null, body: sms.body, status: 'queued', num_segments: '1', direction: 'outbound-api',
          date_created: new Date().toUTCString(), api_version: '2010-04-01', price: null, error_code: null, error_message: null, uri: req.url,
        });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as { port: number };
    this.url = `http://127.0.0.1:${port}`;
    return this.url;
  }

  /** The environment that points the server's Twilio SDK here. */
  env(): Record<string, string> {
    return { TWILIO_ACCOUNT_SID: this.accountSid, TWILIO_AUTH_TOKEN: this.authToken, TWILIO_FROM: this.from, TWILIO_API_URL: this.url };
  }

  /** The 6-digit code of the latest message to `to` sent after `since` messages. */
  codeFor(to: string, since = 0): string {
    const sms = this.messages.slice(since).filter((m) => m.to === to).at(-1);
    if (!sms) throw new Error(`no SMS to ${to}`);
    const code = /\b(\d{6})\b/.exec(sms.body)?.[1];
    if (!code) throw new Error(`no code in "${sms.body}"`);
    return code;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
