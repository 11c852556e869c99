import { createHash, createPrivateKey, hkdfSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify, SignJWT } from 'jose';
import { randomHex } from '@tessera/protocol';
import { generateSigningKeyPem, publicJwkFromPem } from '../../../src/platform/keys/index.js';
import { ClientRegistrationError, parseClientsFile } from '../../../src/domains/oauth/index.js';
import { jwtAccessTokenHash } from '../../../src/domains/oauth/tokens/store.js';
import { createTestServer, httpDialects, testSigningKey, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { PPID } from '../../production-env.js';

// Issue 14: pairwise subject identifiers (ppid_seed, rotation, no uid-revealing scopes), JWT access
// tokens (RFC 9068) accepted wherever opaque ones are and revocable at Tessera, and `resource`
// (RFC 8707) at /token — through HTTP, with the attacks: forged, unsigned, expired, foreign-issuer
// and revoked JWTs, another client's token, out-of-range seeds, malformed resources.

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
const VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const HOUR = 3_600_000;

/** protocol.md §8.1, computed here independently of the server's code. */
const expectedPpid = (clientId: string, uid: string, seed: number, rotation: number) => Buffer.from(hkdfSync(
  'sha256', Buffer.from(`${clientId}.${uid}.${seed}.${rotation}`), Buffer.from(PPID), Buffer.from('identity.mozilla.com/picl/v1/oidc ppid sub'), 16,
)).toString('hex');

describe.each(httpDialects())('pairwise subjects, JWT access tokens and resource (%s)', (dialect) => {
  let t: TestServer;
  let session: string;
  let uid: string;
  const pairwise = randomHex(8);
  const pairwise2 = randomHex(8);
  const rotating = randomHex(8);
  const jwtClient = randomHex(8);
  const jwtSecret = randomHex(32);
  const jwtPairwise = randomHex(8);
  const plain = randomHex(8);
  const plainSecret = randomHex(32);

  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true, env: { OAUTH_PPID_SECRET: PPID } });
    const { oauth } = t.app.services;
    const db = t.storage.db;
    const base = { publicClient: true, trusted: false, canGrant: false, createdAt: 1 };
    await oauth.registerClient(db, { ...base, id: pairwise, name: 'Pairwise', redirectUris: ['https://pw.example/cb'], allowedScopes: ['profile:email', 'profile:locale'], pairwiseSubjects: true });
    await oauth.registerClient(db, { ...base, id: pairwise2, name: 'Pairwise 2', redirectUris: ['https://pw2.example/cb'], allowedScopes: ['profile:email'], pairwiseSubjects: true });
    await oauth.registerClient(db, { ...base, id: rotating, name: 'Rotating', redirectUris: ['https://rot.example/cb'], allowedScopes: ['profile:email'], pairwiseSubjects: true, pairwiseRotationSeconds: 3600 });
    await oauth.registerClient(db, { ...base, id: jwtPairwise, name: 'JWT pairwise', redirectUris: ['https://jp.example/cb'], allowedScopes: ['profile:email'], pairwiseSubjects: true, jwtAccessTokens: true });
    await oauth.registerClient(db, { ...base, publicClient: false, secret: jwtSecret, id: jwtClient, name: 'JWT RP', redirectUris: ['https://jwt.example/cb'], allowedScopes: ['profile'], jwtAccessTokens: true, accessTokenTtlSeconds: 600,
      allowedResources: ['https://api.example/v2', 'urn:example:api'] });
    await oauth.registerClient(db, { ...base, publicClient: false, secret: plainSecret, id: plain, name: 'Plain RP', redirectUris: ['https://plain.example/cb'], allowedScopes: ['profile'], allowedResources: ['https://api.example/'] });
    const account = await verifiedAccount(t);
    session = account.sessionToken;
    uid = account.uid;
  }, 120_000);
  afterAll(async () => t?.close());

  const post = async (path: string, body: Record<string, string>, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: new URLSearchParams(body).toString() });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  const get = async (path: string, token: string) => {
    const res = await fetch(`${t.url}/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: await res.json() as Record<string, unknown> };
  };
  /** A code for a public client (PKCE) and the tokens it is traded for, through the form-encoded OAuth-server paths. */
  const flow = async (clientId: string, scope: string, extra: { authorize?: Record<string, unknown>; token?: Record<string, string> } = {}) => {
    const a = await t.client.oauthAuthorization(session, { client_id: clientId, scope, code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256', access_type: 'offline', ...extra.authorize } as never);
    const tok = await post('/token', { grant_type: 'authorization_code', client_id: clientId, code: a.code, code_verifier: VERIFIER, ...extra.token });
    expect(tok.status).toBe(200);
    return tok.body as { access_token: string; id_token?: string; refresh_token?: string; scope: string };
  };
  const confidential = async (clientId: string, secret: string, scope: string, token: Record<string, string> = {}) => {
    const a = await t.client.oauthAuthorization(session, { client_id: clientId, scope, access_type: 'offline' });
    const tok = await post('/token', { grant_type: 'authorization_code', client_id: clientId, client_secret: secret, code: a.code, ...token });
    expect(tok.status).toBe(200);
    return tok.body as { access_token: string; id_token?: string; refresh_token?: string };
  };
  const subOf = async (idToken: string, audience: string | string[] = []) => {
    const { payload } = await jwtVerify(idToken, createRemoteJWKSet(new URL(`${t.url}/v1/jwks`)), { issuer: t.url, currentDate: new Date(t.clock!.now()), ...(audience.length ? { audience } : {}) });
    return payload.sub!;
  };

  it('shows a pairwise client a pairwise sub: per client, per seed, the same at userinfo, profile, introspection, /verify and after a refresh', async () => {
    const tok = await flow(pairwise, 'openid profile:email');
    const sub = await subOf(tok.id_token!);
    expect(sub).toMatch(/^[0-9a-f]{32}$/);
    expect(sub).not.toBe(uid);
    expect(sub).toBe(expectedPpid(pairwise, uid, 0, 0));
    // Every other place the client can look shows the same id, never the uid.
    expect((await get('/userinfo', tok.access_token)).body).toMatchObject({ sub });
    const profile = (await get('/profile', tok.access_token)).body;
    expect(profile).toMatchObject({ uid: sub, sub });
    expect(JSON.stringify(profile)).not.toContain(uid);
    expect((await post('/introspect', { client_id: pairwise, token: tok.access_token })).body).toMatchObject({ active: true, sub });
    // A refresh token keeps no pairwise id, and shows no sub rather than the uid.
    const refreshInfo = (await post('/introspect', { client_id: pairwise, token: tok.refresh_token!, token_type_hint: 'refresh_token' })).body;
    expect(refreshInfo).toMatchObject({ active: true, token_type: 'refresh_token' });
    expect(refreshInfo).not.toHaveProperty('sub');
    const verified = (await post('/verify', { token: tok.access_token })).body;
    expect(verified.user).toBe(sub);
    // A refresh keeps the id (same seed), and its access token shows it too.
    const refreshed = await post('/token', { grant_type: 'refresh_token', client_id: pairwise, refresh_token: tok.refresh_token! });
    expect(await subOf(refreshed.body.id_token as string)).toBe(sub);
    expect((await get('/userinfo', refreshed.body.access_token as string)).body.sub).toBe(sub);

    // Another pairwise client sees another id; a non-pairwise client sees the uid.
    const other = await subOf((await flow(pairwise2, 'openid')).id_token!);
    expect(other).toBe(expectedPpid(pairwise2, uid, 0, 0));
    expect(other).not.toBe(sub);
    expect(await subOf((await confidential(plain, plainSecret, 'openid profile')).id_token!)).toBe(uid);

    // A seed at /authorization (kept with the code) or at /token gives a new id; /token's wins.
    const seeded = await subOf((await flow(pairwise, 'openid', { authorize: { ppid_seed: 7 } })).id_token!);
    expect(seeded).toBe(expectedPpid(pairwise, uid, 7, 0));
    const atToken = await flow(pairwise, 'openid', { authorize: { ppid_seed: 7 }, token: { ppid_seed: '1024' } });
    expect(await subOf(atToken.id_token!)).toBe(expectedPpid(pairwise, uid, 1024, 0));
    const r = await post('/token', { grant_type: 'refresh_token', client_id: pairwise, refresh_token: atToken.refresh_token!, ppid_seed: '1024' });
    expect(await subOf(r.body.id_token as string)).toBe(expectedPpid(pairwise, uid, 1024, 0));
    // The JSON path takes it too.
    const a = await t.client.oauthAuthorization(session, { client_id: pairwise, scope: 'openid', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' });
    const json = await t.client.oauthToken(undefined, { client_id: pairwise, code: a.code, code_verifier: VERIFIER, ppid_seed: 3 });
    expect(await subOf(json.id_token!)).toBe(expectedPpid(pairwise, uid, 3, 0));
  });

  it('rotates the pairwise id of a rotating client every period, and only then', async () => {
    const first = await subOf((await flow(rotating, 'openid')).id_token!);
    const period = Math.floor(t.clock!.now() / HOUR);
    expect(first).toBe(expectedPpid(rotating, uid, 0, period));
    t.clock!.set((period + 1) * HOUR + 1000);
    const next = await subOf((await flow(rotating, 'openid')).id_token!);
    expect(next).toBe(expectedPpid(rotating, uid, 0, period + 1));
    expect(next).not.toBe(first);
    t.clock!.advance(60_000);
    expect(await subOf((await flow(rotating, 'openid')).id_token!)).toBe(next);
  });

  it('never gives a pairwise client a scope that shows the uid, nor registers one allowed such a scope', async () => {
    for (const scope of ['profile', 'openid profile', 'profile:uid', 'profile:write']) {
      await expectError(t.client.oauthAuthorization(session, { client_id: pairwise, scope, code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' }), 'INVALID_SCOPES', 400);
    }
    const r = await expectError(t.client.authorization(session, { client_id: pairwise, scope: 'profile', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' }), 'INVALID_SCOPES', 400);
    expect(r.body).toMatchObject({ errno: 114 });
    const { oauth } = t.app.services;
    for (const allowedScopes of [['profile'], ['profile:email', 'profile:uid'], ['profile:write']]) {
      await expect(oauth.registerClient(t.storage.db, { id: randomHex(8), name: 'Leaky', redirectUris: ['https://leak.example/cb'], publicClient: true, trusted: false, canGrant: false, allowedScopes, pairwiseSubjects: true, createdAt: 1 }))
        .rejects.toThrow(ClientRegistrationError);
    }
    await expect(oauth.registerClient(t.storage.db, { id: randomHex(8), name: 'Bad period', redirectUris: ['https://x.example/cb'], publicClient: true, trusted: false, canGrant: false, allowedScopes: [], pairwiseSubjects: true, pairwiseRotationSeconds: 60, createdAt: 1 }))
      .rejects.toThrow(/rotation period/);
    await expect(oauth.registerClient(t.storage.db, { id: randomHex(8), name: 'No pairwise', redirectUris: ['https://x.example/cb'], publicClient: true, trusted: false, canGrant: false, allowedScopes: [], pairwiseRotationSeconds: 3600, createdAt: 1 }))
      .rejects.toThrow(/needs pairwise subjects/);
    // The clients file carries the settings, and its entries are checked the same way.
    const [entry] = parseClientsFile(JSON.stringify([{ id: randomHex(8), name: 'F', redirectUris: ['https://f.example/cb'], public: true, pairwiseSubjects: true, pairwiseRotationSeconds: 7200, jwtAccessTokens: true }]), 1);
    expect(entry).toMatchObject({ pairwiseSubjects: true, pairwiseRotationSeconds: 7200, jwtAccessTokens: true });
    expect(() => parseClientsFile(JSON.stringify([{ id: randomHex(8), name: 'F', redirectUris: ['https://f.example/cb'], public: true, jwtAccessTokens: 'yes' }]), 1)).toThrow(/jwtAccessTokens must be true or false/);
  });

  it('refuses a ppid_seed outside 0–1024 and changes nothing', async () => {
    for (const seed of [1025, -1, 1.5]) {
      await expectError(t.client.oauthAuthorization(session, { client_id: pairwise, scope: 'openid', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256', ppid_seed: seed }), 'INVALID_PARAMETER', 400);
    }
    const a = await t.client.oauthAuthorization(session, { client_id: pairwise, scope: 'openid', code_challenge: challengeOf(VERIFIER), code_challenge_method: 'S256' });
    for (const seed of ['1025', '-1', 'x', '']) {
      expect(await post('/token', { client_id: pairwise, code: a.code, code_verifier: VERIFIER, ppid_seed: seed })).toMatchObject({ status: 400, body: { errno: 109 } });
    }
    // The refused requests did not spend the code.
    expect((await post('/token', { client_id: pairwise, code: a.code, code_verifier: VERIFIER })).status).toBe(200);
  });

  it('issues JWT access tokens that verify against /jwks and work wherever opaque ones do', async () => {
    const tok = await confidential(jwtClient, jwtSecret, 'openid profile');
    const jwks = createRemoteJWKSet(new URL(`${t.url}/v1/jwks`));
    const { payload, protectedHeader } = await jwtVerify(tok.access_token, jwks, { issuer: t.url, audience: jwtClient, typ: 'at+jwt', currentDate: new Date(t.clock!.now()) });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt', kid: testSigningKey().publicJwk.kid });
    expect(payload).toMatchObject({ sub: uid, client_id: jwtClient, scope: 'openid profile' });
    expect(payload.exp! - payload.iat!).toBe(600);
    expect(payload.jti).toMatch(/^[0-9a-f]{64}$/);
    // The id_token's at_hash covers the JWT as sent.
    const idToken = decodeJwt(tok.id_token!);
    expect(idToken.at_hash).toBe(createHash('sha256').update(tok.access_token).digest().subarray(0, 16).toString('base64url'));

    expect((await get('/userinfo', tok.access_token))).toMatchObject({ status: 200, body: { sub: uid } });
    expect((await get('/profile', tok.access_token))).toMatchObject({ status: 200, body: { uid } });
    expect((await post('/verify', { token: tok.access_token })).body).toMatchObject({ user: uid, client_id: jwtClient, scope: ['openid', 'profile'] });
    const basic = { authorization: `Basic ${Buffer.from(`${jwtClient}:${jwtSecret}`).toString('base64')}` };
    expect((await post('/introspect', { token: tok.access_token }, basic)).body).toMatchObject({ active: true, client_id: jwtClient, sub: uid, jti: payload.jti, token_type: 'access_token' });
    // Another client learns nothing of it, as for opaque tokens, and cannot revoke it.
    expect((await post('/introspect', { client_id: plain, client_secret: plainSecret, token: tok.access_token })).body).toEqual({ active: false });
    expect((await post('/destroy', { client_id: plain, client_secret: plainSecret, token: tok.access_token })).status).toBe(200);
    expect((await get('/userinfo', tok.access_token)).status).toBe(200);
    // A refresh issues a JWT too; nothing stored is the JWT or its jti in clear.
    const refreshed = await post('/token', { grant_type: 'refresh_token', refresh_token: tok.refresh_token! }, basic);
    expect(decodeProtectedHeader(refreshed.body.access_token as string).typ).toBe('at+jwt');
    const rows = await t.storage.db.selectFrom('oauth_access_tokens').select('token_hash').where('client_id', '=', jwtClient).execute();
    expect(rows.map((r) => r.token_hash)).not.toContain(payload.jti);

    // Revoked by its client: Tessera refuses it at once everywhere.
    expect((await post('/destroy', { token: tok.access_token }, basic)).status).toBe(200);
    expect((await get('/userinfo', tok.access_token))).toMatchObject({ status: 401, body: { errno: 110 } });
    expect((await post('/verify', { token: tok.access_token })).body).toMatchObject({ errno: 108 });
    expect((await post('/introspect', { token: tok.access_token }, basic)).body).toEqual({ active: false });
    // The signature alone still verifies: local verifiers cannot see revocation (hence short lifetimes).
    await expect(jwtVerify(tok.access_token, jwks, { issuer: t.url, currentDate: new Date(t.clock!.now()) })).resolves.toBeTruthy();
  });

  it('refuses tampered, unsigned, expired, foreign-issuer and id_token JWTs', async () => {
    const tok = await confidential(jwtClient, jwtSecret, 'openid profile');
    const [header, body, signature] = tok.access_token.split('.') as [string, string, string];
    const claims = decodeJwt(tok.access_token);
    const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const { privateKey, publicJwk } = testSigningKey();
    const sign = (c: Record<string, unknown>, typ = 'at+jwt') => new SignJWT(c).setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid, typ }).sign(privateKey);
    const forged = {
      // Another account's uid and wider scope, the signature kept.
      tampered: `${header}.${b64({ ...claims, sub: randomHex(16), scope: 'profile:write' })}.${signature}`,
      unsigned: `${b64({ alg: 'none', typ: 'at+jwt' })}.${body}.`,
      'wrong key id': `${b64({ alg: 'RS256', typ: 'at+jwt', kid: 'nope' })}.${body}.${signature}`,
      // A valid signature by our own key, but another issuer's token.
      'other issuer': await sign({ ...claims, iss: 'https://evil.example' }),
      // Same claims, typed as an id_token: an id_token is not an access token.
      'id_token type': await sign(claims, 'JWT'),
      'real id_token': tok.id_token!,
    };
    for (const [what, jwt] of Object.entries(forged)) {
      expect({ what, ...(await get('/userinfo', jwt)) }).toMatchObject({ what, status: 401, body: { errno: 110 } });
      expect({ what, ...(await post('/verify', { token: jwt })) }).toMatchObject({ what, status: 400, body: { errno: 108 } });
      expect({ what, ...(await post('/introspect', { client_id: jwtClient, client_secret: jwtSecret, token: jwt })).body }).toEqual({ what, active: false });
    }
    // Nor is an access token an id_token: /oauth/id-token-verify refuses it, though signer, iss and aud match.
    await expectError(t.client.oauthIdTokenVerify({ client_id: jwtClient, id_token: tok.access_token }), 'INVALID_TOKEN', 401);
    expect((await t.client.oauthIdTokenVerify({ client_id: jwtClient, id_token: tok.id_token! })).sub).toBe(uid);
    // The untouched token is fine, until it expires (600 s).
    expect((await get('/userinfo', tok.access_token)).status).toBe(200);
    t.clock!.advance(601_000);
    expect((await get('/userinfo', tok.access_token))).toMatchObject({ status: 401, body: { errno: 110 } });
    expect((await post('/verify', { token: tok.access_token })).body).toMatchObject({ errno: 108 });
  });

  it('gives a pairwise JWT client its pairwise sub in the JWT too', async () => {
    const tok = await flow(jwtPairwise, 'openid profile:email');
    const sub = await subOf(tok.id_token!);
    expect(sub).toBe(expectedPpid(jwtPairwise, uid, 0, 0));
    expect(decodeJwt(tok.access_token)).toMatchObject({ sub, client_id: jwtPairwise });
    expect((await get('/userinfo', tok.access_token)).body.sub).toBe(sub);
    expect((await post('/introspect', { client_id: jwtPairwise, token: tok.access_token })).body).toMatchObject({ active: true, sub });
  });

  it('adds resource to the aud of the id_token and of a JWT access token, and refuses a malformed one', async () => {
    const resource = 'https://api.example/v2';
    const tok = await confidential(jwtClient, jwtSecret, 'openid profile', { resource });
    const jwks = createRemoteJWKSet(new URL(`${t.url}/v1/jwks`));
    const id = await jwtVerify(tok.id_token!, jwks, { issuer: t.url, audience: resource, currentDate: new Date(t.clock!.now()) });
    expect(id.payload).toMatchObject({ aud: [jwtClient, resource], azp: jwtClient });
    const at = await jwtVerify(tok.access_token, jwks, { issuer: t.url, audience: resource, typ: 'at+jwt', currentDate: new Date(t.clock!.now()) });
    expect(at.payload.aud).toEqual([jwtClient, resource]);
    expect((await get('/userinfo', tok.access_token)).status).toBe(200);
    // On the refresh grant as well.
    const r = await post('/token', { grant_type: 'refresh_token', client_id: jwtClient, client_secret: jwtSecret, refresh_token: tok.refresh_token!, resource: 'urn:example:api' });
    expect(decodeJwt(r.body.access_token as string).aud).toEqual([jwtClient, 'urn:example:api']);
    // Without it, aud is the client alone.
    expect(decodeJwt((await confidential(jwtClient, jwtSecret, 'openid')).id_token!).aud).toBe(jwtClient);

    const a = await t.client.oauthAuthorization(session, { client_id: plain, scope: 'openid' });
    for (const bad of ['https://api.example/#frag', '/relative/path', 'api.example', 'https://api example/', 'http://[::1']) {
      expect({ bad, ...(await post('/token', { client_id: plain, client_secret: plainSecret, code: a.code, resource: bad })) }).toMatchObject({ bad, status: 400, body: { errno: 109 } });
    }
    await expectError(t.client.oauthToken(undefined, { client_id: plain, client_secret: plainSecret, code: a.code, resource: 'no-scheme' }), 'INVALID_PARAMETER', 400);
    // Nothing was spent by the refusals.
    const ok = await post('/token', { client_id: plain, client_secret: plainSecret, code: a.code, resource: 'https://api.example/' });
    expect(ok.status).toBe(200);
    expect(decodeJwt(ok.body.id_token as string).aud).toEqual([plain, 'https://api.example/']);
  });

  it('ends JWT access tokens at Tessera on a password change, like opaque ones', async () => {
    const tok = await confidential(jwtClient, jwtSecret, 'profile');
    expect((await get('/userinfo', tok.access_token)).status).toBe(200);
    await t.storage.db.transaction().execute((trx) => t.app.services.records.passwordChanged(trx, uid, { sessionTokenId: 'none', replaces: null } as never));
    expect((await get('/userinfo', tok.access_token))).toMatchObject({ status: 401, body: { errno: 110 } });
    expect((await post('/verify', { token: tok.access_token })).body).toMatchObject({ errno: 108 });
  });
});

describe('JWT access tokens signed by the next or previous key of /jwks', () => {
  let t: TestServer;
  const dir = mkdtempSync(join(tmpdir(), 'tessera-at-jwks-'));
  const nextPem = generateSigningKeyPem();
  const previousPem = generateSigningKeyPem();
  const client = randomHex(8);
  beforeAll(async () => {
    writeFileSync(join(dir, 'next.pem'), nextPem);
    writeFileSync(join(dir, 'previous.pem'), previousPem);
    t = await createTestServer({ env: { OAUTH_NEXT_SIGNING_KEY_FILE: join(dir, 'next.pem'), OAUTH_PREVIOUS_SIGNING_KEY_FILE: join(dir, 'previous.pem') } });
    await t.app.services.oauth.registerClient(t.storage.db, { id: client, name: 'JWT RP', redirectUris: ['https://jwt.example/cb'], publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile'], jwtAccessTokens: true, createdAt: 1 });
  });
  afterAll(async () => t?.close());

  /** A token row as /token would store it, and a JWT for it signed with `pem`, named by the /jwks kid of its public key. */
  const issue = async (pem: string, uid: string, kidOf = pem) => {
    const { keys } = await t.client.jwks();
    const kid = keys.find((k) => k.n === publicJwkFromPem(kidOf, Date.now()).n)?.kid ?? 'unknown';
    const jti = randomHex(32);
    const now = Date.now();
    await t.storage.db.insertInto('oauth_access_tokens').values({
      token_hash: jwtAccessTokenHash(jti), client_id: client, uid, scope: 'profile', created_at: now, expires_at: now + 600_000, profile_changed_at: now,
    }).execute();
    return new SignJWT({ client_id: client, scope: 'profile' }).setProtectedHeader({ alg: 'RS256', kid, typ: 'at+jwt' }).setIssuer(t.url).setSubject(uid)
      .setAudience(client).setIssuedAt(Math.floor(now / 1000)).setExpirationTime(Math.floor(now / 1000) + 600).setJti(jti).sign(createPrivateKey(pem));
  };

  it('accepts them during a rotation, and refuses a key /jwks does not publish', async () => {
    const account = await verifiedAccount(t);
    for (const pem of [nextPem, previousPem]) {
      expect((await fetch(`${t.url}/v1/userinfo`, { headers: { authorization: `Bearer ${await issue(pem, account.uid)}` } })).status).toBe(200);
    }
    // Another key, named as a published one or not at all.
    for (const stranger of [await issue(generateSigningKeyPem(), account.uid, previousPem), await issue(generateSigningKeyPem(), account.uid)]) {
      expect((await fetch(`${t.url}/v1/userinfo`, { headers: { authorization: `Bearer ${stranger}` } })).status).toBe(401);
    }
  });
});
