import { createHash, timingSafeEqual } from 'node:crypto';
import { appError } from '@tessera/errors';
import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../../../clock.js';
import { notEnabled, refused, type IdentityProvider, type Provider, type ProviderIdentity } from './port.js';

// What the provider adapters share: checking a provider's signed JWT (an OIDC id_token, or one of
// Apple's server-to-server notifications) with jose: the signature against the provider's published JWK Set, then `iss`,
// `aud` (one of our client ids), `exp`/`iat`/`nbf` against the injected clock with a small
// tolerance, and the nonce when the client sent one (OpenID Connect Core 1.0 §3.1.3.7). A token
// that fails a check is bad input: 400/107 naming the field, with a message that says which check
// failed. 500/205, the catalogue's third-party failure, is kept for the provider failing us (its
// keys cannot be fetched), which a retry may cure. Nothing about the token is logged.

export interface OidcSettings {
  enabled: boolean;
  clientIds: readonly string[];
  issuers: readonly string[];
  jwksUrl: string;
}

export interface OidcDeps {
  clock: Clock;
  /** Leeway on `exp`, `iat` and `nbf` (LINKED_ACCOUNT_CLOCK_TOLERANCE_SECONDS). */
  toleranceSeconds: number;
}

/** Both providers sign id_tokens with RS256 (their discovery documents list only it). */
const ALGORITHMS = ['RS256'];

const sha256 = (s: string) => createHash('sha256').update(s).digest();

/** The hash a used token is remembered by (hex): the token itself is never stored. */
export const tokenHash = (token: string) => sha256(token).toString('hex');

/** What the adapters share: one provider's JWTs checked against its keys and settings. */
export class OidcVerifier {
  private keys: JWTVerifyGetKey | null = null;

  constructor(readonly provider: Provider, private readonly settings: OidcSettings, private readonly deps: OidcDeps) {}

  get enabled(): boolean {
    return this.settings.enabled;
  }

  private keySet(): JWTVerifyGetKey {
    // jose fetches the set on first use, again when a token names an unknown key (at most every
    // 30 s), and caches it 10 minutes; a slow provider fails the request after 5 s.
    this.keys ??= createRemoteJWKSet(new URL(this.settings.jwksUrl), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 600_000 });
    return this.keys;
  }

  /** Verifies a JWT the provider signed for one of our client ids and returns its payload; 107 on `field` with the reason otherwise. */
  async verifyJwt(token: string, field: string, checks: { requiredClaims?: string[]; maxTokenAgeSeconds?: number } = {}): Promise<JWTPayload> {
    const { provider, settings } = this;
    if (!settings.enabled) throw notEnabled(provider);
    let verified: JWTPayload;
    try {
      const { payload } = await jwtVerify(token, this.keySet(), {
        algorithms: ALGORITHMS,
        issuer: [...settings.issuers],
        audience: [...settings.clientIds],
        currentDate: new Date(this.deps.clock.now()),
        clockTolerance: this.deps.toleranceSeconds,
        requiredClaims: checks.requiredClaims ?? ['sub', 'exp', 'iat'],
        ...(checks.maxTokenAgeSeconds ? { maxTokenAge: checks.maxTokenAgeSeconds } : {}),
      });
      verified = payload;
    } catch (err) {
      const reason = reasonOf(err, provider);
      if (reason === null) throw appError('THIRD_PARTY_ACCOUNT_ERROR', {}, `The keys of ${provider} could not be fetched: try again later`);
      throw refused(field, `The ${provider} token was refused: ${reason}`);
    }
    const problem = claimProblem(verified, settings.clientIds, this.deps.clock.now(), this.deps.toleranceSeconds);
    if (problem) throw refused(field, `The ${provider} token was refused: ${problem}`);
    return verified;
  }

  /** An id_token for sign-in: the JWT checks, then the nonce when the client sent one. */
  async verifyIdToken(idToken: string, nonce: string | undefined): Promise<JWTPayload> {
    const payload = await this.verifyJwt(idToken, 'idToken');
    if (nonce !== undefined) {
      const got = typeof payload.nonce === 'string' ? payload.nonce : '';
      // Compared as hashes: equal lengths, constant time.
      if (!timingSafeEqual(sha256(got), sha256(nonce))) throw refused('nonce', `The ${this.provider} token was refused: its nonce is not the one sent`);
    }
    return payload;
  }
}

