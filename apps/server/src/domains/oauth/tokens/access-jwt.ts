import { createLocalJWKSet, jwtVerify, SignJWT } from 'jose';
import type { PublicJwk, SigningKey } from '../../../platform/keys/index.js';
import type { OAuthReads } from './cached-reads.js';
import { hashToken, HEX64 } from '../token-hash.js';
import { jwtAccessTokenHash, type AccessToken } from './store.js';

// JWT access tokens (RFC 9068), for clients registered with jwtAccessTokens: an RS256 JWT signed
// with the key of /jwks, header `typ: at+jwt`, so resource servers can check it without asking
// Tessera. Tessera itself still keeps a row per token (keyed by its jti, nothing secret), so a token
// revoked at /destroy, by a password change or by removing the client is refused by Tessera at once;
// a verifier that only checks the signature cannot see that, hence short lifetimes.

export const JWT_ACCESS_TOKEN_TYPE = 'at+jwt';
/** A compact JWS: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export interface JwtAccessTokenClaims {
  clientId: string;
  /** The `sub` the client is shown: the uid or its pairwise id. */
  subject: string;
  scope: string[];
  /** RFC 8707: the resource the client named at /token, added to `aud`. */
  resource?: string | undefined;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
  /** 64 hex, random. */
  jti: string;
}

export class AccessTokenJwts {
  /** Every key of /jwks (the rotation slots), as jose verifies with them. */
  readonly keys;

  constructor(private readonly deps: { signingKey: SigningKey; issuer: string; jwks: PublicJwk[]; reads: OAuthReads }) {
    this.keys = createLocalJWKSet({ keys: deps.jwks });
  }

  sign(c: JwtAccessTokenClaims): Promise<string> {
    const { privateKey, publicJwk } = this.deps.signingKey;
    return new SignJWT({ client_id: c.clientId, scope: c.scope.join(' ') })
      .setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid, typ: JWT_ACCESS_TOKEN_TYPE })
      .setIssuer(this.deps.issuer).setSubject(c.subject).setAudience(c.resource ? [c.clientId, c.resource] : c.clientId)
      .setIssuedAt(c.iat).setExpirationTime(c.exp).setJti(c.jti)
      .sign(privateKey);
  }

  /**
   * The jti and client of a JWT access token this server signed and that has not expired at `now`
   * (ms): RS256 with a key of /jwks (any rotation slot), `typ` at+jwt, our `iss`. Null otherwise —
   * a tampered, unsigned (`alg: none`), expired or foreign token, or an id_token.
   */
  async verify(token: string, now: number): Promise<{ jti: string; clientId: string } | null> {
    if (!COMPACT_JWS.test(token)) return null;
    try {
      const { payload } = await jwtVerify(token, this.keys, {
        issuer: this.deps.issuer, typ: JWT_ACCESS_TOKEN_TYPE, algorithms: ['RS256'], currentDate: new Date(now), requiredClaims: ['jti', 'exp', 'sub'],
      });
      if (typeof payload.jti !== 'string' || !HEX64.test(payload.jti) || typeof payload.client_id !== 'string') return null;
      return { jti: payload.jti.toLowerCase(), clientId: payload.client_id };
    } catch {
      return null;
    }
  }

  /**
   * The stored access token an opaque token or a JWT access token stands for, live at `now` (ms), or
   * null. A JWT's row must still exist (revocation) and belong to the client the JWT names.
   */
  async find(token: string, now: number): Promise<AccessToken | null> {
    let t: AccessToken | null;
    if (HEX64.test(token)) {
      t = await this.deps.reads.accessToken(hashToken(token), now);
    } else {
      const jwt = await this.verify(token, now);
      t = jwt && await this.deps.reads.accessToken(jwtAccessTokenHash(jwt.jti), now);
      if (t && t.clientId !== jwt?.clientId) t = null;
      if (t && jwt) t = { ...t, jti: jwt.jti };
    }
    return t && t.expiresAt > now ? t : null;
  }
}

/** Whether a presented token is shaped like a JWT (not an opaque 64-hex token). */
export function isJwtShaped(token: string): boolean {
  return COMPACT_JWS.test(token);
}
