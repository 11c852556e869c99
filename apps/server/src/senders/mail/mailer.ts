import { appError } from '@tessera/errors';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../clock.js';
import { pickLocale, renderParts, translator } from './render.js';
import { MailDeliveryError, type MailSender } from './sender.js';
import type { AnyTemplate, TemplateData, TemplateName } from './templates.js';

/** What the mailer needs to refuse mail to bounced addresses and to record new refusals. */
export interface BounceLog {
  latest(email: string): Promise<{ type: 'hard' | 'soft' | 'complaint'; createdAt: number } | null>;
  record(email: string, type: 'hard' | 'soft' | 'complaint', detail: string, now: number): Promise<void>;
}

export interface MailerDeps {
  sender: MailSender;
  bounces: BounceLog;
  clock: Clock;
  log: FastifyBaseLogger;
  /** A soft bounce pauses mail to the address for this long. */
  softBounceMs: number;
  /**
   * Outside production, messages carry their code and link in X-Tessera-Code / X-Tessera-Link
   * headers (tests and the CLI read them). Production never puts them anywhere but the body.
   */
  revealCodes: boolean;
  /** Every template it may send: those the composed domains declare (their manifests' `emails`). */
  templates: Record<string, AnyTemplate>;
}

/**
 * Renders a template in the recipient's language and delivers it. Refuses addresses that hard
 * bounced or complained (134/133) and recently soft-bounced ones (135); a failed delivery is
 * recorded and answered with 151 (422 when refused, 500 when the mail server is unreachable).
 */
export class Mailer {
  constructor(private readonly deps: MailerDeps) {}

  async send<N extends TemplateName>(name: N, to: string, locale: string | null, data: TemplateData<N>): Promise<void> {
    const now = this.deps.clock.now();
    const bounce = await this.deps.bounces.latest(to);
    if (bounce?.type === 'complaint') throw appError('BOUNCE_COMPLAINT', { bouncedAt: bounce.createdAt });
    if (bounce?.type === 'hard') throw appError('BOUNCE_HARD', { bouncedAt: bounce.createdAt });
    if (bounce?.type === 'soft' && now - bounce.createdAt < this.deps.softBounceMs) throw appError('BOUNCE_SOFT', { bouncedAt: bounce.createdAt });

    const template = this.deps.templates[name];
    if (!template) throw new Error(`no email template ${name}: its domain is not composed`);
    const t = translator(pickLocale(locale), template.strings);
    const content = template.content(t, data);
    const { text, html } = renderParts(content, t, to);
    const code = this.deps.revealCodes ? template.code?.(data) : undefined;
    const headers = this.deps.revealCodes ? template.headers(data) : {};
    try {
      await this.deps.sender.send({ to, subject: content.subject, text, html, template: name, headers, ...(code ? { code } : {}) });
    } catch (err) {
      if (err instanceof MailDeliveryError) {
        if (err.kind !== 'transport') await this.deps.bounces.record(to, err.kind, err.message.slice(0, 255), now);
        this.deps.log.warn({ template: name, kind: err.kind, reason: err.message }, 'mail delivery failed');
        throw appError('FAILED_TO_SEND_EMAIL', {}, undefined, err.kind === 'transport' ? 500 : 422);
      }
      throw err;
    }
  }
}
