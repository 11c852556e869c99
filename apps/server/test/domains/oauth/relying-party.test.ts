import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as oidc from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { randomHex } from '@tessera/protocol';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';

// Issue 14, "done when": a real relying party built with openid-client v6 against the started
// server over HTTP. The browser step (sign-in and consent pages) is not built yet, so the code
// comes through the session-token path: the signed-in SDK authorizes, with exactly the
// parameters the relying party put in its authorization URL.

describe.each(httpDialects())('a relying party built with openid-client (%s)', (dialect) => {
  let t: TestServer;
  let account: Awaited<ReturnType<typeof verifiedAccount>>;
  const pub = randomHex(8);
  const conf = randomHex(8);
  const confSecret = randomHex(32);
  const firstParty = randomHex(8);
  const firstPartyConf = randomHex(8);
  const firstPartySecret = randomHex(32);
  const privateRp = randomHex(8);
  const privateSecret = randomHex(32);
  beforeAll(async () => {
    t = await createTestServer({ dialect });
    const { oauth } = t.app.services;
    await oauth.registerClient(t.storage.db, { id: pub, name: 'Native RP', redirectUris: ['http://127.0.0.1/callback'], localRedirects: true, publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    await oauth.registerClient(t.storage.db, { id: conf, name: 'Web RP', redirectUris: ['https://rp.example/callback'], secret: confSecret, publicClient: false, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    await oauth.registerClient(t.storage.db, { id: firstParty, name: 'First-party app', redirectUris: ['http://127.0.0.1/callback'], localRedirects: true, publicClient: true, trusted: true, canGrant: true, allowedScopes: ['profile', 'https://identity.mozilla.com/apps/relay'], createdAt: 1 });
    await oauth.registerClient(t.storage.db, {
      id: firstPartyConf, name: 'First-party service', redirectUris: ['https://first.example/callback'], secret: firstPartySecret, publicClient: false, trusted: true, canGrant: true,
      allowedScopes: ['profile', 'https://identity.mozilla.com/apps/relay'], createdAt: 1,
    });
    await oauth.registerClient(t.storage.db, {
      id: privateRp, name: 'Private RP', redirectUris: ['https://private.example/callback'], secret: privateSecret, publicClient: false, trusted: false, canGrant: false,
      allowedScopes: ['profile:email'], pairwiseSubjects: true, jwtAccessTokens: true, accessTokenTtlSeconds: 900, allowedResources: ['https://api.private.example/'], createdAt: 1,
    });
    account = await verifiedAccount(t);
  }, 120_000);
  afterAll(async () => t?.close());

  /** What the browser step would do: sign in, approve, follow the redirect. Here the SDK authorizes with the URL's parameters. */
  async function approve(authorizationUrl: URL): Promise<URL> {
    const q = Object.fromEntries(authorizationUrl.searchParams);
    const { redirect } = await t.client.oauthAuthorization(account.sessionToken, {
      client_id: q.client_id!, scope: q.scope, state: q.state, redirect_uri: q.redirect_uri, response_type: 'code',
      code_challenge: q.code_challenge, code_challenge_method: q.code_challenge_method as 'S256', nonce: q.nonce, access_type: 'offline',
      ...(q.ppid_seed !== undefined ? { ppid_seed: Number(q.ppid_seed) } : {}),
    });
    return new URL(redirect);
  }

  it('discovers, runs code + PKCE, validates the id_token, reads userinfo, refreshes, introspects and revokes (public client)', async () => {
    const config = await oidc.discovery(new URL(t.url), pub, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    expect(config.serverMetadata().code_challenge_methods_supported).toEqual(['S256']);
    oidc.enableNonRepudiationChecks(config);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const redirectUri = 'http://127.0.0.1:53682/callback';
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri, scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256', state, nonce,
    });
    expect(url.pathname).toBe('/v1/authorization');
    const callback = await approve(url);
    // RFC 9207: the response names the issuer, as discovery says (openid-client then requires it).
    expect(config.serverMetadata().authorization_response_iss_parameter_supported).toBe(true);
    expect(callback.searchParams.get('iss')).toBe(t.url);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(account.uid);
    // The signature, checked independently against /jwks.
    const { payload } = await jwtVerify(tokens.id_token!, createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!)), { issuer: t.url, audience: pub });
    expect(payload.nonce).toBe(nonce);

    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({ sub: account.uid, email: account.email, email_verified: true });

    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    const active = await oidc.tokenIntrospection(config, refreshed.access_token);
    expect(active).toMatchObject({ active: true, sub: account.uid, client_id: pub });

    await oidc.tokenRevocation(config, tokens.refresh_token!, { token_type_hint: 'refresh_token' });
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toThrow();
    await oidc.tokenRevocation(config, refreshed.access_token);
    expect((await oidc.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
  });

  it('authenticates a confidential client with client_secret_basic', async () => {
    const config = await oidc.discovery(new URL(t.url), conf, undefined, oidc.ClientSecretBasic(confSecret), { execute: [oidc.allowInsecureRequests] });
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://rp.example/callback', scope: 'openid profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state,
    });
    const tokens = await oidc.authorizationCodeGrant(config, await approve(url), { pkceCodeVerifier: verifier, expectedState: state });
    expect(tokens.claims()!.sub).toBe(account.uid);
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(true);
    // A wrong secret is refused.
    const wrong = await oidc.discovery(new URL(t.url), conf, undefined, oidc.ClientSecretBasic(randomHex(32)), { execute: [oidc.allowInsecureRequests] });
    await expect(oidc.tokenIntrospection(wrong, tokens.access_token)).rejects.toThrow();
  });

  it('exchanges a first-party client\'s refresh token for more scopes with openid-client\'s generic grant (RFC 8693)', async () => {
    const exchange = (config: oidc.Configuration, subject: string) => oidc.genericGrantRequest(config, 'urn:ietf:params:oauth:grant-type:token-exchange', {
      subject_token: subject, subject_token_type: 'urn:ietf:params:oauth:token-type:refresh_token', scope: 'https://identity.mozilla.com/apps/relay',
    });
    // A public client cannot authenticate: with client_id alone (all openid-client can send it) the exchange is refused (issue 22, hole 6).
    const open = await oidc.discovery(new URL(t.url), firstParty, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
    const openVerifier = oidc.randomPKCECodeVerifier();
    const openState = oidc.randomState();
    const openTokens = await oidc.authorizationCodeGrant(open, await approve(oidc.buildAuthorizationUrl(open, {
      redirect_uri: 'http://127.0.0.1:53682/callback', scope: 'profile', code_challenge: await oidc.calculatePKCECodeChallenge(openVerifier), code_challenge_method: 'S256', state: openState,
    })), { pkceCodeVerifier: openVerifier, expectedState: openState });
    await expect(exchange(open, openTokens.refresh_token!)).rejects.toThrow();
    expect((await oidc.refreshTokenGrant(open, openTokens.refresh_token!)).scope).toBe('profile');

    // A confidential one authenticates (client_secret_basic) and exchanges.
    const config = await oidc.discovery(new URL(t.url), firstPartyConf, undefined, oidc.ClientSecretBasic(firstPartySecret), { execute: [oidc.allowInsecureRequests] });
    expect(config.serverMetadata().grant_types_supported).toContain('urn:ietf:params:oauth:grant-type:token-exchange');
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://first.example/callback', scope: 'profile', code_challenge: await oidc.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', state,
    });
    const tokens = await oidc.authorizationCodeGrant(config, await approve(url), { pkceCodeVerifier: verifier, expectedState: state });
    const exchanged = await exchange(config, tokens.refresh_token!);
    expect(exchanged).toMatchObject({ scope: 'profile https://identity.mozilla.com/apps/relay', issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' });
    expect((await oidc.tokenIntrospection(config, exchanged.access_token)).scope).toBe('profile https://identity.mozilla.com/apps/relay');
    // The new refresh token refreshes the union.
    expect((await oidc.refreshTokenGrant(config, exchanged.refresh_token!)).scope).toBe('profile https://identity.mozilla.com/apps/relay');
    // The subject token is spent: presenting it again is a reuse (RFC 9700 §4.14.2) and ends the grant, its successor with it.
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toThrow();
    await expect(oidc.refreshTokenGrant(config, exchanged.refresh_token!)).rejects.toThrow();
  });

  it('validates a pairwise sub and a JWT access token with a resource (client with pairwise subjects and JWT access tokens)', async () => {
    const config = await oidc.discovery(new URL(t.url), privateRp, undefined, oidc.ClientSecretBasic(privateSecret), { execute: [oidc.allowInsecureRequests] });
    expect(config.serverMetadata().subject_types_supported).toEqual(['public', 'pairwise']);
    expect(config.serverMetadata().claims_supported).toContain('azp');
    oidc.enableNonRepudiationChecks(config);
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: 'https://private.example/callback', scope: 'openid profile:email', code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256', state, nonce, ppid_seed: '5',
    });
    const resource = 'https://api.private.example/';
    const tokens = await oidc.authorizationCodeGrant(config, await approve(url), { pkceCodeVerifier: verifier, expectedState: state, expectedNonce: nonce }, { resource });
    // openid-client checked the id_token (signature, iss, aud with azp, nonce, at_hash); the sub is pairwise.
    const sub = tokens.claims()!.sub;
    expect(sub).toMatch(/^[0-9a-f]{32}$/);
    expect(sub).not.toBe(account.uid);
    const jwks = createRemoteJWKSet(new URL(config.serverMetadata().jwks_uri!));
    const { payload } = await jwtVerify(tokens.access_token, jwks, { issuer: t.url, audience: resource, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub, client_id: privateRp, aud: [privateRp, resource], scope: 'openid profile:email' });
    // userinfo must answer the id_token's sub (openid-client checks it).
    expect(await oidc.fetchUserInfo(config, tokens.access_token, sub)).toMatchObject({ sub, email: account.email });
    expect(await oidc.tokenIntrospection(config, tokens.access_token)).toMatchObject({ active: true, sub, jti: payload.jti });
    // A refresh with the same seed keeps the sub.
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!, { ppid_seed: '5' });
    expect(refreshed.claims()!.sub).toBe(sub);
    await oidc.tokenRevocation(config, tokens.access_token);
    expect((await oidc.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    await expect(oidc.fetchUserInfo(config, tokens.access_token, sub)).rejects.toThrow();
  });
});
