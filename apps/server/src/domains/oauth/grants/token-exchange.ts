import { appError } from '@tessera/errors';
import { randomHex } from '@tessera/protocol';
import { aalRefusal } from '../../sessions/index.js';
import { checkScopes, parseScope } from '../scopes.js';
import { hashToken, HEX64 } from '../token-hash.js';
import { grantOf, ttlSeconds, type GrantContext, type GrantRequest, type GrantType, type Issuance } from './grant.js';
import { deleteRefreshToken, findRefreshToken, insertRefreshToken, retireRefreshToken, type RefreshToken } from './store.js';

// The token-exchange grant (RFC 8693 in the shape protocol.md §5.15 gives it): a first-party client
// holding a refresh token gains more scopes without a new sign-in. The subject token is replaced,
// not kept: one transaction deletes it and inserts its successor with the union of the scopes, so
// of two exchanges racing on one token, only one finds it to delete.
//
// What a stolen refresh token can do with it is bounded on purpose: the thief must also pass the
// client's authentication — a confidential client's secret, or for a public client, which has none,
// the signed-in session of the same account at its AAL (checkHolder below; RFC 8693 §5) —
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

const missing = (key: string, message: string) => appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: [key], message } });

/**
 * Replaces the client's refresh token `subject_token` by a new one whose scope is the union of its
 * scope and `scope`, and issues an access token for that union.
 */
export const tokenExchangeGrant: GrantType = async (context, request) => {
  const { db, clock, issuer, reuse } = context;
  const { client, body, ctx } = request;
  const now = clock.now();
  const ttl = ttlSeconds(client, body.ttl);
  if (body.subject_token === undefined) throw missing('subject_token', 'subject_token is required: the refresh token to exchange');
  if (body.subject_token_type !== REFRESH_TOKEN_TYPE) throw missing('subject_token_type', `subject_token_type must be ${REFRESH_TOKEN_TYPE}`);
  if (body.scope === undefined) throw missing('scope', 'scope is required: the scopes to add');
  const asked = parseScope(body.scope);
  if (!asked.length) throw appError('INVALID_SCOPES', { invalidScopes: [] }, 'scope is empty: name the scopes to add');
  if (!client.canGrant) {
    throw appError('INVALID_SCOPES', { invalidScopes: asked }, 'This client may not use the token-exchange grant (it is not registered with canGrant)');
  }
  if (!HEX64.test(body.subject_token)) throw appError('REFRESH_TOKEN_UNKNOWN');
  const hash = hashToken(body.subject_token.toLowerCase());
  const token = await findRefreshToken(db, hash);
  // A subject token already exchanged (or rotated) is a copy: its grant ends; the answer stays "unknown".
  if (!token) await reuse.revokeIfReused(hash, ctx);
  // Another client's token is as unknown as a revoked or expired one: nothing tells them apart.
  if (!token || token.clientId !== client.id || (token.expiresAt !== 0 && token.expiresAt <= now)) throw appError('REFRESH_TOKEN_UNKNOWN');
  const gained = gainedScopes(context, request, token, asked);
  await checkHolder(context, request, token);
  const scope = [...token.scope, ...gained];
  const subject = issuer.subject(client, token.uid, body.ppid_seed ?? 0, now);
  // The successor keeps the grant id: revoking it later ends this access token and the earlier ones.
  const issuance: Issuance = { grant: { ...grantOf(token, token.grantId), scope }, subject, resource: body.resource, nonce: null, ttl, now };
  const issued = await db.transaction().execute(async (trx) => {
    // The subject token goes first: a concurrent exchange of it finds nothing to delete and loses.
    if (!(await deleteRefreshToken(trx, hash))) return null;
    await retireRefreshToken(trx, token, now);
    const refreshToken = randomHex(32);
    await insertRefreshToken(trx, { ...token, tokenHash: hashToken(refreshToken), scope, createdAt: now, lastUsedAt: now });
    const { token: accessToken } = await issuer.accessToken(trx, client, issuance);
    return { accessToken, refreshToken };
  });
  if (!issued) {
    // Lost a race with another exchange or rotation of the same token: a reuse too.
    await reuse.revokeIfReused(hash, ctx);
    throw appError('REFRESH_TOKEN_UNKNOWN');
  }
  await reuse.pruneRetired(now);
  return { ...(await issuer.issueTokens(issuance, client, issued)), issuedTokenType: ACCESS_TOKEN_TYPE };
};

/** The asked scopes the token lacks: each one the client is allowed, none carrying a scoped key (400/163). */
function gainedScopes({ keyBearingScopes }: GrantContext, { client }: GrantRequest, token: RefreshToken, asked: string[]): string[] {
  checkScopes(client, asked);
  const gained = asked.filter((s) => !token.scope.includes(s));
  const keyBearing = gained.filter((s) => keyBearingScopes.includes(s));
  if (keyBearing.length) {
    throw appError('INVALID_SCOPES', { invalidScopes: keyBearing },
      `Scopes that carry a scoped key cannot be gained by a token exchange, only through a sign-in: ${keyBearing.join(' ')}`);
  }
  return gained;
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
async function checkHolder({ db, secondFactor }: GrantContext, { client, session }: GrantRequest, token: RefreshToken): Promise<void> {
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
  if (token.aal < 2 && await secondFactor.required(db, token.uid)) {
    throw appError('INSUFFICIENT_AAL', {}, 'This grant was made without a second factor and the account now has two-step authentication: a token exchange cannot widen it; authorize again with a session confirmed by the second factor');
  }
}
