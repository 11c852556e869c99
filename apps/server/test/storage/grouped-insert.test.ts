import { describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { findAccessTokenByHash, insertAccessToken } from '../../src/domains/oauth/tokens/store.js';
import { groupedInsert } from '../../src/storage/grouped-insert.js';
import { accessTokenRow, freshStorage, storageDialects } from './fixtures.js';

// Access tokens written outside a transaction go through storage/grouped-insert.ts: the rows of one
// event-loop turn share one INSERT. Each caller must still get its own row's outcome, and its row
// must be readable (on any connection) once its promise settles.

const token = accessTokenRow;

describe.each(storageDialects)('grouped access-token inserts (%s)', (dialect) => {
  const fx = freshStorage(dialect);

  it('stores every row of a burst, each readable from another connection once its insert resolves', async () => {
    const rows = Array.from({ length: 300 }, () => token());
    const epoch = fx.storage.writeEpoch.value;
    await Promise.all(rows.map(async (t) => {
      await insertAccessToken(fx.storage.db, t);
      const found = await findAccessTokenByHash(fx.other.db, t.tokenHash);
      expect(found).toMatchObject({ tokenHash: t.tokenHash, uid: t.uid, clientId: t.clientId, scope: ['profile'], expiresAt: 2_000, subject: t.uid });
    }));
    // The process's write epoch (what in-process caches trust) moved.
    expect(fx.storage.writeEpoch.value).toBeGreaterThan(epoch);
  });

  it('a row that cannot be written fails only its own caller', async () => {
    const existing = token();
    await insertAccessToken(fx.storage.db, existing);
    const fresh = [token(), token()];
    const results = await Promise.allSettled([
      insertAccessToken(fx.storage.db, fresh[0]!),
      insertAccessToken(fx.storage.db, { ...token(), tokenHash: existing.tokenHash }),
      insertAccessToken(fx.storage.db, fresh[1]!),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    for (const t of fresh) expect(await findAccessTokenByHash(fx.other.db, t.tokenHash)).toMatchObject({ uid: t.uid });
    // The duplicate changed nothing: the first row is still the one stored.
    expect(await findAccessTokenByHash(fx.other.db, existing.tokenHash)).toMatchObject({ uid: existing.uid });
  });

  it('keeps the grant id, and refuses a row whose columns are not the declared ones', async () => {
    const t = { ...token(), grantId: randomHex(16) };
    await insertAccessToken(fx.storage.db, t);
    expect((await fx.other.db.selectFrom('oauth_access_tokens').select('grant_id').where('token_hash', '=', t.tokenHash).executeTakeFirst())?.grant_id).toBe(t.grantId);
    const narrow = groupedInsert<'oauth_access_tokens', Record<string, unknown>>('oauth_access_tokens', ['token_hash', 'client_id']);
    await expect(narrow(fx.storage.db, { token_hash: randomHex(32), client_id: 'abcdef0123456789', uid: randomHex(16) })).rejects.toThrow(/not the declared ones/);
  });

  it('inside a transaction the row commits or rolls back with it', async () => {
    const t = token();
    await expect(fx.storage.db.transaction().execute(async (trx) => {
      await insertAccessToken(trx, t);
      throw new Error('rolled back');
    })).rejects.toThrow('rolled back');
    expect(await findAccessTokenByHash(fx.other.db, t.tokenHash)).toBeNull();
  });
});
