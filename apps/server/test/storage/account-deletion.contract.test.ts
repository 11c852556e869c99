import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { randomHex } from '@tessera/protocol';
import { createAccountRecords } from '../../src/domains/account-core/index.js';
import type { DialectName } from '../../src/storage/db.js';
import { createTestServer, databaseUrlFor, type TestServer } from '../harness.js';

// Account deletion leaves no row of the account anywhere. The tables are read from the migrated
// schema itself — every table with an account column (`uid`) — and each gets a row for the
// account, so a table added later without an onAccountDeleted hook fails this suite on its own.
const dialects = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));

interface Column { name: string; dataType: string; isNullable: boolean; hasDefaultValue: boolean; isAutoIncrementing: boolean }

/** A value any column of the schema accepts: hex strings of 16 (the shortest varchar), small integers. */
function valueFor(column: Column, uid: string): string | number {
  if (column.name === 'uid') return uid;
  return /int|numeric|decimal|real|double|float|bool/i.test(column.dataType) ? 1 : randomHex(8);
}

describe.each(dialects)('account deletion contract (%s)', (dialect) => {
  let t: TestServer;
  let tables: { name: string; columns: Column[] }[];

  /** One row of `uid` in every account table, every NOT NULL column filled. */
  async function populate(uid: string): Promise<void> {
    for (const table of tables) {
      const row: Record<string, string | number> = {};
      for (const c of table.columns) {
        if (c.isAutoIncrementing || (c.isNullable && c.name !== 'uid')) continue;
        row[c.name] = valueFor(c, uid);
      }
      await t.storage.db.insertInto(table.name as never).values(row as never).execute();
    }
  }

  /** Rows of `uid`, table by table. */
  async function rowsOf(uid: string): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of tables) {
      const r = await t.storage.db.selectFrom(table.name as never).select(sql<number>`count(*)`.as('n')).where('uid' as never, '=', uid as never).executeTakeFirstOrThrow();
      out[table.name] = Number((r as { n: number | string }).n);
    }
    return out;
  }

  beforeAll(async () => {
    t = await createTestServer({ dialect });
    const all = await t.storage.db.introspection.getTables();
    tables = all
      .filter((tb) => !tb.name.startsWith('schema_migrations') && tb.columns.some((c) => c.name === 'uid'))
      .map((tb) => ({ name: tb.name, columns: tb.columns as Column[] }));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('finds every table that holds account rows in the migrated schema', () => {
    const names = tables.map((tb) => tb.name);
    for (const known of ['accounts', 'emails', 'session_tokens', 'key_fetch_tokens', 'password_forgot_otps', 'oauth_access_tokens', 'oauth_retired_refresh_tokens']) {
      expect(names).toContain(known);
    }
  });

  it('deletes every row of the account in every such table, and no row of another account', async () => {
    const victim = randomHex(16);
    const bystander = randomHex(16);
    await populate(victim);
    await populate(bystander);
    expect(Object.values(await rowsOf(victim)).every((n) => n === 1)).toBe(true);

    await t.app.services.records.deleteAccount(victim);

    const left = await rowsOf(victim);
    expect(Object.entries(left).filter(([, n]) => n > 0)).toEqual([]);
    expect(Object.values(await rowsOf(bystander)).every((n) => n === 1)).toBe(true);
    await t.app.services.records.deleteAccount(bystander);
  });

  it('notices when any one domain\'s onAccountDeleted hook is missing', async () => {
    const domains = t.app.lifecycle.domainsWith('onAccountDeleted');
    expect(domains.length).toBeGreaterThan(0);
    for (const name of domains) {
      const uid = randomHex(16);
      await populate(uid);
      const crippled = createAccountRecords({ db: t.storage.db, lifecycle: t.app.lifecycle.without(name), codeBudget: { maxFailures: 1, resetMaxFailures: 1, windowMs: 1 } });
      await crippled.deleteAccount(uid);
      const left = Object.entries(await rowsOf(uid)).filter(([, n]) => n > 0).map(([table]) => table);
      expect(left.length, `without ${name}'s hook nothing was left behind`).toBeGreaterThan(0);
      await t.app.services.records.deleteAccount(uid);
      expect(Object.values(await rowsOf(uid)).every((n) => n === 0)).toBe(true);
    }
  });

  it('rolls the whole deletion back when one part fails', async () => {
    const uid = randomHex(16);
    await populate(uid);
    const failing = await t.storage.db.transaction().execute(async (trx) => {
      await t.app.services.records.deleteAccount(uid, trx);
      throw new Error('a later step failed');
    }).catch((e: unknown) => e);
    expect((failing as Error).message).toBe('a later step failed');
    expect(Object.values(await rowsOf(uid)).every((n) => n === 1)).toBe(true);
    await t.app.services.records.deleteAccount(uid);
  });
});
