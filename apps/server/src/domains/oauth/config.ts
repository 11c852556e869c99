import { defineConfig, str, type ConfigValues } from '../../config-schema.js';

// The OAuth server's configuration. Clients live in the database; OAUTH_CLIENTS_FILE seeds them at
// start (see clients.ts for the format) and the admin command manages them afterwards.

export const oauthConfig = defineConfig({
  clientsFile: {
    env: 'OAUTH_CLIENTS_FILE', default: '', defaultText: '(none)', parse: str,
    description: 'A JSON array of OAuth clients registered (or updated, the file wins) at every start: `id` (16 hex; browsers ship fixed ids, e.g. Firefox desktop `5882386c6d801776`), `name`, `redirectUris`, `public`, `hashedSecret` (SHA-256 of a confidential client\'s secret bytes), `trusted`, `canGrant`, `allowedScopes`, `localRedirects`, `accessTokenTtlSeconds`, `refreshTokenTtlSeconds`, `rotateRefreshTokens`, `imageUri`. An invalid entry stops the start.',
  },
});

export type OAuthConfig = ConfigValues<typeof oauthConfig>;
