import type { MailContent, Translate } from './render.js';
import type { MessageKey } from './locales/en.js';

// Every email the server sends, one entry per kind. The portal's reference/emails page is
// generated from this table (name, when it is sent, subject, the data it carries).

export interface Template<D> {
  /** When the server sends it; shown on the reference page. */
  sentWhen: string;
  content(t: Translate, d: D): MailContent;
  /** X-Tessera-* headers for automation. */
  headers(d: D): Record<string, string>;
  /** The one-time code in the message, if any. */
  code?(d: D): string;
  /**
   * Strings of a template a domain contributes from its own folder (its manifest's `emails`), by
   * locale then key; `en` is required. The core templates' strings are in locales/.
   */
  strings?: Record<string, Record<string, string>>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTemplate = Template<any>;

/** Declares a template (a domain's manifest lists them under `emails`). */
export const defineTemplate = <D>(t: Template<D>): Template<D> => t;

interface LinkData { link: string }
interface CodeData { code: string; minutes: number }
interface DeviceData { device: string }
interface TimeData { time: string }
/** A recovery phone number, masked (`+1••••••0123`). */
interface PhoneData { phone: string }
/** The protected actions of an MFA step-up code (protocol.md §4.10). */
type MfaActionName = '2fa' | 'email' | 'recovery_key' | 'password' | 'passkey';

const define = <D>(t: Template<D>) => t;

export const TEMPLATES = {
  verify: define<LinkData & { code: string }>({
    sentWhen: 'Sign-up (and sign-in to an unconfirmed account) with verificationMethod `email` or none, and `/recovery_email/resend_code`: a link that confirms the address.',
    content: (t, d) => ({ subject: t('verify.subject'), heading: t('verify.heading'), paragraphs: [t('verify.body')], action: { label: t('verify.action'), url: d.link }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Link': d.link, 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  verifyShortCode: define<CodeData>({
    sentWhen: 'Sign-up (and sign-in to an unconfirmed account) with verificationMethod `email-otp`, and `/session/resend_code` while the address is unconfirmed: a 6-digit code for `/session/verify_code`.',
    content: (t, d) => ({ subject: t('verifyShortCode.subject', { code: d.code }), heading: t('verifyShortCode.heading'), paragraphs: [t('verifyShortCode.body')], code: { value: d.code, minutes: d.minutes }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  verifyLogin: define<LinkData & DeviceData & { code: string }>({
    sentWhen: 'A sign-in that needs confirmation with verificationMethod `email` or none, and `/recovery_email/resend_code` for it: a link that confirms that session.',
    content: (t, d) => ({ subject: t('verifyLogin.subject'), heading: t('verifyLogin.heading'), paragraphs: [t('verifyLogin.body', { device: d.device })], action: { label: t('verifyLogin.action'), url: d.link } }),
    headers: (d) => ({ 'X-Tessera-Link': d.link, 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  verifyLoginCode: define<CodeData & DeviceData>({
    sentWhen: 'A sign-in that needs confirmation with verificationMethod `email-otp`, `email-2fa` or `email-captcha`, and `/session/resend_code`: a 6-digit code.',
    content: (t, d) => ({ subject: t('verifyLoginCode.subject', { code: d.code }), heading: t('verifyLoginCode.heading'), paragraphs: [t('verifyLoginCode.body', { device: d.device })], code: { value: d.code, minutes: d.minutes } }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  newDeviceLogin: define<DeviceData & TimeData>({
    sentWhen: 'After a sign-in is confirmed (by code or link) or needed no confirmation: a notice naming the device. Its delivery failing does not fail the sign-in.',
    content: (t, d) => ({ subject: t('newDeviceLogin.subject'), heading: t('newDeviceLogin.heading'), paragraphs: [t('newDeviceLogin.body', { device: d.device, time: d.time })] }),
    headers: () => ({}),
  }),
  passwordForgotOtp: define<CodeData>({
    sentWhen: '`POST /password/forgot/send_otp`: an 8-digit code for `/password/forgot/verify_otp`.',
    content: (t, d) => ({ subject: t('passwordForgotOtp.subject', { code: d.code }), heading: t('passwordForgotOtp.heading'), paragraphs: [t('passwordForgotOtp.body')], code: { value: d.code, minutes: d.minutes } }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  mfaOtp: define<CodeData & { action: MfaActionName }>({
    sentWhen: '`POST /mfa/otp/request`: a 6-digit code for `/mfa/otp/verify`, which turns it into an MFA token for one protected action (two-step settings, emails, recovery key, password, passkeys).',
    content: (t, d) => ({
      subject: t('mfaOtp.subject', { code: d.code }), heading: t('mfaOtp.heading'),
      paragraphs: [t('mfaOtp.body', { action: t(`mfaOtp.action.${d.action}` satisfies MessageKey) }), t('mfaOtp.notYou')],
      code: { value: d.code, minutes: d.minutes },
    }),
    headers: (d) => ({ 'X-Tessera-Code': d.code, 'X-Tessera-Mfa-Action': d.action }),
    code: (d) => d.code,
  }),
  recoveryEmail: define<Partial<LinkData> & CodeData>({
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
  unblockCode: define<CodeData & DeviceData>({
    sentWhen: '`POST /account/login/send_unblock_code`, after rate limiting blocked a sign-in (400/125 with `verificationMethod: email-captcha`): an 8-character code; a sign-in with it passes the block and needs no further confirmation.',
    content: (t, d) => ({ subject: t('unblockCode.subject', { code: d.code }), heading: t('unblockCode.heading'), paragraphs: [t('unblockCode.body', { device: d.device }), t('unblockCode.notYou')], code: { value: d.code, minutes: d.minutes } }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  finishSetup: define<LinkData>({
    sentWhen: '`POST /account/stub` with `wantsSetupToken`: a link to the page where the person chooses the first password of the account made for them (the setup token travels only in this link).',
    content: (t, d) => ({ subject: t('finishSetup.subject'), heading: t('finishSetup.heading'), paragraphs: [t('finishSetup.body')], action: { label: t('finishSetup.action'), url: d.link }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Link': d.link }),
  }),
  passwordChanged: define<TimeData>({
    sentWhen: 'After `/password/change/finish` (not for a v1→v2 upgrade): a notice that other sessions were ended.',
    content: (t, d) => ({ subject: t('passwordChanged.subject'), heading: t('passwordChanged.heading'), paragraphs: [t('passwordChanged.body', { time: d.time })] }),
    headers: () => ({}),
  }),
  passwordReset: define<TimeData>({
    sentWhen: 'After `/account/reset`: a notice that every session was ended.',
    content: (t, d) => ({ subject: t('passwordReset.subject'), heading: t('passwordReset.heading'), paragraphs: [t('passwordReset.body', { time: d.time })] }),
    headers: () => ({}),
  }),
  recoveryKeyCreated: define<TimeData>({
    sentWhen: 'A recovery key was stored and counts: `POST /recoveryKey` with `enabled` (the default; also when it replaces a key), or `/recoveryKey/verify` confirming a pending one.',
    content: (t, d) => ({ subject: t('recoveryKeyCreated.subject'), heading: t('recoveryKeyCreated.heading'), paragraphs: [t('recoveryKeyCreated.body', { time: d.time }), t('recoveryKeyCreated.notYou')] }),
    headers: () => ({}),
  }),
  recoveryKeyRemoved: define<TimeData>({
    sentWhen: '`DELETE /recoveryKey` deleted a key that counted.',
    content: (t, d) => ({ subject: t('recoveryKeyRemoved.subject'), heading: t('recoveryKeyRemoved.heading'), paragraphs: [t('recoveryKeyRemoved.body', { time: d.time }), t('recoveryKeyRemoved.notYou')] }),
    headers: () => ({}),
  }),
  recoveryKeyUsed: define<TimeData>({
    sentWhen: 'After `/account/reset` with a recovery key (instead of `passwordReset`): the password was reset, the data stayed readable, and the key is spent.',
    content: (t, d) => ({ subject: t('recoveryKeyUsed.subject'), heading: t('recoveryKeyUsed.heading'), paragraphs: [t('recoveryKeyUsed.body', { time: d.time }), t('recoveryKeyUsed.newKey')] }),
    headers: () => ({}),
  }),
  twoStepEnabled: define<TimeData>({
    sentWhen: '`/totp/setup/complete` turned two-step authentication on.',
    content: (t, d) => ({ subject: t('twoStepEnabled.subject'), heading: t('twoStepEnabled.heading'), paragraphs: [t('twoStepEnabled.body', { time: d.time }), t('twoStepEnabled.notYou')] }),
    headers: () => ({}),
  }),
  twoStepReplaced: define<TimeData>({
    sentWhen: '`/totp/replace/confirm` replaced the authenticator app.',
    content: (t, d) => ({ subject: t('twoStepReplaced.subject'), heading: t('twoStepReplaced.heading'), paragraphs: [t('twoStepReplaced.body', { time: d.time }), t('twoStepReplaced.notYou')] }),
    headers: () => ({}),
  }),
  twoStepDisabled: define<TimeData>({
    sentWhen: '`/totp/destroy` turned two-step authentication off.',
    content: (t, d) => ({ subject: t('twoStepDisabled.subject'), heading: t('twoStepDisabled.heading'), paragraphs: [t('twoStepDisabled.body', { time: d.time }), t('twoStepDisabled.notYou')] }),
    headers: () => ({}),
  }),
  backupCodesReplaced: define<TimeData>({
    sentWhen: '`GET`, `POST` or `PUT /recoveryCodes` replaced the backup codes.',
    content: (t, d) => ({ subject: t('backupCodesReplaced.subject'), heading: t('backupCodesReplaced.heading'), paragraphs: [t('backupCodesReplaced.body', { time: d.time }), t('backupCodesReplaced.notYou')] }),
    headers: () => ({}),
  }),
  backupCodeUsed: define<TimeData & { remaining: number; low: boolean }>({
    sentWhen: 'A backup code was used (`/session/verify/recoveryCode` or `/totp/verify/recoveryCode`); when RECOVERY_CODE_NOTIFY_LOW_COUNT (2) or fewer remain, it asks for new ones.',
    content: (t, d) => ({
      subject: t('backupCodeUsed.subject'), heading: t('backupCodeUsed.heading'),
      paragraphs: [t('backupCodeUsed.body', { time: d.time, remaining: String(d.remaining) }), ...(d.low ? [t('backupCodeUsed.low')] : []), t('backupCodeUsed.notYou')],
    }),
    headers: (d) => ({ 'X-Tessera-Remaining': String(d.remaining) }),
  }),
  accountDeleted: define<TimeData>({
    sentWhen: 'After `/account/destroy`: the account is gone, so this notice stands in for its security events. Its delivery failing does not fail the deletion.',
    content: (t, d) => ({ subject: t('accountDeleted.subject'), heading: t('accountDeleted.heading'), paragraphs: [t('accountDeleted.body', { time: d.time }), t('accountDeleted.notYou')], footer: 'deleted' }),
    headers: () => ({}),
  }),
  verifySecondaryCode: define<CodeData & { primary: string }>({
    sentWhen: '`POST /recovery_email` and `/recovery_email/secondary/resend_code`: a 6-digit code for `/recovery_email/secondary/verify_code`, sent to the secondary address being added (and to nothing else: the address is unproven).',
    content: (t, d) => ({ subject: t('verifySecondaryCode.subject', { code: d.code }), heading: t('verifySecondaryCode.heading'), paragraphs: [t('verifySecondaryCode.body', { primary: d.primary })], code: { value: d.code, minutes: d.minutes }, footer: 'address' }),
    headers: (d) => ({ 'X-Tessera-Code': d.code }),
    code: (d) => d.code,
  }),
  secondaryEmailAdded: define<{ secondary: string }>({
    sentWhen: 'After `POST /recovery_email`, to the primary address: a secondary address was added and is waiting for confirmation.',
    content: (t, d) => ({ subject: t('secondaryEmailAdded.subject'), heading: t('secondaryEmailAdded.heading'), paragraphs: [t('secondaryEmailAdded.body', { secondary: d.secondary })] }),
    headers: () => ({}),
  }),
  secondaryEmailVerified: define<{ secondary: string }>({
    sentWhen: 'After `/recovery_email/secondary/verify_code`, to the primary address: the secondary address is confirmed.',
    content: (t, d) => ({ subject: t('secondaryEmailVerified.subject'), heading: t('secondaryEmailVerified.heading'), paragraphs: [t('secondaryEmailVerified.body', { secondary: d.secondary })] }),
    headers: () => ({}),
  }),
  secondaryEmailRemoved: define<{ secondary: string }>({
    sentWhen: 'After `/recovery_email/destroy`, to the primary address: a secondary address was removed.',
    content: (t, d) => ({ subject: t('secondaryEmailRemoved.subject'), heading: t('secondaryEmailRemoved.heading'), paragraphs: [t('secondaryEmailRemoved.body', { secondary: d.secondary })] }),
    headers: () => ({}),
  }),
  primaryEmailChanged: define<{ oldPrimary: string; newPrimary: string }>({
    sentWhen: 'After `/recovery_email/set_primary`, to the old and to the new primary address: sign-in and account email now use the new address.',
    content: (t, d) => ({ subject: t('primaryEmailChanged.subject'), heading: t('primaryEmailChanged.heading'), paragraphs: [t('primaryEmailChanged.body', { oldPrimary: d.oldPrimary, newPrimary: d.newPrimary })] }),
    headers: () => ({}),
  }),
  recoveryPhoneAdded: define<TimeData & PhoneData>({
    sentWhen: '`/recovery_phone/confirm` (or its /mfa variant) confirmed a new recovery phone.',
    content: (t, d) => ({ subject: t('recoveryPhoneAdded.subject'), heading: t('recoveryPhoneAdded.heading'), paragraphs: [t('recoveryPhoneAdded.body', { time: d.time, phone: d.phone }), t('recoveryPhoneAdded.notYou')] }),
    headers: () => ({}),
  }),
  recoveryPhoneChanged: define<TimeData & PhoneData>({
    sentWhen: '`/mfa/recovery_phone/change` replaced the recovery phone.',
    content: (t, d) => ({ subject: t('recoveryPhoneChanged.subject'), heading: t('recoveryPhoneChanged.heading'), paragraphs: [t('recoveryPhoneChanged.body', { time: d.time, phone: d.phone }), t('recoveryPhoneChanged.notYou')] }),
    headers: () => ({}),
  }),
  recoveryPhoneRemoved: define<TimeData & PhoneData>({
    sentWhen: '`DELETE /recovery_phone` (or its /mfa variant) removed the recovery phone. Turning two-step authentication off removes it too (that email says so).',
    content: (t, d) => ({ subject: t('recoveryPhoneRemoved.subject'), heading: t('recoveryPhoneRemoved.heading'), paragraphs: [t('recoveryPhoneRemoved.body', { time: d.time, phone: d.phone }), t('recoveryPhoneRemoved.notYou')] }),
    headers: () => ({}),
  }),
  recoveryPhoneUsed: define<TimeData & PhoneData & { during: 'signin' | 'reset' }>({
    sentWhen: 'A code sent to the recovery phone confirmed a sign-in (`/recovery_phone/signin/confirm`) or stood in for the second factor of a password reset (`/recovery_phone/reset_password/confirm`).',
    content: (t, d) => ({ subject: t('recoveryPhoneUsed.subject'), heading: t('recoveryPhoneUsed.heading'), paragraphs: [t(d.during === 'signin' ? 'recoveryPhoneUsed.signin' : 'recoveryPhoneUsed.reset', { time: d.time, phone: d.phone }), t('recoveryPhoneUsed.notYou')] }),
    headers: () => ({}),
  }),
} as const;

export type TemplateName = keyof typeof TEMPLATES;
export type TemplateData<N extends TemplateName> = (typeof TEMPLATES)[N] extends Template<infer D> ? D : never;
