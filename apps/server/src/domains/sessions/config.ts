import { bool, defineConfig, int, str } from '../../config-schema.js';

/** Sign-in confirmation policy (protocol.md §4.3). */
export const signinConfig = defineConfig({
  confirmationEnabled: {
    env: 'SIGNIN_CONFIRMATION_ENABLED', default: true, parse: bool,
    description: 'New sign-ins start unconfirmed and must be confirmed by an emailed code before they can fetch keys.',
  },
  skipForNewAccountsSeconds: {
    env: 'SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS', default: 48 * 3600, parse: int(0, 365 * 86400),
    description: 'Sign-ins to accounts younger than this need no confirmation (0: always confirm).',
  },
  codeLifetimeSeconds: {
    env: 'SIGNIN_CODE_LIFETIME_SECONDS', default: 20 * 60, parse: int(60, 86400),
    description: 'How long an emailed 6-digit confirmation code (sign-up or sign-in) stays valid.',
  },
  codeTries: {
    env: 'SIGNIN_CODE_TRIES', default: 5, parse: int(1, 20),
    description: 'Wrong 6-digit codes accepted before the code is void and a new one must be requested.',
  },
  codeFailuresPerSession: {
    env: 'SIGNIN_CODE_MAX_FAILURES_PER_SESSION', default: 10, parse: int(1, 100),
    description: 'Wrong 6-digit codes a session may see across every code it is sent (resends do not reset it); at the limit the session ends and the sign-in must start again.',
  },
  forcedEmailPattern: {
    env: 'SIGNIN_CONFIRMATION_FORCED_EMAIL_REGEX', default: '', parse: str,
    description: 'Addresses matching this regular expression always confirm sign-ins (testing accounts).',
  },
});
