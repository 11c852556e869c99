import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migrator } from 'kysely';
import { randomHex } from '@tessera/protocol';
import { migrationsOf } from '../../src/app.js';

/** Every migration of the server's composition (the platform's and each domain's), in order. */
const MIGRATIONS = migrationsOf();
import { isUniqueViolation, migrateToLatest, openStorage, type DialectName, type Storage } from '../../src/storage/db.js';
import { findAccount, findAccountByEmail, insertAccount, insertEmail, markEmailVerified, type Account } from '../../src/domains/account-core/store.js';
import { insertSession, findSessionWithAccount, type Session } from '../../src/domains/sessions/store.js';
import { secondFactorReads } from '../../src/domains/two-step/second-factor-port.js';
import { checkSessionCode, issueSessionCode } from '../../src/domains/sessions/codes.js';
import { deleteAccountResetToken, findKeyFetchToken, insertKeyFetchToken, replaceAccountResetToken } from '../../src/domains/tokens/store.js';
import { databaseUrlFor, freshDatabase } from '../harness.js';

// One storage contract, every dialect: SQLite always; PostgreSQL and MySQL/MariaDB whenever
// TEST_POSTGRES_URL / TEST_MYSQL_URL are set (CI sets both; an unreachable server fails the suite).
const dialects = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));

function account(overrides: Partial<Account> = {}): Account {
  const now = 1_795_327_839_123;
  return {
    uid: randomHex(16), email: `Ünïcödé.${randomHex(3)}@Example.com`, passwordEmail: null, emailCode: randomHex(16), emailVerified: false,
    kA: randomHex(32), wrapWrapKb: randomHex(32), authSalt: randomHex(32), verifyHash: randomHex(32), verifierVersion: 1,
    verifierSetAt: now, createdAt: now, locale: 'fr-CA, fr', lockedAt: null, disabledAt: null, metricsOptOutAt: null,
    profileChangedAt: now, keysChangedAt: now, clientSalt: null, verifyHashV2: null, wrapWrapKbV2: null, ...overrides,
  };
}

function session(uid: string, overrides: Partial<Session> = {}): Session {
  return {
    id: randomHex(32), sealedAuthKey: randomHex(32), hawkOnly: false, hasDevice: false, uid, createdAt: 1000, lastAccessTime: 1000, authAt: 1000,
    ua: { browser: 'Firefox', browserVersion: '140.0', os: 'Linux', osVersion: null, deviceType: 'desktop', formFactor: null },
    tokenVerificationId: randomHex(16), mustVerify: true, verificationMethod: null, verifiedAt: null, verificationReason: 'login', ...overrides,
  };
}

