import { beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { findClient, insertClient, type OAuthClient } from '../../src/domains/oauth/clients/store.js';
import { findAccessTokenByHash, findClientWithAccessToken, insertAccessToken } from '../../src/domains/oauth/tokens/store.js';
import { findClientWithRefreshToken, findRefreshToken, insertRefreshToken } from '../../src/domains/oauth/grants/store.js';
import { freshStorage, storageDialects } from './fixtures.js';

// Introspection reads the calling client and the presented access token in one statement, and a
// refresh grant the client and the refresh token (a left join whose two parameters sit in the ON
// and the WHERE clause). On every dialect each must answer what the two separate lookups answer: the client alone when the token is unknown, the token
// whichever client it belongs to (the caller compares), and nothing for an unknown client.

const client = (id: string): OAuthClient => ({
  id, name: `client ${id}`, imageUri: '', redirectUri: 'https://rp.example/cb', redirectUris: ['https://rp.example/cb'],
  hashedSecret: randomHex(32), hashedSecretPrevious: null, trusted: false, publicClient: false, canGrant: false,
  allowedScopes: ['profile', 'openid'], localRedirects: false, accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 0,
  rotateRefreshTokens: false, pairwiseSubjects: false, pairwiseRotationSeconds: 0, jwtAccessTokens: false, allowedResources: [], createdAt: 1_000,
});

describe.each(storageDialects)('client and token in one read (%s)', (dialect) => {
  const fx = freshStorage(dialect);
  const a = client(randomHex(8));
  const b = client(randomHex(8));
  const tokenOfB = { tokenHash: randomHex(32), clientId: b.id, uid: randomHex(16), scope: ['profile'], createdAt: 1_000, expiresAt: 9_000, profileChangedAt: 1_000, grantId: randomHex(16) };

  const refreshOfB = {
    tokenHash: randomHex(32), clientId: b.id, uid: randomHex(16), scope: ['openid', 'profile'], authAt: 900, amr: ['pwd', 'otp'], aal: 2,
    createdAt: 1_000, lastUsedAt: 1_500, expiresAt: 0, grantId: randomHex(16),
  };

  beforeAll(async () => {
    await insertClient(fx.storage.db, a);
    await insertClient(fx.storage.db, b);
    await insertAccessToken(fx.storage.db, tokenOfB);
    await insertRefreshToken(fx.storage.db, refreshOfB);
  });


  it('answers as the two lookups do', async () => {
    const both = await findClientWithAccessToken(fx.storage.db, b.id.toUpperCase(), tokenOfB.tokenHash);
    expect(both.client).toEqual(await findClient(fx.storage.db, b.id));
    expect(both.token).toEqual(await findAccessTokenByHash(fx.storage.db, tokenOfB.tokenHash));
    expect(both.token).toMatchObject({ clientId: b.id, uid: tokenOfB.uid, scope: ['profile'], expiresAt: 9_000, grantId: tokenOfB.grantId });
  });

  it('gives another client the token too (the caller compares), and the client alone for an unknown token', async () => {
    const other = await findClientWithAccessToken(fx.storage.db, a.id, tokenOfB.tokenHash);
    expect(other.client?.id).toBe(a.id);
    expect(other.token?.clientId).toBe(b.id);
    const unknown = await findClientWithAccessToken(fx.storage.db, a.id, randomHex(32));
    expect(unknown.client?.id).toBe(a.id);
    expect(unknown.token).toBeNull();
  });

  it('gives nothing for an unknown client, even with a live token', async () => {
    expect(await findClientWithAccessToken(fx.storage.db, randomHex(8), tokenOfB.tokenHash)).toEqual({ client: null, token: null });
  });

  it('reads a refresh token with its client as findRefreshToken does, whoever it belongs to', async () => {
    const both = await findClientWithRefreshToken(fx.storage.db, b.id, refreshOfB.tokenHash);
    expect(both.client).toEqual(await findClient(fx.storage.db, b.id));
    expect(both.token).toEqual(await findRefreshToken(fx.storage.db, refreshOfB.tokenHash));
    expect(both.token).toEqual(refreshOfB);
    const other = await findClientWithRefreshToken(fx.storage.db, a.id, refreshOfB.tokenHash);
    expect([other.client?.id, other.token?.clientId]).toEqual([a.id, b.id]);
    expect((await findClientWithRefreshToken(fx.storage.db, a.id, randomHex(32))).token).toBeNull();
    expect(await findClientWithRefreshToken(fx.storage.db, randomHex(8), refreshOfB.tokenHash)).toEqual({ client: null, token: null });
  });
});
