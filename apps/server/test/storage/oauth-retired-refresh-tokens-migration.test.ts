import { describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { findRefreshToken } from '../../src/domains/oauth/grants/store.js';
import { MIGRATION_DIALECTS, migrationStep } from './migration-step.js';

// Migration 0020_add_oauth_retired_refresh_tokens on every dialect: existing refresh tokens are
// untouched, the new table takes retired hashes (one row per hash), and down drops it.

const TARGET = '0020_add_oauth_retired_refresh_tokens';

describe.each(MIGRATION_DIALECTS)('migration 0020_add_oauth_retired_refresh_tokens (%s)', (dialect) => {
  const step = migrationStep(dialect, TARGET);

  it('keeps refresh tokens, stores retired hashes once, and migrates down and up', async () => {
    await step.toBefore();
    const uid = randomHex(16);
    const refreshHash = randomHex(32);
    const grantId = randomHex(16);
    await step.db.insertInto('oauth_refresh_tokens').values({
      token_hash: refreshHash, client_id: randomHex(8), uid, scope: 'profile', auth_at: 1, amr: 'pwd', aal: 1, created_at: 1, last_used_at: 1, expires_at: 0, grant_id: grantId,
    }).execute();
    await step.toTarget();
    expect(await findRefreshToken(step.storage.db, refreshHash)).toMatchObject({ uid, grantId });
    const retired = { token_hash: randomHex(32), grant_id: grantId, uid, client_id: randomHex(8), retired_at: 5 };
    await step.storage.db.insertInto('oauth_retired_refresh_tokens').values(retired).execute();
    await expect(step.storage.db.insertInto('oauth_retired_refresh_tokens').values(retired).execute()).rejects.toThrow();
    expect(await step.storage.db.selectFrom('oauth_retired_refresh_tokens').selectAll().where('uid', '=', uid).execute())
      .toEqual([{ ...retired, retired_at: expect.anything() }]);
    await step.toBefore();
    await expect(step.db.selectFrom('oauth_retired_refresh_tokens').selectAll().execute()).rejects.toThrow();
    await step.toTarget();
    expect(await step.storage.db.selectFrom('oauth_retired_refresh_tokens').selectAll().execute()).toEqual([]);
  });
});
