#!/usr/bin/env node
// node-oidc-provider (npm `oidc-provider`, a devDependency) as bench/oauth.mjs compares Tessera
// with it: configured as close to the Tessera side as its options allow, on 127.0.0.1.
//
//   PORT=9100 CLIENT_ID=… CLIENT_SECRET=… node bench/oidc-provider-server.mjs
//
// - One confidential client, client_secret_basic, grant types authorization_code and
//   refresh_token, redirect URI https://rp.example/callback; scopes openid, profile (and
//   offline_access, which is how oidc-provider decides to issue a refresh token).
// - Opaque access tokens (its default without resource indicators), 24 h like Tessera's default;
//   refresh tokens NOT rotated (rotateRefreshToken: false); id_tokens RS256 with a 2048-bit RSA key,
//   as Tessera signs them; introspection enabled (features.introspection), with the client
//   authenticating as at /token.
// - Storage: an in-memory adapter written here (Maps, an index of tokens per grant). The adapter
//   oidc-provider ships for development is an LRU of 1,000 entries whose per-grant index is
//   rebuilt on every save, so under a refresh flood it would evict the tokens under test and slow
//   down as the grant grows: that would not be a fair opponent.
// - The tokens under test come through its own token endpoint: a Grant and an AuthorizationCode
//   (with a PKCE S256 challenge) are made with its models, as its interactions would after a
//   sign-in and consent, and the code is exchanged at POST /token over HTTP with Basic
//   credentials. That answer's refresh and access tokens are printed as one JSON line:
//   `ready {"url":…,"refreshToken":…,"accessToken":…}`.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import Provider from 'oidc-provider';

const port = Number(process.env.PORT);
const clientId = process.env.CLIENT_ID;
const clientSecret = process.env.CLIENT_SECRET;
if (!port || !clientId || !clientSecret) throw new Error('PORT, CLIENT_ID and CLIENT_SECRET are required');
const issuer = `http://127.0.0.1:${port}`;
const REDIRECT = 'https://rp.example/callback';
const ACCOUNT = 'b'.repeat(32);

/** Everything the provider stores, in this process. */
const entries = new Map();
const byGrant = new Map();
const byUid = new Map();
const byUserCode = new Map();

class MapAdapter {
  constructor(model) {
    this.model = model;
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    const key = this.key(id);
    entries.set(key, { payload, expiresAt: typeof expiresIn === 'number' ? Date.now() + expiresIn * 1000 : Infinity });
    if (payload.grantId) {
      let keys = byGrant.get(payload.grantId);
      if (!keys) byGrant.set(payload.grantId, (keys = new Set()));
      keys.add(key);
    }
    if (payload.uid) byUid.set(payload.uid, id);
    if (payload.userCode) byUserCode.set(payload.userCode, id);
  }

  async find(id) {
    const key = this.key(id);
    const entry = entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry.payload;
  }

  async findByUid(uid) {
    const id = byUid.get(uid);
    return id === undefined ? undefined : this.find(id);
  }

  async findByUserCode(userCode) {
    const id = byUserCode.get(userCode);
    return id === undefined ? undefined : this.find(id);
  }

  async consume(id) {
    const entry = entries.get(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    entries.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    for (const key of byGrant.get(grantId) ?? []) entries.delete(key);
    byGrant.delete(grantId);
  }
}

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const jwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench', alg: 'RS256', use: 'sig' };

const provider = new Provider(issuer, {
  adapter: MapAdapter,
  clients: [{
    client_id: clientId, client_secret: clientSecret, redirect_uris: [REDIRECT], response_types: ['code'],
    grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'client_secret_basic',
  }],
  jwks: { keys: [jwk] },
  findAccount: async (_ctx, sub) => (sub === ACCOUNT ? { accountId: sub, claims: async () => ({ sub }) } : undefined),
  scopes: ['openid', 'offline_access', 'profile'],
  claims: { openid: ['sub'], profile: ['name', 'locale'] },
  features: { introspection: { enabled: true }, revocation: { enabled: true }, devInteractions: { enabled: false } },
  rotateRefreshToken: false,
  ttl: { AccessToken: 86_400, AuthorizationCode: 900, IdToken: 300, RefreshToken: 30 * 86_400, Grant: 30 * 86_400 },
  cookies: { keys: [randomBytes(32).toString('hex')] },
});

const server = createServer(provider.callback());
await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));

// The code, as an interaction would leave it after sign-in and consent; then its own /token.
const client = await provider.Client.find(clientId);
const grant = new provider.Grant({ accountId: ACCOUNT, clientId });
grant.addOIDCScope('openid offline_access profile');
const grantId = await grant.save();
const verifier = randomBytes(32).toString('base64url');
const code = await new provider.AuthorizationCode({
  accountId: ACCOUNT, client, grantId, scope: 'openid offline_access profile', redirectUri: REDIRECT,
  authTime: Math.floor(Date.now() / 1000), codeChallenge: createHash('sha256').update(verifier).digest('base64url'), codeChallengeMethod: 'S256',
}).save();
const res = await fetch(`${issuer}/token`, {
  method: 'POST',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
  },
  body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier }).toString(),
});
const tokens = await res.json();
if (!res.ok || !tokens.refresh_token || !tokens.access_token || !tokens.id_token) throw new Error(`oidc-provider code exchange failed: ${res.status} ${JSON.stringify(tokens)}`);
process.stdout.write(`ready ${JSON.stringify({ url: issuer, refreshToken: tokens.refresh_token, accessToken: tokens.access_token })}\n`);

for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => server.close(() => process.exit(0)));
