import type { ErrorDefinition } from '../catalogue.js';

/**
 * The auth catalogue's errnos 130–161: mail delivery and bounces, primary and secondary addresses,
 * unconfirmed sessions, sign-in and token codes, TOTP, recovery codes and recovery keys. Add new
 * errors at the end of the range.
 */
export const SIGN_IN_ERRORS = {
  INVALID_REGION: {
    errno: 130, status: 400, message: 'Invalid region', extras: ['region'],
    description: 'SMS is not available for this number\'s region.',
  },
  INVALID_MESSAGE_ID: {
    errno: 131, status: 400, message: 'Invalid message id',
    description: 'The message id is not one this server sends.',
  },
  MESSAGE_REJECTED: {
    errno: 132, status: 500, message: 'Message rejected', extras: ['reason', 'reasonCode'],
    description: 'The SMS provider refused the message.',
  },
  BOUNCE_COMPLAINT: {
    errno: 133, status: 400, message: 'Email account sent complaint', extras: ['bouncedAt'],
    description: 'The recipient marked a previous message as spam; no more mail is sent to this address.',
  },
  BOUNCE_HARD: {
    errno: 134, status: 400, message: 'Email account hard bounced', extras: ['bouncedAt'],
    description: 'The address does not exist; no more mail is sent to it.',
  },
  BOUNCE_SOFT: {
    errno: 135, status: 400, message: 'Email account soft bounced', extras: ['bouncedAt'],
    description: 'Recent mail to the address bounced temporarily; sending is paused.',
  },
  EMAIL_EXISTS: {
    errno: 136, status: 400, message: 'Email already exists',
    description: 'The address is already on this account.',
  },
  EMAIL_DELETE_PRIMARY: {
    errno: 137, status: 400, message: 'Can not delete primary email',
    description: 'Make another verified address primary first.',
  },
  SESSION_UNVERIFIED: {
    errno: 138, status: 400, message: 'Unconfirmed session',
    description: 'The route needs a confirmed session; confirm the sign-in first.',
  },
  USER_PRIMARY_EMAIL_EXISTS: {
    errno: 139, status: 400, message: 'Can not add secondary email that is same as your primary',
    description: 'The secondary address is the account\'s primary address.',
  },
  VERIFIED_PRIMARY_EMAIL_EXISTS: {
    errno: 140, status: 400, message: 'Email already exists',
    description: 'The address is the verified primary address of another account.',
  },
  UNVERIFIED_PRIMARY_EMAIL_EXISTS: {
    errno: 141, status: 400, message: 'Email already exists',
    description: 'The address is the unverified primary address of another, recent account.',
  },
  LOGIN_WITH_SECONDARY_EMAIL: {
    errno: 142, status: 400, message: 'Sign in with this email type is not currently supported',
    description: 'Sign in with the primary address.',
  },
  SECONDARY_EMAIL_UNKNOWN: {
    errno: 143, status: 400, message: 'Unknown email',
    description: 'The address is not on this account.',
  },
  VERIFIED_SECONDARY_EMAIL_EXISTS: {
    errno: 144, status: 400, message: 'Email already exists',
    description: 'The address is a verified secondary address of an account.',
  },
  RESET_PASSWORD_WITH_SECONDARY_EMAIL: {
    errno: 145, status: 400, message: 'Reset password with this email type is not currently supported',
    description: 'Start the reset with the primary address.',
  },
  INVALID_SIGNIN_CODE: {
    errno: 146, status: 400, message: 'Invalid signin code',
    description: 'The sign-in code is unknown or expired.',
  },
  CHANGE_EMAIL_TO_UNVERIFIED_EMAIL: {
    errno: 147, status: 400, message: 'Can not change primary email to an unverified email',
    description: 'Verify the secondary address before making it primary.',
  },
  CHANGE_EMAIL_TO_UNOWNED_EMAIL: {
    errno: 148, status: 400, message: 'Can not change primary email to an email that does not belong to this account',
    description: 'The address is not on this account.',
  },
  LOGIN_WITH_INVALID_EMAIL: {
    errno: 149, status: 400, message: 'This email can not currently be used to login',
    description: 'The account is disabled or the address cannot sign in.',
  },
  RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL: {
    errno: 150, status: 400, message: 'Can not resend email code to an email that does not belong to this account',
    description: 'The address is not on this account.',
  },
  FAILED_TO_SEND_EMAIL: {
    errno: 151, status: 422, otherStatuses: [500], message: 'Failed to send email',
    description: '422: the mail server refused the message or the address; 500: the mail server could not be reached. Nothing was changed; retry later.',
  },
  INVALID_TOKEN_VERIFICATION_CODE: {
    errno: 152, status: 400, message: 'Invalid token confirmation code',
    description: 'The confirmation code does not match.',
  },
  EXPIRED_TOKEN_VERIFICATION_CODE: {
    errno: 153, status: 400, message: 'Expired token confirmation code',
    description: 'The code is past its lifetime; request a new one.',
  },
  TOTP_TOKEN_EXISTS: {
    errno: 154, status: 400, message: 'TOTP token already exists for this account',
    description: 'Remove or replace the existing authenticator first.',
  },
  TOTP_TOKEN_NOT_FOUND: {
    errno: 155, status: 400, message: 'TOTP token not found',
    description: 'The account has no authenticator.',
  },
  RECOVERY_CODE_NOT_FOUND: {
    errno: 156, status: 400, message: 'Backup authentication code not found',
    description: 'The backup code is unknown or already used.',
  },
  DEVICE_COMMAND_UNAVAILABLE: {
    errno: 157, status: 400, message: 'Unavailable device command',
    description: 'The target device does not advertise this command.',
  },
  RECOVERY_KEY_NOT_FOUND: {
    errno: 158, status: 400, message: 'Account recovery key not found',
    description: 'No recovery key with this id exists for the account.',
  },
  RECOVERY_KEY_INVALID: {
    errno: 159, status: 400, message: 'Account recovery key is not valid',
    description: 'The recovery key does not match.',
  },
  TOTP_REQUIRED: {
    errno: 160, status: 400, message: 'This request requires two step authentication enabled on your account',
    description: 'verificationMethod totp-2fa was asked for an account without an authenticator.',
  },
  RECOVERY_KEY_EXISTS: {
    errno: 161, status: 400, message: 'Account recovery key already exists',
    description: 'Pass replaceKey to replace it.',
  },
} as const satisfies Record<string, ErrorDefinition>;
