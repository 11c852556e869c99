import { hash } from 'node:crypto';
import { appError } from '@tessera/errors';
import { constantTimeStringEqual, randomHex } from '@tessera/protocol';
import { SignJWT } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../clock.js';
import type { Database } from '../../../storage/schema.js';
import type { Executor } from '../../../storage/executor.js';
import type { SigningKey } from '../../../platform/keys/index.js';
import type { AccessTokenJwts } from '../tokens/access-jwt.js';
import { checkPairwiseScopes, subjectFor } from '../ppid.js';
import { checkResource } from './resource.js';
import { aalRefusal, sessionAal, type SessionWithAccount } from '../../sessions/index.js';
import type { SecurityEvents } from '../../security-events/index.js';
import type { RequestContext } from '../../../platform/request-context.js';
import type { OAuthService } from '../service.js';
import type { OAuthClient } from '../clients/store.js';
import { hashToken, HEX64 } from '../token-hash.js';
import { deleteAccessTokenByHash, grantIdOfAccessToken, insertAccessToken, jwtAccessTokenHash } from '../tokens/store.js';
import {
  claimCode, deleteGrant, deleteRefreshToken, findClientWithRefreshToken, findCode, findRefreshToken, insertCode,
  insertRefreshToken, pruneRetiredRefreshTokens, recordIssued, refreshTokenStillLive, retireRefreshToken, revokeReusedGrant, touchRefreshToken,
  type AuthorizationCode, type RefreshToken,
} from './store.js';
import { ACCESS_TOKEN_TYPE, exchangeRefreshToken, TOKEN_EXCHANGE_GRANT } from './token-exchange.js';

// The authorization-code flow (RFC 6749 §4.1 with PKCE, RFC 7636, S256 only) and the refresh grant,
// on the session-token path: a signed-in client asks for a code for a relying party, which trades
// it at /token. Codes, access and refresh tokens are 32 random bytes, stored only as SHA-256.

export const CODE_LIFETIME_MS = 15 * 60_000;
/** OpenID Connect id_tokens live 5 minutes (protocol.md §8.1). */
export const ID_TOKEN_TTL_SECONDS = 300;
/**
 * A refresh token's last use (what authorized clients list as last_access_time) is written at most
 * this often, as a session's is: a relying party refreshing every few minutes would otherwise
 * rewrite its row on every refresh.
 */
export const REFRESH_TOUCH_INTERVAL_MS = 60 * 60 * 1000;
/** Scopes every client may ask for besides its allowed ones. */
const ALWAYS_ALLOWED = new Set(['openid']);
/** Retired refresh tokens past their keeping time are pruned by a rotation at most this often (per process). */
export const RETIRED_PRUNE_EVERY_MS = 60 * 60 * 1000;

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
  /** Pairwise clients: 0–1024, kept with the code. */
  ppid_seed?: number;
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
  /** Token exchange (RFC 8693): the refresh token to exchange and its type. */
  subject_token?: string;
  subject_token_type?: string;
  /** Pairwise clients: 0–1024 (default: the authorization request's, else 0). */
  ppid_seed?: number;
  /** RFC 8707: an absolute URI without fragment, added to the id_token's and JWT access token's `aud`. */
  resource?: string;
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
  /** Token exchange only (RFC 8693 §2.2.1). */
  issued_token_type?: string;
}

export interface GrantsDeps {
  db: Kysely<Database>;
  clock: Clock;
  oauth: OAuthService;
  signingKey: SigningKey;
  /** The OpenID issuer: the server's public URL without a trailing slash. */
  issuer: string;
  /** Scopes that carry a scoped key (OAUTH_KEY_BEARING_SCOPES): a token exchange never adds one. */
  keyBearingScopes: readonly string[];
  /** Signs JWT access tokens (clients registered with jwtAccessTokens). */
  accessJwts: AccessTokenJwts;
  /** OAUTH_PPID_SECRET: the salt of pairwise subjects. */
  ppidSecret: string;
  /** Where a detected refresh-token reuse is recorded for the account (account.oauth_refresh_token_reused). */
  securityEvents?: SecurityEvents;
  /** Whether the account has two-step authentication on (its required AAL is 2): a token exchange of an AAL1 grant is then refused. */
  secondFactor: { required(db: Executor, uid: string): Promise<boolean> };
}

