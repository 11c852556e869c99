import { hash } from 'node:crypto';
import { appError } from '@tessera/errors';
import { jwtVerify, type JWTPayload } from 'jose';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../clock.js';
import type { Database } from '../../../storage/schema.js';
import type { AccountRecords } from '../../account-core/index.js';
import { isJwtShaped, JWT_ACCESS_TOKEN_TYPE, type AccessTokenJwts } from '../tokens/access-jwt.js';
import { findRefreshToken, revokeRefreshTokenGrant } from './store.js';
import type { OAuthReads } from '../tokens/cached-reads.js';
import { timestampShownTo } from '../ppid.js';
import { findClient, type OAuthClient } from '../clients/store.js';
import { hashToken, HEX64 } from '../token-hash.js';
import { deleteAccessTokenByHash, findAccessTokenByHash, type AccessToken } from '../tokens/store.js';

// What relying parties and resource servers do with issued tokens: introspection (RFC 7662),
// verification, revocation (RFC 7009), id_token verification, and the person's claims (OpenID
// Connect userinfo, the profile browsers read) as the token's scopes allow.

export interface Introspection {
  active: boolean;
  scope?: string;
  client_id?: string;
  token_type?: 'access_token' | 'refresh_token';
  iat?: number;
  exp?: number;
  sub?: string;
  iss?: string;
  jti?: string;
}

export interface TokensDeps {
  db: Kysely<Database>;
  clock: Clock;
  records: AccountRecords;
  issuer: string;
  /** Finds opaque and JWT access tokens alike; its `keys` (the /jwks slots) verify id_tokens too. */
  accessJwts: AccessTokenJwts;
  /** The client and access-token reads of introspection, cached briefly (cached-reads.ts). */
  reads: OAuthReads;
  /** OAUTH_PPID_SECRET: keys the markers pairwise clients get instead of account timestamps. */
  ppidSecret: string;
}

const seconds = (ms: number) => Math.floor(ms / 1000);
// One-shot crypto.hash: a Hash object per call costs more than the digest of 64 characters.
const jti = (token: string) => hash('sha256', Buffer.from(token.toLowerCase(), 'latin1'), 'hex');

/** Whether the scopes grant `scope` (the `profile` scope covers every profile:* one; a :write scope covers its read). */
export function scopeAllows(scopes: string[], scope: string): boolean {
  return scopes.includes('profile') || scopes.includes('profile:write') || scopes.includes(scope) || scopes.includes(`${scope}:write`);
}

/** `profile:amr`: how the sign-in behind the token was authenticated; nothing for tokens that do not know (older rows, stub accounts'). */
function authentication(token: AccessToken, names: { amr: string; twoStep?: string }) {
  if (!token.amr) return {};
  return { [names.amr]: token.amr, ...(names.twoStep ? { [names.twoStep]: (token.aal ?? 1) >= 2 } : {}) };
}

export class TokensService {
  constructor(private readonly deps: TokensDeps) {}

  /** An account timestamp as the token's client may see it: a marker for a pairwise client (ppid.ts), so no value is the same at two clients. */
  private timestamp<V extends number | null>(token: AccessToken, field: string, value: V): V {
    return timestampShownTo(this.deps.ppidSecret, token, field, value);
  }

  /** An opaque or JWT access token, live (not expired, not revoked). */
  private liveAccessToken(token: string): Promise<AccessToken | null> {
    return this.deps.accessJwts.find(token, this.deps.clock.now());
  }

  private async liveRefreshToken(token: string) {
    if (!HEX64.test(token)) return null;
    const t = await findRefreshToken(this.deps.db, hashToken(token.toLowerCase()));
    return t && (t.expiresAt === 0 || t.expiresAt > this.deps.clock.now()) ? t : null;
  }

  /**
   * RFC 7662 for the client `clientId`, which `authenticate` checks (throwing 400/101 or 400/102)
   * before anything about the token is used: its own tokens only (another client's token is as
   * inactive as an unknown one). Times are seconds, as the RFC says. An opaque token looked up as
   * an access token first is read in the same statement as the client, or both come from the
   * cache of recent reads (cached-reads.ts); the secret and the expiry are checked either way.
   */
  async introspect(clientId: string, authenticate: (client: OAuthClient | null) => OAuthClient, token: string, hint?: string): Promise<Introspection> {
    const order = hint === 'refresh_token' ? ['refresh', 'access'] : ['access', 'refresh'];
    let client: OAuthClient;
    let access: AccessToken | null | undefined;
    if (order[0] === 'access' && HEX64.test(token)) {
      const now = this.deps.clock.now();
      const read = await this.deps.reads.clientWithAccessToken(clientId, hashToken(token), now);
      client = authenticate(read.client);
      access = read.token && read.token.expiresAt > now ? read.token : null;
    } else {
      client = authenticate(await findClient(this.deps.db, clientId));
    }
    for (const kind of order) {
      if (kind === 'access') {
        const t = access === undefined ? await this.liveAccessToken(token) : access;
        if (t && t.clientId === client.id) {
          return {
            active: true, scope: t.scope.join(' '), client_id: t.clientId, token_type: 'access_token', iat: seconds(t.createdAt), exp: seconds(t.expiresAt),
            sub: t.subject, iss: this.deps.issuer, jti: t.jti ?? jti(token),
          };
        }
      } else {
        const t = await this.liveRefreshToken(token);
        if (t && t.clientId === client.id) {
          return {
            active: true, scope: t.scope.join(' '), client_id: t.clientId, token_type: 'refresh_token', iat: seconds(t.createdAt),
            // A refresh token keeps no pairwise id (each refresh may name its seed): a pairwise client is shown no sub at all.
            ...(t.expiresAt ? { exp: seconds(t.expiresAt) } : {}), ...(client.pairwiseSubjects ? {} : { sub: t.uid }), iss: this.deps.issuer, jti: jti(token),
          };
        }
      }
    }
    return { active: false };
  }

