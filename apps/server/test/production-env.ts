// The smallest environment that `loadConfig` accepts with NODE_ENV=production: every secret a
// production start requires, with test values. A test of a production rule spreads it and changes
// one variable, so a secret that a later issue makes required is added here once, not in each test.

/** A P-256 private key (32 bytes, base64url): VAPID_PRIVATE_KEY. */
export const VAPID = 'fP4pQmK8Y3hQ2Yj7u0Rk1ZsXyVb9cDeFgHiJkLmNoPo';
/** An HS256 key for MFA tokens (at least 32 bytes): MFA_JWT_SECRET. */
export const MFA = 'm'.repeat(32);
/** TOTP_ENCRYPTION_KEY: 32 bytes in hex. */
export const TOTP = '7e'.repeat(32);
/** OAUTH_PPID_SECRET: 32 bytes in hex. */
export const PPID = '5a'.repeat(32);

export const PRODUCTION_ENV = {
  NODE_ENV: 'production', AUTH_SECRET: 'x'.repeat(40), SMTP_URL: 'smtp://mail.example:587', VAPID_PRIVATE_KEY: VAPID, MFA_JWT_SECRET: MFA, TOTP_ENCRYPTION_KEY: TOTP,
  OAUTH_PPID_SECRET: PPID,
} as const;
