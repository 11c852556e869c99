import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Migrator, type Kysely } from 'kysely';
import { randomHex } from '@tessera/protocol';
import { OAuthService } from '../../src/domains/oauth/index.js';
import { MIGRATIONS } from '../../src/storage/migrations/index.js';
import { openStorage, type DialectName, type Storage } from '../../src/storage/db.js';
import { databaseUrlFor, freshDatabase } from '../harness.js';

// Migration 0017_add_oauth_clients on every dialect (issue 14): clients registered before it keep
// their one redirect URI as their list, with a day-long access token lifetime, exact redirects and
// no refresh-token rotation; migrating down and up again works.

const dialects = (['sqlite', 'postgres', 'mysql'] as DialectName[]).filter((d) => databaseUrlFor(d));
const TARGET = '0017_add_oauth_clients';

describe.each(dialects)('migration 0017_add_oauth_clients (%s)', (dialect) => {
  let storage: Storage;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    const fresh = await freshDatabase(dialect);
    drop = fresh.drop;
    storage = openStorage(fresh.url, { poolSize: 2 });
  });
  afterAll(async () => {
    await storage?.destroy();
    await drop?.();
  });

  it('keeps existing clients\' redirect URI and gives them the defaults', async () => {
    const migrator = new Migrator({
      db: storage.db, provider: { getMigrations: async () => MIGRATIONS }, migrationTableName: 'schema_migrations', migrationLockTableName: 'schema_migrations_lock',
    });
    const names = Object.keys(MIGRATIONS);
    const before = names[names.indexOf(TARGET) - 1]!;
    expect((await migrator.migrateTo(before)).error).toBeUndefined();
    const db = storage.db as unknown as Kysely<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const id = randomHex(8);
    await db.insertInto('oauth_clients').values({
      id, name: 'Old', image_uri: '', redirect_uri: 'https://old.example/cb', hashed_secret: randomHex(32), hashed_secret_previous: null,
      trusted: 0, public_client: 0, can_grant: 0, allowed_scopes: 'profile', created_at: 1,
    }).execute();
    expect((await migrator.migrateTo(TARGET)).error).toBeUndefined();
    const client = await new OAuthService().findClient(storage.db, id);
    expect(client).toMatchObject({
      redirectUri: 'https://old.example/cb', redirectUris: ['https://old.example/cb'], localRedirects: false,
      accessTokenTtlSeconds: 86_400, refreshTokenTtlSeconds: 0, rotateRefreshTokens: false,
    });
    expect((await migrator.migrateTo(before)).error).toBeUndefined();
    expect((await migrator.migrateTo(TARGET)).error).toBeUndefined();
  });
});
