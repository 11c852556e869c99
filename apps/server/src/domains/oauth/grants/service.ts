import { createHash } from 'node:crypto';
import { appError } from '@tessera/errors';
import { constantTimeStringEqual, randomHex } from '@tessera/protocol';
import { SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../clock.js';
import type { Database } from '../../../storage/schema.js';
import type { SigningKey } from '../../keys/index.js';
import { isSessionVerified, type SessionWithAccount } from '../../sessions/index.js';
import type { OAuthService } from '../service.js';
import { hashToken, insertAccessToken, type OAuthClient } from '../store.js';
import {
  claimCode, deleteAccessTokenByHash, deleteRefreshToken, findCode, findRefreshToken, insertCode, insertRefreshToken, recordIssued,
  touchRefreshToken, type AuthorizationCode,
} from './store.js';

// The authorization-code flow (RFC 6749 §4.1 with PKCE, RFC 7636, S256 only) and the refresh grant,
// on the session-token path: a signed-in client asks for a code for a relying party, which trades
// it at /token. Codes, access and refresh tokens are 32 random bytes, stored only as SHA-256.

export const CODE_LIFETIME_MS = 15 * 60_000;
/** OpenID Connect id_tokens live 5 minutes (protocol.md §8.1). */
export const ID_TOKEN_TTL_SECONDS = 300;
/** Scopes every client may ask for besides its allowed ones. */
const ALWAYS_ALLOWED = new Set(['openid']);

export interface AuthorizationRequest {
  client_id: string;
  scope?: string;
  state?: string;
  redirect_uri?: string;
  response_type?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  access_type?: string;
  acr_values?: string;
  keys_jwe?: string;
  nonce?: string;
}

export interface TokenRequest {
  grant_type?: string;
  client_id?: string;
  client_secret?: string;
  code?: string;
  code_verifier?: string;
  redirect_uri?: string;
  refresh_token?: string;
  scope?: string;
  ttl?: number;
  access_type?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'bearer';
  scope: string;
  expires_in: number;
  auth_at: number;
  refresh_token?: string;
  id_token?: string;
  keys_jwe?: string;
}

export interface GrantsDeps {
  db: Kysely<Database>;
  clock: Clock;
  oauth: OAuthService;
  signingKey: SigningKey;
  /** The OpenID issuer: the server's public URL without a trailing slash. */
  issuer: string;
}

const sha256 = (s: string) => createHash('sha256').update(s, 'ascii').digest();

export function parseScope(raw: string | undefined): string[] {
  return [...new Set((raw ?? '').split(' ').filter(Boolean))];
}

/** `Authorization: Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1), or null. */
export function basicCredentials(header: string | undefined): { clientId: string; secret: string } | null {
  if (!header || !/^Basic /i.test(header)) return null;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw appError('INVALID_PARAMETER', { validation: { source: 'headers', keys: ['authorization'], message: 'Basic credentials must be client_id:client_secret' } });
  try {
    return { clientId: decodeURIComponent(decoded.slice(0, colon)), secret: decodeURIComponent(decoded.slice(colon + 1)) };
  } catch {
    throw appError('INVALID_PARAMETER', { validation: { source: 'headers', keys: ['authorization'], message: 'Basic credentials are not URL-encoded' } });
  }
}

export class GrantsService {
  constructor(private readonly deps: GrantsDeps) {}

  private async client(id: string): Promise<OAuthClient> {
    const client = await this.deps.oauth.findClient(this.deps.db, id);
    if (!client) throw appError('UNKNOWN_CLIENT_ID', { clientId: id });
    return client;
  }

  private checkScopes(client: OAuthClient, scope: string[]): void {
    const invalid = scope.filter((s) => !ALWAYS_ALLOWED.has(s) && !client.allowedScopes.includes(s));
    if (invalid.length) throw appError('INVALID_SCOPES', { invalidScopes: invalid }, `Requested scopes are not allowed for this client: ${invalid.join(' ')}`);
  }

  /** POST /authorization: a code for the signed-in person, bound to the client, its PKCE challenge and redirect_uri. */
  async authorize(session: SessionWithAccount, req: AuthorizationRequest): Promise<{ code: string; state?: string; redirect: string; scope: string }> {
    const now = this.deps.clock.now();
    if (!session.account.emailVerified) throw appError('ACCOUNT_UNVERIFIED');
    const client = await this.client(req.client_id);
    if ((req.response_type ?? 'code') !== 'code') throw appError('INVALID_RESPONSE_TYPE', {}, 'Only response_type=code is supported (the implicit flow is not)');
    if (req.redirect_uri !== undefined && !this.deps.oauth.redirectUriMatches(client, req.redirect_uri)) {
      throw appError('INCORRECT_REDIRECT_URI', { redirectUri: req.redirect_uri });
    }
    const scope = parseScope(req.scope ?? 'profile');
    if (!scope.length) throw appError('INVALID_SCOPES', { invalidScopes: [] }, 'scope is empty');
    this.checkScopes(client, scope);
    if (req.code_challenge !== undefined && req.code_challenge_method !== 'S256') {
      throw appError('MISSING_PKCE_PARAMETERS', {}, 'code_challenge_method must be S256 when a code_challenge is sent (plain is not supported)');
    }
    if (client.publicClient && req.code_challenge === undefined) throw appError('MISSING_PKCE_PARAMETERS');
    const aal = session.verificationMethod === 'totp-2fa' ? 2 : 1;
    const amr = aal === 2 ? ['pwd', 'otp'] : ['pwd', 'email'];
    if (req.acr_values?.split(' ').includes('AAL2') && aal < 2) throw appError('INSUFFICIENT_ACR_VALUES', { foundValue: `AAL${aal}` });
    const code = randomHex(32);
    await insertCode(this.deps.db, {
      codeHash: hashToken(code), clientId: client.id, uid: session.uid, scope, authAt: session.authAt, amr, aal,
      offline: req.access_type === 'offline', codeChallenge: req.code_challenge ?? null, redirectUri: req.redirect_uri ?? null,
      nonce: req.nonce ?? null, keysJwe: req.keys_jwe ?? null, createdAt: now, expiresAt: now + CODE_LIFETIME_MS,
    });
    const redirect = new URL(req.redirect_uri ?? client.redirectUri);
    redirect.searchParams.set('code', code);
    if (req.state !== undefined) redirect.searchParams.set('state', req.state);
    return { code, ...(req.state !== undefined ? { state: req.state } : {}), redirect: redirect.toString(), scope: scope.join(' ') };
  }

  /**
   * The client that makes a token request: Basic credentials or client_id (+ client_secret) in the
   * body, never both secrets. A confidential client must prove its secret; a public one must not send one.
   */
  async authenticateClient(body: TokenRequest, authorization: string | undefined): Promise<OAuthClient> {
    const basic = basicCredentials(authorization);
    if (basic && body.client_secret !== undefined) {
      throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_secret'], message: 'send the client secret once: Basic or client_secret, not both' } });
    }
    if (basic && body.client_id !== undefined && body.client_id.toLowerCase() !== basic.clientId.toLowerCase()) {
      throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_id'], message: 'client_id differs from the Basic credentials' } });
    }
    const clientId = basic?.clientId ?? body.client_id;
    if (!clientId) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_id'], message: 'client_id is required' } });
    const client = await this.client(clientId);
    const secret = basic?.secret ?? body.client_secret;
    if (client.publicClient) {
      if (secret !== undefined) throw appError('INCORRECT_CLIENT_SECRET', { clientId: client.id }, 'A public client has no secret: prove the code with PKCE');
    } else if (secret === undefined || !this.deps.oauth.clientSecretMatches(client, secret)) {
      throw appError('INCORRECT_CLIENT_SECRET', { clientId: client.id });
    }
    return client;
  }

  async token(body: TokenRequest, authorization: string | undefined, session: SessionWithAccount | null = null): Promise<TokenResponse> {
    const grant = body.grant_type ?? 'authorization_code';
    const client = await this.authenticateClient(body, authorization);
    if (grant === 'authorization_code') return this.codeGrant(client, body);
    if (grant === 'refresh_token') return this.refreshGrant(client, body);
    if (grant === 'fxa-credentials') return this.credentialsGrant(client, body, session);
    throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['grant_type'], message: `unsupported grant_type ${grant}` } });
  }

  private async revokeIssued(code: AuthorizationCode): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      if (code.issuedAccessHash) await deleteAccessTokenByHash(trx, code.issuedAccessHash);
      if (code.issuedRefreshHash) await deleteRefreshToken(trx, code.issuedRefreshHash);
    });
  }

  private async codeGrant(client: OAuthClient, body: TokenRequest): Promise<TokenResponse> {
    const now = this.deps.clock.now();
    if (!body.code) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['code'], message: 'code is required' } });
    const codeHash = hashToken(body.code);
    const code = await findCode(this.deps.db, codeHash);
    if (!code) throw appError('UNKNOWN_AUTHORIZATION_CODE');
    if (code.clientId !== client.id) throw appError('MISMATCH_AUTHORIZATION_CODE');
    if (code.usedAt !== null) {
      // A replayed code: someone else holds it. What it issued is revoked (RFC 6749 §4.1.2).
      await this.revokeIssued(code);
      throw appError('UNKNOWN_AUTHORIZATION_CODE', {}, 'Unknown authorization code: it has been used, and what it issued is revoked');
    }
    if (code.expiresAt <= now) throw appError('EXPIRED_AUTHORIZATION_CODE');
    if (code.codeChallenge !== null) {
      if (body.code_verifier === undefined) throw appError('MISSING_PKCE_PARAMETERS', {}, 'code_verifier is required: the authorization request sent a code_challenge');
      const computed = sha256(body.code_verifier).toString('base64url');
      if (!constantTimeStringEqual(computed, code.codeChallenge)) throw appError('INVALID_PKCE_CHALLENGE', {}, 'The code_verifier does not match the code_challenge');
    } else if (body.code_verifier !== undefined) {
      throw appError('INVALID_PKCE_CHALLENGE', {}, 'A code_verifier was sent for a code issued without a code_challenge');
    }
    if (code.redirectUri !== null && body.redirect_uri !== code.redirectUri) throw appError('INCORRECT_REDIRECT_URI', { redirectUri: body.redirect_uri ?? '' });
    const ttl = this.ttlSeconds(client, body.ttl);
    const issued = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await claimCode(trx, codeHash, now))) return null;
      const accessToken = randomHex(32);
      await insertAccessToken(trx, {
        tokenHash: hashToken(accessToken), clientId: client.id, uid: code.uid, scope: code.scope, createdAt: now, expiresAt: now + ttl * 1000, profileChangedAt: now,
      });
      let refreshToken: string | undefined;
      if (code.offline) {
        refreshToken = randomHex(32);
        await insertRefreshToken(trx, {
          tokenHash: hashToken(refreshToken), clientId: client.id, uid: code.uid, scope: code.scope, authAt: code.authAt, amr: code.amr, aal: code.aal,
          createdAt: now, lastUsedAt: now, expiresAt: client.refreshTokenTtlSeconds ? now + client.refreshTokenTtlSeconds * 1000 : 0,
        });
      }
      await recordIssued(trx, codeHash, hashToken(accessToken), refreshToken ? hashToken(refreshToken) : null);
      return { accessToken, refreshToken };
    });
    if (!issued) {
      // Lost a race with another use of the same code: a replay too.
      const winner = await findCode(this.deps.db, codeHash);
      if (winner) await this.revokeIssued(winner);
      throw appError('UNKNOWN_AUTHORIZATION_CODE', {}, 'Unknown authorization code: it has been used, and what it issued is revoked');
    }
    return this.answer(client, { uid: code.uid, scope: code.scope, authAt: code.authAt, amr: code.amr, aal: code.aal, nonce: code.nonce },
      issued.accessToken, ttl, now, issued.refreshToken, code.keysJwe ?? undefined);
  }

  private async refreshGrant(client: OAuthClient, body: TokenRequest): Promise<TokenResponse> {
    const now = this.deps.clock.now();
    if (!body.refresh_token || !/^[0-9a-fA-F]{64}$/.test(body.refresh_token)) throw appError('REFRESH_TOKEN_UNKNOWN');
    const hash = hashToken(body.refresh_token.toLowerCase());
    const token = await findRefreshToken(this.deps.db, hash);
    // Another client's token is as unknown as a revoked one: nothing tells the two apart.
    if (!token || token.clientId !== client.id || (token.expiresAt !== 0 && token.expiresAt <= now)) throw appError('REFRESH_TOKEN_UNKNOWN');
    let scope = token.scope;
    if (body.scope !== undefined) {
      const asked = parseScope(body.scope);
      const wider = asked.filter((s) => !token.scope.includes(s));
      if (wider.length) throw appError('INVALID_SCOPES', { invalidScopes: wider }, `A refresh may narrow the granted scope, never widen it: ${wider.join(' ')} was not granted`);
      if (asked.length) scope = asked;
    }
    const ttl = this.ttlSeconds(client, body.ttl);
    const issued = await this.deps.db.transaction().execute(async (trx) => {
      let refreshToken: string | undefined;
      if (client.rotateRefreshTokens) {
        if (!(await deleteRefreshToken(trx, hash))) return null;
        refreshToken = randomHex(32);
        await insertRefreshToken(trx, {
          ...token, tokenHash: hashToken(refreshToken), createdAt: now, lastUsedAt: now,
          expiresAt: client.refreshTokenTtlSeconds ? now + client.refreshTokenTtlSeconds * 1000 : 0,
        });
      } else {
        await touchRefreshToken(trx, hash, now);
      }
      const accessToken = randomHex(32);
      await insertAccessToken(trx, {
        tokenHash: hashToken(accessToken), clientId: client.id, uid: token.uid, scope, createdAt: now, expiresAt: now + ttl * 1000, profileChangedAt: now,
      });
      return { accessToken, refreshToken };
    });
    if (!issued) throw appError('REFRESH_TOKEN_UNKNOWN');
    return this.answer(client, { uid: token.uid, scope, authAt: token.authAt, amr: token.amr, aal: token.aal, nonce: null },
      issued.accessToken, ttl, now, issued.refreshToken);
  }

  /**
   * The session-token grant for first-party clients (`canGrant`, e.g. browsers): the signed-in
   * session itself authorizes, no code. Needs a confirmed session on a confirmed account.
   */
  private async credentialsGrant(client: OAuthClient, body: TokenRequest, session: SessionWithAccount | null): Promise<TokenResponse> {
    if (!session) throw appError('INVALID_TOKEN', { detail: 'The fxa-credentials grant needs a session token' });
    if (!isSessionVerified(session)) throw appError('SESSION_UNVERIFIED');
    if (!session.account.emailVerified) throw appError('ACCOUNT_UNVERIFIED');
    if (!client.canGrant) throw appError('INVALID_SCOPES', { invalidScopes: [] }, 'This client may not use the fxa-credentials grant (it is not registered with canGrant)');
    const scope = parseScope(body.scope ?? 'profile');
    this.checkScopes(client, scope);
    const now = this.deps.clock.now();
    const ttl = this.ttlSeconds(client, body.ttl);
    const aal = session.verificationMethod === 'totp-2fa' ? 2 : 1;
    const amr = aal === 2 ? ['pwd', 'otp'] : ['pwd', 'email'];
    const issued = await this.deps.db.transaction().execute(async (trx) => {
      const accessToken = randomHex(32);
      await insertAccessToken(trx, {
        tokenHash: hashToken(accessToken), clientId: client.id, uid: session.uid, scope, createdAt: now, expiresAt: now + ttl * 1000, profileChangedAt: now,
      });
      let refreshToken: string | undefined;
      if (body.access_type === 'offline') {
        refreshToken = randomHex(32);
        await insertRefreshToken(trx, {
          tokenHash: hashToken(refreshToken), clientId: client.id, uid: session.uid, scope, authAt: session.authAt, amr, aal,
          createdAt: now, lastUsedAt: now, expiresAt: client.refreshTokenTtlSeconds ? now + client.refreshTokenTtlSeconds * 1000 : 0,
        });
      }
      return { accessToken, refreshToken };
    });
    return this.answer(client, { uid: session.uid, scope, authAt: session.authAt, amr, aal, nonce: null }, issued.accessToken, ttl, now, issued.refreshToken);
  }

  private ttlSeconds(client: OAuthClient, asked: number | undefined): number {
    return Math.min(asked ?? client.accessTokenTtlSeconds, client.accessTokenTtlSeconds);
  }

  private async answer(
    client: OAuthClient, grant: { uid: string; scope: string[]; authAt: number; amr: string[]; aal: number; nonce: string | null },
    accessToken: string, ttl: number, now: number, refreshToken?: string, keysJwe?: string,
  ): Promise<TokenResponse> {
    const authAt = Math.floor(grant.authAt / 1000);
    const out: TokenResponse = { access_token: accessToken, token_type: 'bearer', scope: grant.scope.join(' '), expires_in: ttl, auth_at: authAt };
    if (refreshToken) out.refresh_token = refreshToken;
    if (grant.scope.includes('openid')) out.id_token = await this.idToken(client, grant, accessToken, now);
    if (keysJwe) out.keys_jwe = keysJwe;
    return out;
  }

  /** OpenID Connect Core §2: RS256 with the key of /jwks; at_hash per §3.1.3.6. */
  private idToken(client: OAuthClient, grant: { uid: string; authAt: number; amr: string[]; aal: number; nonce: string | null }, accessToken: string, now: number): Promise<string> {
    const iat = Math.floor(now / 1000);
    const { privateKey, publicJwk } = this.deps.signingKey;
    return new SignJWT({
      at_hash: sha256(accessToken).subarray(0, 16).toString('base64url'),
      auth_time: Math.floor(grant.authAt / 1000), amr: grant.amr, acr: `AAL${grant.aal}`, 'fxa-aal': grant.aal,
      ...(grant.nonce !== null ? { nonce: grant.nonce } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid, typ: 'JWT' })
      .setIssuer(this.deps.issuer).setSubject(grant.uid).setAudience(client.id).setIssuedAt(iat).setExpirationTime(iat + ID_TOKEN_TTL_SECONDS)
      .sign(privateKey);
  }
}
