import { describe, expect, it } from 'vitest';
import type { Kysely } from 'kysely';
import { randomHex } from '@tessera/protocol';
import { MIGRATION_DIALECTS, migrationStep } from './migration-step.js';

// Migration 0007_add_stub_client_ids on every dialect (issue 9, hole 10): stub accounts made before
// it get the client of the access token made with them, so that client alone can still set their
// first password; a stub whose token is gone gets none, and accounts with a password get none.

const TARGET = '0007_add_stub_client_ids';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function account(db: Kysely<any>, createdAt: number, verifierSetAt: number): Promise<string> {
  const uid = randomHex(16);
  await db.insertInto('accounts').values({
    uid, email: `m.${randomHex(4)}@example.com`, email_code: randomHex(16), email_verified: 0, k_a: randomHex(32), wrap_wrap_kb: randomHex(32),
    auth_salt: randomHex(32), verify_hash: '0'.repeat(64), verifier_version: 1, verifier_set_at: verifierSetAt, created_at: createdAt,
    locale: null, profile_changed_at: createdAt, keys_changed_at: createdAt,
  }).execute();
  return uid;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function accessToken(db: Kysely<any>, clientId: string, uid: string, createdAt: number): Promise<void> {
  await db.insertInto('oauth_access_tokens').values({
    token_hash: randomHex(32), client_id: clientId, uid, scope: 'profile:write', created_at: createdAt, expires_at: createdAt + 3_600_000, profile_changed_at: createdAt,
  }).execute();
}

describe.each(MIGRATION_DIALECTS)('migration 0007_add_stub_client_ids (%s)', (dialect) => {
  const step = migrationStep(dialect, TARGET);

  it('records the creating client of existing stubs from the access token made with them', async () => {
    await step.toBefore();

    const db = step.db;
    const creator = randomHex(8);
    const later = randomHex(8);
    const stub = await account(db, 1_000, 0);
    await accessToken(db, creator, stub, 1_000);
    await accessToken(db, later, stub, 5_000); // a token issued afterwards to another client
    const orphan = await account(db, 2_000, 0); // its token is gone
    const signedUp = await account(db, 3_000, 3_000);
    await accessToken(db, creator, signedUp, 3_000);

    await step.toTarget();
    const rows = await db.selectFrom('accounts').select(['uid', 'stub_client_id']).execute();
    const of = (uid: string) => rows.find((r: { uid: string }) => r.uid === uid)?.stub_client_id;
    expect(of(stub)).toBe(creator);
    expect(of(orphan)).toBeNull();
    expect(of(signedUp)).toBeNull();
  });
});
