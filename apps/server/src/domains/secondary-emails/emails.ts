import { defineTemplate, type CodeData } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'verifySecondaryCode.subject': 'Your secondary email confirmation code: {code}',
  'verifySecondaryCode.heading': 'Confirm your secondary email',
  'verifySecondaryCode.body': 'The Tessera account {primary} wants to add this address as a secondary email. If that is you, enter this code where you added it. If not, ignore this email: the address is not added without the code.',
  'secondaryEmailAdded.subject': 'A secondary email was added to your account',
  'secondaryEmailAdded.heading': 'Secondary email added',
  'secondaryEmailAdded.body': '{secondary} was added to your Tessera account as a secondary email. It becomes usable once it is confirmed with the code sent to it.',
  'secondaryEmailVerified.subject': 'Your secondary email is confirmed',
  'secondaryEmailVerified.heading': 'Secondary email confirmed',
  'secondaryEmailVerified.body': '{secondary} is now a confirmed secondary email of your Tessera account. It can be made the primary address of the account.',
  'secondaryEmailRemoved.subject': 'A secondary email was removed from your account',
  'secondaryEmailRemoved.heading': 'Secondary email removed',
  'secondaryEmailRemoved.body': '{secondary} is no longer an email of your Tessera account.',
  'primaryEmailChanged.subject': 'Your primary email was changed',
  'primaryEmailChanged.heading': 'Primary email changed',
  'primaryEmailChanged.body': 'The primary email of your Tessera account is now {newPrimary} (it was {oldPrimary}). Sign in and account emails use the new address; the old one stays on the account as a secondary email.',
};
const strings = { en };

export const EMAILS = {
  verifySecondaryCode: defineTemplate<CodeData & { primary: string }>({
    strings,
    sentWhen: '`POST /recovery_email` and `/recovery_email/secondary/resend_code`: a 6-digit code for `/recovery_email/secondary/verify_code`, sent to the secondary address being added (and to nothing else: the address is unproven).',
    content: (t, d) => ({ subject: t('verifySecondaryCode.subject', { code: d.code }), heading: t('verifySecondaryCode.heading'), paragraphs: [t('verifySecondaryCode.body', { primary: d.primary })], code: { value: d.code, minutes: d.minutes }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  secondaryEmailAdded: defineTemplate<{ secondary: string }>({
    strings,
    sentWhen: 'After `POST /recovery_email`, to the primary address: a secondary address was added and is waiting for confirmation.',
    content: (t, d) => ({ subject: t('secondaryEmailAdded.subject'), heading: t('secondaryEmailAdded.heading'), paragraphs: [t('secondaryEmailAdded.body', { secondary: d.secondary })] }),
    headers: () => ({}),
  }),
  secondaryEmailVerified: defineTemplate<{ secondary: string }>({
    strings,
    sentWhen: 'After `/recovery_email/secondary/verify_code`, to the primary address: the secondary address is confirmed.',
    content: (t, d) => ({ subject: t('secondaryEmailVerified.subject'), heading: t('secondaryEmailVerified.heading'), paragraphs: [t('secondaryEmailVerified.body', { secondary: d.secondary })] }),
    headers: () => ({}),
  }),
  secondaryEmailRemoved: defineTemplate<{ secondary: string }>({
    strings,
    sentWhen: 'After `/recovery_email/destroy`, to the primary address: a secondary address was removed.',
    content: (t, d) => ({ subject: t('secondaryEmailRemoved.subject'), heading: t('secondaryEmailRemoved.heading'), paragraphs: [t('secondaryEmailRemoved.body', { secondary: d.secondary })] }),
    headers: () => ({}),
  }),
  primaryEmailChanged: defineTemplate<{ oldPrimary: string; newPrimary: string }>({
    strings,
    sentWhen: 'After `/recovery_email/set_primary`, to the old and to the new primary address: sign-in and account email now use the new address.',
    content: (t, d) => ({ subject: t('primaryEmailChanged.subject'), heading: t('primaryEmailChanged.heading'), paragraphs: [t('primaryEmailChanged.body', { oldPrimary: d.oldPrimary, newPrimary: d.newPrimary })] }),
    headers: () => ({}),
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
