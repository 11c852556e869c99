import { describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { findAccessTokenByHash } from '../../src/domains/oauth/tokens/store.js';
import { findRefreshToken } from '../../src/domains/oauth/grants/store.js';
import { MIGRATION_DIALECTS, migrationStep } from './migration-step.js';

// Migration 0019_add_oauth_grant_ids on every dialect: refresh and access tokens written before it
// keep a NULL grant id (so revoking such a refresh token leaves its access tokens to expire, as
// before); new rows can carry one; migrating down and up again works.

const TARGET = '0019_add_oauth_grant_ids';

describe.each(MIGRATION_DIALECTS)('migration 0019_add_oauth_grant_ids (%s)', (dialect) => {
  const step = migrationStep(dialect, TARGET);

  it('leaves existing tokens without a grant id, stores new ones, and migrates down and up', async () => {
    await step.toBefore();
    const db = step.db;
    const clientId = randomHex(8);
    const uid = randomHex(16);
    const accessHash = randomHex(32);
    const refreshHash = randomHex(32);
    await db.insertInto('oauth_access_tokens').values({ token_hash: accessHash, client_id: clientId, uid, scope: 'profile', created_at: 1, expires_at: 2, profile_changed_at: 1 }).execute();
    await db.insertInto('oauth_refresh_tokens').values({
      token_hash: refreshHash, client_id: clientId, uid, scope: 'profile', auth_at: 1, amr: 'pwd', aal: 1, created_at: 1, last_used_at: 1, expires_at: 0,
    }).execute();
    await step.toTarget();
    expect(await findAccessTokenByHash(step.storage.db, accessHash)).toMatchObject({ uid, grantId: null });
    expect(await findRefreshToken(step.storage.db, refreshHash)).toMatchObject({ uid, grantId: null });
    const grantId = randomHex(16);
    const newHash = randomHex(32);
    await step.storage.db.insertInto('oauth_access_tokens').values({
      token_hash: newHash, client_id: clientId, uid, scope: 'profile', created_at: 1, expires_at: 2, profile_changed_at: 1, subject: null, grant_id: grantId,
    }).execute();
    expect(await findAccessTokenByHash(step.storage.db, newHash)).toMatchObject({ grantId });
    await step.toBefore();
    // Down drops the columns (and the index with them).
    await expect(step.db.selectFrom('oauth_access_tokens').select('grant_id').execute()).rejects.toThrow();
    await expect(step.db.selectFrom('oauth_refresh_tokens').select('grant_id').execute()).rejects.toThrow();
    await step.toTarget();
    expect(await findAccessTokenByHash(step.storage.db, accessHash)).toMatchObject({ grantId: null });
  });
});
