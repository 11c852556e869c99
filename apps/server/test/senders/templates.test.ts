import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderParts, SUPPORTED_LOCALES, translator, type MailContent, type Translate } from '../../src/senders/mail/render.js';
import { DOMAINS } from '../../src/app.js';
import { composeDeclarations } from '../../src/composition.js';
import type { AnyTemplate, TemplateData, TemplateName, TemplateRegistry } from '../../src/senders/mail/templates.js';
// @ts-expect-error: a plain .mjs helper of the portal's generators, without types
import { cell } from '../../../portal/scripts/markdown.mjs';

// Issue 10: every email, in every language and every state its data allows, reads as whole
// sentences about Tessera: no unfilled `{placeholder}`, no `undefined`, no heading cut off
// mid-sentence ("…signed in to"), no first sentence speaking of a link that the message lacks.

/** Every template the composed domains declare (each domain's emails.ts). */
const TEMPLATES = composeDeclarations(DOMAINS).emails as unknown as TemplateRegistry;
/** The strings of `locale` with the template's own on top. */
const translatorFor = (locale: string, name: TemplateName) => translator(locale, (TEMPLATES[name] as AnyTemplate).strings);

/** Full data for each template; the optional keys below are then left out in every combination. */
const SAMPLES: { [N in TemplateName]: TemplateData<N> } = {
  verify: { link: 'https://accounts.example/verify_email?uid=0a&code=1b', code: '0123456789abcdef0123456789abcdef' },
  verifyShortCode: { code: '123456', minutes: 20 },
  verifyLogin: { link: 'https://accounts.example/verify_email?uid=0a&code=2c', code: 'fedcba9876543210fedcba9876543210', device: 'Firefox on Linux' },
  verifyLoginCode: { code: '654321', minutes: 20, device: 'Firefox on Linux' },
  newDeviceLogin: { device: 'Firefox on Linux', time: '2026-11-22 10:00' },
  passwordForgotOtp: { code: '12345678', minutes: 10 },
  mfaOtp: { code: '246810', minutes: 5, action: 'recovery_key' },
  recoveryEmail: { link: 'https://accounts.example/complete_reset_password?email=a%40example.com&code=12345678&token=ab', code: '12345678', minutes: 60 },
  unblockCode: { code: 'ABCD1234', minutes: 60, device: 'Firefox on Linux' },
  finishSetup: { link: 'https://accounts.example/finish_setup?email=a%40example.com&token=a.b.c' },
  passwordChanged: { time: '2026-11-22 10:00' },
  passwordReset: { time: '2026-11-22 10:00' },
  recoveryKeyCreated: { time: '2026-11-22 10:00' },
  recoveryKeyRemoved: { time: '2026-11-22 10:00' },
  recoveryKeyUsed: { time: '2026-11-22 10:00' },
  accountDeleted: { time: '2026-11-22 10:00' },
  twoStepEnabled: { time: '2026-11-22 10:00' },
  twoStepReplaced: { time: '2026-11-22 10:00' },
  twoStepDisabled: { time: '2026-11-22 10:00' },
  backupCodesReplaced: { time: '2026-11-22 10:00' },
  backupCodeUsed: { time: '2026-11-22 10:00', remaining: 2, low: true },
  verifySecondaryCode: { code: '123456', minutes: 10, primary: 'a@example.com' },
  secondaryEmailAdded: { secondary: 'b@example.com' },
  secondaryEmailVerified: { secondary: 'b@example.com' },
  secondaryEmailRemoved: { secondary: 'b@example.com' },
  primaryEmailChanged: { oldPrimary: 'a@example.com', newPrimary: 'b@example.com' },
  recoveryPhoneAdded: { time: '2026-11-22 10:00', phone: '+1••••••0123' },
  recoveryPhoneChanged: { time: '2026-11-22 10:00', phone: '+1••••••0123' },
  recoveryPhoneRemoved: { time: '2026-11-22 10:00', phone: '+1••••••0123' },
  recoveryPhoneUsed: { time: '2026-11-22 10:00', phone: '+1••••••0123', during: 'signin' },
};

