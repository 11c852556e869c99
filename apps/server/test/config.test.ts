import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/config-schema.js';
import { loadConfig } from '../src/config.js';

import { MFA, PPID, PRODUCTION_ENV, TOTP, VAPID } from './production-env.js';

describe('configuration from the environment', () => {
  it('has working defaults for the embedded platform', () => {
    const c = loadConfig({});
    expect(c.server).toMatchObject({ port: 9000, host: '127.0.0.1', publicUrl: 'http://localhost:9000', databaseUrl: 'sqlite:data/tessera.sqlite', logLevel: 'info' });
    expect(c.mail.smtpUrl).toBe('');
    expect(loadConfig({ PORT: '8080' }).server.publicUrl).toBe('http://localhost:8080');
  });

  it('refuses malformed values with the variable named', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT: expected an integer/);
    expect(() => loadConfig({ PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL: expected one of/);
    expect(() => loadConfig({ PUBLIC_URL: 'not a url' })).toThrow(/PUBLIC_URL/);
    expect(() => loadConfig({ PASSWORD_FORGOT_CODE_LENGTH: '12' })).toThrow(/expected 8 or 16/);
  });

  it('refuses to run in production without real secrets', () => {
    const smtp = { SMTP_URL: 'smtp://mail.example:587', VAPID_PRIVATE_KEY: VAPID, MFA_JWT_SECRET: MFA, TOTP_ENCRYPTION_KEY: TOTP, OAUTH_PPID_SECRET: PPID };
    expect(() => loadConfig({ NODE_ENV: 'production', ...smtp })).toThrow(/AUTH_SECRET must be set/);
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'short', ...smtp })).toThrow(/at least 32 characters/);
    expect(loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...smtp }).server.authSecret).toHaveLength(32);
    // Web Push's VAPID key (issue 11): required, and a P-256 private key.
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), SMTP_URL: smtp.SMTP_URL, MFA_JWT_SECRET: MFA, TOTP_ENCRYPTION_KEY: TOTP, OAUTH_PPID_SECRET: PPID })).toThrow(/VAPID_PRIVATE_KEY must be set/);
    // The MFA token key (issue 12): required, and at least 32 bytes (RFC 7518 §3.2) anywhere.
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), SMTP_URL: smtp.SMTP_URL, VAPID_PRIVATE_KEY: VAPID, TOTP_ENCRYPTION_KEY: TOTP, OAUTH_PPID_SECRET: PPID })).toThrow(/MFA_JWT_SECRET must be set/);
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...smtp, MFA_JWT_SECRET: 'short' })).toThrow(/MFA_JWT_SECRET: must be at least 32 bytes/);
    expect(() => loadConfig({ MFA_JWT_SECRET: 'short' })).toThrow(/MFA_JWT_SECRET: must be at least 32 bytes/);
    expect(loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...smtp }).mfa).toMatchObject({ jwtSecret: MFA, jwtAudience: 'fxa', jwtIssuer: '', jwtLifetimeSeconds: 600, otpLifetimeSeconds: 300 });
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...smtp, VAPID_PRIVATE_KEY: 'c2hvcnQ' })).toThrow(/VAPID_PRIVATE_KEY: .*32 bytes/);
    // The key TOTP secrets are sealed under (issue 12): required in production, 32 bytes in hex anywhere.
    const { TOTP_ENCRYPTION_KEY: _totp, ...withoutTotp } = smtp;
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...withoutTotp })).toThrow(/TOTP_ENCRYPTION_KEY must be set/);
    expect(() => loadConfig({ TOTP_ENCRYPTION_KEY: 'ab'.repeat(16) })).toThrow(/TOTP_ENCRYPTION_KEY: must be 64 hex characters/);
    expect(loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...smtp }).twoStep.totpEncryptionKey).toBe(TOTP);
    // The salt of pairwise subject identifiers (issue 14): required in production, 32 bytes in hex anywhere.
    const { OAUTH_PPID_SECRET: _ppid, ...withoutPpid } = smtp;
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...withoutPpid })).toThrow(/OAUTH_PPID_SECRET must be set/);
    expect(() => loadConfig({ OAUTH_PPID_SECRET: 'secret' })).toThrow(/OAUTH_PPID_SECRET: must be 64 hex characters/);
    expect(loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), ...smtp }).oauth.ppidSecret).toBe(PPID);
  });

  it('refuses the secret that was once published as a default, short secrets anywhere, and production without SMTP (issue 9, hole 9)', () => {
    const smtp = { SMTP_URL: 'smtp://mail.example:587', VAPID_PRIVATE_KEY: VAPID, MFA_JWT_SECRET: MFA, TOTP_ENCRYPTION_KEY: TOTP, OAUTH_PPID_SECRET: PPID };
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'development-only-secret-do-not-use-in-production', ...smtp })).toThrow(/published/);
    expect(() => loadConfig({ AUTH_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(() => loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'y'.repeat(40), VAPID_PRIVATE_KEY: VAPID, MFA_JWT_SECRET: MFA, TOTP_ENCRYPTION_KEY: TOTP, OAUTH_PPID_SECRET: PPID })).toThrow(/SMTP_URL must be set/);
    // Outside production there is no default secret at all: the server makes one per data folder.
    expect(loadConfig({}).server.authSecret).toBe('');
  });

  it('puts the default SQLite database in DATA_DIR and refuses URLs that would open the wrong database (issue 10)', () => {
    expect(loadConfig({ DATA_DIR: '/srv/tessera' }).server.databaseUrl).toBe('sqlite:/srv/tessera/tessera.sqlite');
    expect(loadConfig({ DATA_DIR: '/srv/tessera', DATABASE_URL: 'sqlite:/elsewhere.sqlite' }).server.databaseUrl).toBe('sqlite:/elsewhere.sqlite');
    for (const accepted of ['postgresql://u@h/db', 'postgres://u:p@h:5432/db', 'mariadb://u@h:3306/db', 'mysql://u@h/db', 'sqlite::memory:']) {
      expect(loadConfig({ DATABASE_URL: accepted }).server.databaseUrl).toBe(accepted);
    }
    expect(() => loadConfig({ DATABASE_URL: 'sqlite:' })).toThrow(/DATABASE_URL: "sqlite:" names no file/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@h:5432' })).toThrow(/names no database/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u@h:5432/' })).toThrow(/names no database/);
    expect(() => loadConfig({ DATABASE_URL: 'mysql://u@h' })).toThrow(/names no database/);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://' })).toThrow(/names no host.*postgresql:\/\/.*mariadb:\/\//);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://u:pw@h:notaport/db' })).toThrow(/DATABASE_URL: "postgres:\/\/u:\*\*\*@h:notaport\/db" is not a valid URL/);
    expect(() => loadConfig({ DATABASE_URL: 'redis://h/0' })).toThrow(/is not a database URL/);
  });

  it('refuses a linked-account provider enabled without client ids, or fetching its keys over http in production (issue 13)', () => {
    expect(() => loadConfig({ LINKED_ACCOUNT_GOOGLE_ENABLED: 'true' })).toThrow(/LINKED_ACCOUNT_GOOGLE_CLIENT_IDS must name/);
    expect(() => loadConfig({ LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED: 'true' })).toThrow(/needs LINKED_ACCOUNT_APPLE_ENABLED/);
    const google = { LINKED_ACCOUNT_GOOGLE_ENABLED: 'true', LINKED_ACCOUNT_GOOGLE_CLIENT_IDS: ' a.example , b.example ,' };
    expect(loadConfig(google).linkedAccounts).toMatchObject({ googleEnabled: true, googleClientIds: ['a.example', 'b.example'], appleEnabled: false });
    const prod = PRODUCTION_ENV;
    expect(() => loadConfig({ ...prod, ...google, LINKED_ACCOUNT_GOOGLE_JWKS_URL: 'http://keys.example/jwks' })).toThrow(/JWKS_URL must be https/);
  });

  it('reads LOG_FORMAT and SHUTDOWN_TIMEOUT_SECONDS', () => {
    expect(loadConfig({ LOG_FORMAT: 'pretty' }).server.logFormat).toBe('pretty');
    expect(loadConfig({ NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(32), SMTP_URL: 'smtp://m:587', VAPID_PRIVATE_KEY: VAPID, MFA_JWT_SECRET: MFA, TOTP_ENCRYPTION_KEY: TOTP, OAUTH_PPID_SECRET: PPID }).server.logFormat).toBe('json');
    expect(() => loadConfig({ LOG_FORMAT: 'xml' })).toThrow(/LOG_FORMAT: expected one of json, pretty/);
    expect(loadConfig({}).server.shutdownTimeoutSeconds).toBe(10);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '-1' })).toThrow(/SHUTDOWN_TIMEOUT_SECONDS/);
  });
});
