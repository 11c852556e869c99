import { createHash } from 'node:crypto';
import { appError } from '@tessera/errors';
import { constantTimeStringEqual } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import type { AccountRecords } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import { deleteRecoveryKey, enableRecoveryKey, findRecoveryKey, insertRecoveryKey, setRecoveryKeyHint, type RecoveryKey } from './store.js';

// Account recovery keys (protocol.md §4.8). The person's client makes the key, derives its
// fingerprint (recoveryKeyId) and encrypts kB under it (recoveryData); the server keeps the data
// and the fingerprint's hash. During a password reset the client presents the fingerprint to get
// the data back, opens it with the key, and resets with kB re-wrapped: kB survives the reset.
//
// A key counts once it is enabled: at creation (`enabled`, the default) or by /recoveryKey/verify.
// A pending key (enabled false) is invisible to /exists, GET /recoveryKey/{id} and the reset, and
// a new key replaces it without `replaceKey`.

export interface RecoveryKeysDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  securityEvents: SecurityEvents;
}

export interface NewRecoveryKey {
  recoveryKeyId: string;
  recoveryData: string;
  /** False: the key waits for /recoveryKey/verify (the client asks the person to type it back first). */
  enabled?: boolean | undefined;
  /** Replace the account's enabled key; without it an existing key is 161. */
  replaceKey?: boolean | undefined;
}

const utcTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

/**
 * The stored form of a fingerprint. Plain SHA-256, not an HMAC under the server secret: the
 * fingerprint is 128 bits of HKDF output (nothing to brute-force), and a key a person keeps for
 * years must not stop working when the server secret rotates.
 */
export function hashRecoveryKeyId(recoveryKeyId: string): string {
  return createHash('sha256').update(recoveryKeyId.toLowerCase(), 'utf8').digest('hex');
}

export class RecoveryKeysService {
  constructor(private readonly deps: RecoveryKeysDeps) {}

  /** Notices are informational: the change already happened, so a failed delivery is not an error. */
  private async notify(uid: string, template: 'recoveryKeyCreated' | 'recoveryKeyRemoved' | 'recoveryKeyUsed', now: number): Promise<void> {
    const account = await this.deps.records.find(this.deps.db, uid);
    if (!account) return;
    await this.deps.mailer.send(template, account.email, account.locale, { time: utcTime(now) }).catch(() => undefined);
  }

  /**
   * The account's enabled key if it is the one `recoveryKeyId` names: 158 when the account has no
   * (enabled) key, 159 when it has another. The comparison of hashes is constant-time.
   */
  async check(db: Executor, uid: string, recoveryKeyId: string): Promise<RecoveryKey> {
    const key = await findRecoveryKey(db, uid);
    if (!key || !key.enabled) throw appError('RECOVERY_KEY_NOT_FOUND');
    if (!constantTimeStringEqual(key.idHash, hashRecoveryKeyId(recoveryKeyId))) throw appError('RECOVERY_KEY_INVALID');
    return key;
  }

