import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { RETIRED_REFRESH_KEEP_MS } from '../../../src/domains/oauth/grants/store.js';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, expectOAuthError, rawRequest, type Reply } from '../../helpers.js';

// RFC 9700 §4.14.2 reuse detection: a refresh token that a rotation or a token exchange replaced,
// presented again, ends its grant (the current refresh token and every access token of the grant)
// and is answered exactly as an unknown token. Nothing else goes: not another grant of the account,
// not a non-rotating client's tokens. The loser of a rotation race is a reuse too (no grace period).
// Retired rows go with every revocation of their grant and are pruned after RETIRED_REFRESH_KEEP_MS.

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const REFRESH_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token';
const RELAY = 'https://identity.mozilla.com/apps/relay';
const handleOf = (token: string) => createHash('sha256').update(Buffer.from(token, 'hex')).digest('hex');

describe.each(httpDialects())('refresh-token reuse detection (%s)', (dialect) => {
  let t: TestServer;
  let session: string;
  let uid: string;
  const rotating = randomHex(8);
  const plain = randomHex(8);
  const browser = randomHex(8);
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true });
    const { oauth } = t.app.services;
    const db = t.storage.db;
    const base = { publicClient: true, trusted: false, canGrant: false, createdAt: 1 };
    await oauth.registerClient(db, { ...base, id: rotating, name: 'Rotating', redirectUris: ['https://rot.example/cb'], allowedScopes: ['profile'], rotateRefreshTokens: true });
    await oauth.registerClient(db, { ...base, id: plain, name: 'Plain', redirectUris: ['https://plain.example/cb'], allowedScopes: ['profile'] });
    await oauth.registerClient(db, { ...base, id: browser, name: 'Browser', redirectUris: ['https://browser.example/cb'], allowedScopes: ['profile', RELAY], trusted: true, canGrant: true });
    const account = await verifiedAccount(t);
    session = account.sessionToken;
    uid = account.uid;
  }, 120_000);
  afterAll(async () => t?.close());

  const post = (path: string, body: Record<string, unknown>) => rawRequest(t.url, 'POST', path, { body });
  const codeGrant = async (clientId: string) => {
    const a = await t.client.oauthAuthorization(session, { client_id: clientId, scope: 'profile', access_type: 'offline', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
    return t.client.oauthToken(undefined, { client_id: clientId, code: a.code, code_verifier: VERIFIER });
  };
  const refresh = (clientId: string, refreshToken: string) => t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
  const refreshBody = (clientId: string, refreshToken: string) => ({ grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
  const retiredRows = (grantUid = uid) => t.storage.db.selectFrom('oauth_retired_refresh_tokens').selectAll().where('uid', '=', grantUid).execute();
  const grantOf = async (refreshToken: string) =>
    (await t.storage.db.selectFrom('oauth_refresh_tokens').select('grant_id').where('token_hash', '=', handleOf(refreshToken)).executeTakeFirstOrThrow()).grant_id!;
  const retiredOfGrant = async (grantId: string) => (await retiredRows()).filter((r) => r.grant_id === grantId);

  const expectLive = async (clientId: string, token: string) => {
    expect((await post('/introspect', { client_id: clientId, token })).body).toMatchObject({ active: true });
    expect(await t.client.verify({ token })).toMatchObject({ client_id: clientId });
  };
  const expectDead = async (clientId: string, token: string) => {
    expect((await post('/introspect', { client_id: clientId, token })).body).toEqual({ active: false });
    expectOAuthError(await post('/verify', { token }), 'INVALID_TOKEN');
  };
  /** The reply without what differs between any two replies. */
  const shape = (r: Reply) => ({ status: r.status, body: r.body });

  for (const path of ['/oauth/token', '/token'] as const) {
    it(`${path}: a rotated-away token presented again ends the grant and is answered as an unknown token`, async () => {
      const grant = await codeGrant(rotating);
      const r1 = await refresh(rotating, grant.refresh_token!);
      const r2 = await refresh(rotating, r1.refresh_token!);
      const sibling = await codeGrant(rotating);
      const grantId = await grantOf(r2.refresh_token!);
      // Only hashes are kept: the retired rows name the two replaced tokens by their SHA-256.
      expect((await retiredOfGrant(grantId)).map((r) => r.token_hash).sort()).toEqual([handleOf(grant.refresh_token!), handleOf(r1.refresh_token!)].sort());
      expect(await retiredOfGrant(grantId)).toEqual(expect.arrayContaining([expect.objectContaining({ uid, client_id: rotating })]));
      for (const tok of [grant.access_token, r1.access_token, r2.access_token]) await expectLive(rotating, tok);

      const unknown = await post(path, refreshBody(rotating, randomHex(32)));
      const replay = await post(path, refreshBody(rotating, r1.refresh_token!));
      if (path === '/oauth/token') expectError(replay, 'REFRESH_TOKEN_UNKNOWN', 400);
      else expectOAuthError(replay, 'INVALID_TOKEN');
      expect(replay.body.errno).toBe(path === '/oauth/token' ? 182 : 108);
      // No signal: the same answer as for a token that never existed.
      expect(shape(replay)).toEqual(shape(unknown));
      // The account's owner sees it among their security events, with the app and the presenter's network.
      const reused = (await t.client.securityEvents(session)).filter((e) => e.name === 'account.oauth_refresh_token_reused');
      expect(reused).toHaveLength(path === '/oauth/token' ? 1 : 2);
      expect(reused[0]).toMatchObject({ verified: false, additionalInfo: { clientId: rotating } });

      // The current refresh token and every access token of the grant are dead; the retired rows went with the grant.
      expectError(await post('/oauth/token', refreshBody(rotating, r2.refresh_token!)), 'REFRESH_TOKEN_UNKNOWN', 400);
      for (const tok of [grant.access_token, r1.access_token, r2.access_token]) await expectDead(rotating, tok);
      expect(await retiredOfGrant(grantId)).toEqual([]);
      // Another grant of the same account and client survives.
      await expectLive(rotating, sibling.access_token);
      await expectLive(rotating, (await refresh(rotating, sibling.refresh_token!)).access_token);
    });
  }

  it('an unknown token or a revoked one records no event and ends nothing', async () => {
    const grant = await codeGrant(rotating);
    const r1 = await refresh(rotating, grant.refresh_token!);
    const before = (await t.client.securityEvents(session)).length;
    expectError(await post('/oauth/token', refreshBody(rotating, randomHex(32))), 'REFRESH_TOKEN_UNKNOWN', 400);
    expect((await t.client.securityEvents(session)).length).toBe(before);
    await expectLive(rotating, r1.access_token);
    // Revoked with /destroy: its retired predecessor is forgotten, so replaying it records nothing more.
    expect((await post('/destroy', { client_id: rotating, token: r1.refresh_token! })).status).toBe(200);
    expectError(await post('/oauth/token', refreshBody(rotating, grant.refresh_token!)), 'REFRESH_TOKEN_UNKNOWN', 400);
    expect((await t.client.securityEvents(session)).length).toBe(before);
  });

  it('a non-rotating client is unaffected: the same refresh token refreshes again and nothing is retired', async () => {
    const grant = await codeGrant(plain);
    const grantId = await grantOf(grant.refresh_token!);
    const r1 = await refresh(plain, grant.refresh_token!);
    const r2 = await refresh(plain, grant.refresh_token!);
    expect(r1.refresh_token).toBeUndefined();
    for (const tok of [grant.access_token, r1.access_token, r2.access_token]) await expectLive(plain, tok);
    expect(await retiredOfGrant(grantId)).toEqual([]);
  });

  it('a token exchange\'s subject token presented again ends the grant, at the exchange or at the refresh grant', async () => {
    for (const replayAt of ['exchange', 'refresh'] as const) {
      const first = await t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: browser, scope: 'profile', access_type: 'offline' });
      const exchanged = await t.client.oauthToken({ sessionToken: session }, { grant_type: EXCHANGE, client_id: browser, subject_token: first.refresh_token!, subject_token_type: REFRESH_TYPE, scope: RELAY });
      const other = await t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: browser, scope: 'profile', access_type: 'offline' });
      const grantId = await grantOf(exchanged.refresh_token!);
      expect((await retiredOfGrant(grantId)).map((r) => r.token_hash)).toEqual([handleOf(first.refresh_token!)]);
      await expectLive(browser, exchanged.access_token);
      if (replayAt === 'exchange') {
        expectOAuthError(await post('/token', { grant_type: EXCHANGE, client_id: browser, subject_token: first.refresh_token!, subject_token_type: REFRESH_TYPE, scope: RELAY }), 'INVALID_TOKEN');
      } else {
        expectError(await post('/oauth/token', refreshBody(browser, first.refresh_token!)), 'REFRESH_TOKEN_UNKNOWN', 400);
      }
      await expectError(refresh(browser, exchanged.refresh_token!), 'REFRESH_TOKEN_UNKNOWN', 400);
      await expectDead(browser, first.access_token);
      await expectDead(browser, exchanged.access_token);
      expect(await retiredOfGrant(grantId)).toEqual([]);
      await expectLive(browser, other.access_token);
      await expectLive(browser, (await refresh(browser, other.refresh_token!)).access_token);
    }
  });

  it('two racing refreshes of the current token: one wins the rotation, the loser\'s is a reuse, and the grant ends', async () => {
    const grant = await codeGrant(rotating);
    const sibling = await codeGrant(rotating);
    const grantId = await grantOf(grant.refresh_token!);
    const results = await Promise.all([
      post('/oauth/token', refreshBody(rotating, grant.refresh_token!)),
      post('/token', refreshBody(rotating, grant.refresh_token!)),
    ]);
    const won = results.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    const lost = results.find((r) => r.status !== 200)!;
    expect(lost.status).toBe(400);
    expect(lost.body.errno).toBe(lost === results[0] ? 182 : 108);
    // Whichever order the two ran in, the winner's new tokens and the grant's first access token are dead.
    const winner = won[0]!.body as { access_token: string; refresh_token: string };
    expectError(await post('/oauth/token', refreshBody(rotating, winner.refresh_token)), 'REFRESH_TOKEN_UNKNOWN', 400);
    await expectDead(rotating, winner.access_token);
    await expectDead(rotating, grant.access_token);
    expect(await retiredOfGrant(grantId)).toEqual([]);
    await expectLive(rotating, sibling.access_token);
  });

  it('every revocation of a grant deletes its retired rows', async () => {
    const rotated = async () => {
      const grant = await codeGrant(rotating);
      const r1 = await refresh(rotating, grant.refresh_token!);
      const grantId = await grantOf(r1.refresh_token!);
      expect(await retiredOfGrant(grantId)).toHaveLength(1);
      return { current: r1.refresh_token!, grantId };
    };
    const keep = await rotated();
    // RFC 7009 revocation of the current token.
    let g = await rotated();
    expect((await post('/destroy', { client_id: rotating, token: g.current })).status).toBe(200);
    expect(await retiredOfGrant(g.grantId)).toEqual([]);
    // attached_client/destroy by refresh token id.
    g = await rotated();
    await t.client.accountAttachedClientDestroy(session, { refreshTokenId: handleOf(g.current), clientId: rotating });
    expect(await retiredOfGrant(g.grantId)).toEqual([]);
    // authorized-clients/destroy by refresh_token_id.
    g = await rotated();
    await t.client.authorizedClientsDestroy(session, { client_id: rotating, refresh_token_id: handleOf(g.current) });
    expect(await retiredOfGrant(g.grantId)).toEqual([]);
    expect(await retiredOfGrant(keep.grantId)).toHaveLength(1);
    // authorized-clients/destroy of the whole client: every grant of the client and account.
    g = await rotated();
    await t.client.authorizedClientsDestroy(session, { client_id: rotating });
    expect(await retiredOfGrant(g.grantId)).toEqual([]);
    expect(await retiredOfGrant(keep.grantId)).toEqual([]);
  });

  it('removing a client deletes the retired rows of its grants', async () => {
    const { oauth } = t.app.services;
    const removed = randomHex(8);
    await oauth.registerClient(t.storage.db, {
      publicClient: true, trusted: false, canGrant: false, createdAt: 1, id: removed, name: 'Removed', redirectUris: ['https://removed.example/cb'], allowedScopes: ['profile'], rotateRefreshTokens: true,
    });
    const grant = await codeGrant(removed);
    await refresh(removed, grant.refresh_token!);
    const kept = await codeGrant(rotating);
    await refresh(rotating, kept.refresh_token!);
    const ofClient = async (clientId: string) => (await retiredRows()).filter((r) => r.client_id === clientId);
    expect(await ofClient(removed)).toHaveLength(1);
    const keptBefore = (await ofClient(rotating)).length;
    expect(await oauth.removeClient(t.storage.db, removed)).toBe(true);
    expect(await ofClient(removed)).toEqual([]);
    expect(await ofClient(rotating)).toHaveLength(keptBefore);
  });

  it('a password change (public clients) and a password reset delete the account\'s retired rows; another account keeps its own', async () => {
    const rotatedFor = async (sessionToken: string) => {
      const a = await t.client.oauthAuthorization(sessionToken, { client_id: rotating, scope: 'profile', access_type: 'offline', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
      await refresh(rotating, (await t.client.oauthToken(undefined, { client_id: rotating, code: a.code, code_verifier: VERIFIER })).refresh_token!);
    };
    const bystander = await verifiedAccount(t);
    await rotatedFor(bystander.sessionToken);
    const db = t.storage.db;
    for (const change of ['passwordChanged', 'passwordReset'] as const) {
      // Their own account: the hooks end its sessions too.
      const account = await verifiedAccount(t);
      await rotatedFor(account.sessionToken);
      expect(await retiredRows(account.uid)).toHaveLength(1);
      await db.transaction().execute((trx) => change === 'passwordChanged'
        ? t.app.services.records.passwordChanged(trx, account.uid, { sessionTokenId: 'none', replaces: null } as never)
        : t.app.services.records.passwordReset(trx, account.uid));
      expect(await retiredRows(account.uid)).toEqual([]);
    }
    expect(await retiredRows(bystander.uid)).toHaveLength(1);
  });

  it('prunes retired rows older than the keeping time at a later rotation (moved clock), keeping younger ones', async () => {
    const a = await codeGrant(rotating);
    const a1 = await refresh(rotating, a.refresh_token!);
    const aGrant = await grantOf(a1.refresh_token!);
    t.clock!.advance(2 * 24 * 3_600_000);
    const b = await codeGrant(rotating);
    const b1 = await refresh(rotating, b.refresh_token!);
    const bGrant = await grantOf(b1.refresh_token!);
    expect(await retiredOfGrant(aGrant)).toHaveLength(1);
    t.clock!.advance(RETIRED_REFRESH_KEEP_MS - 2 * 24 * 3_600_000 + 1);
    // (The session has expired by now: an existing grant rotates.)
    await refresh(rotating, b1.refresh_token!);
    expect(await retiredOfGrant(aGrant)).toEqual([]);
    expect(await retiredOfGrant(bGrant)).toHaveLength(2);
    // Past the keeping time, the copy is refused as unknown without ending the grant (its current token still refreshes).
    expectError(await post('/oauth/token', refreshBody(rotating, a.refresh_token!)), 'REFRESH_TOKEN_UNKNOWN', 400);
    expect((await refresh(rotating, a1.refresh_token!)).refresh_token).toMatch(/^[0-9a-f]{64}$/);
  });
});
