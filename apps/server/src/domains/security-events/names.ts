// The security events of the account's core floors, and what each means. The security-events
// domain's manifest declares them; a domain that records events of its own declares them in its
// manifest (`securityEvents`), and the composed list is the portal's page and the route's enum.

export const SECURITY_EVENTS = {
  'account.create': 'The account was created: by sign-up, or as a stub account by an allowed relying party.',
  'account.login': 'A sign-in with the password started a new session. `verified` is false while the sign-in (or the sign-up) waits for confirmation by email.',
  'account.login.failure': 'A wrong password was given for the account: at sign-in, or when a session had to prove the password again (reauthentication, password change, account deletion).',
  'account.login.confirmed': 'A waiting sign-in was confirmed with the emailed code or link (`additionalInfo.method`: `code` or `link`).',
  'account.email_verified': 'The primary address was confirmed: the sign-up code or link, or the setup link of a stub account (`additionalInfo.method`: `code`, `link` or `setup`).',
  'account.password_changed': 'The password was changed (`/password/change/finish`); the account\'s other sessions ended. Not recorded for a version-1 to version-2 upgrade of the same password.',
  'account.password_reset_requested': 'A password reset code was emailed to the account (`/password/forgot/send_code` or `/password/forgot/send_otp`; `additionalInfo.method`: `code` or `otp`).',
  'account.password_reset': 'The password was reset with an emailed code (`/account/reset`); every session ended. `additionalInfo.method` is `recovery_key` when a recovery key kept kB; without one, kB and any recovery key are gone.',
  'account.recovery_key_added': 'A recovery key was stored and counts (`/recoveryKey` with `enabled`, or `/recoveryKey/verify` confirming a pending one; `additionalInfo.replaced`: `true` when it replaced an earlier key).',
  'account.recovery_key_removed': 'The account\'s recovery key was deleted (`DELETE /recoveryKey`). A password reset that spends or voids the key records `account.password_reset` instead.',
  'account.secondary_email_added': 'A secondary address was added, unconfirmed (`/recovery_email`).',
  'account.secondary_email_verified': 'A secondary address was confirmed with its emailed code (`/recovery_email/secondary/verify_code`).',
  'account.secondary_email_removed': 'A secondary address was removed (`/recovery_email/destroy`), or an unconfirmed one was released because Google or Apple verified it for another person\'s sign-in (`additionalInfo.reason`).',
  'account.primary_email_changed': 'A confirmed secondary address became the primary (`/recovery_email/set_primary`); the old primary stays as a secondary address.',
  'account.linked': 'A Google or Apple account was linked to the account by a sign-in with it (`additionalInfo.provider`).',
  'account.linked_login': 'A sign-in with a linked Google or Apple account started a new session (`additionalInfo.provider`). `verified` is false while the session waits for the account\'s second factor.',
  'account.unlinked': 'A Google or Apple link was removed with `/linked_account/unlink`, or Apple reported the person revoked consent or deleted the Apple ID (`additionalInfo.provider`, `additionalInfo.reason`); the sessions it opened ended.',
  'account.two_step_enabled': 'Two-step authentication was turned on (`/totp/setup/complete`): sign-ins now need a code from the authenticator app, a backup code or the recovery phone.',
  'account.two_step_disabled': 'Two-step authentication was turned off (`/totp/destroy`); the backup codes went with it.',
  'account.two_step_replaced': 'The authenticator app was replaced by a new one (`/totp/replace/confirm`); codes of the old app no longer work.',
  'account.two_step_session_verified': 'A session was confirmed by a second factor (`additionalInfo.method`: `totp-2fa`, `recovery-code` or `sms-2fa`) and reached AAL2.',
  'account.recovery_phone_added': 'A recovery phone was confirmed with its SMS code (`/recovery_phone/confirm`).',
  'account.recovery_phone_changed': 'The recovery phone was replaced by a number confirmed with its SMS code (`/mfa/recovery_phone/change`).',
  'account.recovery_phone_removed': 'The recovery phone was removed (`DELETE /recovery_phone`, or with two-step authentication).',
  'account.recovery_phone_reset_verified': 'During a password reset, an SMS code to the recovery phone stood in for the second factor (`/recovery_phone/reset_password/confirm`).',
  'account.recovery_codes_replaced': 'New backup codes replaced every earlier one (`/recoveryCodes`).',
  'account.oauth_refresh_token_reused': 'A refresh token that a refresh with rotation or a token exchange had already replaced was presented again: someone holds a copy of it, so the app\'s sign-in it belonged to ended, its refresh and access tokens (`additionalInfo.clientId`: the app). The network is that of the request that presented the old token. Not recorded for a token replaced before migration 0020, nor for one older than grant ids (migration 0019).',
  'session.destroy': 'A session was signed out with `/session/destroy` (`additionalInfo.session`: `current`, or `other` when it named another session of the account).',
} as const;

/**
 * Every event name, for the types: these, and those a domain declares in its manifest's
 * `securityEvents` and adds here from its folder (`declare module '../security-events/index.js'`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface SecurityEventRegistry extends Record<keyof typeof SECURITY_EVENTS, string> {}

export type SecurityEventName = keyof SecurityEventRegistry & string;
