import { defineConfig, int, str } from '../../config-schema.js';

/** Who may create accounts without a password (stub accounts, for checkouts and the like). */
export const accountsConfig = defineConfig({
  stubClientIds: {
    env: 'ACCOUNT_STUB_CLIENT_IDS', default: '', parse: str,
    description: 'Comma-separated OAuth client ids (confidential clients, registered with `npm run admin -- clients add`) allowed to create stub accounts with `POST /v1/account/stub`, authenticating with their secret. Empty: nobody can.',
  },
  codeFailuresMax: {
    env: 'ACCOUNT_CODE_MAX_FAILURES', default: 20, parse: int(1, 1000),
    description: 'Wrong codes of the owner\'s own confirmations and second factor (sign-in and sign-up codes, authenticator and backup codes, recovery-phone, MFA step-up and secondary-address codes together) an account may see per window; then each of those checks is refused with 429/114 until the window ends. Resends and new sessions do not reset it. Codes tried during a password reset count apart (ACCOUNT_RESET_CODE_MAX_FAILURES).',
  },
  resetCodeFailuresMax: {
    env: 'ACCOUNT_RESET_CODE_MAX_FAILURES', default: 20, parse: int(1, 1000),
    description: 'Wrong codes tried during a password reset (the emailed forgot codes and one-time codes, which anyone naming the address can try, and the app, backup and recovery-phone codes tried with a password forgot token) an account may see per window; then those checks are refused with 429/114 until the window ends. Counted apart from ACCOUNT_CODE_MAX_FAILURES, so neither an address nor a mailbox alone can stop the owner\'s sign-in.',
  },
  unblockCodeLifetimeSeconds: {
    env: 'UNBLOCK_CODE_LIFETIME_SECONDS', default: 3600, parse: int(60, 86400),
    description: 'How long an emailed unblock code (which lets a rate-limited sign-in through) stays valid.',
  },
  codeFailureWindowSeconds: {
    env: 'ACCOUNT_CODE_FAILURE_WINDOW_SECONDS', default: 86400, parse: int(60, 30 * 86400),
    description: 'The window of ACCOUNT_CODE_MAX_FAILURES and of ACCOUNT_RESET_CODE_MAX_FAILURES, each from its first wrong code.',
  },
});
