import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { hashToken } from '../../../src/domains/oauth/token-hash.js';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

// RFC 7009 §2.1: revoking a refresh token also ends the access tokens of its authorization grant
// (the code's, later refreshes', rotated successors', a token exchange's), opaque and JWT alike, on
// every path that revokes one refresh token; and nothing else: not another grant of the same client
// and account, not tokens older than grant ids (NULL), and not the refresh token when an access
// token is revoked. A replayed code ends its whole grant the same way.

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const handleOf = (token: string) => createHash('sha256').update(Buffer.from(token, 'hex')).digest('hex');

describe.each(httpDialects())('revoking a refresh token ends its grant (%s)', (dialect) => {
  let t: TestServer;
  let session: string;
  let uid: string;
  const pub = randomHex(8);
  const other = randomHex(8);
  const rotating = randomHex(8);
  const jwt = randomHex(8);
  const browser = randomHex(8);
  beforeAll(async () => {
    t = await createTestServer({ dialect });
    const { oauth } = t.app.services;
    const db = t.storage.db;
    const base = { publicClient: true, trusted: false, canGrant: false, createdAt: 1 };
    await oauth.registerClient(db, { ...base, id: pub, name: 'App', redirectUris: ['https://app.example/cb'], allowedScopes: ['profile'] });
    await oauth.registerClient(db, { ...base, id: other, name: 'Other', redirectUris: ['https://other.example/cb'], allowedScopes: ['profile'] });
    await oauth.registerClient(db, { ...base, id: rotating, name: 'Rotating', redirectUris: ['https://rot.example/cb'], allowedScopes: ['profile'], rotateRefreshTokens: true });
    await oauth.registerClient(db, { ...base, id: jwt, name: 'JWT', redirectUris: ['https://jwt.example/cb'], allowedScopes: ['profile'], jwtAccessTokens: true });
    await oauth.registerClient(db, { ...base, id: browser, name: 'Browser', redirectUris: ['https://browser.example/cb'], allowedScopes: ['profile', 'profile:email'], trusted: true, canGrant: true });
    const account = await verifiedAccount(t);
    session = account.sessionToken;
    uid = account.uid;
  }, 120_000);
  afterAll(async () => t?.close());

  const post = async (path: string, body: Record<string, string>) => {
    const res = await fetch(`${t.url}/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString() });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  /** The code flow (PKCE); `offline` asks for a refresh token. */
  const codeGrant = async (clientId: string, offline = true) => {
    const a = await t.client.oauthAuthorization(session, {
      client_id: clientId, scope: 'profile', code_challenge: CHALLENGE, code_challenge_method: 'S256', ...(offline ? { access_type: 'offline' } : {}),
    });
    return t.client.oauthToken(undefined, { client_id: clientId, code: a.code, code_verifier: VERIFIER });
  };
  const refresh = (clientId: string, refreshToken: string) => t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: clientId, refresh_token: refreshToken });
  const userinfoStatus = async (token: string) => (await fetch(`${t.url}/v1/userinfo`, { headers: { authorization: `Bearer ${token}` } })).status;

  /** Accepted at introspection (by its client), /verify and userinfo. */
  const expectLive = async (clientId: string, token: string) => {
    expect((await post('/introspect', { client_id: clientId, token })).body).toMatchObject({ active: true, token_type: 'access_token' });
    expect(await t.client.verify({ token })).toMatchObject({ client_id: clientId });
    expect(await userinfoStatus(token)).toBe(200);
  };
  /** Refused at introspection, /verify and userinfo. */
  const expectDead = async (clientId: string, token: string) => {
    expect((await post('/introspect', { client_id: clientId, token })).body).toEqual({ active: false });
    await expectError(t.client.verify({ token }), 'INVALID_TOKEN', 400);
    expect(await userinfoStatus(token)).toBe(401);
  };

  it('a refresh racing the revocation of its refresh token never leaves a live access token', async () => {
    // Each round: refreshes in flight while the refresh token is revoked. Whatever interleaving the
    // database gives, a refresh that got its access token in must see the revocation (and take the
    // token back) or be seen by it (and lose the token with the grant).
    for (let round = 0; round < 8; round++) {
      const grant = await codeGrant(pub);
      const racing = Array.from({ length: 6 }, () => refresh(pub, grant.refresh_token!));
      const revoked = post('/destroy', { client_id: pub, token: grant.refresh_token!, token_type_hint: 'refresh_token' });
      const settled = await Promise.allSettled(racing);
      expect((await revoked).status).toBe(200);
      for (const r of settled) {
        if (r.status === 'rejected') {
          expect(String((r.reason as { errorName?: string }).errorName)).toBe('REFRESH_TOKEN_UNKNOWN');
          continue;
        }
        expect((await post('/introspect', { client_id: pub, token: r.value.access_token })).body).toEqual({ active: false });
      }
      expect((await post('/introspect', { client_id: pub, token: grant.access_token })).body).toEqual({ active: false });
    }
  });

  for (const path of ['/destroy', '/oauth/destroy'] as const) {
    it(`${path}: the access tokens of the code and of later refreshes go with the refresh token; another grant stays`, async () => {
      const grant = await codeGrant(pub);
      const r1 = await refresh(pub, grant.refresh_token!);
      const r2 = await refresh(pub, grant.refresh_token!);
      const sibling = await codeGrant(pub);
      const online = await codeGrant(pub, false);
      expect(online.refresh_token).toBeUndefined();
      for (const tok of [grant.access_token, r1.access_token, r2.access_token, sibling.access_token, online.access_token]) await expectLive(pub, tok);

      // Another client naming the token changes nothing (RFC 7009 §2.1: only the client's own).
      expect(await post(path, { client_id: other, token: grant.refresh_token! })).toEqual({ status: 200, body: {} });
      await expectLive(pub, r2.access_token);

      const field: Record<string, string> = path === '/destroy' ? { token: grant.refresh_token!, token_type_hint: 'refresh_token' } : { refresh_token: grant.refresh_token! };
      expect(await post(path, { client_id: pub, ...field })).toEqual({ status: 200, body: {} });
      await expectError(refresh(pub, grant.refresh_token!), 'REFRESH_TOKEN_UNKNOWN', 400);
      for (const tok of [grant.access_token, r1.access_token, r2.access_token]) await expectDead(pub, tok);
      // The same client and account's other grants: untouched.
      await expectLive(pub, sibling.access_token);
      await expectLive(pub, online.access_token);
      await expectLive(pub, (await refresh(pub, sibling.refresh_token!)).access_token);
    });
  }

  it('revoking an access token leaves its refresh token and the grant\'s other access tokens', async () => {
    const grant = await codeGrant(pub);
    const r1 = await refresh(pub, grant.refresh_token!);
    expect(await post('/destroy', { client_id: pub, token: grant.access_token })).toEqual({ status: 200, body: {} });
    await expectDead(pub, grant.access_token);
    await expectLive(pub, r1.access_token);
    await expectLive(pub, (await refresh(pub, grant.refresh_token!)).access_token);
  });

  it('JWT access tokens of the grant are refused too', async () => {
    const grant = await codeGrant(jwt);
    const r1 = await refresh(jwt, grant.refresh_token!);
    expect(grant.access_token.split('.')).toHaveLength(3);
    expect(r1.access_token.split('.')).toHaveLength(3);
    const sibling = await codeGrant(jwt);
    await expectLive(jwt, r1.access_token);
    expect(await post('/destroy', { client_id: jwt, token: grant.refresh_token! })).toEqual({ status: 200, body: {} });
    await expectDead(jwt, grant.access_token);
    await expectDead(jwt, r1.access_token);
    await expectLive(jwt, sibling.access_token);
  });

  it('attached_client/destroy by refreshTokenId ends the grant\'s access tokens', async () => {
    const grant = await codeGrant(pub);
    const r1 = await refresh(pub, grant.refresh_token!);
    const sibling = await codeGrant(pub);
    await t.client.accountAttachedClientDestroy(session, { refreshTokenId: handleOf(grant.refresh_token!), clientId: pub });
    await expectDead(pub, grant.access_token);
    await expectDead(pub, r1.access_token);
    await expectLive(pub, sibling.access_token);
  });

  it('authorized-clients/destroy by refresh_token_id ends the grant\'s access tokens', async () => {
    const grant = await codeGrant(pub);
    const r1 = await refresh(pub, grant.refresh_token!);
    const sibling = await codeGrant(pub);
    // Named with another client, nothing is revoked.
    await expectError(t.client.authorizedClientsDestroy(session, { client_id: other, refresh_token_id: handleOf(grant.refresh_token!) }), 'INVALID_TOKEN', 400);
    await expectLive(pub, r1.access_token);
    await t.client.authorizedClientsDestroy(session, { client_id: pub, refresh_token_id: handleOf(grant.refresh_token!) });
    await expectDead(pub, grant.access_token);
    await expectDead(pub, r1.access_token);
    await expectLive(pub, sibling.access_token);
  });

  it('rotation: revoking the latest refresh token ends the access tokens minted from earlier ones in the chain', async () => {
    const grant = await codeGrant(rotating);
    const r1 = await refresh(rotating, grant.refresh_token!);
    const r2 = await refresh(rotating, r1.refresh_token!);
    expect(r1.refresh_token).not.toBe(grant.refresh_token);
    expect(r2.refresh_token).not.toBe(r1.refresh_token);
    const sibling = await codeGrant(rotating);
    // The rotated-away tokens are unknown: revoking them changes nothing.
    expect(await post('/destroy', { client_id: rotating, token: r1.refresh_token! })).toEqual({ status: 200, body: {} });
    await expectLive(rotating, r2.access_token);
    expect(await post('/destroy', { client_id: rotating, token: r2.refresh_token! })).toEqual({ status: 200, body: {} });
    for (const tok of [grant.access_token, r1.access_token, r2.access_token]) await expectDead(rotating, tok);
    await expectLive(rotating, sibling.access_token);
  });

  it('a token exchange keeps the grant: earlier access tokens keep working, and revoking the successor ends them all', async () => {
    const first = await t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: browser, scope: 'profile', access_type: 'offline' });
    // A public client exchanges beside the signed-in session (issue 22, hole 6).
    const exchanged = await t.client.oauthToken({ sessionToken: session }, {
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange', client_id: browser, subject_token: first.refresh_token!,
      subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token', scope: 'profile:email',
    });
    await expectLive(browser, first.access_token);
    await expectLive(browser, exchanged.access_token);
    const online = await t.client.oauthToken({ sessionToken: session }, { grant_type: 'fxa-credentials', client_id: browser, scope: 'profile' });
    expect(await post('/destroy', { client_id: browser, token: exchanged.refresh_token! })).toEqual({ status: 200, body: {} });
    await expectDead(browser, first.access_token);
    await expectDead(browser, exchanged.access_token);
    await expectLive(browser, online.access_token);
  });

  it('a replayed code ends everything of its grant: later refreshes, rotated successors (RFC 6749 §4.1.2)', async () => {
    for (const clientId of [pub, rotating]) {
      const a = await t.client.oauthAuthorization(session, { client_id: clientId, scope: 'profile', access_type: 'offline', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
      const first = await t.client.oauthToken(undefined, { client_id: clientId, code: a.code, code_verifier: VERIFIER });
      const r1 = await refresh(clientId, first.refresh_token!);
      const sibling = await codeGrant(clientId);
      await expectLive(clientId, r1.access_token);
      await expectError(t.client.oauthToken(undefined, { client_id: clientId, code: a.code, code_verifier: VERIFIER }), 'UNKNOWN_AUTHORIZATION_CODE', 400);
      await expectDead(clientId, first.access_token);
      await expectDead(clientId, r1.access_token);
      // With rotation, the successor refresh token is of the grant too.
      await expectError(refresh(clientId, r1.refresh_token ?? first.refresh_token!), 'REFRESH_TOKEN_UNKNOWN', 400);
      await expectLive(clientId, sibling.access_token);
      await expectLive(clientId, (await refresh(clientId, sibling.refresh_token!)).access_token);
    }
  });

  it('every grant has its own id, online grants too; tokens from before grant ids (NULL) behave as before', async () => {
    const db = t.storage.db;
    const online = await codeGrant(pub, false);
    const offline = await codeGrant(pub);
    const grantOf = async (access: string) => (await db.selectFrom('oauth_access_tokens').select('grant_id').where('token_hash', '=', hashToken(access)).executeTakeFirstOrThrow()).grant_id;
    const onlineGrant = await grantOf(online.access_token);
    const offlineGrant = await grantOf(offline.access_token);
    expect(onlineGrant).toMatch(/^[0-9a-f]{32}$/);
    expect(offlineGrant).toMatch(/^[0-9a-f]{32}$/);
    expect(onlineGrant).not.toBe(offlineGrant);
    expect((await db.selectFrom('oauth_refresh_tokens').select('grant_id').where('token_hash', '=', handleOf(offline.refresh_token!)).executeTakeFirstOrThrow()).grant_id).toBe(offlineGrant);

    // Rows as migration 0019 leaves them: a refresh token and access tokens without a grant id.
    const now = Date.now();
    const legacyRefresh = randomHex(32);
    const legacyAccess = randomHex(32);
    await db.insertInto('oauth_refresh_tokens').values({
      token_hash: hashToken(legacyRefresh), client_id: pub, uid, scope: 'profile', auth_at: now, amr: 'pwd email', aal: 1, created_at: now, last_used_at: now, expires_at: 0, grant_id: null,
    }).execute();
    await db.insertInto('oauth_access_tokens').values({
      token_hash: hashToken(legacyAccess), client_id: pub, uid, scope: 'profile', created_at: now, expires_at: now + 3_600_000, profile_changed_at: now, subject: null, grant_id: null,
    }).execute();
    // Refreshing a legacy refresh token mints an access token without a grant id: it lives until it expires, as before.
    const fromLegacy = await refresh(pub, legacyRefresh);
    expect(await grantOf(fromLegacy.access_token)).toBeNull();
    expect(await post('/destroy', { client_id: pub, token: legacyRefresh })).toEqual({ status: 200, body: {} });
    await expectError(refresh(pub, legacyRefresh), 'REFRESH_TOKEN_UNKNOWN', 400);
    // NULL matches no grant: neither the legacy access tokens nor anything else goes.
    await expectLive(pub, legacyAccess);
    await expectLive(pub, fromLegacy.access_token);
    await expectLive(pub, online.access_token);
    await expectLive(pub, offline.access_token);
  });
});