/** Apple sends some booleans as the strings "true"/"false"; both are read the same for either provider. */
export const truthy = (v: unknown) => v === true || v === 'true';

/** The address claim, when it is one we can keep (at most 255 characters). */
export const emailClaim = (payload: JWTPayload): string | null =>
  typeof payload.email === 'string' && payload.email.length <= 255 ? payload.email : null;

/**
 * The checks of OpenID Connect Core 1.0 §3.1.3.7 that jose leaves to the caller; null when they
 * pass. `iat` must not be in the future (beyond the tolerance): jose checks it only against a
 * maximum age. An `aud` naming a client that is not ours must come with an `azp` that is ours
 * (items 3 to 5: a token issued to several parties is ours only if we are its authorized party).
 * A single audience of ours with another `azp` is accepted: Google issues those to a server's
 * client id when an Android app of the same project signs in.
 */
export function claimProblem(payload: JWTPayload, clientIds: readonly string[], nowMs: number, toleranceSeconds: number): string | null {
  if (typeof payload.iat === 'number' && payload.iat > Math.floor(nowMs / 1000) + toleranceSeconds) {
    return 'it was issued in the future (its iat is later than the server clock allows)';
  }
  const audiences = Array.isArray(payload.aud) ? payload.aud : [];
  if (audiences.some((a) => !clientIds.includes(a)) && !(typeof payload.azp === 'string' && clientIds.includes(payload.azp))) {
    return 'its audience names another client and its azp (authorized party) is not one of our client ids';
  }
  return null;
}

/** Which check a jose error stands for, in words a client developer can act on; null: the provider's keys could not be had. */
function reasonOf(err: unknown, provider: Provider): string | null {
  const e = err as { code?: string; claim?: string };
  switch (e.code) {
    case 'ERR_JWT_EXPIRED': return 'it has expired';
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (e.claim === 'aud') return `its audience is not one of LINKED_ACCOUNT_${provider.toUpperCase()}_CLIENT_IDS`;
      if (e.claim === 'iss') return 'its issuer is not the provider';
      if (e.claim === 'iat' || e.claim === 'nbf') return 'it is not valid yet';
      return `its ${e.claim ?? 'claims'} claim is missing or invalid`;
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED': return 'its signature does not verify';
    case 'ERR_JOSE_ALG_NOT_ALLOWED': return 'it is not signed with RS256';
    case 'ERR_JWKS_NO_MATCHING_KEY': return 'no key of the provider matches its signature';
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS': return 'several keys of the provider match its header';
    case 'ERR_JWS_INVALID': case 'ERR_JWT_INVALID': return 'it is not a signed JWT';
    default: return e.code === 'ERR_JWKS_TIMEOUT' || e.code === 'ERR_JWKS_INVALID' || !e.code?.startsWith('ERR_') ? null : `it does not verify (${e.code})`;
  }
}

/**
 * The port's side every OpenID Connect provider shares: enabled when configured, and the identity
 * an id_token it signed names. An adapter adds what only its provider does (Apple's notifications).
 */
export function oidcIdentityProvider(provider: Provider, oidc: OidcVerifier): Pick<IdentityProvider, 'name' | 'enabled' | 'verifyIdToken'> {
  return {
    name: provider,
    get enabled() {
      return oidc.enabled;
    },
    async verifyIdToken(idToken, nonce): Promise<ProviderIdentity> {
      const payload = await oidc.verifyIdToken(idToken, nonce);
      const email = emailClaim(payload);
      return {
        provider, subject: String(payload.sub), email, emailVerified: email !== null && truthy(payload.email_verified),
        privateEmail: truthy(payload.is_private_email), expiresAt: (payload.exp ?? 0) * 1000,
      };
    },
  };
}
