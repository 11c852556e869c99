import { appError } from '@tessera/errors';
import { HEX64, hashToken } from '../token-hash.js';
import { deleteAccessTokenByHash } from '../tokens/store.js';
import { parseScope } from '../scopes.js';
import { grantOf, ttlSeconds, type GrantContext, type GrantType, type Issuance } from './grant.js';
import type { OAuthClient } from '../clients/store.js';
import { deleteRefreshToken, findRefreshToken, refreshTokenStillLive, retireRefreshToken, touchRefreshToken, type RefreshToken } from './store.js';

// The refresh grant: a new access token of the refresh token's grant, its scope narrowed if asked,
// never widened. Clients registered with rotation get a new refresh token each time, and the one
// used is retired (reuse.ts: presenting it again ends the grant).

/**
 * A refresh token's last use (what authorized clients list as last_access_time) is written at most
 * this often, as a session's is: a relying party refreshing every few minutes would otherwise
 * rewrite its row on every refresh.
 */
export const REFRESH_TOUCH_INTERVAL_MS = 60 * 60 * 1000;

type Issued = { accessToken: string; refreshToken?: string | undefined } | null;

export const refreshTokenGrant: GrantType = async (context, { client, body, ctx, refreshRead }) => {
  const { db, clock, issuer, reuse } = context;
  const now = clock.now();
  if (!body.refresh_token || !HEX64.test(body.refresh_token)) throw appError('REFRESH_TOKEN_UNKNOWN');
  const hash = hashToken(body.refresh_token.toLowerCase());
  const token = refreshRead !== undefined ? refreshRead : await findRefreshToken(db, hash);
  // A token a rotation replaced ends its grant, and is then refused as any unknown token.
  if (!token) await reuse.revokeIfReused(hash, ctx);
  // Another client's token is as unknown as a revoked one: nothing tells the two apart.
  if (!token || token.clientId !== client.id || (token.expiresAt !== 0 && token.expiresAt <= now)) throw appError('REFRESH_TOKEN_UNKNOWN');
  const ttl = ttlSeconds(client, body.ttl);
  const subject = issuer.subject(client, token.uid, body.ppid_seed ?? 0, now);
  // The access token joins the refresh token's grant: revoking the refresh token (or a rotated successor) ends it.
  const issuance: Issuance = { grant: { ...grantOf(token, token.grantId), scope: narrowed(token.scope, body.scope) }, subject, resource: body.resource, nonce: null, ttl, now };
  const touch = now - token.lastUsedAt >= REFRESH_TOUCH_INTERVAL_MS;
  // Most refreshes write one row, the access token: one statement, no transaction needed.
  const issued = !client.rotateRefreshTokens && !touch ? await accessTokenAlone(context, client, issuance, hash) : await renew(context, client, issuance, token);
  if (!issued) {
    // Lost a rotation race: the token is retired now, and its reuse ends the grant (no grace period).
    // Or the token was revoked while this ran: then it is not retired, and this only refuses.
    await reuse.revokeIfReused(hash, ctx);
    throw appError('REFRESH_TOKEN_UNKNOWN');
  }
  if (issued.refreshToken) await reuse.pruneRetired(now);
  return issuer.issueTokens(issuance, client, issued);
};

/** The granted scope, or the narrower one asked (400/163 for a scope that was not granted). */
function narrowed(granted: string[], raw: string | undefined): string[] {
  if (raw === undefined) return granted;
  const asked = parseScope(raw);
  const wider = asked.filter((s) => !granted.includes(s));
  if (wider.length) throw appError('INVALID_SCOPES', { invalidScopes: wider }, `A refresh may narrow the granted scope, never widen it: ${wider.join(' ')} was not granted`);
  return asked.length ? asked : granted;
}

async function accessTokenAlone({ db, issuer }: GrantContext, client: OAuthClient, issuance: Issuance, hash: string): Promise<Issued> {
  const { token: accessToken, hash: accessHash } = await issuer.accessToken(db, client, issuance);
  // Revoked while this ran? The revocation deleted the grant's access tokens before this one
  // existed: take it back rather than hand out a token of a revoked grant.
  if (await refreshTokenStillLive(db, hash)) return { accessToken, refreshToken: undefined };
  await deleteAccessTokenByHash(db, accessHash);
  return null;
}

/** A rotation (or the hourly touch of the last use) and the access token, in one transaction; null when the token went meanwhile. */
async function renew({ db, issuer }: GrantContext, client: OAuthClient, issuance: Issuance, token: RefreshToken): Promise<Issued> {
  const { now } = issuance;
  return db.transaction().execute(async (trx) => {
    let refreshToken: string | undefined;
    if (client.rotateRefreshTokens) {
      if (!(await deleteRefreshToken(trx, token.tokenHash))) return null;
      await retireRefreshToken(trx, token, now);
      // The successor keeps the grant as it was granted (a narrowed refresh narrows the access token only).
      refreshToken = await issuer.refreshToken(trx, client, token, now);
    } else if (!(await touchRefreshToken(trx, token.tokenHash, now))) {
      // Revoked while this ran (the update waited for the revocation's lock, then found nothing).
      return null;
    }
    const { token: accessToken } = await issuer.accessToken(trx, client, issuance);
    return { accessToken, refreshToken };
  });
}
