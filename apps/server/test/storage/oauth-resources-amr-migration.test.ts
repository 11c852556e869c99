import { describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { findClient } from '../../src/domains/oauth/clients/store.js';
import { findAccessTokenByHash } from '../../src/domains/oauth/tokens/store.js';
import { MIGRATION_DIALECTS, migrationStep } from './migration-step.js';

// Migration 0021_add_oauth_resources_amr on every dialect: a client registered before it may name no
// resource (RFC 8707 §2, issue 22); an access token written before it reports no authentication
// methods; new rows carry both; migrating down and up again works.

const TARGET = '0021_add_oauth_resources_amr';

describe.each(MIGRATION_DIALECTS)('migration 0021_add_oauth_resources_amr (%s)', (dialect) => {
  const step = migrationStep(dialect, TARGET);

  it('leaves existing clients without resources and tokens without amr, stores new ones, and migrates down and up', async () => {
    await step.toBefore();
    const db = step.db;
    const clientId = randomHex(8);
    const uid = randomHex(16);
    const accessHash = randomHex(32);
    await db.insertInto('oauth_clients').values({
      id: clientId, name: 'Old', image_uri: '', redirect_uri: 'https://old.example/cb', redirect_uris: 'https://old.example/cb', hashed_secret: null,
      hashed_secret_previous: null, trusted: 1, public_client: 1, can_grant: 0, allowed_scopes: 'profile', created_at: 1,
    }).execute();
    await db.insertInto('oauth_access_tokens').values({ token_hash: accessHash, client_id: clientId, uid, scope: 'profile', created_at: 1, expires_at: 2, profile_changed_at: 1 }).execute();
    await step.toTarget();
    expect(await findClient(step.storage.db, clientId)).toMatchObject({ allowedResources: [] });
    expect(await findAccessTokenByHash(step.storage.db, accessHash)).toMatchObject({ uid, amr: null, aal: null });
    const newHash = randomHex(32);
    await step.storage.db.insertInto('oauth_access_tokens').values({
      token_hash: newHash, client_id: clientId, uid, scope: 'profile', created_at: 1, expires_at: 2, profile_changed_at: 1, subject: null, grant_id: null, amr: 'pwd otp', aal: 2,
    }).execute();
    await step.storage.db.updateTable('oauth_clients').set({ allowed_resources: 'https://api.example/ https://files.example/v1' }).where('id', '=', clientId).execute();
    expect(await findAccessTokenByHash(step.storage.db, newHash)).toMatchObject({ amr: ['pwd', 'otp'], aal: 2 });
    expect(await findClient(step.storage.db, clientId)).toMatchObject({ allowedResources: ['https://api.example/', 'https://files.example/v1'] });
    await step.toBefore();
    await expect(step.db.selectFrom('oauth_access_tokens').select('amr').execute()).rejects.toThrow();
    await expect(step.db.selectFrom('oauth_clients').select('allowed_resources').execute()).rejects.toThrow();
    await step.toTarget();
    expect(await findAccessTokenByHash(step.storage.db, accessHash)).toMatchObject({ amr: null, aal: null });
  });
});
