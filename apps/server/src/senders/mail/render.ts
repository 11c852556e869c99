import { en, type MessageKey } from './locales/en.js';

// Rendering: one layout, two parts (plain text first, HTML second), strings by locale.

const LOCALES: Record<string, Record<MessageKey, string>> = { en };
export const SUPPORTED_LOCALES = Object.keys(LOCALES);

/** Picks the best supported locale from an Accept-Language-style list ("fr-CA, fr;q=0.9, en"). */
export function pickLocale(preference: string | null | undefined): string {
  for (const part of (preference ?? '').split(',')) {
    const tag = part.split(';')[0]!.trim().toLowerCase();
    if (LOCALES[tag]) return tag;
    const base = tag.split('-')[0]!;
    if (LOCALES[base]) return base;
  }
  return 'en';
}

/** A core message key, or one a domain's template brings in its `strings`. */
export type Translate = (key: MessageKey | (string & {}), vars?: Record<string, string | number>) => string;

/**
 * The strings of `locale` (English for a missing one), with a domain template's own strings on top
 * (`extra[locale]`, else `extra.en`). An unknown key throws: a template never sends a raw key.
 */
export function translator(locale: string, extra?: Record<string, Record<string, string>>): Translate {
  const strings: Record<string, string> = { ...(LOCALES[locale] ?? en), ...(extra?.[locale] ?? extra?.en ?? {}) };
  return (key, vars = {}) => {
    const text = strings[key];
    if (text === undefined) throw new Error(`mail string ${key} is not defined`);
    return text.replace(/\{(\w+)\}/g, (_, name: string) => String(vars[name] ?? `{${name}}`));
  };
}

export function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** What a template decides; the layout turns it into the text and HTML parts. */
export interface MailContent {
  subject: string;
  heading: string;
  paragraphs: string[];
  code?: { value: string; minutes?: number };
  action?: { label: string; url: string };
  /**
   * Whom the footer addresses: the holder of an `account` (default: "change your password" if this
   * was not you), the `address` of a sign-up or a stub that may not be theirs (nothing to change;
   * the body says to ignore it), or a `deleted` account (no password left; the body says what to do).
   */
  footer?: 'account' | 'address' | 'deleted';
}

const expiry = (t: Translate, minutes: number) => (minutes === 1 ? t('code.expiresOne') : t('code.expires', { minutes }));

export function renderParts(content: MailContent, t: Translate, to: string): { text: string; html: string } {
  const footer = content.footer === 'address' ? [t('footer.whyAddress', { email: to })]
    : content.footer === 'deleted' ? [t('footer.why', { email: to })]
    : [t('footer.why', { email: to }), t('footer.notYou')];
  const text = [
    content.heading,
    '',
    ...content.paragraphs.flatMap((p) => [p, '']),
    ...(content.code ? [`${t('code.label')}: ${content.code.value}`, ...(content.code.minutes ? [expiry(t, content.code.minutes)] : []), ''] : []),
    ...(content.action ? [`${content.action.label}: ${content.action.url}`, ''] : []),
    '--',
    ...footer,
  ].join('\n');
  const p = (s: string) => `<p style="margin:0 0 16px;font:16px/1.5 system-ui,sans-serif;color:#20123a">${escapeHtml(s)}</p>`;
  const html = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    `<title>${escapeHtml(content.subject)}</title></head>`,
    '<body style="margin:0;padding:24px;background:#f9f9fb"><main style="max-width:560px;margin:0 auto;background:#fff;padding:32px;border-radius:8px">',
    `<p style="margin:0 0 24px;font:600 14px system-ui,sans-serif;color:#5b5b66">${escapeHtml(t('brand'))}</p>`,
    `<h1 style="margin:0 0 16px;font:600 22px/1.3 system-ui,sans-serif;color:#20123a">${escapeHtml(content.heading)}</h1>`,
    ...content.paragraphs.map(p),
    content.code
      ? `<p style="margin:0 0 8px;font:14px system-ui,sans-serif;color:#5b5b66">${escapeHtml(t('code.label'))}</p>` +
        `<p style="margin:0 0 16px;font:700 28px/1.2 ui-monospace,monospace;letter-spacing:4px;color:#20123a">${escapeHtml(content.code.value)}</p>` +
        (content.code.minutes ? p(expiry(t, content.code.minutes)) : '')
      : '',
    content.action
      ? `<p style="margin:24px 0"><a href="${escapeHtml(content.action.url)}" style="display:inline-block;padding:12px 20px;background:#0060df;color:#fff;border-radius:4px;font:600 16px system-ui,sans-serif;text-decoration:none">${escapeHtml(content.action.label)}</a></p>`
      : '',
    `<hr style="border:0;border-top:1px solid #e0e0e6;margin:24px 0"><footer>${footer.map((f) => `<p style="margin:0 0 8px;font:13px/1.4 system-ui,sans-serif;color:#5b5b66">${escapeHtml(f)}</p>`).join('')}</footer>`,
    '</main></body></html>',
  ].join('');
  return { text, html };
}