type OptionalKeys<T> = { [K in keyof T]-?: object extends Pick<T, K> ? K : never }[keyof T];
const OPTIONAL = { recoveryEmail: ['link'] } as const satisfies { [N in TemplateName]?: readonly OptionalKeys<TemplateData<N>>[] };
type Listed<N extends TemplateName> = N extends keyof typeof OPTIONAL ? (typeof OPTIONAL)[N][number] : never;
// Compile-time: a template that gains an optional field fails here until the field is listed above.
const everyOptionalListed: { [N in TemplateName]: Exclude<OptionalKeys<TemplateData<N>>, Listed<N>> } = {} as { [N in TemplateName]: never };
void everyOptionalListed;

/** Every subset of the optional keys left out of the full sample, each with a readable name. */
function states(name: TemplateName): Array<[string, Record<string, unknown>]> {
  const optional: readonly string[] = (OPTIONAL as Record<string, readonly string[]>)[name] ?? [];
  const out: Array<[string, Record<string, unknown>]> = [];
  for (let mask = 0; mask < 1 << optional.length; mask++) {
    const data: Record<string, unknown> = { ...SAMPLES[name] };
    const unset = optional.filter((_, i) => mask & (1 << i));
    for (const key of unset) delete data[key];
    out.push([unset.length ? `without ${unset.join(', ')}` : 'with every field', data]);
    // Codes expire in minutes: one minute is singular.
    if ('minutes' in data) out.push([`${out.at(-1)![0]}, 1 minute`, { ...data, minutes: 1 }]);
  }
  return out;
}

// Words a sentence or heading cannot end on (it was cut off).
const DANGLING = /(?<![\w-])(?:to|from|for|of|in|on|at|by|with|into|about|the|a|an|and|or|but|your|this|that)$/i;
const FILLER = /\{\w*\}|\bundefined\b|\bnull\b|\bNaN\b|\[object Object\]/;
const SPOKEN_OF = /\bsync(?:ed|ing)?\b|\bfirefox account|\bmozilla\b/i;

function readsWhole(content: MailContent, label: string): void {
  for (const [what, s] of [['subject', content.subject], ['heading', content.heading]] as const) {
    expect(s.trim(), `${label}: ${what}`).not.toBe('');
    expect(s, `${label}: ${what} has no filler`).not.toMatch(FILLER);
    // A question may end on a particle ("Was that you signing in?"); a statement may not.
    if (!s.endsWith('?')) expect(s.replace(/[!.:]$/, ''), `${label}: ${what} "${s}" is not cut off`).not.toMatch(DANGLING);
  }
  expect(content.paragraphs.length, label).toBeGreaterThan(0);
  for (const p of content.paragraphs) {
    expect(p, `${label}: "${p}" has no filler`).not.toMatch(FILLER);
    expect(p, `${label}: "${p}" ends its sentence`).toMatch(/[.!?]$/);
    for (const sentence of p.split(/(?<=[.!?])\s+/)) {
      if (!sentence.endsWith('?')) expect(sentence.replace(/[.!]$/, ''), `${label}: "${sentence}" is not cut off`).not.toMatch(DANGLING);
    }
  }
  for (const s of [content.subject, content.heading, ...content.paragraphs, content.action?.label ?? '']) {
    expect(s, `${label}: speaks of Tessera, not of products it does not have`).not.toMatch(SPOKEN_OF);
  }
}

