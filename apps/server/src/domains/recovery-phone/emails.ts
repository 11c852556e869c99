import { defineTemplate, type TimeData, type PhoneData } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'recoveryPhoneAdded.subject': 'Recovery phone added',
  'recoveryPhoneAdded.heading': 'Recovery phone added',
  'recoveryPhoneAdded.body': 'The phone number {phone} became the recovery phone of your Tessera account at {time} (UTC). When you sign in without your authenticator app, a code sent to it by SMS can stand in for the app.',
  'recoveryPhoneAdded.notYou': 'If you did not add it, someone is signed in to your account: change your password and remove the phone.',
  'recoveryPhoneChanged.subject': 'Recovery phone changed',
  'recoveryPhoneChanged.heading': 'Recovery phone changed',
  'recoveryPhoneChanged.body': 'The recovery phone of your Tessera account became {phone} at {time} (UTC). Codes are no longer sent to the earlier number.',
  'recoveryPhoneChanged.notYou': 'If you did not change it, someone is signed in to your account: change your password and check your two-step settings.',
  'recoveryPhoneRemoved.subject': 'Recovery phone removed',
  'recoveryPhoneRemoved.heading': 'Recovery phone removed',
  'recoveryPhoneRemoved.body': 'The recovery phone {phone} was removed from your Tessera account at {time} (UTC).',
  'recoveryPhoneRemoved.notYou': 'If you did not remove it, someone is signed in to your account: change your password.',
  'recoveryPhoneUsed.subject': 'Recovery phone used',
  'recoveryPhoneUsed.heading': 'Your recovery phone was used',
  'recoveryPhoneUsed.signin': 'A code sent to your recovery phone {phone} completed a sign-in to your Tessera account at {time} (UTC).',
  'recoveryPhoneUsed.reset': 'A code sent to your recovery phone {phone} was used to reset the password of your Tessera account at {time} (UTC).',
  'recoveryPhoneUsed.notYou': 'If this was not you, someone has your password and your phone\'s messages: change your password now.',
};
const strings = { en };

export const EMAILS = {
  recoveryPhoneAdded: defineTemplate<TimeData & PhoneData>({
    strings,
    sentWhen: '`/recovery_phone/confirm` (or its /mfa variant) confirmed a new recovery phone.',
    content: (t, d) => ({ subject: t('recoveryPhoneAdded.subject'), heading: t('recoveryPhoneAdded.heading'), paragraphs: [t('recoveryPhoneAdded.body', { time: d.time, phone: d.phone }), t('recoveryPhoneAdded.notYou')] }),
    headers: () => ({}),
  }),
  recoveryPhoneChanged: defineTemplate<TimeData & PhoneData>({
    strings,
    sentWhen: '`/mfa/recovery_phone/change` replaced the recovery phone.',
    content: (t, d) => ({ subject: t('recoveryPhoneChanged.subject'), heading: t('recoveryPhoneChanged.heading'), paragraphs: [t('recoveryPhoneChanged.body', { time: d.time, phone: d.phone }), t('recoveryPhoneChanged.notYou')] }),
    headers: () => ({}),
  }),
  recoveryPhoneRemoved: defineTemplate<TimeData & PhoneData>({
    strings,
    sentWhen: '`DELETE /recovery_phone` (or its /mfa variant) removed the recovery phone. Turning two-step authentication off removes it too (that email says so).',
    content: (t, d) => ({ subject: t('recoveryPhoneRemoved.subject'), heading: t('recoveryPhoneRemoved.heading'), paragraphs: [t('recoveryPhoneRemoved.body', { time: d.time, phone: d.phone }), t('recoveryPhoneRemoved.notYou')] }),
    headers: () => ({}),
  }),
  recoveryPhoneUsed: defineTemplate<TimeData & PhoneData & { during: 'signin' | 'reset' }>({
    strings,
    sentWhen: 'A code sent to the recovery phone confirmed a sign-in (`/recovery_phone/signin/confirm`) or stood in for the second factor of a password reset (`/recovery_phone/reset_password/confirm`).',
    content: (t, d) => ({ subject: t('recoveryPhoneUsed.subject'), heading: t('recoveryPhoneUsed.heading'), paragraphs: [t(d.during === 'signin' ? 'recoveryPhoneUsed.signin' : 'recoveryPhoneUsed.reset', { time: d.time, phone: d.phone }), t('recoveryPhoneUsed.notYou')] }),
    headers: () => ({}),
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
