import { hash } from 'node:crypto';
import { appError } from '@tessera/errors';
import { constantTimeStringEqual, randomHex } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../../storage/schema.js';
import { hashToken } from '../token-hash.js';
import { deleteAccessTokenByHash, grantIdOfAccessToken } from '../tokens/store.js';
import { grantOf, ttlSeconds, type GrantType, type Issuance, type TokenRequest } from './grant.js';
import { claimCode, deleteGrant, deleteRefreshToken, findCode, findRefreshToken, recordIssued, type AuthorizationCode } from './store.js';

// The authorization-code grant (RFC 6749 §4.1 with PKCE, RFC 7636, S256 only): a relying party
// trades the code POST /authorization gave it. A code is single use: its second use revokes what
// the first one issued.

const REPLAYED = 'Unknown authorization code: it has been used, and what it issued is revoked';

export const authorizationCodeGrant: GrantType = async ({ db, clock, issuer }, { client, body }) => {
  const now = clock.now();
  if (!body.code) throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['code'], message: 'code is required' } });
  const code = await findCode(db, hashToken(body.code));
  if (!code) throw appError('UNKNOWN_AUTHORIZATION_CODE');
  if (code.clientId !== client.id) throw appError('MISMATCH_AUTHORIZATION_CODE');
  if (code.usedAt !== null) {
    // A replayed code: someone else holds it. What it issued is revoked (RFC 6749 §4.1.2).
    await revokeIssued(db, code);
    throw appError('UNKNOWN_AUTHORIZATION_CODE', {}, REPLAYED);
  }
  if (code.expiresAt <= now) throw appError('EXPIRED_AUTHORIZATION_CODE');
  checkVerifier(code, body);
  if (code.redirectUri !== null && body.redirect_uri !== code.redirectUri) throw appError('INCORRECT_REDIRECT_URI', { redirectUri: body.redirect_uri ?? '' });
  const ttl = ttlSeconds(client, body.ttl);
  const subject = issuer.subject(client, code.uid, body.ppid_seed ?? code.ppidSeed ?? 0, now);
  const grant = grantOf(code, randomHex(16));
  const issuance: Issuance = { grant, subject, resource: body.resource, nonce: code.nonce, ttl, now, keysJwe: code.keysJwe ?? undefined };
  const issued = await db.transaction().execute(async (trx) => {
    if (!(await claimCode(trx, code.codeHash, now))) return null;
    const access = await issuer.accessToken(trx, client, issuance);
    const refreshToken = code.offline ? await issuer.refreshToken(trx, client, grant, now) : undefined;
    await recordIssued(trx, code.codeHash, access.hash, refreshToken ? hashToken(refreshToken) : null);
    return { accessToken: access.token, refreshToken };
  });
  if (!issued) {
    // Lost a race with another use of the same code: a replay too.
    const winner = await findCode(db, code.codeHash);
    if (winner) await revokeIssued(db, winner);
    throw appError('UNKNOWN_AUTHORIZATION_CODE', {}, REPLAYED);
  }
  return issuer.issueTokens(issuance, client, issued);
};

/** PKCE (RFC 7636 §4.6): the verifier hashes to the code's challenge; none is sent for a code without one. */
function checkVerifier(code: AuthorizationCode, body: Pick<TokenRequest, 'code_verifier'>): void {
  if (code.codeChallenge !== null) {
    if (body.code_verifier === undefined) throw appError('MISSING_PKCE_PARAMETERS', {}, 'code_verifier is required: the authorization request sent a code_challenge');
    const computed = hash('sha256', Buffer.from(body.code_verifier, 'latin1'), 'buffer').toString('base64url');
    if (!constantTimeStringEqual(computed, code.codeChallenge)) throw appError('INVALID_PKCE_CHALLENGE', {}, 'The code_verifier does not match the code_challenge');
  } else if (body.code_verifier !== undefined) {
    throw appError('INVALID_PKCE_CHALLENGE', {}, 'A code_verifier was sent for a code issued without a code_challenge');
  }
}

/** Everything the code's first use issued, and what later refreshes, rotations and exchanges of that grant issued. */
async function revokeIssued(db: Kysely<Database>, code: AuthorizationCode): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // The tokens first issued name the grant.
    const grantId = (code.issuedAccessHash ? await grantIdOfAccessToken(trx, code.issuedAccessHash) : null)
      ?? (code.issuedRefreshHash ? (await findRefreshToken(trx, code.issuedRefreshHash))?.grantId ?? null : null);
    if (code.issuedAccessHash) await deleteAccessTokenByHash(trx, code.issuedAccessHash);
    if (code.issuedRefreshHash) await deleteRefreshToken(trx, code.issuedRefreshHash);
    if (grantId) await deleteGrant(trx, code.uid, grantId);
  });
}