describe.each(dialects)('storage contract (%s)', (dialect) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    drop = fresh.drop;
    storage = openStorage(fresh.url, { poolSize: 4 });
  });
  afterAll(async () => {
    await storage?.destroy();
    await drop?.();
  });

  it('migrates an empty database to the newest version, and again is a no-op', async () => {
    expect(await migrateToLatest(storage.db, {}, MIGRATIONS)).toEqual(Object.keys(MIGRATIONS));
    expect(await migrateToLatest(storage.db, {}, MIGRATIONS)).toEqual([]);
  });

  it('migrates down to nothing and up again (every migration is reversible)', async () => {
    const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock' });
    for (let i = 0; i < Object.keys(MIGRATIONS).length; i++) {
      const { error } = await migrator.migrateDown();
      expect(error).toBeUndefined();
    }
    const tables = (await storage.db.introspection.getTables()).map((t) => t.name).filter((n) => !n.startsWith('schema_migrations'));
    expect(tables).toEqual([]);
    expect(await migrateToLatest(storage.db, {}, MIGRATIONS)).toEqual(Object.keys(MIGRATIONS));
  });

  it('round-trips text, unicode, millisecond times beyond 2^32, booleans and nulls', async () => {
    const a = account({ email: `😀 ünï.${randomHex(2)}@例え.jp`, emailVerified: true, lockedAt: 4_102_444_800_000, clientSalt: `identity.mozilla.com/picl/v1/quickStretchV2:${randomHex(16)}` });
    await insertAccount(storage.db, a);
    const back = await findAccount(storage.db, a.uid);
    expect(back).toEqual(a);
    expect(typeof back!.createdAt).toBe('number');
  });

  it('finds accounts by address case-insensitively and keeps the stored spelling', async () => {
    const a = account();
    await storage.db.transaction().execute(async (trx) => {
      await insertAccount(trx, a);
      await insertEmail(trx, { email: a.email, normalizedEmail: a.email.toLowerCase(), uid: a.uid, emailCode: a.emailCode, isVerified: false, isPrimary: true, verifiedAt: null, createdAt: 1 });
    });
    const found = await findAccountByEmail(storage.db, a.email.toUpperCase());
    expect(found?.account.uid).toBe(a.uid);
    expect(found?.emailRecord.email).toBe(a.email);
    expect(await markEmailVerified(storage.db, a.uid, 5)).toBe(true);
    expect(await markEmailVerified(storage.db, a.uid, 6)).toBe(false);
    expect((await findAccountByEmail(storage.db, a.email))?.emailRecord).toMatchObject({ isVerified: true, verifiedAt: 5 });
  });

  it('reports unique violations the same way on every dialect and rolls back the whole transaction', async () => {
    const first = account();
    const email = { email: first.email, normalizedEmail: first.email.toLowerCase(), uid: first.uid, emailCode: first.emailCode, isVerified: false, isPrimary: true, verifiedAt: null, createdAt: 1 };
    await storage.db.transaction().execute(async (trx) => {
      await insertAccount(trx, first);
      await insertEmail(trx, email);
    });
    const second = account();
    const failure = await storage.db.transaction().execute(async (trx) => {
      await insertAccount(trx, second);
      await insertEmail(trx, { ...email, uid: second.uid });
    }).catch((e: unknown) => e);
    expect(isUniqueViolation(failure)).toBe(true);
    // Nothing of the failed transaction remains.
    expect(await findAccount(storage.db, second.uid)).toBeNull();
  });

  it('joins a session with its account; a key fetch token keeps the session it was minted with', async () => {
    const a = account({ emailVerified: true });
    await insertAccount(storage.db, a);
    const s = session(a.uid);
    await insertSession(storage.db, s);
    const loaded = await findSessionWithAccount(storage.db, s.id, secondFactorReads);
    expect(loaded).toMatchObject({ id: s.id, mustVerify: true, tokenVerificationId: s.tokenVerificationId, ua: s.ua, account: { emailVerified: true } });
    const kft = randomHex(32);
    await insertKeyFetchToken(storage.db, { id: kft, sealedAuthKey: randomHex(32), hawkOnly: true, uid: a.uid, keyBundle: randomHex(96), sessionTokenId: s.id, createdAt: 1 });
    expect(await findKeyFetchToken(storage.db, kft)).toMatchObject({ uid: a.uid, sessionTokenId: s.id, hawkOnly: true, createdAt: 1 });
  });

  it('lets exactly one of many parallel requests spend a single-use token', async () => {
    const a = account();
    await insertAccount(storage.db, a);
    const id = randomHex(32);
    await replaceAccountResetToken(storage.db, { id, sealedAuthKey: randomHex(32), hawkOnly: false, uid: a.uid, createdAt: 1, verificationMethod: null });
    const results = await Promise.all(Array.from({ length: 6 }, () => deleteAccountResetToken(storage.db, id)));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('ends a session at its limit of wrong codes across resends, even under parallel guesses', async () => {
    const a = account();
    await insertAccount(storage.db, a);
    const s = session(a.uid);
    await insertSession(storage.db, s);
    const code = await issueSessionCode(storage.db, 'secret', s.id, 0, 60_000, 10);
    const wrong = code === '000000' ? '111111' : '000000';
    const results = await Promise.all(Array.from({ length: 8 }, () => checkSessionCode(storage.db, 'secret', s.id, wrong, 10, 3)));
    // Two wrong codes are counted; the third ends the session, and nothing of it is left.
    expect(results.filter((r) => r === 'wrong')).toHaveLength(2);
    expect(results).toContain('spent');
    expect(await findSessionWithAccount(storage.db, s.id, secondFactorReads)).toBeNull();
  });

  it('never grants more code tries than allowed, even to parallel guesses', async () => {
    const a = account();
    await insertAccount(storage.db, a);
    const s = session(a.uid);
    await insertSession(storage.db, s);
    const code = await issueSessionCode(storage.db, 'secret', s.id, 0, 60_000, 3);
    const wrong = code === '000000' ? '111111' : '000000';
    const results = await Promise.all(Array.from({ length: 8 }, () => checkSessionCode(storage.db, 'secret', s.id, wrong, 10, 100)));
    expect(results.filter((r) => r === 'wrong')).toHaveLength(3);
    expect(await checkSessionCode(storage.db, 'secret', s.id, code, 10, 100)).toBe('none');
  });
});
