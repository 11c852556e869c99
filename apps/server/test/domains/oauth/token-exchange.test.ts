import { createHash } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, expectOAuthError, rawRequest, type RawRequest } from '../../helpers.js';

// Issue 14: the token-exchange grant (RFC 8693, protocol.md §5.15) and the OAuth server's
// `assertion` field (spec 2 §5, §7). The exchange is written as the attacks it must stop: a stolen
// or revoked refresh token, another client's token, a client that is not first-party, scopes the
// client is not allowed, a scoped key gained without a sign-in, and two exchanges racing on one token.
// Since issue 22 (hole 6) a public client exchanges only beside the signed-in session of the token's
// account (issue22-oauth.test.ts has the refusals); the successful exchanges here send it.

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange' as const;
const REFRESH_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token' as const;
const RELAY = 'https://identity.mozilla.com/apps/relay';
const SYNC = 'https://identity.mozilla.com/apps/oldsync';
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
/** The refresh token's handle in /account/attached_clients: SHA-256 of its bytes. */
const handleOf = (token: string) => createHash('sha256').update(Buffer.from(token, 'hex')).digest('hex');

describe.each(httpDialects())('OAuth token exchange and assertions (%s)', (dialect) => {
  let t: TestServer;
  let session: string;
  let uid: string;
  /** A first-party (canGrant) public client, as a browser is. */
  const browser = randomHex(8);
  /** A first-party confidential client. */
  const desktop = randomHex(8);
  const desktopSecret = randomHex(32);
  /** A third-party client: not canGrant. */
  const rp = randomHex(8);
  /** A first-party client whose refresh tokens expire after an hour. */
  const shortLived = randomHex(8);
  /** A first-party client with pairwise subjects and JWT access tokens. */
  const privateBrowser = randomHex(8);
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true });
    const { oauth } = t.app.services;
    const db = t.storage.db;
    const base = { publicClient: true, trusted: true, canGrant: true, createdAt: 1 };
    await oauth.registerClient(db, { ...base, id: browser, name: 'Browser', redirectUris: ['urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel'], allowedScopes: ['profile', RELAY, SYNC] });
    await oauth.registerClient(db, { ...base, id: desktop, name: 'Desktop', redirectUris: ['https://desktop.example/cb'], publicClient: false, secret: desktopSecret, allowedScopes: ['profile', RELAY] });
    await oauth.registerClient(db, { ...base, id: rp, name: 'Relying party', redirectUris: ['com.example.rp:/cb'], trusted: false, canGrant: false, allowedScopes: ['profile', RELAY] });
    await oauth.registerClient(db, { ...base, id: shortLived, name: 'Short-lived', redirectUris: ['https://short.example/cb'], allowedScopes: ['profile', RELAY], refreshTokenTtlSeconds: 3600 });
    await oauth.registerClient(db, {
      ...base, id: privateBrowser, name: 'Private browser', redirectUris: ['https://private.example/cb'], allowedScopes: ['profile:email', RELAY],
      pairwiseSubjects: true, jwtAccessTokens: true,
    });
    const account = await verifiedAccount(t);
    session = account.sessionToken;
    uid = account.uid;
  }, 120_000);
  afterAll(async () => t?.close());

  /** A refresh token of a canGrant client, through the session grant. */
  const refreshOf = async (clientId: string, scope = 'profile', secret?: string) => {
    const tok = await t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: clientId, scope, access_type: 'offline', ...(secret ? { client_secret: secret } : {}) });
    return tok.refresh_token!;
  };
  const exchange = (subject: string, scope: string, extra: Record<string, unknown> = {}) =>
    ({ grant_type: GRANT, client_id: browser, subject_token: subject, subject_token_type: REFRESH_TYPE, scope, ...extra });
  const post = (path: string, options: RawRequest) => rawRequest(t.url, 'POST', path, options);
  /** The same refused exchange on both paths: the auth errno on /oauth/token, the OAuth errno on /token. */
  const refusedOnBoth = async (body: Record<string, unknown>, auth: Parameters<typeof expectError>[1], oauth: Parameters<typeof expectOAuthError>[1]) => {
    expectError(await post('/oauth/token', { body }), auth as never);
    expectOAuthError(await post('/token', { body }), oauth);
  };
  const attached = async () => (await t.client.accountAttachedClients(session)) as { refreshTokenId?: string | null; clientId?: string | null; scope?: string[] | null }[];

  it('trades a refresh token for one with the union of the scopes, and revokes the one sent', async () => {
    const first = await refreshOf(browser);
    const authAt = (await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: browser, refresh_token: first })).auth_at;
    t.clock!.advance(60_000);
    // The SDK call the portal shows, typed as it is there: a public client brings the signed-in session (issue 22, hole 6).
    const out = await t.client.oauthToken({ sessionToken: session }, { grant_type: GRANT, client_id: browser, subject_token: first, subject_token_type: REFRESH_TYPE, scope: RELAY, ttl: 600 });
    expect(out).toMatchObject({ token_type: 'bearer', scope: `profile ${RELAY}`, expires_in: 600, auth_at: authAt, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
    expect(out.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(out.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    expect(out.refresh_token).not.toBe(first);
    // The access token carries the union; the old refresh token is gone, the new one refreshes the union.
    expect((await t.client.verify({ token: out.access_token })).scope).toEqual(['profile', RELAY]);
    expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: browser, refresh_token: out.refresh_token! })).scope).toBe(`profile ${RELAY}`);
    // Attached clients list the new refresh token with its scopes, and not the old one.
    const list = await attached();
    expect(list.some((c) => c.refreshTokenId === handleOf(first))).toBe(false);
    expect(list.find((c) => c.refreshTokenId === handleOf(out.refresh_token!))).toMatchObject({ clientId: browser, scope: ['profile', RELAY] });
    // Exchanging the old one again is refused on both paths; it was a reuse (RFC 9700 §4.14.2): the new one went with it.
    await refusedOnBoth(exchange(first, RELAY), 'REFRESH_TOKEN_UNKNOWN', 'INVALID_TOKEN');
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: browser, refresh_token: out.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
  });

  it('works on the OAuth-server path with a form body and Basic client authentication, scopes already held kept once', async () => {
    const subject = await refreshOf(desktop, 'profile', desktopSecret);
    const res = await fetch(`${t.url}/v1/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${desktop}:${desktopSecret}`).toString('base64')}` },
      body: new URLSearchParams({ grant_type: GRANT, subject_token: subject, subject_token_type: REFRESH_TYPE, scope: `profile ${RELAY}` }).toString(),
    });
    const body = await res.json() as Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ scope: `profile ${RELAY}`, token_type: 'bearer', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
    expect(body.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    // A confidential client proves its secret for an exchange as for a refresh.
    const next = body.refresh_token as string;
    expectError(await post('/oauth/token', { body: exchange(next, 'profile', { client_id: desktop }) }), 'INCORRECT_CLIENT_SECRET');
    expectOAuthError(await post('/token', { body: exchange(next, 'profile', { client_id: desktop, client_secret: randomHex(32) }) }), 'INCORRECT_SECRET');
    expect((await t.client.token(exchange(next, 'profile', { client_id: desktop, client_secret: desktopSecret }) as never)).scope).toBe(`profile ${RELAY}`);
  });

  it('never extends the grant: the new refresh token keeps the old one\'s expiry; earlier access tokens live on', async () => {
    const granted = await t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: shortLived, scope: 'profile', access_type: 'offline' });
    t.clock!.advance(30 * 60_000);
    const out = await t.client.oauthToken({ sessionToken: session }, exchange(granted.refresh_token!, RELAY, { client_id: shortLived }) as never);
    expect((await t.client.verify({ token: granted.access_token })).scope).toEqual(['profile']);
    t.clock!.advance(30 * 60_000 + 1);
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: shortLived, refresh_token: out.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
  });

  it('lets one of two racing exchanges of a token succeed, never both', async () => {
    const subject = await refreshOf(browser);
    const before = (await attached()).filter((c) => c.clientId === browser).length;
    // A public client exchanges beside its session, on POST /oauth/token only (issue 22, hole 6).
    const results = await Promise.allSettled([1, 2, 3, 4].map(() => t.client.oauthToken({ sessionToken: session }, exchange(subject, RELAY) as never)));
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) {
      if (r.status === 'rejected') expect((r.reason as { errno: number }).errno).toBe(r.reason.catalogue === 'oauth' ? 108 : 182);
    }
    // The losers issued nothing, and presented a token the winner had retired: a reuse, with no
    // grace period (RFC 9700 §4.14.2), so the winner's refresh token ended too.
    expect((await attached()).filter((c) => c.clientId === browser).length).toBe(before - 1);
  });

  it('refuses unknown, revoked, expired and other clients\' subject tokens: 400/182 vs 400/108', async () => {
    await refusedOnBoth(exchange(randomHex(32), RELAY), 'REFRESH_TOKEN_UNKNOWN', 'INVALID_TOKEN');
    await refusedOnBoth(exchange('not-a-token', RELAY), 'REFRESH_TOKEN_UNKNOWN', 'INVALID_TOKEN');
    // Revoked by the account holder (attached clients).
    const revoked = await refreshOf(browser);
    await t.client.accountAttachedClientDestroy(session, { refreshTokenId: handleOf(revoked), clientId: browser });
    await refusedOnBoth(exchange(revoked, RELAY), 'REFRESH_TOKEN_UNKNOWN', 'INVALID_TOKEN');
    // Another client's: the desktop's token presented by the browser (a thief holding the token, not the client).
    const desktops = await refreshOf(desktop, 'profile', desktopSecret);
    await refusedOnBoth(exchange(desktops, RELAY), 'REFRESH_TOKEN_UNKNOWN', 'INVALID_TOKEN');
    // Expired.
    const expiring = await refreshOf(shortLived);
    t.clock!.advance(3600_000 + 1);
    await refusedOnBoth(exchange(expiring, RELAY, { client_id: shortLived }), 'REFRESH_TOKEN_UNKNOWN', 'INVALID_TOKEN');
    // The other client's token still works for its client: the refusals changed nothing.
    expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: desktop, client_secret: desktopSecret, refresh_token: desktops })).scope).toBe('profile');
  });

  it('refuses clients without canGrant, scopes the client is not allowed and scoped keys not already granted: 400/163 vs 400/114, changing nothing', async () => {
    // A third-party client's refresh token, through the code flow.
    const a = await t.client.oauthAuthorization(session, { client_id: rp, scope: 'profile', access_type: 'offline', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' });
    const rpToken = (await t.client.oauthToken(undefined, { client_id: rp, code: a.code, code_verifier: VERIFIER })).refresh_token!;
    await refusedOnBoth(exchange(rpToken, RELAY, { client_id: rp }), 'INVALID_SCOPES', 'INVALID_SCOPES');

    const subject = await refreshOf(browser);
    await refusedOnBoth(exchange(subject, 'profile:write'), 'INVALID_SCOPES', 'INVALID_SCOPES');
    // oldsync carries a scoped key: allowed to the browser, yet never gained without a sign-in.
    const keyed = await post('/oauth/token', { body: exchange(subject, SYNC) });
    expectError(keyed, 'INVALID_SCOPES');
    expect(keyed.body).toMatchObject({ invalidScopes: [SYNC] });
    expect(keyed.body.message).toContain('scoped key');
    expectOAuthError(await post('/token', { body: exchange(subject, `${RELAY} ${SYNC}`) }), 'INVALID_SCOPES');
    // Nothing changed: the subject token still refreshes its own scope, and still exchanges.
    expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: browser, refresh_token: subject })).scope).toBe('profile');
    expect((await t.client.oauthToken({ sessionToken: session }, exchange(subject, RELAY) as never)).scope).toBe(`profile ${RELAY}`);

    // A grant that holds the key-bearing scope from a sign-in keeps it through an exchange.
    const synced = await refreshOf(browser, `profile ${SYNC}`);
    expect((await t.client.oauthToken({ sessionToken: session }, exchange(synced, `${SYNC} ${RELAY}`) as never)).scope).toBe(`profile ${SYNC} ${RELAY}`);
  });

  it('refuses incomplete requests: 400/107 vs 400/109', async () => {
    const subject = await refreshOf(browser);
    const { scope: _s, ...noScope } = exchange(subject, RELAY);
    await refusedOnBoth(noScope, 'INVALID_PARAMETER', 'INVALID_PARAMETER');
    const { subject_token: _t, ...noSubject } = exchange(subject, RELAY);
    await refusedOnBoth(noSubject, 'INVALID_PARAMETER', 'INVALID_PARAMETER');
    const { subject_token_type: _y, ...noType } = exchange(subject, RELAY);
    await refusedOnBoth(noType, 'INVALID_PARAMETER', 'INVALID_PARAMETER');
    await refusedOnBoth(exchange(subject, RELAY, { subject_token_type: 'urn:ietf:params:oauth:token-type:access_token' }), 'INVALID_PARAMETER', 'INVALID_PARAMETER');
    await refusedOnBoth(exchange(subject, ''), 'INVALID_SCOPES', 'INVALID_SCOPES');
    await refusedOnBoth(exchange(subject, RELAY, { grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer' }), 'INVALID_PARAMETER', 'INVALID_GRANT_TYPE');
    // None of it spent the token.
    expect((await t.client.oauthToken({ sessionToken: session }, exchange(subject, RELAY) as never)).scope).toBe(`profile ${RELAY}`);
  });

  describe('assertion', () => {
    const assertion = `${'eyJhbGciOiJSUzI1NiJ9'}.${'a'.repeat(60)}.${'b'.repeat(40)}`;
    const pkce = { code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' as const };

    it('instead of a session token: 401/104 saying to sign with the session token (Hawk), on /authorization, /key-data and /token', async () => {
      const authz = await post('/authorization', { body: { client_id: rp, scope: 'profile', ...pkce, assertion } });
      expectOAuthError(authz, 'INVALID_ASSERTION');
      expect(authz.body.message).toMatch(/session token signed with Hawk/);
      const keys = await post('/key-data', { body: { client_id: browser, scope: SYNC, assertion } });
      expectOAuthError(keys, 'INVALID_ASSERTION');
      expect(keys.body.message).toMatch(/session token signed with Hawk/);
      const token = await post('/token', { body: { grant_type: 'fxa-credentials', client_id: browser, scope: 'profile', assertion } });
      expectOAuthError(token, 'INVALID_ASSERTION');
      expect(token.body.message).toMatch(/no identity assertions.*POST \/v1\/oauth\/token, grant_type=fxa-credentials.*Hawk/);
      // The grant an assertion serves elsewhere, without one: the same answer.
      const bare = await post('/token', { body: { grant_type: 'fxa-credentials', client_id: browser, scope: 'profile' } });
      expectOAuthError(bare, 'INVALID_ASSERTION');
      expect(bare.body.message).toMatch(/POST \/v1\/oauth\/token, grant_type=fxa-credentials/);
      // Whatever the grant: an assertion never authorizes.
      const subject = await refreshOf(browser);
      expectOAuthError(await post('/token', { body: { ...exchange(subject, RELAY), assertion } }), 'INVALID_ASSERTION');
      expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: browser, refresh_token: subject })).scope).toBe('profile');
    });

    it('beside a session token: ambiguous, 400/109, and nothing issued', async () => {
      const before = await t.storage.db.selectFrom('oauth_codes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      const authz = await expectError(t.client.authorization(session, { client_id: rp, scope: 'profile', ...pkce, assertion }), 'INVALID_PARAMETER', 400);
      expect(authz.errno).toBe(109);
      expect(authz.body.validation).toMatchObject({ keys: ['assertion'], message: expect.stringMatching(/not both/) });
      const after = await t.storage.db.selectFrom('oauth_codes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(after.n)).toBe(Number(before.n));
      expect((await expectError(t.client.keyData(session, { client_id: browser, scope: SYNC, assertion }), 'INVALID_PARAMETER', 400)).errno).toBe(109);
      // Without it, the same calls work.
      expect((await t.client.authorization(session, { client_id: rp, scope: 'profile', ...pkce })).code).toMatch(/^[0-9a-f]{64}$/);
    });

    it('is checked as spec 2 §5 says (50 to 10240 characters) and only on the OAuth-server paths', async () => {
      const subject = await refreshOf(browser);
      for (const bad of ['a'.repeat(49), 'a'.repeat(10_241)]) {
        expectOAuthError(await post('/token', { body: { ...exchange(subject, RELAY), assertion: bad } }), 'INVALID_PARAMETER');
        await expectError(t.client.authorization(session, { client_id: rp, scope: 'profile', ...pkce, assertion: bad }), 'INVALID_PARAMETER', 400);
      }
      // The auth-server twins take no assertion field at all.
      expectError(await post('/oauth/token', { body: { ...exchange(subject, RELAY), assertion } }), 'INVALID_PARAMETER');
      await expectError(t.client.oauthAuthorization(session, { client_id: rp, scope: 'profile', ...pkce, assertion } as never), 'INVALID_PARAMETER', 400);
      await expectError(t.client.accountScopedKeyData(session, { client_id: browser, scope: SYNC, assertion } as never), 'INVALID_PARAMETER', 400);
      // The refusals spent nothing.
      expect((await t.client.oauthToken({ sessionToken: session }, exchange(subject, RELAY) as never)).scope).toBe(`profile ${RELAY}`);
    });
  });
  it('issues a JWT access token with the pairwise subject to a client registered for both', async () => {
    const first = await refreshOf(privateBrowser, 'profile:email');
    const refreshed = await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: privateBrowser, refresh_token: first, ppid_seed: 7 });
    const jwks = createRemoteJWKSet(new URL(`${t.url}/v1/jwks`));
    const verifyAt = (token: string) => jwtVerify(token, jwks, { issuer: t.url, audience: privateBrowser, typ: 'at+jwt', currentDate: new Date(t.clock!.now()) });
    const before = (await verifyAt(refreshed.access_token)).payload;
    const out = await t.client.oauthToken({ sessionToken: session }, exchange(first, RELAY, { client_id: privateBrowser, ppid_seed: 7 }) as never);
    expect(out.scope).toBe(`profile:email ${RELAY}`);
    const { payload } = await verifyAt(out.access_token);
    // The same pairwise id as the refresh with the same seed, never the uid; the union of the scopes.
    expect(payload).toMatchObject({ sub: before.sub, client_id: privateBrowser, scope: `profile:email ${RELAY}` });
    expect(payload.sub).toMatch(/^[0-9a-f]{32}$/);
    expect(payload.sub).not.toBe(uid);
    expect((await t.client.verify({ token: out.access_token })).user).toBe(before.sub);
  });
});
