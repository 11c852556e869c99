import { migrationsOf } from '../../../src/app.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { ManualClock } from '../../../src/clock.js';
import { SecurityEventsService } from '../../../src/domains/security-events/index.js';
import { migrateToLatest, openStorage, type DialectName, type Storage } from '../../../src/storage/db.js';
import { databaseUrlFor, freshDatabase } from '../../harness.js';

// The security_events table on every dialect (SQLite always; PostgreSQL and MySQL/MariaDB when
// TEST_POSTGRES_URL / TEST_MYSQL_URL are set): order, the per-name cap, transactions, the sweep.
const dialects = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));

describe.each(dialects)('security events store (%s)', (dialect) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  const clock = new ManualClock(1_795_327_839_123);
  let events: SecurityEventsService;
  const ctx = { ip: '::ffff:203.0.113.9' };

  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    drop = fresh.drop;
    storage = openStorage(fresh.url, { poolSize: 4 });
    await migrateToLatest(storage.db, {}, migrationsOf());
    events = new SecurityEventsService({ db: storage.db, clock, retentionMs: 10_000, maxPerName: 3 });
  });
  afterAll(async () => {
    await storage?.destroy();
    await drop?.();
  });

  it('lists an account\'s events newest first, events of one millisecond in the order recorded', async () => {
    const uid = randomHex(16);
    const other = randomHex(16);
    await events.record(storage.db, uid, { name: 'account.create', ctx, verified: false });
    await events.record(storage.db, other, { name: 'account.create', ctx: { ip: '2001:db8:1:2::9' }, verified: false });
    await events.record(storage.db, uid, { name: 'account.email_verified', ctx, verified: true, additionalInfo: { method: 'link', 'é': '✓' } });
    clock.advance(1);
    await events.record(storage.db, uid, { name: 'account.login', ctx, verified: true });
    expect(await events.list(uid)).toEqual([
      { name: 'account.login', verified: true, createdAt: clock.now(), ipNetwork: '203.0.113.0/24' },
      { name: 'account.email_verified', verified: true, createdAt: clock.now() - 1, ipNetwork: '203.0.113.0/24', additionalInfo: { method: 'link', 'é': '✓' } },
      { name: 'account.create', verified: false, createdAt: clock.now() - 1, ipNetwork: '203.0.113.0/24' },
    ]);
    expect(await events.list(other)).toEqual([{ name: 'account.create', verified: false, createdAt: clock.now() - 1, ipNetwork: '2001:db8:1::/48' }]);
    expect(await events.list(randomHex(16))).toEqual([]);
  });

  it('keeps the newest few of each name: a flood of one name leaves the others alone', async () => {
    const uid = randomHex(16);
    await events.record(storage.db, uid, { name: 'account.login', ctx, verified: true });
    for (let i = 0; i < 5; i++) {
      clock.advance(1);
      await events.record(storage.db, uid, { name: 'account.login.failure', ctx, verified: false, additionalInfo: { n: String(i) } });
    }
    const listed = await events.list(uid);
    expect(listed.map((e) => [e.name, e.additionalInfo?.n])).toEqual([
      ['account.login.failure', '4'], ['account.login.failure', '3'], ['account.login.failure', '2'], ['account.login', undefined],
    ]);
  });

  it('records inside the caller\'s transaction: a rollback takes the event with it', async () => {
    const uid = randomHex(16);
    const failed = await storage.db.transaction().execute(async (trx) => {
      await events.record(trx, uid, { name: 'account.password_changed', ctx, verified: true });
      throw new Error('the change failed');
    }).catch((e: unknown) => e);
    expect((failed as Error).message).toBe('the change failed');
    expect(await events.list(uid)).toEqual([]);
    await storage.db.transaction().execute((trx) => events.record(trx, uid, { name: 'account.password_changed', ctx, verified: true }));
    expect((await events.list(uid)).map((e) => e.name)).toEqual(['account.password_changed']);
  });

  it('keeps no address that is not one, and stops listing then sweeps what is past retention', async () => {
    const uid = randomHex(16);
    await events.record(storage.db, uid, { name: 'session.destroy', ctx: { ip: 'unknown' }, verified: false });
    expect(await events.list(uid)).toEqual([{ name: 'session.destroy', verified: false, createdAt: clock.now() }]);
    clock.advance(10_001);
    expect(await events.list(uid)).toEqual([]);
    expect(await events.sweep()).toBeGreaterThanOrEqual(1);
    const left = await storage.db.selectFrom('security_events').select('id').execute();
    expect(left).toEqual([]);
  });
});
