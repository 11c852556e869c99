import { defineTemplate, type LinkData, type CodeData, type TimeData } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'passwordForgotOtp.subject': 'Your password reset code: {code}',
  'passwordForgotOtp.heading': 'Reset your password',
  'passwordForgotOtp.body': 'Use this code to reset your password. Anyone with it can reset your password, so don’t share it.',
  'recoveryEmail.subject': 'Reset your password',
  'recoveryEmail.heading': 'You asked to reset your password',
  'recoveryEmail.body': 'Open the link to choose a new password, or enter the code where you asked for the reset.',
  'recoveryEmail.bodyCodeOnly': 'Enter this code where you asked for the reset to choose a new password.',
  'recoveryEmail.keys': 'A reset replaces your encryption keys: data that only your old password protected cannot be read any more. If you did not ask for a reset, ignore this email and your password stays as it is.',
  'recoveryEmail.action': 'Reset password',
  'passwordChanged.subject': 'Your password has been changed',
  'passwordChanged.heading': 'Password changed',
  'passwordChanged.body': 'The password of your Tessera account was changed at {time} (UTC). Your other devices were signed out.',
  'passwordReset.subject': 'Your password has been reset',
  'passwordReset.heading': 'Password reset',
  'passwordReset.body': 'The password of your Tessera account was reset at {time} (UTC). All your devices were signed out: sign in again with the new password.',
};
const strings = { en };

export const EMAILS = {
  passwordForgotOtp: defineTemplate<CodeData>({
    strings,
    sentWhen: '`POST /password/forgot/send_otp`: an 8-digit code for `/password/forgot/verify_otp`.',
    content: (t, d) => ({ subject: t('passwordForgotOtp.subject', { code: d.code }), heading: t('passwordForgotOtp.heading'), paragraphs: [t('passwordForgotOtp.body')], code: { value: d.code, minutes: d.minutes } }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  recoveryEmail: defineTemplate<Partial<LinkData> & CodeData>({
    strings,
    sentWhen: '`POST /password/forgot/send_code`: the reset code and a link to the reset page carrying it; `/resend_code`: a new code for the token the client holds (no link).',
    content: (t, d) => ({
      subject: t('recoveryEmail.subject'), heading: t('recoveryEmail.heading'),
      // A resent code comes without a link: the first sentence must not speak of one.
      paragraphs: [t(d.link ? 'recoveryEmail.body' : 'recoveryEmail.bodyCodeOnly'), t('recoveryEmail.keys')],
      code: { value: d.code, minutes: d.minutes }, ...(d.link ? { action: { label: t('recoveryEmail.action'), url: d.link } } : {}),
    }),
    headers: (d) => ({ ...(d.link ? { 'X-Tessera-Link': d.link } : {}), 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  passwordChanged: defineTemplate<TimeData>({
    strings,
    sentWhen: 'After `/password/change/finish` (not for a v1→v2 upgrade): a notice that other sessions were ended.',
    content: (t, d) => ({ subject: t('passwordChanged.subject'), heading: t('passwordChanged.heading'), paragraphs: [t('passwordChanged.body', { time: d.time })] }),
    headers: () => ({}),
  }),
  passwordReset: defineTemplate<TimeData>({
    strings,
    sentWhen: 'After `/account/reset`: a notice that every session was ended.',
    content: (t, d) => ({ subject: t('passwordReset.subject'), heading: t('passwordReset.heading'), paragraphs: [t('passwordReset.body', { time: d.time })] }),
    headers: () => ({}),
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
