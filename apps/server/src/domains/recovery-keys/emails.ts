import { defineTemplate, type TimeData } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'recoveryKeyCreated.subject': 'Account recovery key created',
  'recoveryKeyCreated.heading': 'Recovery key created',
  'recoveryKeyCreated.body': 'A recovery key was created for your Tessera account at {time} (UTC). If you forget your password, it lets you reset it without losing your encrypted data. Any earlier recovery key no longer works.',
  'recoveryKeyCreated.notYou': 'If you did not create it, someone is signed in to your account: change your password and remove the key in your account settings.',
  'recoveryKeyRemoved.subject': 'Account recovery key removed',
  'recoveryKeyRemoved.heading': 'Recovery key removed',
  'recoveryKeyRemoved.body': 'The recovery key of your Tessera account was removed at {time} (UTC). If you forget your password now, resetting it will make your encrypted data unreadable.',
  'recoveryKeyRemoved.notYou': 'If you did not remove it, someone is signed in to your account: change your password and create a new recovery key.',
  'recoveryKeyUsed.subject': 'Your password was reset with your recovery key',
  'recoveryKeyUsed.heading': 'Password reset with recovery key',
  'recoveryKeyUsed.body': 'The password of your Tessera account was reset with its recovery key at {time} (UTC). Your encrypted data was kept. All your devices were signed out: sign in again with the new password.',
  'recoveryKeyUsed.newKey': 'That recovery key is now used up: create a new one in your account settings, and store it somewhere safe.',
};
const strings = { en };

export const EMAILS = {
  recoveryKeyCreated: defineTemplate<TimeData>({
    strings,
    sentWhen: 'A recovery key was stored and counts: `POST /recoveryKey` with `enabled` (the default; also when it replaces a key), or `/recoveryKey/verify` confirming a pending one.',
    content: (t, d) => ({ subject: t('recoveryKeyCreated.subject'), heading: t('recoveryKeyCreated.heading'), paragraphs: [t('recoveryKeyCreated.body', { time: d.time }), t('recoveryKeyCreated.notYou')] }),
    headers: () => ({}),
  }),
  recoveryKeyRemoved: defineTemplate<TimeData>({
    strings,
    sentWhen: '`DELETE /recoveryKey` deleted a key that counted.',
    content: (t, d) => ({ subject: t('recoveryKeyRemoved.subject'), heading: t('recoveryKeyRemoved.heading'), paragraphs: [t('recoveryKeyRemoved.body', { time: d.time }), t('recoveryKeyRemoved.notYou')] }),
    headers: () => ({}),
  }),
  recoveryKeyUsed: defineTemplate<TimeData>({
    strings,
    sentWhen: 'After `/account/reset` with a recovery key (instead of `passwordReset`): the password was reset, the data stayed readable, and the key is spent.',
    content: (t, d) => ({ subject: t('recoveryKeyUsed.subject'), heading: t('recoveryKeyUsed.heading'), paragraphs: [t('recoveryKeyUsed.body', { time: d.time }), t('recoveryKeyUsed.newKey')] }),
    headers: () => ({}),
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
