import { randomUUID } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

// The MFA step-up token (protocol.md §4.10): an HS256 JWT with `sub` (uid), `scope` (e.g.
// ["mfa:password"]), `iat`, `exp` = iat + lifetime, `aud`, `iss`, `jti` and `stid`. Tessera's
// `stid` is the session's handle (Session.id, the HMAC of its token id), not the token id the
// incumbent puts there: a JWT payload is readable by whoever holds it, and a session token id
// is a credential here (`Authorization: Bearer fxs_<id>`), so it must not travel inside another.

export const MFA_ACTIONS = ['2fa', 'email', 'recovery_key', 'password', 'passkey'] as const;
export type MfaAction = (typeof MFA_ACTIONS)[number];
export const MFA_SCOPES = MFA_ACTIONS.map((a) => `mfa:${a}` as const);
export type MfaScope = (typeof MFA_SCOPES)[number];

export interface MfaJwtOptions {
  /** At least 32 bytes (RFC 7518 §3.2). */
  secret: string;
  issuer: string;
  audience: string;
  lifetimeSeconds: number;
}

/** What a verified token says. */
export interface MfaClaims {
  uid: string;
  /** The handle of the session the code was sent to. */
  sessionId: string;
  scopes: string[];
  /** Seconds since the epoch. */
  expiresAt: number;
}

/** Why a token was refused, for the 401/223 message (the token's holder learns nothing new). */
export class MfaTokenRefused extends Error {}

const HEX32 = /^[0-9a-f]{32}$/;
const HEX64 = /^[0-9a-f]{64}$/;

export class MfaJwt {
  private readonly key: Uint8Array;

  constructor(private readonly o: MfaJwtOptions) {
    this.key = new TextEncoder().encode(o.secret);
    if (this.key.length < 32) throw new Error('the MFA token secret must be at least 32 bytes');
  }

  get lifetimeSeconds(): number {
    return this.o.lifetimeSeconds;
  }

  /** A token for one action's scope, bound to the session the code was sent to. */
  sign(claims: { uid: string; sessionId: string; scope: MfaScope; now: number }): Promise<string> {
    const iat = Math.floor(claims.now / 1000);
    return new SignJWT({ scope: [claims.scope], stid: claims.sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(claims.uid)
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.o.lifetimeSeconds)
      .setAudience(this.o.audience)
      .setIssuer(this.o.issuer)
      .setJti(randomUUID())
      .sign(this.key);
  }

  /**
   * Checks signature (jose compares MACs in constant time), algorithm (HS256 only: `none` and
   * every other alg are refused before any key is used), audience, issuer and expiry against
   * the injected clock, with no leeway. Throws MfaTokenRefused.
   */
  async verify(token: string, now: number): Promise<MfaClaims> {
    let payload;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: ['HS256'],
        audience: this.o.audience,
        issuer: this.o.issuer,
        currentDate: new Date(now),
        requiredClaims: ['sub', 'exp', 'iat', 'scope', 'stid'],
      }));
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw new MfaTokenRefused('expired');
      if (err instanceof joseErrors.JWTClaimValidationFailed) throw new MfaTokenRefused(`bad ${err.claim} claim`);
      if (err instanceof joseErrors.JOSEAlgNotAllowed) throw new MfaTokenRefused('unsupported alg');
      if (err instanceof joseErrors.JWSSignatureVerificationFailed) throw new MfaTokenRefused('bad signature');
      if (err instanceof joseErrors.JOSEError) throw new MfaTokenRefused('malformed token');
      throw err;
    }
    const { sub, scope, stid, exp } = payload as { sub: unknown; scope: unknown; stid: unknown; exp: number };
    if (typeof sub !== 'string' || !HEX32.test(sub)) throw new MfaTokenRefused('bad sub claim');
    if (typeof stid !== 'string' || !HEX64.test(stid)) throw new MfaTokenRefused('bad stid claim');
    if (!Array.isArray(scope) || !scope.every((s) => typeof s === 'string')) throw new MfaTokenRefused('bad scope claim');
    return { uid: sub, sessionId: stid, scopes: scope as string[], expiresAt: exp };
  }
}
