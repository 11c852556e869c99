import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migrator, type Kysely } from 'kysely';
import { createKeyBundle, deriveTokenKeys, hawkHeader, openKeyBundle, randomHex, TOKEN_TYPES, type TokenType } from '@tessera/protocol';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { TokenSecrets } from '../../src/crypto/token-secrets.js';
import { migrationsOf } from '../../src/app.js';

/** Every migration of the server's composition (the platform's and each domain's), in order. */
const MIGRATIONS = migrationsOf();
import { migrateToLatest, openStorage, type DialectName, type Storage } from '../../src/storage/db.js';
import { databaseUrlFor, freshDatabase, testSigningKey } from '../harness.js';

// Migration 0005_key_token_ids on every dialect: rows written the way the code before it wrote
// them (raw token ids and authKeys) are rekeyed with the server secret, and the tokens minted
// before the migration authenticate after it, as Bearer and as Hawk, while the tables no longer
// hold any id or authKey. Without the secret the migration refuses to run and changes nothing.

const dialects = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));
const TARGET = '0005_key_token_ids';
const PUBLIC_URL = 'http://127.0.0.1:9999';
const SECRET = randomHex(32);

interface Minted {
  data: string;
  id: string;
  authKey: string;
  bundleKey: string;
}
const mint = (type: TokenType): Minted => {
  const data = randomHex(32);
  const k = deriveTokenKeys(type, data);
  return { data, id: k.tokenId, authKey: k.authKey, bundleKey: k.bundleKey };
};

/** An account row and its email, in the columns every version since 0001 has. */
async function oldAccount(db: Kysely<any>, now: number) { // eslint-disable-line @typescript-eslint/no-explicit-any
  const uid = randomHex(16);
  const email = `migrated.${randomHex(4)}@example.com`;
  const kA = randomHex(32);
  await db.insertInto('accounts').values({
    uid, email, email_code: randomHex(16), email_verified: 1, k_a: kA, wrap_wrap_kb: randomHex(32), auth_salt: randomHex(32),
    verify_hash: randomHex(32), verifier_version: 1, verifier_set_at: now, created_at: now, locale: 'en',
    profile_changed_at: now, keys_changed_at: now,
  }).execute();
  await db.insertInto('emails').values({
    normalized_email: email, email, uid, email_code: randomHex(16), is_verified: 1, is_primary: 1, verified_at: now, created_at: now,
  }).execute();
  return { uid, kA };
}

const session = (uid: string, t: Minted, now: number, extra: Record<string, unknown> = {}) => ({
  token_id: t.id, auth_key: t.authKey, uid, created_at: now, last_access_time: now, auth_at: now, must_verify: 0, verified_at: now, ...extra,
});

