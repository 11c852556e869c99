import { describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { OAuthService } from '../../src/domains/oauth/index.js';
import { findAccessTokenByHash } from '../../src/domains/oauth/tokens/store.js';
import { MIGRATION_DIALECTS, migrationStep } from './migration-step.js';

// Migration 0018_add_oauth_ppid_jwt on every dialect (issue 14): clients registered before it keep
// public subjects and opaque access tokens, and access tokens issued before it show the uid;
// migrating down and up again works.

const TARGET = '0018_add_oauth_ppid_jwt';

describe.each(MIGRATION_DIALECTS)('migration 0018_add_oauth_ppid_jwt (%s)', (dialect) => {
  const step = migrationStep(dialect, TARGET);

  it('gives existing clients public subjects and opaque tokens, and existing tokens the uid as subject', async () => {
    await step.toBefore();
    const db = step.db;
    const id = randomHex(8);
    const uid = randomHex(16);
    const tokenHash = randomHex(32);
    await db.insertInto('oauth_clients').values({
      id, name: 'Old', image_uri: '', redirect_uri: 'https://old.example/cb', redirect_uris: 'https://old.example/cb', hashed_secret: randomHex(32), hashed_secret_previous: null,
      trusted: 0, public_client: 0, can_grant: 0, allowed_scopes: 'profile', created_at: 1,
    }).execute();
    await db.insertInto('oauth_access_tokens').values({ token_hash: tokenHash, client_id: id, uid, scope: 'profile', created_at: 1, expires_at: 2, profile_changed_at: 1 }).execute();
    await step.toTarget();
    expect(await new OAuthService().findClient(step.storage.db, id)).toMatchObject({ pairwiseSubjects: false, pairwiseRotationSeconds: 0, jwtAccessTokens: false });
    expect(await findAccessTokenByHash(step.storage.db, tokenHash)).toMatchObject({ uid, subject: uid });
    await step.toBefore();
    await step.toTarget();
  });
});
