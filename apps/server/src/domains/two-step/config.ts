import { defineConfig, int, str } from '../../config-schema.js';

/** Two-step authentication: TOTP and backup codes (protocol.md §4.6, §4.7). */
export const twoStepConfig = defineConfig({
  totpEncryptionKey: {
    env: 'TOTP_ENCRYPTION_KEY', secret: true, default: '', defaultText: '$DATA_DIR/totp-encryption-key (generated in development)',
    parse: (raw) => {
      if (!/^[0-9a-fA-F]{64}$/.test(raw)) throw new Error('must be 64 hex characters (32 bytes), e.g. `openssl rand -hex 32`');
      return raw.toLowerCase();
    },
    description: 'The AES-256-GCM key that seals TOTP secrets at rest, and from which the key that hashes backup codes is derived: 64 hex characters (`openssl rand -hex 32`), the same on every instance. Back it up with the database and never change it: without it no stored TOTP secret opens and no backup code matches, so accounts with two-step authentication can no longer sign in (only a reset with their recovery key gets them back). Required in production; unset outside production, one is generated once into the data folder.',
  },
  serviceName: {
    env: 'TOTP_SERVICE_NAME', default: 'Tessera', parse: str,
    description: 'The issuer an authenticator app shows next to the account address (the `issuer` of the otpauth URI).',
  },
  recoveryCodeCount: {
    env: 'RECOVERY_CODE_COUNT', default: 8, parse: int(1, 20),
    description: 'Backup codes `GET /recoveryCodes` generates (protocol.md §4.7: 8, 10 characters each).',
  },
  recoveryCodeNotifyLow: {
    env: 'RECOVERY_CODE_NOTIFY_LOW_COUNT', default: 2, parse: int(0, 20),
    description: 'When a backup code is used and this many or fewer remain, the email says so and asks for new ones.',
  },
});
