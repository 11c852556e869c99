import { hash } from 'node:crypto';
import { randomHex } from '@tessera/protocol';
import { SignJWT } from 'jose';
import type { SigningKey } from '../../../platform/keys/index.js';
import type { Executor } from '../../../storage/executor.js';
import type { OAuthClient } from '../clients/store.js';
import { subjectFor } from '../ppid.js';
import { hashToken } from '../token-hash.js';
import type { AccessTokenJwts } from '../tokens/access-jwt.js';
import { insertAccessToken, jwtAccessTokenHash } from '../tokens/store.js';
import type { Grant, IssuedTokens, Issuance } from './grant.js';
import { insertRefreshToken } from './store.js';

// What every grant type issues, written and signed in one place: the access token (opaque or a
// JWT), a new refresh token, and the answer with the id_token and the keys bundle. Codes, access
// and refresh tokens are 32 random bytes, stored only as SHA-256.

/** OpenID Connect id_tokens live 5 minutes (protocol.md §8.1). */
export const ID_TOKEN_TTL_SECONDS = 300;

const sha256 = (s: string) => hash('sha256', Buffer.from(s, 'latin1'), 'buffer');

export interface TokenIssuerDeps {
  signingKey: SigningKey;
  /** The OpenID issuer: the server's public URL without a trailing slash. */
  issuer: string;
  /** Signs JWT access tokens (clients registered with jwtAccessTokens). */
  accessJwts: AccessTokenJwts;
  /** OAUTH_PPID_SECRET: the salt of pairwise subjects. */
  ppidSecret: string;
}

export class TokenIssuer {
  constructor(private readonly deps: TokenIssuerDeps) {}

  /** The `sub` the client is shown: the uid, or for a pairwise client its id for the account, seed and period. */
  subject(client: OAuthClient, uid: string, seed: number, now: number): string {
    return subjectFor(this.deps.ppidSecret, client, uid, seed, now);
  }

  /**
   * Stores a new access token in `trx` and returns it with its row key: 32 random bytes (stored as
   * SHA-256), or for clients registered with jwtAccessTokens an RS256 JWT (RFC 9068) whose random
   * jti keys the row (jwtAccessTokenHash), so Tessera can still revoke it. The grant id ties it to
   * its authorization grant: revoking the grant's refresh token deletes it (RFC 7009 §2.1).
   */
  async accessToken(trx: Executor, client: OAuthClient, { grant, subject, resource, now, ttl }: Issuance): Promise<{ token: string; hash: string }> {
    const expiresAt = now + ttl * 1000;
    const opaque = client.jwtAccessTokens ? null : randomHex(32);
    const jti = randomHex(32);
    const hash = opaque ? hashToken(opaque) : jwtAccessTokenHash(jti);
    await insertAccessToken(trx, {
      tokenHash: hash, clientId: client.id, uid: grant.uid, subject, scope: grant.scope, createdAt: now, expiresAt, profileChangedAt: now, grantId: grant.grantId,
      amr: grant.amr, aal: grant.aal,
    });
    if (opaque) return { token: opaque, hash };
    const token = await this.deps.accessJwts.sign({
      clientId: client.id, subject, scope: grant.scope, resource, iat: Math.floor(now / 1000), exp: Math.floor(expiresAt / 1000), jti,
    });
    return { token, hash };
  }

  /** Stores a new refresh token of the grant in `trx` (living as the client's refresh tokens do) and returns it. */
  async refreshToken(trx: Executor, client: OAuthClient, grant: Grant, now: number): Promise<string> {
    const token = randomHex(32);
    await insertRefreshToken(trx, {
      tokenHash: hashToken(token), clientId: grant.clientId, uid: grant.uid, scope: grant.scope, authAt: grant.authAt, amr: grant.amr, aal: grant.aal,
      createdAt: now, lastUsedAt: now, expiresAt: client.refreshTokenTtlSeconds ? now + client.refreshTokenTtlSeconds * 1000 : 0, grantId: grant.grantId,
    });
    return token;
  }

  /** What was issued: the tokens written, an id_token with scope `openid`, the keys bundle once. */
  async issueTokens(issuance: Issuance, client: OAuthClient, tokens: { accessToken: string; refreshToken?: string | undefined }): Promise<IssuedTokens> {
    const { grant } = issuance;
    const out: IssuedTokens = { accessToken: tokens.accessToken, scope: grant.scope, expiresIn: issuance.ttl, authAt: grant.authAt };
    if (tokens.refreshToken) out.refreshToken = tokens.refreshToken;
    if (grant.scope.includes('openid')) out.idToken = await this.idToken(issuance, client, tokens.accessToken);
    if (issuance.keysJwe) out.keysJwe = issuance.keysJwe;
    return out;
  }

  /** OpenID Connect Core §2: RS256 with the key of /jwks; at_hash per §3.1.3.6. */
  private idToken({ grant, subject, resource, nonce, now }: Issuance, client: OAuthClient, accessToken: string): Promise<string> {
    const iat = Math.floor(now / 1000);
    const { privateKey, publicJwk } = this.deps.signingKey;
    return new SignJWT({
      at_hash: sha256(accessToken).subarray(0, 16).toString('base64url'),
      auth_time: Math.floor(grant.authAt / 1000), amr: grant.amr, acr: `AAL${grant.aal}`, 'fxa-aal': grant.aal,
      ...(nonce !== null ? { nonce } : {}),
      // OpenID Connect Core §2: with a second audience (resource), azp names the client it was issued to.
      ...(resource ? { azp: client.id } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid: publicJwk.kid, typ: 'JWT' })
      .setIssuer(this.deps.issuer).setSubject(subject).setAudience(resource ? [client.id, resource] : client.id).setIssuedAt(iat).setExpirationTime(iat + ID_TOKEN_TTL_SECONDS)
      .sign(privateKey);
  }
}
