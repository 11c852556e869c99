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
  beforeAll(async () => {
    t = await createTestServer({ dialect });
    const { oauth } = t.app.services;
    await oauth.registerClient(t.storage.db, { id: pub, name: 'Native RP', redirectUris: ['http://127.0.0.1/callback'], localRedirects: true, publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    await oauth.registerClient(t.storage.db, { id: conf, name: 'Web RP', redirectUris: ['https://rp.example/callback'], secret: confSecret, publicClient: false, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    account = await verifiedAccount(t);
  }, 120_000);
  afterAll(async () => t?.close());

  /** What the browser step would do: sign in, approve, follow the redirect. Here the SDK authorizes with the URL's parameters. */
  async function approve(authorizationUrl: URL): Promise<URL> {
    const q = Object.fromEntries(authorizationUrl.searchParams);
    const { redirect } = await t.client.oauthAuthorization(account.sessionToken, {
      client_id: q.client_id!, scope: q.scope, state: q.state, redirect_uri: q.redirect_uri, response_type: 'code',
      code_challenge: q.code_challenge, code_challenge_method: q.code_challenge_method as 'S256', nonce: q.nonce, access_type: 'offline',
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
});