describe('every email template in every state', () => {
  const to = 'someone@example.com';
  for (const locale of SUPPORTED_LOCALES) {
    for (const name of Object.keys(TEMPLATES) as TemplateName[]) {
      const t = translatorFor(locale, name);
      for (const [state, data] of states(name)) {
        it(`${locale} ${name} ${state}`, () => {
          const template = TEMPLATES[name] as unknown as { content(t: Translate, d: unknown): MailContent };
          const content = template.content(t, data);
          const label = `${locale}/${name} ${state}`;
          readsWhole(content, label);
          // A sentence that speaks of a link needs the link; one that has none must not speak of it.
          const mentionsLink = content.paragraphs.some((p) => /\blink\b/i.test(p));
          if (mentionsLink) expect(content.action, `${label}: speaks of a link only when there is one`).toBeDefined();

          const { text, html } = renderParts(content, t, to);
          for (const part of [text, html]) {
            expect(part, `${label}: no filler in the rendered part`).not.toMatch(FILLER);
            expect(part, `${label}: names the recipient`).toContain(to);
          }
          expect(text.split('\n')[0]).toBe(content.heading);
          for (const p of content.paragraphs) expect(text).toContain(p);
          if (content.action) {
            expect(text).toContain(`${content.action.label}: ${content.action.url}`);
            expect(html).toContain(`href="${content.action.url.replace(/&/g, '&amp;')}"`);
          }
          if (content.code) {
            expect(text).toContain(content.code.value);
            expect(html).toContain(content.code.value);
            if ('minutes' in data) {
              const expires = text.split('\n').find((l) => /expires/.test(l))!;
              expect(expires, label).toMatch(data.minutes === 1 ? /\b1 minute\.$/ : new RegExp(`\\b${String(data.minutes)} minutes\\.$`));
            }
          }
          // Footer sentences, too.
          const footer = text.split('\n--\n')[1]!;
          for (const line of footer.split('\n')) expect(line, `${label}: footer "${line}"`).toMatch(/[.!?]$/);
        });
      }
    }
  }

  it('tells a person to change a password only when they have one that may be known', () => {
    const render = (name: TemplateName) => {
      const t = translatorFor('en', name);
      const template = TEMPLATES[name] as unknown as { content(t: Translate, d: unknown): MailContent };
      return renderParts(template.content(t, SAMPLES[name]), t, 'a@example.com').text;
    };
    // A sign-up or a stub may be someone else's doing: ignoring the email is the whole answer.
    for (const name of ['verify', 'verifyShortCode', 'finishSetup'] as const) {
      expect(render(name), name).not.toMatch(/change your password/i);
      expect(render(name), name).toMatch(/ignore this email/);
    }
    // A deleted account has no password to change; its own paragraph says what to do.
    expect(render('accountDeleted')).not.toMatch(/change your password right away/);
    for (const name of ['newDeviceLogin', 'verifyLogin', 'passwordChanged', 'passwordReset'] as const) {
      expect(render(name), name).toMatch(/change your password right away/);
    }
  });

  it('escapes what the data carries in the HTML part', () => {
    const t = translatorFor('en', 'newDeviceLogin');
    const content = TEMPLATES.newDeviceLogin.content(t, { device: '<script>x</script> & co', time: '2026-11-22 10:00' });
    const { html, text } = renderParts(content, t, 'a"b@example.com');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;x&lt;/script&gt; &amp; co');
    expect(html).toContain('a&quot;b@example.com');
    expect(text).toContain('<script>x</script> & co');
  });

  it("the portal's generated email table matches the templates (npm run generate when this fails)", () => {
    const table = readFileSync(new URL('../../../portal/docs/_generated/emails.md', import.meta.url), 'utf8');
    const rows = table.split('\n').filter((l) => l.startsWith('| `'));
    expect(rows.map((r) => /^\| `(\w+)`/.exec(r)![1])).toEqual(Object.keys(TEMPLATES));
    for (const row of rows) {
      const name = /^\| `(\w+)`/.exec(row)![1] as TemplateName;
      const t = translatorFor('en', name);
      const template = TEMPLATES[name] as unknown as { sentWhen: string; content(t: unknown, d: unknown): MailContent };
      expect(row, name).toContain(cell(template.sentWhen));
      const subject = template.content(t, SAMPLES[name]).subject;
      const code = (SAMPLES[name] as { code?: string }).code;
      expect(row, name).toContain(cell(code ? subject.replace(code, '<code>') : subject));
    }
  });
});
