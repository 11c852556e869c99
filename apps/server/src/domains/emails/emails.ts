import { defineTemplate, type LinkData, type CodeData, type DeviceData, type TimeData } from '../../senders/mail/templates.js';

// The emails this domain sends (its manifest's `emails`), with their English strings. The portal's
// emails page lists them; the layout, footer and code strings every email shares are the mailer's
// (senders/mail/render.ts, locales/).

/** English strings of these templates (`{name}` placeholders are filled from the data, HTML-escaped). */
const en = {
  'verify.subject': 'Confirm your email address',
  'verify.heading': 'Confirm your email to finish creating your account',
  'verify.body': 'Confirm that this address is yours to finish creating your Tessera account. If you did not create an account, ignore this email.',
  'verify.action': 'Confirm email',
  'verifyShortCode.subject': 'Your account confirmation code: {code}',
  'verifyShortCode.heading': 'Confirm your email',
  'verifyShortCode.body': 'Enter this code where you created your Tessera account to confirm this address. If you did not create an account, ignore this email.',
  'verifyLogin.subject': 'Confirm your sign-in',
  'verifyLogin.heading': 'Was that you signing in?',
  'verifyLogin.body': 'A new sign-in to your Tessera account from {device} is waiting for your confirmation. Confirm it only if it was you.',
  'verifyLogin.action': 'Confirm sign-in',
  'verifyLoginCode.subject': 'Sign-in code: {code}',
  'verifyLoginCode.heading': 'Confirm your sign-in',
  'verifyLoginCode.body': 'Enter this code to confirm the sign-in to your Tessera account from {device}.',
  'newDeviceLogin.subject': 'New sign-in to your account',
  'newDeviceLogin.heading': 'A new device signed in to your account',
  'newDeviceLogin.body': 'Your Tessera account was signed in from {device} at {time} (UTC). If that was you, there is nothing to do.',
};
const strings = { en };

export const EMAILS = {
  verify: defineTemplate<LinkData & { code: string }>({
    strings,
    sentWhen: 'Sign-up (and sign-in to an unconfirmed account) with verificationMethod `email` or none, and `/recovery_email/resend_code`: a link that confirms the address.',
    content: (t, d) => ({ subject: t('verify.subject'), heading: t('verify.heading'), paragraphs: [t('verify.body')], action: { label: t('verify.action'), url: d.link }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Link': d.link, 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  verifyShortCode: defineTemplate<CodeData>({
    strings,
    sentWhen: 'Sign-up (and sign-in to an unconfirmed account) with verificationMethod `email-otp`, and `/session/resend_code` while the address is unconfirmed: a 6-digit code for `/session/verify_code`.',
    content: (t, d) => ({ subject: t('verifyShortCode.subject', { code: d.code }), heading: t('verifyShortCode.heading'), paragraphs: [t('verifyShortCode.body')], code: { value: d.code, minutes: d.minutes }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  verifyLogin: defineTemplate<LinkData & DeviceData & { code: string }>({
    strings,
    sentWhen: 'A sign-in that needs confirmation with verificationMethod `email` or none, and `/recovery_email/resend_code` for it: a link that confirms that session.',
    content: (t, d) => ({ subject: t('verifyLogin.subject'), heading: t('verifyLogin.heading'), paragraphs: [t('verifyLogin.body', { device: d.device })], action: { label: t('verifyLogin.action'), url: d.link } }),
    headers: (d) => ({ 'X-Tessera-Link': d.link, 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  verifyLoginCode: defineTemplate<CodeData & DeviceData>({
    strings,
    sentWhen: 'A sign-in that needs confirmation with verificationMethod `email-otp`, `email-2fa` or `email-captcha`, and `/session/resend_code`: a 6-digit code.',
    content: (t, d) => ({ subject: t('verifyLoginCode.subject', { code: d.code }), heading: t('verifyLoginCode.heading'), paragraphs: [t('verifyLoginCode.body', { device: d.device })], code: { value: d.code, minutes: d.minutes } }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  newDeviceLogin: defineTemplate<DeviceData & TimeData>({
    strings,
    sentWhen: 'After a sign-in is confirmed (by code or link) or needed no confirmation: a notice naming the device. Its delivery failing does not fail the sign-in.',
    content: (t, d) => ({ subject: t('newDeviceLogin.subject'), heading: t('newDeviceLogin.heading'), paragraphs: [t('newDeviceLogin.body', { device: d.device, time: d.time })] }),
    headers: () => ({}),
  }),
};

declare module '../../senders/mail/templates.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface TemplateRegistry extends Emails {}
}
type Emails = typeof EMAILS;
