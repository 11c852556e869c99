import { appError } from '@tessera/errors';
import { randomHex } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.js';
import type { Executor } from '../../../storage/executor.js';
import type { OAuthClient } from '../clients/store.js';
import { hashToken, HEX64 } from '../token-hash.js';
import { deleteRefreshToken, findRefreshToken, insertRefreshToken, retireRefreshToken, type RefreshToken } from './store.js';

// The token-exchange grant (RFC 8693 in the shape protocol.md §5.15 gives it): a first-party client
// holding a refresh token gains more scopes without a new sign-in. The subject token is replaced,
// not kept: one transaction deletes it and inserts its successor with the union of the scopes, so
// of two exchanges racing on one token, only one finds it to delete.
//
// What a stolen refresh token can do with it is bounded on purpose: the thief must also pass the
// client's authentication — a confidential client's secret, or for a public client, which has none,
// the signed-in session of the same account at its AAL (service.ts checkExchangeHolder; RFC 8693 §5) —
// the client must be registered with canGrant (the same first-party flag the session grant needs),
// the scopes must be ones the client is allowed, and no scope carrying a scoped key can be gained
// (a key is only ever released to a signed-in session that holds kB, and a refresh token proves no
// such thing). On an account with two-step authentication, an AAL1 grant is never widened. The new refresh token keeps the old one's sign-in time,
// authentication methods and expiry: an exchange never makes a grant fresher or longer-lived.
//
// The replaced subject token is retired (RFC 9700 §4.14.2, as a rotation retires one): presenting
// it again, here or at the refresh grant, ends the grant and is answered as an unknown token.

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
/** RFC 8693 §3: the only subject token Tessera exchanges. */
export const REFRESH_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:refresh_token';
/** RFC 8693 §2.2.1: what `access_token` of the answer holds. */
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

export interface TokenExchangeRequest {
  subject_token?: string;
  subject_token_type?: string;
  scope?: string;
  ttl?: number;
}

export interface TokenExchangeDeps {
  db: Kysely<Database>;
  /** Scopes that carry a scoped key (OAUTH_KEY_BEARING_SCOPES): never gained by an exchange. */
  keyBearingScopes: readonly string[];
  /** The `sub` the client is shown for the account (the uid, or a pairwise client's id). */
  subjectOf: (uid: string) => string;
  /** Writes the access token (opaque or JWT, as the client is registered) in `trx`; returns it. */
  mint: (trx: Executor, grant: { uid: string; subject: string; scope: string[]; grantId: string | null; amr: string[]; aal: number }) => Promise<string>;
  /** Reuse detection: ends the grant of a retired refresh token (store.ts revokeReusedGrant) in a transaction. */
  revokeIfReused: (tokenHash: string) => Promise<void>;
  /** Throws unless the caller may widen this grant (a public client's session, the account's AAL: service.ts). */
  checkHolder: (token: RefreshToken) => Promise<void>;
}

/** What the exchange issued; the grant service turns it into the token answer. */
export interface Exchanged {
  grant: RefreshToken & { subject: string };
  accessToken: string;
  refreshToken: string;
}

const missing = (key: string, message: string) => appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [key], message } });

/**
 * Replaces the client's refresh token `subject_token` by a new one whose scope is the union of its
 * scope and `scope`, and issues an access token for that union. `scopes` parses the request's
 * scope; `checkAllowed` throws for scopes the client is not registered for.
 */
export async function exchangeRefreshToken(
  deps: TokenExchangeDeps, client: OAuthClient, body: TokenExchangeRequest, now: number,
  scopes: (raw: string) => string[], checkAllowed: (client: OAuthClient, scope: string[]) => void,
): Promise<Exchanged> {
  if (body.subject_token === undefined) throw missing('subject_token', 'subject_token is required: the refresh token to exchange');
  if (body.subject_token_type !== REFRESH_TOKEN_TYPE) throw missing('subject_token_type', `subject_token_type must be ${REFRESH_TOKEN_TYPE}`);
  if (body.scope === undefined) throw missing('scope', 'scope is required: the scopes to add');
  const asked = scopes(body.scope);
  if (!asked.length) throw appError('INVALID_SCOPES', { invalidScopes: [] }, 'scope is empty: name the scopes to add');
  if (!client.canGrant) {
    throw appError('INVALID_SCOPES', { invalidScopes: asked }, 'This client may not use the token-exchange grant (it is not registered with canGrant)');
  }
  if (!HEX64.test(body.subject_token)) throw appError('REFRESH_TOKEN_UNKNOWN');
  const hash = hashToken(body.subject_token.toLowerCase());
  const token = await findRefreshToken(deps.db, hash);
  // A subject token already exchanged (or rotated) is a copy: its grant ends; the answer stays "unknown".
  if (!token) await deps.revokeIfReused(hash);
  // Another client's token is as unknown as a revoked or expired one: nothing tells them apart.
  if (!token || token.clientId !== client.id || (token.expiresAt !== 0 && token.expiresAt <= now)) throw appError('REFRESH_TOKEN_UNKNOWN');
  checkAllowed(client, asked);
  const gained = asked.filter((s) => !token.scope.includes(s));
  const keyBearing = gained.filter((s) => deps.keyBearingScopes.includes(s));
  if (keyBearing.length) {
    throw appError('INVALID_SCOPES', { invalidScopes: keyBearing },
      `Scopes that carry a scoped key cannot be gained by a token exchange, only through a sign-in: ${keyBearing.join(' ')}`);
  }
  await deps.checkHolder(token);
  const scope = [...token.scope, ...gained];
  const subject = deps.subjectOf(token.uid);
  const issued = await deps.db.transaction().execute(async (trx) => {
    // The subject token goes first: a concurrent exchange of it finds nothing to delete and loses.
    if (!(await deleteRefreshToken(trx, hash))) return null;
    await retireRefreshToken(trx, token, now);
    const refreshToken = randomHex(32);
    await insertRefreshToken(trx, { ...token, tokenHash: hashToken(refreshToken), scope, createdAt: now, lastUsedAt: now });
    // The successor keeps the grant id: revoking it later ends this access token and the earlier ones.
    const accessToken = await deps.mint(trx, { uid: token.uid, subject, scope, grantId: token.grantId, amr: token.amr, aal: token.aal });
    return { accessToken, refreshToken };
  });
  if (!issued) {
    // Lost a race with another exchange or rotation of the same token: a reuse too.
    await deps.revokeIfReused(hash);
    throw appError('REFRESH_TOKEN_UNKNOWN');
  }
  return { grant: { ...token, scope, subject }, ...issued };
}
