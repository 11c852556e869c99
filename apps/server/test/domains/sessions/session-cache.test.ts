import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, databaseUrlFor, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import type { DialectName } from '../../../src/storage/db.js';

// Issue 9, hole 6: on a database with concurrent connections, a session read between a write and
// its COMMIT sees the old row. The session cache must not keep trusting that read once the write
// commits. (SQLite has one connection here, so the race cannot happen on it.)
const dialects = (['postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));

// Without a server that has several connections, say so instead of passing silently.
if (dialects.length === 0) it.skip('the session cache across a commit: needs TEST_POSTGRES_URL or TEST_MYSQL_URL', () => undefined);

describe.each(dialects)('the session cache across a commit (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect });
  });
  afterAll(async () => t?.close());

  it('does not trust a session read while its deletion was uncommitted, once the deletion commits', async () => {
    const acct = await verifiedAccount(t);
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let deleted!: () => void;
    const afterDelete = new Promise<void>((resolve) => { deleted = resolve; });
    const tx = t.storage.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('session_tokens').where('uid', '=', acct.uid).execute();
      deleted();
      await held;
    });
    await afterDelete;
    // Another connection still sees the committed row: the request passes, and its read is cached.
    expect((await t.client.sessionStatus(acct.sessionToken)).uid).toBe(acct.uid);
    release();
    await tx;
    // Within SESSION_CACHE_MS of that read, the committed deletion must already count.
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
  });

  it('a rolled-back write moves the epoch too, and the session still works after it', async () => {
    const acct = await verifiedAccount(t);
    await t.storage.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('session_tokens').where('uid', '=', acct.uid).execute();
      throw new Error('roll back');
    }).catch(() => undefined);
    expect((await t.client.sessionStatus(acct.sessionToken)).uid).toBe(acct.uid);
  });
});
