import { defineTemplate, type LinkData, type CodeData, type DeviceData, type TimeData } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'unblockCode.subject': 'Your sign-in unblock code: {code}',
  'unblockCode.heading': 'Unblock your sign-in',
  'unblockCode.body': 'Sign-ins to your account from {device} were paused after too many attempts. If you are signing in, enter this code.',
  'unblockCode.notYou': 'If this is not you, someone may know or be guessing your password: do not share the code, and change your password.',
  'finishSetup.subject': 'Finish setting up your account',
  'finishSetup.heading': 'A Tessera account was created for this address',
  'finishSetup.body': 'Choose a password to finish setting it up. If you did not ask for an account, ignore this email: nothing happens without your password.',
  'finishSetup.action': 'Choose a password',
  'accountDeleted.subject': 'Your account has been deleted',
  'accountDeleted.heading': 'Account deleted',
  'accountDeleted.body': 'Your Tessera account and everything stored with it were deleted at {time} (UTC), from a signed-in session that gave the account password. This cannot be undone.',
  'accountDeleted.notYou': 'If you did not delete it, someone knew your password: change it wherever else you use it. This address is free again for a new account.',
};
const strings = { en };

export const EMAILS = {
  unblockCode: defineTemplate<CodeData & DeviceData>({
    strings,
    sentWhen: '`POST /account/login/send_unblock_code`, after rate limiting blocked a sign-in (400/125 with `verificationMethod: email-captcha`): an 8-character code; a sign-in with it passes the block and needs no further confirmation.',
    content: (t, d) => ({ subject: t('unblockCode.subject', { code: d.code }), heading: t('unblockCode.heading'), paragraphs: [t('unblockCode.body', { device: d.device }), t('unblockCode.notYou')], code: { value: d.code, minutes: d.minutes } }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  finishSetup: defineTemplate<LinkData>({
    strings,
    sentWhen: '`POST /account/stub` with `wantsSetupToken`: a link to the page where the person chooses the first password of the account made for them (the setup token travels only in this link).',
    content: (t, d) => ({ subject: t('finishSetup.subject'), heading: t('finishSetup.heading'), paragraphs: [t('finishSetup.body')], action: { label: t('finishSetup.action'), url: d.link }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Link': d.link }),
  }),
  accountDeleted: defineTemplate<TimeData>({
    strings,
    sentWhen: 'After `/account/destroy`: the account is gone, so this notice stands in for its security events. Its delivery failing does not fail the deletion.',
    content: (t, d) => ({ subject: t('accountDeleted.subject'), heading: t('accountDeleted.heading'), paragraphs: [t('accountDeleted.body', { time: d.time }), t('accountDeleted.notYou')], footer: 'deleted' }),
    headers: () => ({}),
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
