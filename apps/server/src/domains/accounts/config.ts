import { defineConfig, int, str } from '../../config-schema.js';

/** Who may create accounts without a password (stub accounts, for checkouts and the like). */
export const accountsConfig = defineConfig({
  stubClientIds: {
    env: 'ACCOUNT_STUB_CLIENT_IDS', default: '', parse: str,
    description: 'Comma-separated OAuth client ids (confidential clients, registered with `npm run admin -- clients add`) allowed to create stub accounts with `POST /v1/account/stub`, authenticating with their secret. Empty: nobody can.',
  },
  codeFailuresMax: {
    env: 'ACCOUNT_CODE_MAX_FAILURES', default: 20, parse: int(1, 1000),
    description: 'Wrong codes (sign-in, sign-up, password-reset and MFA step-up codes together) an account may see per window; then every code check of the account is refused with 429/114 until the window ends. Resends, new sessions and new reset tokens do not reset it.',
  },
  unblockCodeLifetimeSeconds: {
    env: 'UNBLOCK_CODE_LIFETIME_SECONDS', default: 3600, parse: int(60, 86400),
    description: 'How long an emailed unblock code (which lets a rate-limited sign-in through) stays valid.',
  },
  codeFailureWindowSeconds: {
    env: 'ACCOUNT_CODE_FAILURE_WINDOW_SECONDS', default: 86400, parse: int(60, 30 * 86400),
    description: 'The window of ACCOUNT_CODE_MAX_FAILURES, from the first wrong code.',
  },
});