  /**
   * POST /recoveryKey (and, after merge, POST /mfa/recoveryKey): stores the key for `uid`, whichever
   * way the caller proved it may. An enabled key is replaced only with `replaceKey` (else 161).
   */
  async create(uid: string, input: NewRecoveryKey, ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    const enabled = input.enabled ?? true;
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      const existing = await findRecoveryKey(trx, uid);
      if (existing?.enabled && !input.replaceKey) throw appError('RECOVERY_KEY_EXISTS');
      // Only an existing row is deleted: a delete of a missing row takes gap locks on MySQL, and two
      // such creates would deadlock instead of one of them meeting the primary key.
      if (existing) await deleteRecoveryKey(trx, uid);
      await insertRecoveryKey(trx, {
        uid, idHash: hashRecoveryKeyId(input.recoveryKeyId), recoveryData: input.recoveryData,
        // A new key starts without a note: the old note described the old key.
        hint: null, enabled, createdAt: now, verifiedAt: enabled ? now : null,
      });
      if (enabled) await this.deps.securityEvents.record(trx, uid, { name: 'account.recovery_key_added', ctx, verified: true, ...(existing?.enabled ? { additionalInfo: { replaced: 'true' } } : {}) });
    }).catch((err: unknown) => {
      // Two creates racing for an account without a key: the loser's insert hits the primary key.
      if (isUniqueViolation(err)) throw appError('RECOVERY_KEY_EXISTS');
      throw err;
    });
    if (enabled) await this.notify(uid, 'recoveryKeyCreated', now);
  }

  /** DELETE /recoveryKey (and, after merge, DELETE /mfa/recoveryKey). Deleting no key is not an error. */
  async remove(uid: string, ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const removed = await db.transaction().execute(async (trx) => {
      const key = await findRecoveryKey(trx, uid);
      if (!(await deleteRecoveryKey(trx, uid))) return false;
      // A pending key was never announced, so its removal is not either.
      if (!key?.enabled) return false;
      await this.deps.securityEvents.record(trx, uid, { name: 'account.recovery_key_removed', ctx, verified: true });
      return true;
    });
    if (removed) await this.notify(uid, 'recoveryKeyRemoved', now);
  }

  /** POST /recoveryKey/verify: the person typed the key back; a pending key is enabled. */
  async verify(uid: string, recoveryKeyId: string, ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    const key = await findRecoveryKey(db, uid);
    if (!key) throw appError('RECOVERY_KEY_NOT_FOUND');
    const idHash = hashRecoveryKeyId(recoveryKeyId);
    if (!constantTimeStringEqual(key.idHash, idHash)) throw appError('RECOVERY_KEY_INVALID');
    if (key.enabled) return;
    const now = clock.now();
    const enabled = await db.transaction().execute(async (trx) => {
      if (!(await enableRecoveryKey(trx, uid, idHash, now))) throw appError('RECOVERY_KEY_NOT_FOUND');
      await this.deps.securityEvents.record(trx, uid, { name: 'account.recovery_key_added', ctx, verified: true });
      return true;
    });
    if (enabled) await this.notify(uid, 'recoveryKeyCreated', now);
  }

  /** POST /recoveryKey/hint: the person's note on where the key is kept; an empty hint clears it. */
  async setHint(uid: string, hint: string): Promise<void> {
    const text = hint.trim();
    if (!(await setRecoveryKeyHint(this.deps.db, uid, text))) throw appError('RECOVERY_KEY_NOT_FOUND');
  }

  /** POST /recoveryKey/exists for a signed-in session or a forgot token: whether a key counts, and its hint. */
  async exists(uid: string): Promise<{ exists: boolean; hint?: string }> {
    const key = await findRecoveryKey(this.deps.db, uid);
    if (!key?.enabled) return { exists: false };
    return { exists: true, ...(key.hint ? { hint: key.hint } : {}) };
  }

  /**
   * POST /recoveryKey/exists anonymously, by address. It answers only what a password reset by that
   * address could use: true for the confirmed primary address of an enabled account with an
   * enabled key; false for everything else (unknown, unconfirmed, secondary or disabled addresses
   * alike), never 102. No hint: that is for someone who proved the address. Both branches read the
   * same rows, so the answer's timing does not set an unknown address apart either.
   */
  async existsForEmail(email: string): Promise<{ exists: boolean }> {
    const { db, records } = this.deps;
    const found = await records.findByEmail(db, email);
    const usable = found !== null && found.emailRecord.isPrimary && found.account.emailVerified && found.account.disabledAt === null;
    const key = await findRecoveryKey(db, found?.account.uid ?? '0'.repeat(32));
    return { exists: usable && key !== null && key.enabled };
  }

  /** GET /recoveryKey/{recoveryKeyId} with an account reset token: the encrypted kB. */
  async recoveryData(uid: string, recoveryKeyId: string): Promise<{ recoveryData: string }> {
    const key = await this.check(this.deps.db, uid, recoveryKeyId);
    return { recoveryData: key.recoveryData };
  }

  /**
   * Inside the reset's transaction: spends the key the reset names (158/159 as `check`). The delete
   * is conditional, so of two resets racing with one key exactly one wins; the other's transaction
   * rolls back with 158 and changes nothing.
   */
  async spendForReset(trx: Executor, uid: string, recoveryKeyId: string): Promise<void> {
    const key = await this.check(trx, uid, recoveryKeyId);
    if (!(await deleteRecoveryKey(trx, uid, key.idHash))) throw appError('RECOVERY_KEY_NOT_FOUND');
  }

  /** After a reset that spent a key: the notice that replaces the plain "password reset" one. */
  async notifyUsed(uid: string, now: number): Promise<void> {
    await this.notify(uid, 'recoveryKeyUsed', now);
  }
}
