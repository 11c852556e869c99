import { defineConfig, int } from '../../config-schema.js';

/** Secondary (recovery) addresses. */
export const secondaryEmailsConfig = defineConfig({
  pendingSeconds: {
    env: 'SECONDARY_EMAIL_PENDING_SECONDS', default: 600, parse: int(60, 86400),
    description: 'How long an added, unconfirmed secondary address holds the address against other accounts (adding it, signing up with it), and how long each emailed code for it stays valid. Past it, another account may take the address; the claim is then removed from the account that never confirmed it.',
  },
  codeTries: {
    env: 'SECONDARY_EMAIL_CODE_TRIES', default: 3, parse: int(1, 10),
    description: 'Wrong guesses one emailed code for a secondary address allows; then a new code is needed (`/recovery_email/secondary/resend_code`).',
  },
  maxFailures: {
    env: 'SECONDARY_EMAIL_MAX_FAILURES', default: 10, parse: int(1, 100),
    description: 'Wrong codes an unconfirmed secondary address may see across resends; at this many the address is removed from the account and must be added again. Resends do not reset the count, and every wrong code also counts against ACCOUNT_CODE_MAX_FAILURES.',
  },
});
