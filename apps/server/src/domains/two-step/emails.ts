import { defineTemplate, type TimeData } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'twoStepEnabled.subject': 'Two-step authentication enabled',
  'twoStepEnabled.heading': 'Two-step authentication enabled',
  'twoStepEnabled.body': 'Two-step authentication was turned on for your Tessera account at {time} (UTC). From now on, signing in also needs a code from your authenticator app or one of your backup codes.',
  'twoStepEnabled.notYou': 'If you did not turn it on, someone is signed in to your account: change your password now.',
  'twoStepReplaced.subject': 'Your authenticator app was replaced',
  'twoStepReplaced.heading': 'Authenticator app replaced',
  'twoStepReplaced.body': 'A new authenticator app was set up for your Tessera account at {time} (UTC). Codes from the previous app no longer work.',
  'twoStepReplaced.notYou': 'If you did not do this, someone is signed in to your account: change your password now.',
  'twoStepDisabled.subject': 'Two-step authentication disabled',
  'twoStepDisabled.heading': 'Two-step authentication disabled',
  'twoStepDisabled.body': 'Two-step authentication was turned off for your Tessera account at {time} (UTC). Signing in now needs only your password (and, sometimes, a code sent by email). Your backup codes no longer work.',
  'twoStepDisabled.notYou': 'If you did not turn it off, someone is signed in to your account: change your password and turn two-step authentication on again.',
  'backupCodesReplaced.subject': 'New backup codes were created',
  'backupCodesReplaced.heading': 'Backup codes replaced',
  'backupCodesReplaced.body': 'New backup authentication codes were created for your Tessera account at {time} (UTC). Your previous codes no longer work.',
  'backupCodesReplaced.notYou': 'If you did not do this, someone is signed in to your account: change your password now.',
  'backupCodeUsed.subject': 'A backup code was used',
  'backupCodeUsed.heading': 'Backup code used',
  'backupCodeUsed.body': 'One of the backup codes of your Tessera account was used at {time} (UTC). Codes left: {remaining}.',
  'backupCodeUsed.low': 'You are running low on backup codes: create new ones in your account settings before you run out.',
  'backupCodeUsed.notYou': 'If you did not use it, someone knows your password and has your codes: change your password and create new backup codes.',
};
const strings = { en };

export const EMAILS = {
  twoStepEnabled: defineTemplate<TimeData>({
    strings,
    sentWhen: '`/totp/setup/complete` turned two-step authentication on.',
    content: (t, d) => ({ subject: t('twoStepEnabled.subject'), heading: t('twoStepEnabled.heading'), paragraphs: [t('twoStepEnabled.body', { time: d.time }), t('twoStepEnabled.notYou')] }),
    headers: () => ({}),
  }),
  twoStepReplaced: defineTemplate<TimeData>({
    strings,
    sentWhen: '`/totp/replace/confirm` replaced the authenticator app.',
    content: (t, d) => ({ subject: t('twoStepReplaced.subject'), heading: t('twoStepReplaced.heading'), paragraphs: [t('twoStepReplaced.body', { time: d.time }), t('twoStepReplaced.notYou')] }),
    headers: () => ({}),
  }),
  twoStepDisabled: defineTemplate<TimeData>({
    strings,
    sentWhen: '`/totp/destroy` turned two-step authentication off.',
    content: (t, d) => ({ subject: t('twoStepDisabled.subject'), heading: t('twoStepDisabled.heading'), paragraphs: [t('twoStepDisabled.body', { time: d.time }), t('twoStepDisabled.notYou')] }),
    headers: () => ({}),
  }),
  backupCodesReplaced: defineTemplate<TimeData>({
    strings,
    sentWhen: '`GET`, `POST` or `PUT /recoveryCodes` replaced the backup codes.',
    content: (t, d) => ({ subject: t('backupCodesReplaced.subject'), heading: t('backupCodesReplaced.heading'), paragraphs: [t('backupCodesReplaced.body', { time: d.time }), t('backupCodesReplaced.notYou')] }),
    headers: () => ({}),
  }),
  backupCodeUsed: defineTemplate<TimeData & { remaining: number; low: boolean }>({
    strings,
    sentWhen: 'A backup code was used (`/session/verify/recoveryCode` or `/totp/verify/recoveryCode`); when RECOVERY_CODE_NOTIFY_LOW_COUNT (2) or fewer remain, it asks for new ones.',
    content: (t, d) => ({
      subject: t('backupCodeUsed.subject'), heading: t('backupCodeUsed.heading'),
      paragraphs: [t('backupCodeUsed.body', { time: d.time, remaining: String(d.remaining) }), ...(d.low ? [t('backupCodeUsed.low')] : []), t('backupCodeUsed.notYou')],
    }),
    headers: (d) => ({ 'X-Tessera-Remaining': String(d.remaining) }),
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
