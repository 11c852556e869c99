import { defineTemplate, type CodeData, type MfaActionName } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'mfaOtp.subject': 'Your security code: {code}',
  'mfaOtp.heading': 'Confirm it’s you',
  'mfaOtp.body': 'Enter this code to confirm that you want to {action} on your Tessera account.',
  'mfaOtp.notYou': 'If you did not ask for it, someone may be signed in to your account: do not share the code, and change your password.',
  'mfaOtp.action.2fa': 'change two-step authentication',
  'mfaOtp.action.email': 'change your email addresses',
  'mfaOtp.action.recovery_key': 'change your account recovery key',
  'mfaOtp.action.password': 'change your password',
  'mfaOtp.action.passkey': 'change your passkeys',
};
const strings = { en };

export const EMAILS = {
  mfaOtp: defineTemplate<CodeData & { action: MfaActionName }>({
    strings,
    sentWhen: '`POST /mfa/otp/request`: a 6-digit code for `/mfa/otp/verify`, which turns it into an MFA token for one protected action (two-step settings, emails, recovery key, password, passkeys).',
    content: (t, d) => ({
      subject: t('mfaOtp.subject', { code: d.code }), heading: t('mfaOtp.heading'),
      paragraphs: [t('mfaOtp.body', { action: t(`mfaOtp.action.${d.action}` satisfies keyof typeof en) }), t('mfaOtp.notYou')],
      code: { value: d.code, minutes: d.minutes },
    }),
    headers: (d) => ({ 'X-Tessera-Code': d.code, 'X-Tessera-Mfa-Action': d.action }),
    code: (d) => d.code,
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
