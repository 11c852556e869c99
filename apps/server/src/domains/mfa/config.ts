import { defineConfig, int, str } from '../../config-schema.js';

/** The MFA step-up token and its emailed codes (protocol.md §4.10). */
export const mfaConfig = defineConfig({
  jwtSecret: {
    env: 'MFA_JWT_SECRET', secret: true, default: '', defaultText: '$DATA_DIR/mfa-jwt-secret (generated in development)',
    parse: (raw) => {
      // RFC 7518 §3.2: an HS256 key must be at least as long as the hash output (32 bytes).
      if (Buffer.byteLength(raw, 'utf8') < 32) throw new Error('must be at least 32 bytes (use e.g. `openssl rand -hex 32`)');
      return raw;
    },
    description: 'The HS256 key that signs and checks MFA tokens (the JWTs of `/mfa/otp/verify`). At least 32 bytes, e.g. `openssl rand -hex 32`; every instance needs the same one. Changing it ends every MFA token at once (they live 10 minutes anyway). Required in production; unset outside production, one is generated once into the data folder.',
  },
  jwtIssuer: {
    env: 'MFA_JWT_ISSUER', parse: str, default: '', defaultText: 'the host of PUBLIC_URL',
    description: 'The `iss` claim MFA tokens are issued with and checked against (the incumbent uses `accounts.firefox.com`).',
  },
  jwtAudience: {
    env: 'MFA_JWT_AUDIENCE', parse: str, default: 'fxa',
    description: 'The `aud` claim MFA tokens are issued with and checked against (protocol.md §4.10: `fxa`).',
  },
  jwtLifetimeSeconds: {
    env: 'MFA_JWT_LIFETIME_SECONDS', default: 600, parse: int(60, 3600),
    description: 'How long an MFA token is accepted after `/mfa/otp/verify` issued it (protocol.md §4.10: 600).',
  },
  otpLifetimeSeconds: {
    env: 'MFA_OTP_LIFETIME_SECONDS', default: 300, parse: int(60, 3600),
    description: 'How long an emailed step-up code is accepted. The incumbent derives codes from a 300 s TOTP step with a window of 1, so its codes last between 5 and 10 minutes; Tessera stores each code with one fixed lifetime, by default the 5 minutes every incumbent code is sure to get.',
  },
  otpTries: {
    env: 'MFA_OTP_TRIES', default: 5, parse: int(1, 20),
    description: 'Wrong step-up codes accepted before the code is void and a new one must be requested.',
  },
  otpFailuresPerSession: {
    env: 'MFA_OTP_MAX_FAILURES_PER_SESSION', default: 10, parse: int(1, 100),
    description: 'Wrong step-up codes a session may send for one action across every code it is sent (a new code does not reset it); the wrong code that reaches it ends the session, which must sign in again.',
  },
});
