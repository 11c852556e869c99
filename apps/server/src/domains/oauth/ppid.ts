import { createHmac, hkdfSync } from 'node:crypto';
import { appError } from '@tessera/errors';
import { revealsUid } from './clients/registration.js';
import type { OAuthClient } from './clients/store.js';

// Pairwise subject identifiers (OpenID Connect Core §8.1; protocol.md §8.1): a client registered
// with pairwiseSubjects sees, instead of the account's uid, an id derived from the client, the uid,
// the relying party's ppid_seed and, for rotating clients, the current period. Two clients cannot
// link their ids, and a client cannot go from its id back to the uid without the server secret.

export const PPID_INFO = 'identity.mozilla.com/picl/v1/oidc ppid sub';
export const MAX_PPID_SEED = 1024;

/**
 * hex(HKDF-SHA256(ikm = clientId "." uid "." seed "." rotation, salt = secret, info = PPID_INFO, 16 bytes)):
 * 32 hex characters, the length of a uid.
 */
export function pairwiseId(secret: string, clientId: string, uid: string, seed: number, rotation: number): string {
  const ikm = Buffer.from(`${clientId.toLowerCase()}.${uid.toLowerCase()}.${seed}.${rotation}`, 'utf8');
  return Buffer.from(hkdfSync('sha256', ikm, Buffer.from(secret, 'utf8'), Buffer.from(PPID_INFO, 'utf8'), 16)).toString('hex');
}

/** The `sub` the client is shown at time `now` (ms): its pairwise id for the account, or the uid. */
export function subjectFor(secret: string, client: Pick<OAuthClient, 'id' | 'pairwiseSubjects' | 'pairwiseRotationSeconds'>, uid: string, seed: number, now: number): string {
  if (!client.pairwiseSubjects) return uid;
  const rotation = client.pairwiseRotationSeconds ? Math.floor(now / (client.pairwiseRotationSeconds * 1000)) : 0;
  return pairwiseId(secret, client.id, uid, seed, rotation);
}

/**
 * A pairwise client must not get a scope that shows the account's uid (GET /profile answers `uid`
 * to `profile` and `profile:uid`): that would undo the pairwise subject.
 */
export function checkPairwiseScopes(client: Pick<OAuthClient, 'pairwiseSubjects'>, scope: string[]): void {
  if (!client.pairwiseSubjects) return;
  const revealing = scope.filter(revealsUid);
  if (revealing.length) {
    throw appError('INVALID_SCOPES', { invalidScopes: revealing }, `This client gets pairwise subject identifiers: ${revealing.join(' ')} would show it the account's uid`);
  }
}

export const PPID_MARKER_INFO = 'tessera oauth pairwise marker';

/**
 * What a pairwise client is shown instead of an account timestamp (`generation`,
 * `profile_changed_at`, `profileChangedAt`, …): a millisecond time is the same at every client, so
 * two of them could link their pairwise ids by it (issue 22, hole 7). The marker is HMAC-SHA256
 * (key: OAUTH_PPID_SECRET) of the field's name, the client's pairwise subject and the value, cut
 * to 48 bits (a safe integer): the same while the value stays the same, another when it changes,
 * different at every client (and for every seed and rotation period), and no longer a time — it
 * tells that something changed, not when, and does not grow.
 */
export function pairwiseMarker(secret: string, subject: string, field: string, value: number): number {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${PPID_MARKER_INFO}.${field}.${subject}.${value}`, 'utf8').digest().readUIntBE(0, 6);
}

/**
 * An account timestamp as an access token's client may see it: the time itself, or for a pairwise
 * client (whose tokens carry a subject other than the uid) its marker. Null stays null. Every route
 * that answers an account time to an access token goes through this, with the field's name, so the
 * same field gives the same marker wherever the client reads it.
 */
export function timestampShownTo<V extends number | null>(secret: string, token: { uid: string; subject: string }, field: string, value: V): V {
  if (value === null || token.subject === token.uid) return value;
  return pairwiseMarker(secret, token.subject, field, value) as V;
}
