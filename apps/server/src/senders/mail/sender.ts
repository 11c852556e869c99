import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';

/** A rendered message, ready for any transport. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** The template that made it (also sent as the X-Tessera-Template header). */
  template: string;
  /** Machine-readable extras for automation (codes, links); sent as X-Tessera-* headers. */
  headers: Record<string, string>;
  /** The code in this message, if any; the outbox logs it in development. */
  code?: string;
}

/** Why a delivery failed, as far as the transport can tell. */
export class MailDeliveryError extends Error {
  constructor(
    message: string,
    /** hard: the address was refused for good; soft: temporary; transport: the server was unreachable. */
    readonly kind: 'hard' | 'soft' | 'transport',
  ) {
    super(message);
    this.name = 'MailDeliveryError';
  }
}

export interface MailSender {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/**
 * The recipient as a structured address: nodemailer takes it as one mailbox and never parses it,
 * so no stored string can name a list, a group or another mailbox (issue 9, hole 2).
 */
function recipient(address: string): { name: string; address: string } {
  return { name: '', address };
}

function headersOf(m: MailMessage): Record<string, string> {
  return { 'X-Tessera-Template': m.template, ...m.headers };
}

/** SMTP delivery through nodemailer (`SMTP_URL`). */
export class SmtpSender implements MailSender {
  private readonly transport: Transporter;

  constructor(smtpUrl: string, private readonly from: string) {
    const url = new URL(smtpUrl);
    this.transport = nodemailer.createTransport({
      host: url.hostname,
      port: Number(url.port || (url.protocol === 'smtps:' ? 465 : 587)),
      secure: url.protocol === 'smtps:',
      // A local relay without TLS is fine (smtp://); anything else negotiates STARTTLS if offered.
      ignoreTLS: url.searchParams.get('tls') === 'off',
      auth: url.username ? { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } : undefined,
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  }

  async send(m: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail({ from: this.from, to: recipient(m.to), subject: m.subject, text: m.text, html: m.html, headers: headersOf(m) });
    } catch (err) {
      const e = err as { responseCode?: number; code?: string; message?: string };
      const code = e.responseCode ?? 0;
      // RFC 5321: 5yz is a permanent refusal, 4yz a transient one.
      const kind = code >= 500 ? 'hard' : code >= 400 ? 'soft' : 'transport';
      throw new MailDeliveryError(`SMTP delivery failed (${e.code ?? code}): ${e.message ?? 'unknown error'}`, kind);
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/**
 * The embedded default: every message is written to $DATA_DIR/outbox as an .eml file (open it in
 * any mail client) plus a .json twin, and outside production a log line names the code.
 */
export class OutboxSender implements MailSender {
  private readonly builder = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  private seq = 0;

  constructor(
    readonly dir: string,
    private readonly from: string,
    private readonly log: FastifyBaseLogger,
    private readonly logCodes: boolean,
  ) {}

  async send(m: MailMessage): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const info = await this.builder.sendMail({ from: this.from, to: recipient(m.to), subject: m.subject, text: m.text, html: m.html, headers: headersOf(m) });
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const base = `${stamp}-${String(++this.seq).padStart(4, '0')}-${m.template}`;
    await writeFile(join(this.dir, `${base}.eml`), info.message as Buffer);
    await writeFile(join(this.dir, `${base}.json`), JSON.stringify({ to: m.to, subject: m.subject, template: m.template, headers: m.headers, text: m.text }, null, 2));
    if (this.logCodes) {
      this.log.info({ to: m.to, template: m.template, ...(m.code ? { code: m.code } : {}), file: `${base}.eml` }, m.code ? `mail to ${m.to}: code ${m.code}` : `mail to ${m.to}`);
    }
  }

  async close(): Promise<void> {}
}
