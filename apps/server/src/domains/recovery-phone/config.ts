import { defineConfig, int } from '../../config-schema.js';

/** The recovery phone (protocol.md §4.9). Where SMS go is the sms slice (senders/sms/config.ts). */
export const recoveryPhoneConfig = defineConfig({
  regions: {
    env: 'RECOVERY_PHONE_REGIONS', default: ['CA', 'US'], defaultText: 'CA,US',
    parse: (raw) => {
      const list = raw.split(',').map((r) => r.trim().toUpperCase()).filter(Boolean);
      for (const r of list) if (!/^[A-Z]{2}$/.test(r)) throw new Error(`"${r}" is not a two-letter region code (ISO 3166-1 alpha-2)`);
      return list;
    },
    description: 'Comma-separated regions (ISO 3166-1 alpha-2) whose numbers may be a recovery phone; others get 130. SMS cost money per region: list only those you mean to pay for.',
  },
  maxAccountsPerNumber: {
    env: 'RECOVERY_PHONE_MAX_ACCOUNTS_PER_NUMBER', default: 5, parse: int(1, 100),
    description: 'How many accounts one number may be the recovery phone of (then 217).',
  },
  codeLifetimeSeconds: {
    env: 'RECOVERY_PHONE_CODE_LIFETIME_SECONDS', default: 600, parse: int(60, 3600),
    description: 'How long an SMS code works (protocol.md §4.9: 10 minutes). A code works once.',
  },
  codeMaxFailures: {
    env: 'RECOVERY_PHONE_CODE_MAX_FAILURES', default: 5, parse: int(1, 20),
    description: 'Wrong guesses allowed per account and purpose while codes keep being sent: a resend keeps the count, which restarts only once the last code expired unused.',
  },
});
