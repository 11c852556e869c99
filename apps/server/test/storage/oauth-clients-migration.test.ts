import { describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { OAuthService } from '../../src/domains/oauth/index.js';
import { MIGRATION_DIALECTS, migrationStep } from './migration-step.js';

// Migration 0017_add_oauth_clients on every dialect (issue 14): clients registered before it keep
// their one redirect URI as their list, with a day-long access token lifetime, exact redirects and
// no refresh-token rotation; migrating down and up again works.

const TARGET = '0017_add_oauth_clients';

describe.each(MIGRATION_DIALECTS)('migration 0017_add_oauth_clients (%s)', (dialect) => {
  const step = migrationStep(dialect, TARGET);

  it('keeps existing clients\' redirect URI and gives them the defaults', async () => {
    await step.toBefore();
    const db = step.db;
    const id = randomHex(8);
    await db.insertInto('oauth_clients').values({
      id, name: 'Old', image_uri: '', redirect_uri: 'https://old.example/cb', hashed_secret: randomHex(32), hashed_secret_previous: null,
      trusted: 0, public_client: 0, can_grant: 0, allowed_scopes: 'profile', created_at: 1,
    }).execute();
    await step.toTarget();
    const client = await new OAuthService().findClient(step.storage.db, id);
    expect(client).toMatchObject({
      redirectUri: 'https://old.example/cb', redirectUris: ['https://old.example/cb'], localRedirects: false,
      accessTokenTtlSeconds: 86_400, refreshTokenTtlSeconds: 0, rotateRefreshTokens: false,
    });
    await step.toBefore();
    await step.toTarget();
  });
});
