import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';

// Issue 14, steps 3–4: introspection (RFC 7662) limited to the caller's own tokens, /verify,
// revocation (RFC 7009) on both paths, id_token verification, userinfo and /profile honouring
// the profile:* scopes, discovery documents, and what a password change or reset revokes.

const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');

describe.each(httpDialects())('OAuth tokens in use (%s)', (dialect) => {
  let t: TestServer;
  let account: Awaited<ReturnType<typeof verifiedAccount>>;
  const pub = randomHex(8);
  const other = randomHex(8);
  const conf = randomHex(8);
  const confSecret = randomHex(32);
  beforeAll(async () => {
    t = await createTestServer({ dialect });
    const { oauth } = t.app.services;
    const base = { trusted: false, canGrant: false, createdAt: 1 };
    await oauth.registerClient(t.storage.db, { ...base, id: pub, name: 'App', redirectUris: ['https://app.example/cb'], publicClient: true, allowedScopes: ['profile', 'profile:email', 'profile:locale'] });
    await oauth.registerClient(t.storage.db, { ...base, id: other, name: 'Other', redirectUris: ['https://other.example/cb'], publicClient: true, allowedScopes: ['profile'] });
    await oauth.registerClient(t.storage.db, { ...base, id: conf, name: 'Conf', redirectUris: ['https://conf.example/cb'], publicClient: false, secret: confSecret, allowedScopes: ['profile'] });
    account = await verifiedAccount(t);
  }, 120_000);
  afterAll(async () => t?.close());

  const tokensFor = async (clientId: string, scope: string, session = account.sessionToken) => {
    const a = await t.client.oauthAuthorization(session, { client_id: clientId, scope, access_type: 'offline', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
    return t.client.oauthToken(undefined, { client_id: clientId, code: a.code, code_verifier: VERIFIER });
  };
  const post = async (path: string, body: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString() });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };

  it('introspects the caller\'s own tokens only, with times in seconds', async () => {
    const tok = await tokensFor(pub, 'openid profile');
    const access = await post('/introspect', { client_id: pub, token: tok.access_token });
    expect(access.body).toMatchObject({ active: true, client_id: pub, scope: 'openid profile', token_type: 'access_token', sub: account.uid, iss: t.url });
    expect(access.body.exp as number - (access.body.iat as number)).toBe(86_400);
    expect(access.body.iat as number).toBeLessThan(1e11);
    const refresh = await post('/introspect', { client_id: pub, token: tok.refresh_token!, token_type_hint: 'refresh_token' });
    expect(refresh.body).toMatchObject({ active: true, token_type: 'refresh_token', sub: account.uid });
    // Another client learns nothing about it; unknown and malformed tokens are just inactive.
    expect((await post('/introspect', { client_id: other, token: tok.access_token })).body).toEqual({ active: false });
    expect((await post('/introspect', { client_id: conf, client_secret: confSecret, token: tok.refresh_token! })).body).toEqual({ active: false });
    expect((await post('/introspect', { client_id: pub, token: randomHex(32) })).body).toEqual({ active: false });
    expect((await post('/introspect', { client_id: pub, token: 'x' })).body).toEqual({ active: false });
    // A confidential client must prove its secret to introspect.
    expect((await post('/introspect', { client_id: conf, token: tok.access_token })).body).toMatchObject({ errno: 102 });
  });

  it('revokes the caller\'s own tokens (RFC 7009), leaves other clients\' alone, answers {} either way', async () => {
    const tok = await tokensFor(pub, 'profile');
    expect(await post('/destroy', { client_id: other, token: tok.access_token })).toEqual({ status: 200, body: {} });
    expect((await post('/introspect', { client_id: pub, token: tok.access_token })).body.active).toBe(true);
    expect(await post('/destroy', { client_id: pub, token: tok.access_token })).toEqual({ status: 200, body: {} });
    expect((await post('/introspect', { client_id: pub, token: tok.access_token })).body).toEqual({ active: false });
    expect(await post('/oauth/destroy', { client_id: pub, token: tok.refresh_token!, token_type_hint: 'refresh_token' })).toEqual({ status: 200, body: {} });
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: tok.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
    expect(await post('/destroy', { client_id: pub, token: randomHex(32) })).toEqual({ status: 200, body: {} });
    const basic = `Basic ${Buffer.from(`${conf}:${confSecret}`).toString('base64')}`;
    expect((await post('/oauth/destroy', { token: randomHex(32) }, { authorization: basic })).status).toBe(200);
  });

  it('verifies access tokens and id_tokens', async () => {
    const tok = await tokensFor(pub, 'openid profile:email');
    const v = await t.client.verify({ token: tok.access_token });
    expect(v).toMatchObject({ user: account.uid, client_id: pub, scope: ['openid', 'profile:email'] });
    await expectError(t.client.verify({ token: randomHex(32) }), 'INVALID_TOKEN', 400);
    const claims = await t.client.oauthIdTokenVerify({ client_id: pub, id_token: tok.id_token! });
    expect(claims).toMatchObject({ sub: account.uid, aud: pub, iss: t.url });
    await expectError(t.client.oauthIdTokenVerify({ client_id: other, id_token: tok.id_token! }), 'INVALID_TOKEN', 401);
    const [h, p] = tok.id_token!.split('.');
    await expectError(t.client.oauthIdTokenVerify({ client_id: pub, id_token: `${h}.${p}.${'A'.repeat(342)}` }), 'INVALID_TOKEN', 401);
  });

  it('answers userinfo and /profile as the token\'s scopes allow', async () => {
    const narrow = await tokensFor(pub, 'profile:locale');
    const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
    const ui = await (await fetch(`${t.url}/v1/userinfo`, bearer(narrow.access_token))).json();
    expect(ui).toEqual({ sub: account.uid });
    const wide = await tokensFor(pub, 'profile:email');
    expect(await (await fetch(`${t.url}/v1/userinfo`, bearer(wide.access_token))).json()).toEqual({ sub: account.uid, email: account.email, email_verified: true });
    const profile = await (await fetch(`${t.url}/v1/profile`, bearer(wide.access_token))).json();
    expect(profile).toMatchObject({ uid: account.uid, email: account.email });
    expect(profile).not.toHaveProperty('amrValues');
    const all = await tokensFor(pub, 'profile');
    expect(await (await fetch(`${t.url}/v1/profile`, bearer(all.access_token))).json()).toMatchObject({ uid: account.uid, email: account.email, amrValues: ['pwd', 'email'], accountDisabledAt: null });
    expect((await fetch(`${t.url}/v1/userinfo`, bearer(randomHex(32)))).status).toBe(401);
  });

  it('publishes discovery documents advertising exactly what is supported', async () => {
    for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server']) {
      const doc = await (await fetch(`${t.url}${path}`)).json() as Record<string, unknown>;
      expect(doc).toMatchObject({
        issuer: t.url, token_endpoint: `${t.url}/v1/token`, jwks_uri: `${t.url}/v1/jwks`, userinfo_endpoint: `${t.url}/v1/userinfo`,
        response_types_supported: ['code'], code_challenge_methods_supported: ['S256'], grant_types_supported: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:token-exchange'],
        id_token_signing_alg_values_supported: ['RS256'],
      });
    }
  });

  it('lists refresh tokens among attached clients and revokes them by handle or by client', async () => {
    const a = await tokensFor(pub, 'profile');
    const b = await tokensFor(other, 'profile');
    const list = await t.client.accountAttachedClients(account.sessionToken);
    const handle = createHash('sha256').update(Buffer.from(a.refresh_token!, 'hex')).digest('hex');
    const entry = list.find((c) => c.refreshTokenId === handle)!;
    expect(entry).toMatchObject({ clientId: pub, name: 'App', scope: ['profile'], sessionTokenId: null, deviceId: null, isCurrentSession: false });
    expect(JSON.stringify(list)).not.toContain(a.refresh_token);
    // Another client's id with the handle is refused; the handle alone revokes it.
    await expectError(t.client.accountAttachedClientDestroy(account.sessionToken, { refreshTokenId: handle, clientId: other }), 'REFRESH_TOKEN_UNKNOWN', 400);
    await t.client.accountAttachedClientDestroy(account.sessionToken, { refreshTokenId: handle, clientId: pub });
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: a.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
    await expectError(t.client.accountAttachedClientDestroy(account.sessionToken, { refreshTokenId: handle }), 'REFRESH_TOKEN_UNKNOWN', 400);
    // A client named alone: all of its tokens, access tokens included.
    await t.client.accountAttachedClientDestroy(account.sessionToken, { clientId: other });
    await expectError(t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: other, refresh_token: b.refresh_token! }), 'REFRESH_TOKEN_UNKNOWN', 400);
    expect((await post('/introspect', { client_id: other, token: b.access_token })).body).toEqual({ active: false });
    // Another account cannot revoke this one's tokens by handle.
    const c = await tokensFor(pub, 'profile');
    const stranger = await verifiedAccount(t);
    const cHandle = createHash('sha256').update(Buffer.from(c.refresh_token!, 'hex')).digest('hex');
    await expectError(t.client.accountAttachedClientDestroy(stranger.sessionToken, { refreshTokenId: cHandle }), 'REFRESH_TOKEN_UNKNOWN', 400);
    expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: pub, refresh_token: c.refresh_token! })).scope).toBe('profile');
  }, 120_000);

  it('lists authorized clients and revokes them (/authorized-clients)', async () => {
    const me = await verifiedAccount(t);
    const a = await tokensFor(pub, 'profile', me.sessionToken);
    const online = await t.client.oauthAuthorization(me.sessionToken, { client_id: conf, scope: 'profile' });
    const confTok = await post('/token', { client_id: conf, client_secret: confSecret, code: online.code });
    const list = await t.client.authorizedClients(me.sessionToken, {});
    const handle = createHash('sha256').update(Buffer.from(a.refresh_token!, 'hex')).digest('hex');
    expect(list).toEqual(expect.arrayContaining([
      expect.objectContaining({ client_id: pub, client_name: 'App', refresh_token_id: handle, scope: ['profile'] }),
      expect.objectContaining({ client_id: conf, client_name: 'Conf', scope: ['profile'] }),
    ]));
    expect(list.find((c) => c.client_id === conf)).not.toHaveProperty('refresh_token_id');
    await expectError(t.client.authorizedClientsDestroy(me.sessionToken, { client_id: other, refresh_token_id: handle }), 'INVALID_TOKEN', 400);
    const pubOnline = await t.client.oauthAuthorization(me.sessionToken, { client_id: pub, scope: 'profile', code_challenge: CHALLENGE, code_challenge_method: 'S256' });
    const onlineTok = await t.client.oauthToken(undefined, { client_id: pub, code: pubOnline.code, code_verifier: VERIFIER });
    await t.client.authorizedClientsDestroy(me.sessionToken, { client_id: pub, refresh_token_id: handle });
    await t.client.authorizedClientsDestroy(me.sessionToken, { client_id: conf });
    // The access token issued with the refresh token went with it (RFC 7009 §2.1); the one of another
    // grant lives on: the client is listed without a refresh token.
    expect((await post('/introspect', { client_id: pub, token: a.access_token })).body).toEqual({ active: false });
    expect(await t.client.authorizedClients(me.sessionToken, {})).toEqual([expect.objectContaining({ client_id: pub })]);
    expect((await t.client.authorizedClients(me.sessionToken, {}))[0]).not.toHaveProperty('refresh_token_id');
    await t.client.authorizedClientsDestroy(me.sessionToken, { client_id: pub });
    expect(await t.client.authorizedClients(me.sessionToken, {})).toEqual([]);
    expect((await post('/introspect', { client_id: pub, token: onlineTok.access_token })).body).toEqual({ active: false });
    expect((await post('/introspect', { client_id: conf, client_secret: confSecret, token: confTok.body.access_token as string })).body).toEqual({ active: false });
  }, 120_000);

  it('ends refresh tokens on password reset; a password change ends public clients\' but not confidential ones\'', async () => {
    const db = t.storage.db;
    const before = await db.selectFrom('oauth_refresh_tokens').select('token_hash').where('uid', '=', account.uid).execute();
    expect(before.length).toBeGreaterThan(0);
    // Password change through the account lifecycle hooks (as /password/change/finish runs them).
    const confCode = await t.client.oauthAuthorization(account.sessionToken, { client_id: conf, scope: 'profile', access_type: 'offline' });
    const confTok = await post('/token', { client_id: conf, client_secret: confSecret, code: confCode.code });
    expect(confTok.status).toBe(200);
    await db.transaction().execute((trx) => t.app.services.records.passwordChanged(trx, account.uid, { sessionTokenId: 'none', replaces: null } as never));
    const left = await db.selectFrom('oauth_refresh_tokens').select('client_id').where('uid', '=', account.uid).execute();
    expect(left.map((r) => r.client_id)).toEqual([conf]);
    await db.transaction().execute((trx) => t.app.services.records.passwordReset(trx, account.uid));
    expect(await db.selectFrom('oauth_refresh_tokens').select('client_id').where('uid', '=', account.uid).execute()).toEqual([]);
  });
});
