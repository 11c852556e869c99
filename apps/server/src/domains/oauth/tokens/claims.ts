import { appError } from '@tessera/errors';
import { jwtVerify, type JWTPayload } from 'jose';
import { timestampShownTo } from '../ppid.js';
import { JWT_ACCESS_TOKEN_TYPE } from './access-jwt.js';
import type { TokenReadsDeps } from './introspection.js';
import type { AccessToken } from './store.js';

// What resource servers and relying parties read with a token: /verify (the access token and its
// account), /oauth/id-token-verify, OpenID Connect userinfo and the profile browsers read, each as
// the token's scopes allow.

/** Whether the scopes grant `scope` (the `profile` scope covers every profile:* one; a :write scope covers its read). */
export function scopeAllows(scopes: string[], scope: string): boolean {
  return scopes.includes('profile') || scopes.includes('profile:write') || scopes.includes(scope) || scopes.includes(`${scope}:write`);
}

/** `profile:amr`: how the sign-in behind the token was authenticated; nothing for tokens that do not know (older rows, stub accounts'). */
function authentication(token: AccessToken, names: { amr: string; twoStep?: string }) {
  if (!token.amr) return {};
  return { [names.amr]: token.amr, ...(names.twoStep ? { [names.twoStep]: (token.aal ?? 1) >= 2 } : {}) };
}

export class TokenClaims {
  constructor(private readonly deps: Omit<TokenReadsDeps, 'reads'>) {}

  /** An account timestamp as the token's client may see it: a marker for a pairwise client (ppid.ts), so no value is the same at two clients. */
  private timestamp<V extends number | null>(token: AccessToken, field: string, value: V): V {
    return timestampShownTo(this.deps.ppidSecret, token, field, value);
  }

  /** An opaque or JWT access token, live (not expired, not revoked). */
  private liveAccessToken(token: string): Promise<AccessToken | null> {
    return this.deps.accessJwts.find(token, this.deps.clock.now());
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
