import { bool, ConfigError, defineConfig, int, url, type ConfigValues } from '../../config-schema.js';

// Sign-in with Google and Apple (POST /linked_account/login). Each provider is off until enabled
// with the client ids its id_tokens are issued to; the JWKS URL and issuer default to the
// providers' published values and are overridden in tests (a local issuer) or behind a proxy.

/** Comma-separated list, blanks dropped. */
const list = (raw: string): string[] => raw.split(',').map((s) => s.trim()).filter(Boolean);

export const linkedAccountsConfig = defineConfig({
  googleEnabled: {
    env: 'LINKED_ACCOUNT_GOOGLE_ENABLED', default: false, parse: bool,
    description: 'Accept Google id_tokens at `/linked_account/login` (provider `google`). Needs LINKED_ACCOUNT_GOOGLE_CLIENT_IDS. Off: the route answers 503/202 for Google.',
  },
  googleClientIds: {
    env: 'LINKED_ACCOUNT_GOOGLE_CLIENT_IDS', default: [] as string[], defaultText: '(none)', parse: list,
    description: 'Comma-separated OAuth client ids of your Google project (e.g. `1234-abc.apps.googleusercontent.com`): a Google id_token is accepted only when its `aud` is one of them.',
  },
  googleIssuers: {
    env: 'LINKED_ACCOUNT_GOOGLE_ISSUERS', default: ['https://accounts.google.com', 'accounts.google.com'], defaultText: 'https://accounts.google.com,accounts.google.com', parse: list,
    description: 'Accepted `iss` values of Google id_tokens (Google issues both spellings).',
  },
  googleJwksUrl: {
    env: 'LINKED_ACCOUNT_GOOGLE_JWKS_URL', default: 'https://www.googleapis.com/oauth2/v3/certs', parse: url,
    description: 'Where Google publishes the keys that sign its id_tokens (a JWK Set). Fetched on first use and when a token names an unknown key, cached for 10 minutes.',
  },
  appleEnabled: {
    env: 'LINKED_ACCOUNT_APPLE_ENABLED', default: false, parse: bool,
    description: 'Accept Sign in with Apple id_tokens at `/linked_account/login` (provider `apple`). Needs LINKED_ACCOUNT_APPLE_CLIENT_IDS. Off: the route answers 503/202 for Apple.',
  },
  appleClientIds: {
    env: 'LINKED_ACCOUNT_APPLE_CLIENT_IDS', default: [] as string[], defaultText: '(none)', parse: list,
    description: 'Comma-separated Apple client ids (Services IDs and App bundle ids, e.g. `com.example.signin`): an Apple id_token, or server-to-server notification, is accepted only when its `aud` is one of them.',
  },
  appleIssuers: {
    env: 'LINKED_ACCOUNT_APPLE_ISSUERS', default: ['https://appleid.apple.com'], defaultText: 'https://appleid.apple.com', parse: list,
    description: 'Accepted `iss` values of Apple id_tokens and notifications.',
  },
  appleJwksUrl: {
    env: 'LINKED_ACCOUNT_APPLE_JWKS_URL', default: 'https://appleid.apple.com/auth/keys', parse: url,
    description: 'Where Apple publishes the keys that sign its id_tokens and notifications (a JWK Set), cached like Google\'s.',
  },
  appleNotificationsEnabled: {
    env: 'LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED', default: false, parse: bool,
    description: 'Accept Apple\'s server-to-server notifications at `/linked_account/apple/notification` (the URL registered with Apple). Needs LINKED_ACCOUNT_APPLE_ENABLED. Off: that route answers 503/202.',
  },
  clockToleranceSeconds: {
    env: 'LINKED_ACCOUNT_CLOCK_TOLERANCE_SECONDS', default: 5, parse: int(0, 120),
    description: 'How far a provider token\'s `exp`, `iat` and `nbf` may be off the server clock. Keep it small: a token is accepted until `exp` plus this.',
  },
});

export type LinkedAccountsConfig = ConfigValues<typeof linkedAccountsConfig>;

/**
 * Start-up checks: an enabled provider names its client ids (else every token would be refused
 * with no hint why), and in production its keys come over https.
 */
export function checkLinkedAccountsConfig(config: LinkedAccountsConfig, production: boolean): void {
  for (const [name, enabled, ids, jwks] of [
    ['GOOGLE', config.googleEnabled, config.googleClientIds, config.googleJwksUrl],
    ['APPLE', config.appleEnabled, config.appleClientIds, config.appleJwksUrl],
  ] as const) {
    if (!enabled) continue;
    if (!ids.length) throw new ConfigError(`LINKED_ACCOUNT_${name}_CLIENT_IDS must name at least one client id when LINKED_ACCOUNT_${name}_ENABLED is true`);
    if (production && !jwks.startsWith('https://')) throw new ConfigError(`LINKED_ACCOUNT_${name}_JWKS_URL must be https when NODE_ENV=production`);
  }
  if (config.appleNotificationsEnabled && !config.appleEnabled) {
    throw new ConfigError('LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED needs LINKED_ACCOUNT_APPLE_ENABLED (and its client ids)');
  }
}