  /** POST /verify: what a resource server needs of an access token; 401/110 when it is not live. */
  async verify(token: string) {
    const t = await this.liveAccessToken(token);
    const account = t && await this.deps.records.find(this.deps.db, t.uid);
    if (!t || !account) throw appError('INVALID_TOKEN', { detail: 'The access token is unknown, expired or revoked' });
    // A pairwise client's token shows its pairwise subject: /verify needs only the token, so the uid would leak to the client.
    return {
      user: t.subject, client_id: t.clientId, scope: t.scope,
      generation: this.timestamp(t, 'generation', account.verifierSetAt), profile_changed_at: this.timestamp(t, 'profileChangedAt', account.profileChangedAt),
    };
  }

  /**
   * RFC 7009: revokes the client's own access or refresh token. Unknown tokens and other clients'
   * tokens change nothing and answer the same (§2.2), so the answer tells an attacker nothing.
   * A refresh token takes the access tokens of its grant with it (§2.1); an access token goes
   * alone, its refresh token staying valid (§2.1 leaves that to the server).
   */
  async revoke(client: OAuthClient, token: string, hint?: string): Promise<void> {
    if (isJwtShaped(token)) {
      // A JWT access token: its row (keyed by jti) goes, so Tessera refuses it from now on.
      const t = await this.liveAccessToken(token);
      if (t && t.clientId === client.id) await deleteAccessTokenByHash(this.deps.db, t.tokenHash);
      return;
    }
    if (!HEX64.test(token)) return;
    const hash = hashToken(token.toLowerCase());
    const tryAccess = async () => {
      const t = await findAccessTokenByHash(this.deps.db, hash);
      if (t && t.clientId === client.id) await deleteAccessTokenByHash(this.deps.db, hash);
      return Boolean(t);
    };
    const tryRefresh = async () => {
      const t = await findRefreshToken(this.deps.db, hash);
      if (t && t.clientId === client.id) await this.deps.db.transaction().execute((trx) => revokeRefreshTokenGrant(trx, hash, { clientId: client.id }));
      return Boolean(t);
    };
    if (hint === 'refresh_token') {
      if (!(await tryRefresh())) await tryAccess();
    } else if (!(await tryAccess())) {
      await tryRefresh();
    }
  }

  /** POST /oauth/id-token-verify: an id_token this server signed for `clientId`; its claims. */
  async verifyIdToken(clientId: string, idToken: string, graceSeconds = 0): Promise<JWTPayload> {
    try {
      const { payload, protectedHeader } = await jwtVerify(idToken, this.deps.accessJwts.keys, {
        issuer: this.deps.issuer, audience: clientId.toLowerCase(), algorithms: ['RS256'],
        currentDate: new Date(this.deps.clock.now()), clockTolerance: graceSeconds,
      });
      // A JWT access token has the same signer, issuer and audience: its type tells it apart (RFC 9068 §4).
      if (protectedHeader.typ?.toLowerCase().replace(/^application\//, '') === JWT_ACCESS_TOKEN_TYPE) throw new Error('a JWT access token is not an id_token');
      return payload;
    } catch (err) {
      throw appError('INVALID_TOKEN', { detail: `The id_token is not valid: ${(err as Error).message}` });
    }
  }

  /** OpenID Connect userinfo claims the token's scopes allow. */
  async userinfo(token: AccessToken) {
    const account = await this.deps.records.find(this.deps.db, token.uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    const emails = scopeAllows(token.scope, 'profile:email') ? await this.deps.records.listEmails(this.deps.db, token.uid) : [];
    return {
      sub: token.subject,
      ...(scopeAllows(token.scope, 'profile:email') ? { email: emails.find((e) => e.isPrimary)?.email ?? account.email, email_verified: account.emailVerified } : {}),
      ...(scopeAllows(token.scope, 'profile:locale') && account.locale ? { locale: account.locale } : {}),
      ...(scopeAllows(token.scope, 'profile:amr') ? authentication(token, { amr: 'amr' }) : {}),
    };
  }

  /** GET /v1/profile, the shape browsers read: uid always, the rest as the scopes allow. */
  async profile(token: AccessToken) {
    const account = await this.deps.records.find(this.deps.db, token.uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    const emails = scopeAllows(token.scope, 'profile:email') ? await this.deps.records.listEmails(this.deps.db, token.uid) : [];
    return {
      // A pairwise client is shown its pairwise id in both (it is never allowed the scopes that show the uid).
      uid: token.subject, sub: token.subject,
      ...(scopeAllows(token.scope, 'profile:email') ? { email: emails.find((e) => e.isPrimary)?.email ?? account.email } : {}),
      ...(scopeAllows(token.scope, 'profile:locale') ? { locale: account.locale } : {}),
      ...(scopeAllows(token.scope, 'profile:amr') ? authentication(token, { amr: 'amrValues', twoStep: 'twoFactorAuthentication' }) : {}),
      ...(scopeAllows(token.scope, 'profile:account_disabled_at') ? { accountDisabledAt: this.timestamp(token, 'accountDisabledAt', account.disabledAt) } : {}),
      ...(scopeAllows(token.scope, 'profile:account_locked_at') ? { accountLockedAt: this.timestamp(token, 'accountLockedAt', account.lockedAt) } : {}),
      profileChangedAt: this.timestamp(token, 'profileChangedAt', account.profileChangedAt),
    };
  }
}