describe.each(dialects)('migration 0005_key_token_ids (%s)', (dialect) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  let dataDir: string;
  let app: App | undefined;
  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    drop = fresh.drop;
    storage = openStorage(fresh.url, { poolSize: 4 });
    dataDir = mkdtempSync(join(tmpdir(), 'tessera-0005-'));
  });
  afterAll(async () => {
    await app?.close();
    await storage?.destroy();
    await drop?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('rekeys tokens minted before it: they work after it, and the tables hold no id or authKey', async () => {
    // The schema just before 0005.
    const names = Object.keys(MIGRATIONS);
    const previous = names[names.indexOf(TARGET) - 1]!;
    const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock' });
    const before = await migrator.migrateTo(previous);
    expect(before.error).toBeUndefined();

    // Tokens as the code before 0005 stored them.
    const db = storage.db as unknown as Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const now = Date.now();
    const a = await oldAccount(db, now);
    const b = await oldAccount(db, now);
    const s = mint('sessionToken');
    const pending = mint('sessionToken');
    const kft = mint('keyFetchToken');
    const change = mint('passwordChangeToken');
    const reset = mint('accountResetToken');
    const forgot = mint('passwordForgotToken');
    const wrapKb = randomHex(32);
    await db.insertInto('session_tokens').values(session(a.uid, s, now)).execute();
    await db.insertInto('session_tokens').values(session(b.uid, pending, now, {
      token_verification_id: randomHex(16), must_verify: 1, verified_at: null, verification_reason: 'login',
      code_hash: randomHex(32), code_expires_at: now + 600_000, code_tries: 3,
    })).execute();
    await db.insertInto('key_fetch_tokens').values({
      token_id: kft.id, auth_key: kft.authKey, uid: a.uid, key_bundle: createKeyBundle(kft.bundleKey, a.kA, wrapKb), session_token_id: s.id, created_at: now,
    }).execute();
    await db.insertInto('password_change_tokens').values({ token_id: change.id, auth_key: change.authKey, uid: a.uid, created_at: now }).execute();
    await db.insertInto('account_reset_tokens').values({ token_id: reset.id, auth_key: reset.authKey, uid: b.uid, created_at: now, verification_method: null }).execute();
    await db.insertInto('password_forgot_tokens').values({
      token_id: forgot.id, auth_key: forgot.authKey, uid: b.uid, passcode_hash: randomHex(32), tries: 3, created_at: now, verification_method: null,
    }).execute();

    // Without the secret there is nothing it can do: it refuses, and leaves the schema as it was.
    await expect(migrateToLatest(storage.db, {}, MIGRATIONS)).rejects.toThrow(/needs the server secret/);
    expect((await db.selectFrom('session_tokens').select('token_id').execute()).length).toBe(2);

    const applied = await migrateToLatest(storage.db, { authSecret: SECRET }, MIGRATIONS);
    expect(applied).toContain(TARGET);

    // Nothing a client holds or presents is left in the token tables.
    const tables = ['session_tokens', 'key_fetch_tokens', 'account_reset_tokens', 'password_forgot_tokens', 'password_change_tokens'];
    const dump = JSON.stringify(await Promise.all(tables.map((t) => db.selectFrom(t).selectAll().execute())));
    for (const t of [s, pending, kft, change, reset, forgot]) {
      for (const value of [t.data, t.id, t.authKey]) expect(dump).not.toContain(value);
    }
    expect(dump).not.toContain('rekey_pending');
    const secrets = new TokenSecrets(SECRET);
    const kftRow = await db.selectFrom('key_fetch_tokens').selectAll().executeTakeFirstOrThrow();
    expect(kftRow).toMatchObject({ id_hash: secrets.handle('keyFetchToken', kft.id), session_id_hash: secrets.handle('sessionToken', s.id), hawk_only: 0 });
    // What is bound to raw ids and the unknown emailed codes is voided: pending session codes, forgot tokens.
    const pendingRow = await db.selectFrom('session_tokens').selectAll().where('uid', '=', b.uid).executeTakeFirstOrThrow();
    expect(pendingRow).toMatchObject({ id_hash: secrets.handle('sessionToken', pending.id), code_hash: null, code_tries: null, token_verification_id: expect.any(String) });
    expect(await db.selectFrom('password_forgot_tokens').selectAll().execute()).toEqual([]);

    // The server, with the same secret, takes every token minted before the migration.
    app = await createApp({
      config: loadConfig({ NODE_ENV: 'test', PUBLIC_URL, LOG_LEVEL: 'silent', PORTAL_DIR: '/nonexistent', DATA_DIR: dataDir, AUTH_SECRET: SECRET, SCRYPT_WORKERS: '1' }),
      storage, logger: false, signingKey: testSigningKey(),
    });
    const send = async (method: 'GET' | 'POST', path: string, authorization: string, body?: unknown) => {
      const r = await app!.server.inject({ method, url: `/v1${path}`, headers: { authorization, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });
      return { status: r.statusCode, body: r.json() as Record<string, unknown>, text: r.body };
    };
    const bearer = (type: TokenType, t: Minted) => `Bearer ${TOKEN_TYPES[type].prefix}${t.id}`;
    const hawk = (method: string, path: string, t: Minted, payload?: string) => hawkHeader({
      method, url: `${PUBLIC_URL}/v1${path}`, credentials: { id: t.id, key: t.authKey },
      ...(payload !== undefined ? { payload, contentType: 'application/json' } : {}),
    });

    const viaBearer = await send('GET', '/session/status', bearer('sessionToken', s));
    expect(viaBearer.status, viaBearer.text).toBe(200);
    expect(viaBearer.body.uid).toBe(a.uid);
    const viaHawk = await send('GET', '/session/status', hawk('GET', '/session/status', s));
    expect(viaHawk.status, viaHawk.text).toBe(200);
    // The session whose code was voided still works; only a new code is needed to confirm it.
    expect((await send('GET', '/session/status', bearer('sessionToken', pending))).body.state).toBe('unverified');

    // The key fetch token: found by Hawk, its sealed key verifies the signature, the bundle opens.
    const keys = await send('GET', '/account/keys', hawk('GET', '/account/keys', kft));
    expect(keys.status, keys.text).toBe(200);
    expect(openKeyBundle(kft.bundleKey, keys.body.bundle as string)).toEqual({ kA: a.kA, wrapKb });

    const resetReply = await send('POST', '/account/reset', bearer('accountResetToken', reset), { authPW: randomHex(32) });
    expect(resetReply.status, resetReply.text).toBe(200);
    const payload = JSON.stringify({ authPW: randomHex(32), wrapKb: randomHex(32) });
    const changeReply = await app.server.inject({
      method: 'POST', url: '/v1/password/change/finish', payload,
      headers: { authorization: hawk('POST', '/password/change/finish', change, payload), 'content-type': 'application/json' },
    });
    expect(changeReply.statusCode, changeReply.body).toBe(200);
    expect((await send('GET', '/password/forgot/status', bearer('passwordForgotToken', forgot))).status).toBe(401);
  });

  it('is reversible: down deletes the tokens it cannot turn back into ids and restores the columns', async () => {
    const migrator = new Migrator({ db: storage.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock' });
    const names = Object.keys(MIGRATIONS);
    const { error } = await migrator.migrateTo(names[names.indexOf(TARGET) - 1]!);
    expect(error).toBeUndefined();
    const db = storage.db as unknown as Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    expect(await db.selectFrom('session_tokens').select(['token_id', 'auth_key']).execute()).toEqual([]);
    expect(await migrateToLatest(storage.db, { authSecret: SECRET }, MIGRATIONS)).toContain(TARGET);
  });
});
