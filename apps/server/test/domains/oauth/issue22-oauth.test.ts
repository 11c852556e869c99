import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { ClientRegistrationError, parseClientsFile } from '../../../src/domains/oauth/index.js';
import { clientFromRegistration } from '../../../src/domains/oauth/clients/registration.js';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, expectOAuthError, rawRequest } from '../../helpers.js';
import { appFor, codeAt } from '../two-step/two-step-helpers.js';

// Issue 22, the OAuth server's part, written as the attacks an outside review made:
// hole 1: a session confirmed by email on an account with two-step authentication got tokens from
//   the fxa-credentials grant (only "confirmed" was checked), and a token exchange could widen a
//   grant made without the second factor;
// hole 6: a public client widened a stolen refresh token by token exchange with client_id alone;
// hole 7: pairwise clients were shown the same millisecond timestamps, so two of them could link
//   their pairwise ids;
// hole 9: `resource` put any URI into the audience of id_tokens and JWT access tokens;
// and /profile and userinfo reported a constant `amr` and two-step state.

const GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const REFRESH_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token';
const RELAY = 'https://identity.mozilla.com/apps/relay';

describe.each(httpDialects())('issue 22: the OAuth server (%s)', (dialect) => {
  let t: TestServer;
  /** A first-party public client (a browser). */
  const browser = randomHex(8);
  /** A first-party confidential client. */
  const service = randomHex(8);
  const serviceSecret = randomHex(32);
  /** Two third-party clients with pairwise subjects. */
  const pairwiseA = randomHex(8);
  const pairwiseB = randomHex(8);
  /** A confidential client registered for two resources, with JWT access tokens. */
  const api = randomHex(8);
  const apiSecret = randomHex(32);
  const RESOURCES = ['https://api.example/v2', 'urn:example:files'];

  /**
   * An account with two-step authentication on and three sessions, as the review had them: `aal2`
   * (it turned two-step on), `email` (confirmed by email before that: AAL1), `waiting` (signed in
   * afterwards, waiting for the second factor).
   */
  let twoStep: { uid: string; email: string; aal2: string; email1: string; waiting: string };
  /** An account without two-step and its confirmed session. */
  let plain: { uid: string; session: string };

  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { RATE_LIMIT_ENABLED: 'false' } });
    const { oauth } = t.app.services;
    const db = t.storage.db;
    const base = { trusted: true, canGrant: true, createdAt: 1 };
    await oauth.registerClient(db, { ...base, id: browser, name: 'Browser', publicClient: true, redirectUris: ['urn:ietf:wg:oauth:2.0:oob:oauth-redirect-webchannel'], allowedScopes: ['profile', 'openid', RELAY] });
    await oauth.registerClient(db, { ...base, id: service, name: 'Service', publicClient: false, secret: serviceSecret, redirectUris: ['https://service.example/cb'], allowedScopes: ['profile', RELAY] });
    const third = { trusted: false, canGrant: false, publicClient: true, createdAt: 1, pairwiseSubjects: true, allowedScopes: ['profile:email', 'profile:amr', 'profile:account_disabled_at'] };
    await oauth.registerClient(db, { ...third, id: pairwiseA, name: 'Pairwise A', redirectUris: ['https://a.example/cb'] });
    await oauth.registerClient(db, { ...third, id: pairwiseB, name: 'Pairwise B', redirectUris: ['https://b.example/cb'] });
    await oauth.registerClient(db, {
      trusted: false, canGrant: false, publicClient: false, secret: apiSecret, createdAt: 1, id: api, name: 'API RP', redirectUris: ['https://rp.example/cb'],
      allowedScopes: ['profile'], jwtAccessTokens: true, allowedResources: RESOURCES,
    });

    const acct = await verifiedAccount(t, 'two step in issue 22');
    const { sessionToken: email1 } = await t.accounts.signIn(acct.email, acct.password);
    const { secret } = await t.client.totpCreate(acct.sessionToken, {});
    const app = appFor(secret);
    await t.client.totpSetupVerify(acct.sessionToken, { code: codeAt(t, app) });
    await t.client.totpSetupComplete(acct.sessionToken, {});
    const { sessionToken: waiting } = await t.accounts.signIn(acct.email, acct.password);
    twoStep = { uid: acct.uid, email: acct.email, aal2: acct.sessionToken, email1, waiting };
    const other = await verifiedAccount(t);
    plain = { uid: other.uid, session: other.sessionToken };
  }, 120_000);
  afterAll(async () => t?.close());

  const credentials = (sessionToken: string, clientId: string, extra: Record<string, unknown> = {}) =>
    t.client.oauthToken({ sessionToken }, { grant_type: 'fxa-credentials', client_id: clientId, scope: 'profile', ...extra } as never);
  const post = (path: string, body: Record<string, unknown>) => rawRequest(t.url, 'POST', path, { body });

  describe('hole 1: every way to a token on a two-step account needs AAL2', () => {
    it('refuses the fxa-credentials grant to a session confirmed by email, with the errno /oauth/authorization answers', async () => {
      const sessions = await t.client.sessionStatus(twoStep.email1);
      expect(sessions.details).toMatchObject({ sessionVerified: true, sessionVerificationMeetsMinimumAAL: false });
      await expectError(credentials(twoStep.email1, browser, { access_type: 'offline' }), 'INSUFFICIENT_AAL', 400);
      await expectError(credentials(twoStep.email1, service, { client_secret: serviceSecret }), 'INSUFFICIENT_AAL', 400);
      // The same session at the two authorization paths: the same errno, on both catalogues.
      await expectError(t.client.oauthAuthorization(twoStep.email1, { client_id: browser, scope: 'profile', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }), 'INSUFFICIENT_AAL', 400);
      // The OAuth-server path answers it too: 400/222 keeps the auth shape there (the OAuth catalogue has no twin for it).
      const onOAuthPath = await expectError(t.client.authorization(twoStep.email1, { client_id: browser, scope: 'profile', code_challenge: 'a'.repeat(43), code_challenge_method: 'S256' }), 'INSUFFICIENT_AAL', 400);
      expect(onOAuthPath.catalogue).toBe('auth');
      // Waiting for the second factor: not confirmed at all.
      await expectError(credentials(twoStep.waiting, browser), 'SESSION_UNVERIFIED', 400);
      // Nothing was issued to the account's grants by the refusals.
      const attached = (await t.client.accountAttachedClients(twoStep.aal2)) as { clientId?: string | null }[];
      expect(attached.filter((c) => c.clientId === browser || c.clientId === service)).toEqual([]);
    });

    it('issues tokens to the session confirmed by the second factor, which say so (amr otp, AAL2)', async () => {
      const tok = await credentials(twoStep.aal2, browser, { scope: 'openid profile', access_type: 'offline' });
      expect(decodeJwt(tok.id_token!)).toMatchObject({ amr: ['pwd', 'otp'], acr: 'AAL2', 'fxa-aal': 2 });
      // A refresh of that grant keeps working (it is the same grant) and keeps its assurance.
      const refreshed = await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: browser, refresh_token: tok.refresh_token!, scope: 'openid profile' });
      expect(decodeJwt(refreshed.id_token!)).toMatchObject({ amr: ['pwd', 'otp'], acr: 'AAL2' });
    });

    it('records a session confirmed with a backup code as AAL2 in the code it authorizes (every second factor counts)', async () => {
      const { recoveryCodes } = await t.client.recoveryCodesGenerate(twoStep.aal2);
      const { sessionToken } = await t.accounts.signIn(twoStep.email, 'two step in issue 22');
      await t.client.sessionVerifyRecoveryCode(sessionToken, { code: recoveryCodes[0]! });
      const { createHash } = await import('node:crypto');
      const verifier = 'w'.repeat(43);
      const { code } = await t.client.oauthAuthorization(sessionToken, {
        client_id: browser, scope: 'openid profile', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
      });
      const tok = await t.client.oauthToken(undefined, { client_id: browser, code, code_verifier: verifier });
      expect(decodeJwt(tok.id_token!)).toMatchObject({ amr: ['pwd', 'otp'], acr: 'AAL2', 'fxa-aal': 2 });
      expect(await t.client.profile(tok.access_token)).toMatchObject({ amrValues: ['pwd', 'otp'], twoFactorAuthentication: true });
    });

    it('keeps refreshing a grant made before two-step was turned on, but never widens it by token exchange', async () => {
      const acct = await verifiedAccount(t, 'grant before two step');
      const browserGrant = (await credentials(acct.sessionToken, browser, { access_type: 'offline' })).refresh_token!;
      const serviceGrant = (await credentials(acct.sessionToken, service, { client_secret: serviceSecret, access_type: 'offline' })).refresh_token!;
      const { sessionToken: emailOnly } = await t.accounts.signIn(acct.email, acct.password);
      const { secret } = await t.client.totpCreate(acct.sessionToken, {});
      await t.client.totpSetupVerify(acct.sessionToken, { code: codeAt(t, appFor(secret)) });
      await t.client.totpSetupComplete(acct.sessionToken, {});
      // Refresh: the grant the person made stays theirs (documented decision).
      expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: service, client_secret: serviceSecret, refresh_token: serviceGrant })).scope).toBe('profile');
      // Exchange for more scopes is a new authorization: AAL2 needed. A confidential client's grant made at AAL1:
      await expectError(t.client.oauthToken(undefined, {
        grant_type: GRANT, client_id: service, client_secret: serviceSecret, subject_token: serviceGrant, subject_token_type: REFRESH_TYPE, scope: RELAY,
      }), 'INSUFFICIENT_AAL', 400);
      // A public client beside a session confirmed by email only:
      await expectError(t.client.oauthToken({ sessionToken: emailOnly }, {
        grant_type: GRANT, client_id: browser, subject_token: browserGrant, subject_token_type: REFRESH_TYPE, scope: RELAY,
      }), 'INSUFFICIENT_AAL', 400);
      // The refusals spent nothing: the AAL2 session widens the public client's grant.
      const out = await t.client.oauthToken({ sessionToken: acct.sessionToken }, {
        grant_type: GRANT, client_id: browser, subject_token: browserGrant, subject_token_type: REFRESH_TYPE, scope: RELAY,
      });
      expect(out.scope).toBe(`profile ${RELAY}`);
    });
  });

  describe('hole 6: token exchange needs client authentication, or for a public client the session', () => {
    it('refuses a public client that sends its refresh token with client_id alone, on both paths', async () => {
      const stolen = (await credentials(plain.session, browser, { access_type: 'offline' })).refresh_token!;
      const body = { grant_type: GRANT, client_id: browser, subject_token: stolen, subject_token_type: REFRESH_TYPE, scope: RELAY };
      expectError(await post('/oauth/token', body), 'INVALID_TOKEN', 401);
      expectOAuthError(await post('/token', body), 'INVALID_ASSERTION');
      // Another account's session proves nothing about this token.
      await expectError(t.client.oauthToken({ sessionToken: twoStep.aal2 }, body as never), 'REFRESH_TOKEN_UNKNOWN', 400);
      // The token was not spent: the thief got nothing, the owner's refresh still works…
      expect((await t.client.oauthToken(undefined, { grant_type: 'refresh_token', client_id: browser, refresh_token: stolen })).scope).toBe('profile');
      // …and the owner, signed in, widens it.
      const out = await t.client.oauthToken({ sessionToken: plain.session }, body as never);
      expect(out).toMatchObject({ scope: `profile ${RELAY}`, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
    });

    it('lets a confidential client exchange with its secret, never without it', async () => {
      const grant = (await credentials(plain.session, service, { client_secret: serviceSecret, access_type: 'offline' })).refresh_token!;
      const body = { grant_type: GRANT, client_id: service, subject_token: grant, subject_token_type: REFRESH_TYPE, scope: RELAY };
      expectError(await post('/oauth/token', body), 'INCORRECT_CLIENT_SECRET');
      expectOAuthError(await post('/token', body), 'INCORRECT_SECRET');
      expect((await post('/token', { ...body, client_secret: serviceSecret })).body).toMatchObject({ scope: `profile ${RELAY}` });
    });
  });

  describe('hole 7: pairwise clients see nothing that is the same for the account at another client', () => {
    const tokenFor = async (clientId: string, session: string) => {
      const verifier = 'v'.repeat(43);
      const { createHash } = await import('node:crypto');
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      const { code } = await t.client.oauthAuthorization(session, { client_id: clientId, scope: 'profile:email profile:amr profile:account_disabled_at', code_challenge: challenge, code_challenge_method: 'S256' });
      return (await t.client.oauthToken(undefined, { client_id: clientId, code, code_verifier: verifier })).access_token;
    };
    const verify = async (token: string) => (await post('/verify', { token })).body as { user: string; generation: number; profile_changed_at: number };
    const profile = async (token: string) => (await rawRequest(t.url, 'GET', '/profile', { authorization: `Bearer ${token}` })).body as Record<string, unknown>;

    it('answers /verify and /profile with per-client markers that change exactly when the account does', async () => {
      const acct = await verifiedAccount(t, 'pairwise markers');
      const account = (await t.app.services.records.find(t.storage.db, acct.uid))!;
      const [a, b] = [await tokenFor(pairwiseA, acct.sessionToken), await tokenFor(pairwiseB, acct.sessionToken)];
      const [va, vb] = [await verify(a), await verify(b)];
      const [pa, pb] = [await profile(a), await profile(b)];
      expect(va.user).not.toBe(vb.user);
      const shown = (v: typeof va, p: Record<string, unknown>) => [v.generation, v.profile_changed_at, p.profileChangedAt];
      const real = [account.verifierSetAt, account.profileChangedAt, account.profileChangedAt];
      for (const value of [...shown(va, pa), ...shown(vb, pb)]) {
        expect(Number.isSafeInteger(value)).toBe(true);
        expect(real).not.toContain(value);
      }
      // Nothing the one client sees is what the other sees.
      expect(shown(va, pa).filter((v) => shown(vb, pb).includes(v))).toEqual([]);
      // /verify and /profile agree for one client (one marker per field).
      expect(pa.profileChangedAt).toBe(va.profile_changed_at);
      expect(pa.accountDisabledAt).toBeNull();
      // GET /v1/account/profile with the same token shows the same markers, never the account's times.
      const accountProfile = async (token: string) => (await rawRequest(t.url, 'GET', '/account/profile', { authorization: `Bearer ${token}` })).body as Record<string, unknown>;
      const [apa, apb] = [await accountProfile(a), await accountProfile(b)];
      expect(apa.profileChangedAt).toBe(va.profile_changed_at);
      expect(apb.profileChangedAt).toBe(vb.profile_changed_at);
      expect(apa.accountDisabledAt).toBeNull();
      // Same value while nothing changed, another when the profile changed.
      expect(await verify(a)).toEqual(va);
      expect(await verify(await tokenFor(pairwiseA, acct.sessionToken))).toMatchObject({ generation: va.generation, profile_changed_at: va.profile_changed_at });
      await t.storage.db.updateTable('accounts').set({ profile_changed_at: account.profileChangedAt + 1 }).where('uid', '=', acct.uid).execute();
      const after = await verify(a);
      expect(after.profile_changed_at).not.toBe(va.profile_changed_at);
      expect(after.generation).toBe(va.generation);
      expect((await profile(a)).profileChangedAt).toBe(after.profile_changed_at);
      expect((await accountProfile(a)).profileChangedAt).toBe(after.profile_changed_at);
      // What the domain offers other routes that answer account times to an access token (e.g. GET /account/profile): the same marker.
      const stored = (await t.app.services.oauth.findClient(t.storage.db, pairwiseA))!;
      expect(stored.pairwiseSubjects).toBe(true);
      expect(t.app.services.oauth.timestampFor({ uid: acct.uid, subject: va.user }, 'profileChangedAt', account.profileChangedAt + 1)).toBe(after.profile_changed_at);
      expect(t.app.services.oauth.timestampFor({ uid: acct.uid, subject: acct.uid }, 'profileChangedAt', 5)).toBe(5);
    });

    it('still shows other clients the account\'s own timestamps', async () => {
      const tok = await credentials(plain.session, browser);
      const account = (await t.app.services.records.find(t.storage.db, plain.uid))!;
      expect((await post('/verify', { token: tok.access_token })).body).toMatchObject({ user: plain.uid, generation: account.verifierSetAt, profile_changed_at: account.profileChangedAt });
      expect((await t.client.profile(tok.access_token)).profileChangedAt).toBe(account.profileChangedAt);
      expect((await rawRequest(t.url, 'GET', '/account/profile', { authorization: `Bearer ${tok.access_token}` })).body).toMatchObject({ profileChangedAt: account.profileChangedAt });
    });
  });

  describe('hole 9: a client names only the resources it is registered for (RFC 8707 §2)', () => {
    const code = async (clientId: string) => (await t.client.oauthAuthorization(plain.session, { client_id: clientId, scope: 'openid profile' })).code;

    it('refuses any other resource with invalid_target on both paths, spending nothing', async () => {
      const c = await code(api);
      for (const resource of ['https://evil.example/', 'https://api.example/v2/', 'https://API.example/v2', 'urn:example:files:x']) {
        const auth = await post('/oauth/token', { client_id: api, client_secret: apiSecret, code: c, resource });
        expectError(auth, 'INVALID_TARGET');
        expect(auth.body).toMatchObject({ error: 'invalid_target', resource });
        const oauth = await post('/token', { client_id: api, client_secret: apiSecret, code: c, resource });
        expectOAuthError(oauth, 'INVALID_TARGET');
        expect(oauth.body).toMatchObject({ error: 'invalid_target', resource });
      }
      // A client registered for no resource names none.
      const browserGrant = (await credentials(plain.session, browser, { access_type: 'offline' })).refresh_token!;
      expectError(await post('/oauth/token', { grant_type: 'refresh_token', client_id: browser, refresh_token: browserGrant, resource: 'https://api.example/v2' }), 'INVALID_TARGET');
      await expectError(credentials(plain.session, browser, { resource: 'https://api.example/v2' }), 'INVALID_TARGET', 400);
      // The code was not spent: a registered resource goes into the audience.
      const ok = await post('/token', { client_id: api, client_secret: apiSecret, code: c, resource: RESOURCES[1] });
      expect(ok.status).toBe(200);
      expect(decodeJwt(ok.body.id_token as string)).toMatchObject({ aud: [api, RESOURCES[1]], azp: api });
      expect(decodeJwt(ok.body.access_token as string).aud).toEqual([api, RESOURCES[1]]);
    });

    it('reads allowedResources from OAUTH_CLIENTS_FILE and refuses malformed ones', () => {
      const entry = { id: randomHex(8), name: 'File RP', redirectUris: ['https://file.example/cb'], public: true, allowedResources: ['https://api.example/v2'] };
      const [reg] = parseClientsFile(JSON.stringify([entry]), 1);
      expect(reg).toMatchObject({ allowedResources: ['https://api.example/v2'] });
      for (const bad of [['https://api.example/#f'], ['not a uri'], ['relative/path'], ['https://api.example/ x'], 'https://api.example/', [1]]) {
        const register = () => clientFromRegistration(parseClientsFile(JSON.stringify([{ ...entry, allowedResources: bad }]), 1)[0]!, (s) => s);
        expect(register, JSON.stringify(bad)).toThrow(ClientRegistrationError);
      }
    });
  });

  describe('/profile and userinfo report how the sign-in behind the token was authenticated', () => {
    it('answers amr otp and two-step on for a token from an AAL2 session, email and off for an AAL1 one', async () => {
      const strong = (await credentials(twoStep.aal2, browser, { scope: 'profile' })).access_token;
      expect(await t.client.profile(strong)).toMatchObject({ amrValues: ['pwd', 'otp'], twoFactorAuthentication: true });
      expect((await rawRequest(t.url, 'GET', '/userinfo', { authorization: `Bearer ${strong}` })).body).toMatchObject({ amr: ['pwd', 'otp'] });
      const weak = (await credentials(plain.session, browser, { scope: 'profile' })).access_token;
      expect(await t.client.profile(weak)).toMatchObject({ amrValues: ['pwd', 'email'], twoFactorAuthentication: false });
      expect((await rawRequest(t.url, 'GET', '/userinfo', { authorization: `Bearer ${weak}` })).body).toMatchObject({ amr: ['pwd', 'email'] });
    });
  });
});
