import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

/** A message as a test reads it: parsed by mailparser from what the SMTP server received. */
export interface CapturedMail {
  to: string;
  /** The SMTP envelope's recipients (RCPT TO): where the message really goes. */
  envelopeTo: string[];
  subject: string;
  text: string;
  html: string;
  template: string;
  /** X-Tessera-Code, when the message carries a code. */
  code: string | undefined;
  link: string | undefined;
  headers: ParsedMail['headers'];
}

/**
 * A real SMTP server on 127.0.0.1 that keeps what it receives. `reject(address, code)` makes it
 * refuse a recipient (550 hard, 450 soft) to exercise bounce handling.
 */
export class MailCapture {
  readonly messages: CapturedMail[] = [];
  private readonly rejections = new Map<string, number>();
  private waiters: (() => void)[] = [];
  private server: SMTPServer;
  port = 0;

  constructor() {
    this.server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onRcptTo: (address, _session, callback) => {
        const code = this.rejections.get(address.address.toLowerCase());
        if (!code) return callback();
        const err = new Error(`${code === 550 ? 'Mailbox unavailable' : 'Try again later'}`) as Error & { responseCode: number };
        err.responseCode = code;
        return callback(err);
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            const header = (name: string) => {
              const v = mail.headers.get(name);
              return typeof v === 'string' ? v : undefined;
            };
            const to = Array.isArray(mail.to) ? mail.to[0]?.text ?? '' : mail.to?.text ?? '';
            this.messages.push({
              envelopeTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              to: to.toLowerCase(), subject: mail.subject ?? '', text: mail.text ?? '', html: typeof mail.html === 'string' ? mail.html : '',
              template: header('x-tessera-template') ?? '', code: header('x-tessera-code'), link: header('x-tessera-link'), headers: mail.headers,
            });
            for (const w of this.waiters.splice(0)) w();
            callback();
          })
          .catch(callback);
      },
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const address = this.server.server.address();
    this.port = typeof address === 'object' && address ? address.port : 0;
    return `smtp://127.0.0.1:${this.port}?tls=off`;
  }

  reject(address: string, code: 450 | 550): void {
    this.rejections.set(address.toLowerCase(), code);
  }

  /** Waits for the next message to `to` (optionally of a template) that arrived after `since` messages. */
  async waitFor(to: string, template?: string, since = 0, timeoutMs = 5000): Promise<CapturedMail> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.slice(since).find((m) => m.to === to.toLowerCase() && (!template || m.template === template));
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${template ?? 'mail'} to ${to} within ${timeoutMs} ms (have: ${this.messages.map((m) => `${m.template}→${m.to}`).join(', ') || 'none'})`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The most recent message to `to`, or undefined. */
  last(to: string, template?: string): CapturedMail | undefined {
    return [...this.messages].reverse().find((m) => m.to === to.toLowerCase() && (!template || m.template === template));
  }

  count(to?: string): number {
    return to ? this.messages.filter((m) => m.to === to.toLowerCase()).length : this.messages.length;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
