import { defineConfig, int, str, type ConfigValues } from '../../config-schema.js';

/** Comma-separated list, blanks dropped. */
const list = (raw: string): string[] => raw.split(',').map((s) => s.trim()).filter(Boolean);

// The OAuth server's configuration. Clients live in the database; OAUTH_CLIENTS_FILE seeds them at
// start (see clients/file.ts for the format) and the admin command manages them afterwards.

export const oauthConfig = defineConfig({
  clientsFile: {
    env: 'OAUTH_CLIENTS_FILE', default: '', defaultText: '(none)', parse: str,
    description: 'A JSON array of OAuth clients registered (or updated, the file wins) at every start: `id` (16 hex; browsers ship fixed ids, e.g. Firefox desktop `5882386c6d801776`), `name`, `redirectUris`, `public`, `hashedSecret` (SHA-256 of a confidential client\'s secret bytes), `trusted`, `canGrant`, `allowedScopes`, `localRedirects`, `accessTokenTtlSeconds`, `refreshTokenTtlSeconds`, `rotateRefreshTokens`, `pairwiseSubjects`, `pairwiseRotationSeconds`, `jwtAccessTokens`, `allowedResources` (the resource URIs it may name at /token, RFC 8707), `imageUri`. An invalid entry stops the start.',
  },
  corsOrigins: {
    env: 'OAUTH_CORS_ORIGINS', default: [] as string[], defaultText: '(none)', parse: list,
    description: 'Comma-separated origins (e.g. `https://app.example`) whose browser code may call the OAuth routes (token, introspect, destroy, userinfo, profile, jwks, discovery) across origins. Empty: none.',
  },
  keyBearingScopes: {
    env: 'OAUTH_KEY_BEARING_SCOPES', default: ['https://identity.mozilla.com/apps/oldsync', 'https://identity.thunderbird.net/apps/sync', 'https://identity.mozilla.com/apps/notes'],
    defaultText: 'https://identity.mozilla.com/apps/oldsync,https://identity.thunderbird.net/apps/sync,https://identity.mozilla.com/apps/notes', parse: list,
    description: 'Comma-separated scopes that carry a scoped key: /account/scoped-key-data answers key metadata for them (to clients allowed them).',
  },
  tokenCacheMs: {
    env: 'OAUTH_TOKEN_CACHE_MS', default: 1000, parse: int(0, 60_000),
    description: 'How long introspection, userinfo, /v1/profile and /v1/verify reuse an OAuth client and access token they read, in process (writes made here invalidate them at once; another instance may still accept a token revoked elsewhere, or a client secret retired elsewhere, for at most this long). Secrets and expiry are checked on every request. 0 disables.',
  },
  nextSigningKeyFile: {
    env: 'OAUTH_NEXT_SIGNING_KEY_FILE', default: '', defaultText: '(none)', parse: str,
    description: 'Key rotation, step 1: a PEM RSA key (its public half only is used) published at /v1/jwks beside the current one before it signs, so relying parties cache it. Step 2: make it SIGNING_KEY_FILE and the old key OAUTH_PREVIOUS_SIGNING_KEY_FILE.',
  },
  previousSigningKeyFile: {
    env: 'OAUTH_PREVIOUS_SIGNING_KEY_FILE', default: '', defaultText: '(none)', parse: str,
    description: 'Key rotation: the retired signing key (PEM, public half used), still published at /v1/jwks and accepted by /oauth/id-token-verify until the id_tokens it signed have expired.',
  },
  ppidSecret: {
    env: 'OAUTH_PPID_SECRET', secret: true, default: '', defaultText: '$DATA_DIR/oauth-ppid-secret (generated in development)',
    parse: (raw) => {
      if (!/^[0-9a-fA-F]{64}$/.test(raw)) throw new Error('must be 64 hex characters (32 bytes), e.g. `openssl rand -hex 32`');
      return raw.toLowerCase();
    },
    description: 'The salt of pairwise subject identifiers (clients registered with `pairwiseSubjects`), and the key of the markers they are shown instead of account times: 64 hex characters (`openssl rand -hex 32`), the same on every instance. Keep it secret: with it and a client id anyone could test which account a pairwise `sub` belongs to. Never change it: every pairwise client would see its people under new ids. Required in production; unset outside production, one is generated once into the data folder.',
  },
  syncTokenserverUrl: {
    env: 'SYNC_TOKENSERVER_URL', default: '', defaultText: '(none)', parse: str,
    description: 'The Sync token server browsers use, published as `sync_tokenserver_base_url` in /.well-known/fxa-client-configuration.',
  },
  pairingServerUrl: {
    env: 'PAIRING_SERVER_URL', default: '', defaultText: '(none)', parse: str,
    description: 'The pairing channel server, published as `pairing_server_base_uri` in /.well-known/fxa-client-configuration.',
  },
});

export type OAuthConfig = ConfigValues<typeof oauthConfig>;
