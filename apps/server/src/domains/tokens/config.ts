import { defineConfig, int } from '../../config-schema.js';

const DAY = 86400;

/** Token lifetimes in seconds (protocol.md §2.1). */
export const tokenConfig = defineConfig({
  sessionWithoutDeviceLifetime: {
    env: 'SESSION_TOKEN_LIFETIME_WITHOUT_DEVICE_SECONDS', default: 28 * DAY, parse: int(0, 3650 * DAY),
    description: 'A session token with no device record expires this long after its last use (0: never).',
  },
  accountResetLifetime: {
    env: 'ACCOUNT_RESET_TOKEN_LIFETIME_SECONDS', default: 15 * 60, parse: int(60, DAY),
    description: 'How long an accountResetToken stays usable.',
  },
  passwordForgotLifetime: {
    env: 'PASSWORD_FORGOT_TOKEN_LIFETIME_SECONDS', default: 60 * 60, parse: int(60, DAY),
    description: 'How long a password-forgot code and its token stay usable.',
  },
  passwordForgotTries: {
    env: 'PASSWORD_FORGOT_TRIES', default: 3, parse: int(1, 10),
    description: 'Wrong password-forgot codes accepted before the token is deleted.',
  },
  passwordForgotCodeLength: {
    env: 'PASSWORD_FORGOT_CODE_LENGTH', default: 8, parse: (raw: string) => {
      const n = int(8, 16)(raw);
      if (n !== 8 && n !== 16) throw new Error('expected 8 or 16');
      return n;
    },
    description: 'Digits in the code that /password/forgot/send_code emails (8 or 16; the reply\'s codeLength says which).',
  },
  passwordForgotOtpLifetime: {
    env: 'PASSWORD_FORGOT_OTP_LIFETIME_SECONDS', default: 600, parse: int(60, DAY),
    description: 'How long the 8-digit code of /password/forgot/send_otp stays valid.',
  },
  passwordForgotOtpTries: {
    env: 'PASSWORD_FORGOT_OTP_TRIES', default: 5, parse: int(1, 20),
    description: 'Wrong send_otp codes accepted before the code is void and a new one must be requested.',
  },
  passwordChangeLifetime: {
    env: 'PASSWORD_CHANGE_TOKEN_LIFETIME_SECONDS', default: 15 * 60, parse: int(60, DAY),
    description: 'How long a passwordChangeToken stays usable.',
  },
  keyFetchLifetime: {
    env: 'KEY_FETCH_TOKEN_LIFETIME_SECONDS', default: DAY, parse: int(60, 30 * DAY),
    description: 'An unused keyFetchToken is refused (and pruned) after this long.',
  },
});