/**
 * How a confirmed session was authenticated, as the id_token's `amr` and `acr` and the access token
 * keep it: the password and the email (AAL1), or the password and a second factor (AAL2: an app's
 * TOTP code, a backup code or a recovery phone's code — each a one-time password, RFC 8176 `otp`).
 */
export function authenticationOf(session: SessionWithAccount): { amr: string[]; aal: 1 | 2 } {
  const aal = sessionAal(session);
  return { aal, amr: aal === 2 ? ['pwd', 'otp'] : ['pwd', 'email'] };
}

const sha256 = (s: string) => hash('sha256', Buffer.from(s, 'latin1'), 'buffer');

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

/** A client's claimed identity, before it is checked against the registry. */
export interface ClientCredentials {
  clientId: string;
  secret: string | undefined;
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
    checkPairwiseScopes(client, scope);
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
    // The sessionTokenVerified strategy let only a session at the account's AAL through (issue 22).
    const { aal, amr } = authenticationOf(session);
    if (req.acr_values?.split(' ').includes('AAL2') && aal < 2) throw appError('INSUFFICIENT_ACR_VALUES', { foundValue: `AAL${aal}` });
    const code = randomHex(32);
    await insertCode(this.deps.db, {
      codeHash: hashToken(code), clientId: client.id, uid: session.uid, scope, authAt: session.authAt, amr, aal,
      offline: req.access_type === 'offline', codeChallenge: req.code_challenge ?? null, redirectUri: req.redirect_uri ?? null,
      nonce: req.nonce ?? null, keysJwe: req.keys_jwe ?? null, createdAt: now, expiresAt: now + CODE_LIFETIME_MS, ppidSeed: req.ppid_seed ?? null,
    });
    const redirect = new URL(req.redirect_uri ?? client.redirectUri);
    redirect.searchParams.set('code', code);
    if (req.state !== undefined) redirect.searchParams.set('state', req.state);
    // RFC 9207: the issuer in the authorization response, so a client talking to several servers
    // can tell which one answered (the mix-up defence of RFC 9700 §4.4); discovery advertises it.
    redirect.searchParams.set('iss', this.deps.issuer);
    return { code, ...(req.state !== undefined ? { state: req.state } : {}), redirect: redirect.toString(), scope: scope.join(' ') };
  }

  /**
   * Who the caller says it is (RFC 6749 §2.3.1): Basic credentials or `client_id` (and
   * `client_secret`) in the body, never a secret both ways nor two different ids. Reads nothing.
   */
  clientCredentials(body: Pick<TokenRequest, 'client_id' | 'client_secret'>, authorization: string | undefined): ClientCredentials {
    const basic = basicCredentials(authorization);
    if (basic && body.client_secret !== undefined) {
      throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_secret'], message: 'send the client secret once: Basic or client_secret, not both' } });
    }
    if (basic && body.client_id !== undefined && body.client_id.toLowerCase() !== basic.clientId.toLowerCase()) {
      throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_id'], message: 'client_id differs from the Basic credentials' } });
    }
    const clientId = basic?.clientId ?? body.client_id;
    if (!clientId) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['client_id'], message: 'client_id is required' } });
    return { clientId, secret: basic?.secret ?? body.client_secret };
  }

  /** The client, read as `credentials` name it (null: unknown), if they prove it: 400/101 unknown, 400/102 wrong secret. */
  verifyClient(client: OAuthClient | null, credentials: ClientCredentials): OAuthClient {
    if (!client) throw appError('UNKNOWN_CLIENT_ID', { clientId: credentials.clientId });
    const { secret } = credentials;
    if (client.publicClient) {
      if (secret !== undefined) throw appError('INCORRECT_CLIENT_SECRET', { clientId: client.id }, 'A public client has no secret: prove the code with PKCE');
    } else if (secret === undefined || !this.deps.oauth.clientSecretMatches(client, secret)) {
      throw appError('INCORRECT_CLIENT_SECRET', { clientId: client.id });
    }
    return client;
  }

  async authenticateClient(body: TokenRequest, authorization: string | undefined): Promise<OAuthClient> {
    const credentials = this.clientCredentials(body, authorization);
    return this.verifyClient(await this.deps.oauth.findClient(this.deps.db, credentials.clientId), credentials);
  }

  async token(body: TokenRequest, authorization: string | undefined, session: SessionWithAccount | null = null, ctx?: Pick<RequestContext, 'ip'>): Promise<TokenResponse> {
    const grant = body.grant_type ?? 'authorization_code';
    const credentials = this.clientCredentials(body, authorization);
    if (grant === 'refresh_token' && body.refresh_token !== undefined && HEX64.test(body.refresh_token)) {
      // The client and the refresh token in one read; the client is checked before the token is used.
      const read = await findClientWithRefreshToken(this.deps.db, credentials.clientId, hashToken(body.refresh_token.toLowerCase()));
      const client = this.verifyClient(read.client, credentials);
      checkResource(client, body.resource);
      return this.refreshGrant(client, body, ctx, read.token);
    }
    const client = this.verifyClient(await this.deps.oauth.findClient(this.deps.db, credentials.clientId), credentials);
    checkResource(client, body.resource);
    if (grant === 'authorization_code') return this.codeGrant(client, body);
    if (grant === 'refresh_token') return this.refreshGrant(client, body, ctx);
    if (grant === 'fxa-credentials') return this.credentialsGrant(client, body, session);
    if (grant === TOKEN_EXCHANGE_GRANT) return this.exchangeGrant(client, body, session, ctx);
    throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['grant_type'], message: `unsupported grant_type ${grant}` } });
  }

  private async revokeIssued(code: AuthorizationCode): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      // The tokens first issued name the grant: what later refreshes, rotations and exchanges of it issued goes too.
      const grantId = (code.issuedAccessHash ? await grantIdOfAccessToken(trx, code.issuedAccessHash) : null)
        ?? (code.issuedRefreshHash ? (await findRefreshToken(trx, code.issuedRefreshHash))?.grantId ?? null : null);
      if (code.issuedAccessHash) await deleteAccessTokenByHash(trx, code.issuedAccessHash);
      if (code.issuedRefreshHash) await deleteRefreshToken(trx, code.issuedRefreshHash);
      if (grantId) await deleteGrant(trx, code.uid, grantId);
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
    const subject = this.subject(client, code.uid, body.ppid_seed ?? code.ppidSeed ?? 0, now);
    const grantId = randomHex(16);
    const issued = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await claimCode(trx, codeHash, now))) return null;
      const access = await this.mintAccessToken(trx, client, { uid: code.uid, subject, scope: code.scope, resource: body.resource, grantId, amr: code.amr, aal: code.aal }, now, ttl);
      const accessToken = access.token;
      let refreshToken: string | undefined;
      if (code.offline) {
        refreshToken = randomHex(32);
        await insertRefreshToken(trx, {
          tokenHash: hashToken(refreshToken), clientId: client.id, uid: code.uid, scope: code.scope, authAt: code.authAt, amr: code.amr, aal: code.aal,
          createdAt: now, lastUsedAt: now, expiresAt: client.refreshTokenTtlSeconds ? now + client.refreshTokenTtlSeconds * 1000 : 0, grantId,
        });
      }
      await recordIssued(trx, codeHash, access.hash, refreshToken ? hashToken(refreshToken) : null);
      return { accessToken, refreshToken };
    });
    if (!issued) {
      // Lost a race with another use of the same code: a replay too.
      const winner = await findCode(this.deps.db, codeHash);
      if (winner) await this.revokeIssued(winner);
      throw appError('UNKNOWN_AUTHORIZATION_CODE', {}, 'Unknown authorization code: it has been used, and what it issued is revoked');
    }
    return this.answer(client, { uid: code.uid, subject, resource: body.resource, scope: code.scope, authAt: code.authAt, amr: code.amr, aal: code.aal, nonce: code.nonce },
      issued.accessToken, ttl, now, issued.refreshToken, code.keysJwe ?? undefined);
  }

  /** `read`: the refresh token as already read with the client (null: none), else it is read here. */
  private async refreshGrant(client: OAuthClient, body: TokenRequest, ctx?: Pick<RequestContext, 'ip'>, read?: RefreshToken | null): Promise<TokenResponse> {
    const now = this.deps.clock.now();
    if (!body.refresh_token || !HEX64.test(body.refresh_token)) throw appError('REFRESH_TOKEN_UNKNOWN');
    const hash = hashToken(body.refresh_token.toLowerCase());
    const token = read !== undefined ? read : await findRefreshToken(this.deps.db, hash);
    // A token a rotation replaced ends its grant, and is then refused as any unknown token.
    if (!token) await this.revokeIfReused(hash, ctx);
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
    const subject = this.subject(client, token.uid, body.ppid_seed ?? 0, now);
    // The access token joins the refresh token's grant: revoking the refresh token (or a rotated successor) ends it.
    const grant = { uid: token.uid, subject, scope, resource: body.resource, grantId: token.grantId, amr: token.amr, aal: token.aal };
    const touch = now - token.lastUsedAt >= REFRESH_TOUCH_INTERVAL_MS;
    // Most refreshes write one row, the access token: one statement, no transaction needed.
    const issued = !client.rotateRefreshTokens && !touch
      ? await this.mintAccessToken(this.deps.db, client, grant, now, ttl).then(async ({ token: accessToken, hash: accessHash }) => {
        // Revoked while this ran? The revocation deleted the grant's access tokens before this one
        // existed: take it back rather than hand out a token of a revoked grant.
        if (await refreshTokenStillLive(this.deps.db, hash)) return { accessToken, refreshToken: undefined };
        await deleteAccessTokenByHash(this.deps.db, accessHash);
        return null;
      })
      : await this.deps.db.transaction().execute(async (trx) => {
        let refreshToken: string | undefined;
        if (client.rotateRefreshTokens) {
          if (!(await deleteRefreshToken(trx, hash))) return null;
          await retireRefreshToken(trx, token, now);
          refreshToken = randomHex(32);
          await insertRefreshToken(trx, {
            ...token, tokenHash: hashToken(refreshToken), createdAt: now, lastUsedAt: now,
            expiresAt: client.refreshTokenTtlSeconds ? now + client.refreshTokenTtlSeconds * 1000 : 0,
          });
        } else if (!(await touchRefreshToken(trx, hash, now))) {
          // Revoked while this ran (the update waited for the revocation's lock, then found nothing).
          return null;
        }
        const { token: accessToken } = await this.mintAccessToken(trx, client, grant, now, ttl);
        return { accessToken, refreshToken };
      });
    if (!issued) {
      // Lost a rotation race: the token is retired now, and its reuse ends the grant (no grace period).
      // Or the token was revoked while this ran: then it is not retired, and this only refuses.
      await this.revokeIfReused(hash, ctx);
      throw appError('REFRESH_TOKEN_UNKNOWN');
    }
    if (issued.refreshToken) await this.pruneRetired(now);
    return this.answer(client, { uid: token.uid, subject, resource: body.resource, scope, authAt: token.authAt, amr: token.amr, aal: token.aal, nonce: null },
      issued.accessToken, ttl, now, issued.refreshToken);
  }

  /**
   * RFC 9700 §4.14.2 reuse detection: a refresh token that a rotation or a token exchange replaced,
   * presented again, means someone holds a copy. Its grant ends (refresh and access tokens, in one
   * transaction, with the account's security event); the caller then answers as for any unknown
   * token, giving no signal.
   */
  private async revokeIfReused(hash: string, ctx: Pick<RequestContext, 'ip'> | undefined): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const reused = await revokeReusedGrant(trx, hash);
      if (reused && ctx && this.deps.securityEvents) {
        await this.deps.securityEvents.record(trx, reused.uid, {
          name: 'account.oauth_refresh_token_reused', ctx, verified: false, additionalInfo: { clientId: reused.clientId },
        });
      }
    });
  }

  private lastRetiredPrune = Number.NEGATIVE_INFINITY;

  /**
   * Retired rows older than RETIRED_REFRESH_KEEP_MS go, piggybacked on a rotation at most once per
   * RETIRED_PRUNE_EVERY_MS, after the rotation committed (a failed prune must not cost the client the
   * tokens just issued: it is retried at the next interval).
   */
  private async pruneRetired(now: number): Promise<void> {
    if (now - this.lastRetiredPrune < RETIRED_PRUNE_EVERY_MS) return;
    this.lastRetiredPrune = now;
    await pruneRetiredRefreshTokens(this.deps.db, now).catch(() => {
      this.lastRetiredPrune = Number.NEGATIVE_INFINITY;
    });
  }

  /**
   * The session-token grant for first-party clients (`canGrant`, e.g. browsers): the signed-in
   * session itself authorizes, no code. Needs a confirmed account and a session confirmed at the
   * account's AAL, as /oauth/authorization and /account/keys do: on an account with two-step
   * authentication, a session confirmed by email only (or waiting for the second factor) gets
   * 400/222 (issue 22, hole 1).
   */
  private async credentialsGrant(client: OAuthClient, body: TokenRequest, session: SessionWithAccount | null): Promise<TokenResponse> {
    if (!session) throw appError('INVALID_TOKEN', { detail: 'The fxa-credentials grant needs a session token' });
    const refused = aalRefusal(session, 'ask for tokens');
    if (refused) throw refused;
    if (!session.account.emailVerified) throw appError('ACCOUNT_UNVERIFIED');
    if (!client.canGrant) throw appError('INVALID_SCOPES', { invalidScopes: [] }, 'This client may not use the fxa-credentials grant (it is not registered with canGrant)');
    const scope = parseScope(body.scope ?? 'profile');
    this.checkScopes(client, scope);
    const now = this.deps.clock.now();
    const ttl = this.ttlSeconds(client, body.ttl);
    const { aal, amr } = authenticationOf(session);
    const subject = this.subject(client, session.uid, body.ppid_seed ?? 0, now);
    const grantId = randomHex(16);
    const issued = await this.deps.db.transaction().execute(async (trx) => {
      const { token: accessToken } = await this.mintAccessToken(trx, client, { uid: session.uid, subject, scope, resource: body.resource, grantId, amr, aal }, now, ttl);
      let refreshToken: string | undefined;
      if (body.access_type === 'offline') {
        refreshToken = randomHex(32);
        await insertRefreshToken(trx, {
          tokenHash: hashToken(refreshToken), clientId: client.id, uid: session.uid, scope, authAt: session.authAt, amr, aal,
          createdAt: now, lastUsedAt: now, expiresAt: client.refreshTokenTtlSeconds ? now + client.refreshTokenTtlSeconds * 1000 : 0, grantId,
        });
      }
      return { accessToken, refreshToken };
    });
    return this.answer(client, { uid: session.uid, subject, resource: body.resource, scope, authAt: session.authAt, amr, aal, nonce: null }, issued.accessToken, ttl, now, issued.refreshToken);
  }

  /** Token exchange (grants/token-exchange.ts): a refresh token of a canGrant client, traded for one with more scopes. */
  private async exchangeGrant(client: OAuthClient, body: TokenRequest, session: SessionWithAccount | null, ctx?: Pick<RequestContext, 'ip'>): Promise<TokenResponse> {
    const now = this.deps.clock.now();
    const ttl = this.ttlSeconds(client, body.ttl);
    const { grant, accessToken, refreshToken } = await exchangeRefreshToken({
      db: this.deps.db,
      keyBearingScopes: this.deps.keyBearingScopes,
      subjectOf: (uid) => this.subject(client, uid, body.ppid_seed ?? 0, now),
      mint: async (trx, g) => (await this.mintAccessToken(trx, client, { ...g, resource: body.resource }, now, ttl)).token,
      revokeIfReused: (hash) => this.revokeIfReused(hash, ctx),
      checkHolder: (token) => this.checkExchangeHolder(client, session, token),
    }, client, body, now, parseScope, (c, s) => this.checkScopes(c, s));
    await this.pruneRetired(now);
    const out = await this.answer(client, { ...grant, resource: body.resource, nonce: null }, accessToken, ttl, now, refreshToken);
    return { ...out, issued_token_type: ACCESS_TOKEN_TYPE };
  }

  /**
   * Who may widen a grant by token exchange (issue 22, hole 6). RFC 8693 §2.1 authenticates the
   * client by the usual OAuth means and leaves unauthenticated clients to the server; §5 warns that
   * without client authentication anyone holding the token can exchange it. A confidential client
   * proves itself with its secret (checked before this). A public client proves nothing but its id,
   * so it must bring the person instead: the request carries the session token of the account the
   * refresh token belongs to, confirmed at the account's AAL (POST /oauth/token, Hawk). Either way an
   * exchange is a new authorization: on an account with two-step authentication, a grant made at
   * AAL1 (before two-step was turned on) is not widened without a second factor.
   */
  private async checkExchangeHolder(client: OAuthClient, session: SessionWithAccount | null, token: RefreshToken): Promise<void> {
    if (client.publicClient) {
      if (!session) {
        throw appError('INVALID_TOKEN', { detail: 'A public client exchanges a refresh token only with the session token of its account' },
          'A public client cannot authenticate, so it exchanges a refresh token only beside the signed-in session of the same account (RFC 8693 §5): send the request to POST /v1/oauth/token signed with Hawk using the session token');
      }
      // Another account's session proves nothing about this token: as unknown as another client's.
      if (session.uid !== token.uid) throw appError('REFRESH_TOKEN_UNKNOWN');
      const refused = aalRefusal(session, 'exchange a refresh token');
      if (refused) throw refused;
      return;
    }
    if (token.aal < 2 && await this.deps.secondFactor.required(this.deps.db, token.uid)) {
      throw appError('INSUFFICIENT_AAL', {}, 'This grant was made without a second factor and the account now has two-step authentication: a token exchange cannot widen it; authorize again with a session confirmed by the second factor');
    }
  }

  private ttlSeconds(client: OAuthClient, asked: number | undefined): number {
    return Math.min(asked ?? client.accessTokenTtlSeconds, client.accessTokenTtlSeconds);
  }

  /** The `sub` the client is shown: the uid, or for a pairwise client its id for the account, seed and period. */
  private subject(client: OAuthClient, uid: string, seed: number, now: number): string {
    return subjectFor(this.deps.ppidSecret, client, uid, seed, now);
  }

  /**
   * Stores a new access token in `trx` and returns it with its row key: 32 random bytes (stored as
   * SHA-256), or for clients registered with jwtAccessTokens an RS256 JWT (RFC 9068) whose random
   * jti keys the row (jwtAccessTokenHash), so Tessera can still revoke it. `grantId` ties it to its
   * authorization grant: revoking the grant's refresh token deletes it (RFC 7009 §2.1).
   */
  private async mintAccessToken(
    trx: Executor, client: OAuthClient,
    g: { uid: string; subject: string; scope: string[]; resource?: string | undefined; grantId: string | null; amr: string[]; aal: number }, now: number, ttl: number,
  ): Promise<{ token: string; hash: string }> {
    const expiresAt = now + ttl * 1000;
    const opaque = client.jwtAccessTokens ? null : randomHex(32);
    const jti = randomHex(32);
    const hash = opaque ? hashToken(opaque) : jwtAccessTokenHash(jti);
    await insertAccessToken(trx, {
      tokenHash: hash, clientId: client.id, uid: g.uid, subject: g.subject, scope: g.scope, createdAt: now, expiresAt, profileChangedAt: now, grantId: g.grantId,
      amr: g.amr, aal: g.aal,
    });
    if (opaque) return { token: opaque, hash };
    const token = await this.deps.accessJwts.sign({
      clientId: client.id, subject: g.subject, scope: g.scope, resource: g.resource, iat: Math.floor(now / 1000), exp: Math.floor(expiresAt / 1000), jti,
    });
    return { token, hash };
  }

  private async answer(
    client: OAuthClient, grant: { uid: string; subject: string; resource?: string | undefined; scope: string[]; authAt: number; amr: string[]; aal: number; nonce: string | null },
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
  private idToken(
    client: OAuthClient, grant: { subject: string; resource?: string | undefined; authAt: number; amr: string[]; aal: number; nonce: string | null }, accessToken: string, now: number,
  ): Promise<string> {
    const iat = Math.floor(now / 1000);
    const { privateKey, publicJwk } = this.deps.signingKey;
    return new SignJWT({
      at_hash: sha256(accessToken).subarray(0, 16).toString('base64url'),
      auth_time: Math.floor(grant.authAt / 1000), amr: grant.amr, acr: `AAL${grant.aal}`, 'fxa-aal': grant.aal,
      ...(grant.nonce !== null ? { nonce: grant.nonce } : {}),
      // OpenID Connect Core §2: with a second audience (resource), azp names the client it was issued to.
      ...(grant.resource ? { azp: client.id } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid, typ: 'JWT' })
      .setIssuer(this.deps.issuer).setSubject(grant.subject).setAudience(grant.resource ? [client.id, grant.resource] : client.id).setIssuedAt(iat).setExpirationTime(iat + ID_TOKEN_TTL_SECONDS)
      .sign(privateKey);
  }
}
