import { createHmac, randomInt } from 'node:crypto';
import { appError } from '@tessera/errors';
import { constantTimeStringEqual, randomHex } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { normalizeEmail } from '../../email-address.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Database } from '../../storage/schema.js';
import type { Account, AccountRecords } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import { secondaryAddresses as store } from '../account-core/index.js';

// Secondary (recovery) addresses of an account (spec 1 §4 "Account emails", §7; protocol.md §5.9).
// An address is added unconfirmed and proven by a 6-digit code mailed to it; only a proven address
// can become the primary. Every method takes the account's uid and nothing of the request's auth:
// /recovery_email/* call it with a confirmed session, /mfa/recovery_email/* with an MFA token.

export interface SecondaryEmailsDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  securityEvents: SecurityEvents;
  /** Key of the codes' HMAC. */
  secret: string;
  /** How long an unconfirmed address holds its claim, and each code's lifetime (ms). */
  pendingMs: number;
  /** Wrong guesses per code. */
  codeTries: number;
  /** Wrong codes per address across resends; then the address is removed. */
  maxFailures: number;
  /** Where failures of informational notices go (the change stands without them). */
  warn: (message: string, err: unknown) => void;
}

export interface AddressView {
  email: string;
  verified: boolean;
  isPrimary: boolean;
}

const CODE_DIGITS = 6;

export class SecondaryEmails {
  constructor(private readonly deps: SecondaryEmailsDeps) {}

  private hash(uid: string, normalizedEmail: string, code: string): string {
    return createHmac('sha256', this.deps.secret).update(`secondary-email:${uid}:${normalizedEmail}:${code}`).digest('hex');
  }

  private newCode(uid: string, normalizedEmail: string): { code: string; hash: string; expiresAt: number; tries: number } {
    const code = String(randomInt(0, 10 ** CODE_DIGITS)).padStart(CODE_DIGITS, '0');
    return { code, hash: this.hash(uid, normalizedEmail, code), expiresAt: this.deps.clock.now() + this.deps.pendingMs, tries: this.deps.codeTries };
  }

  private async account(uid: string): Promise<Account> {
    const account = await this.deps.records.find(this.deps.db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    return account;
  }

  private sendCode(account: Account, to: string, code: string): Promise<void> {
    // To the address as stored (what the person typed when adding it), never a request's spelling.
    return this.deps.mailer.send('verifySecondaryCode', to, account.locale, { code, minutes: Math.round(this.deps.pendingMs / 60_000), primary: account.email });
  }

  private notify(account: Account, send: () => Promise<void>): Promise<void> {
    return send().catch((err) => this.deps.warn('secondary email notice not sent', err));
  }

  /** GET /recovery_emails: every address of the account, the primary first. */
  async list(uid: string): Promise<AddressView[]> {
    const rows = await store.listAddresses(this.deps.db, uid);
    return rows.map((r) => ({ email: r.email, verified: r.isVerified, isPrimary: r.isPrimary }));
  }

  /**
   * POST /recovery_email: adds `email` unconfirmed and mails it a code. Refused when it is this
   * account's primary (139) or already its secondary (136), another account's primary (140, or 141
   * while that account is unconfirmed) or confirmed secondary (144), or another account's pending
   * secondary whose claim has not expired yet (136). An expired claim is removed and the address
   * taken. If the code cannot be mailed the address is removed again and the error returned.
   */
  async add(uid: string, email: string, ctx: RequestContext): Promise<void> {
    const { db, clock, securityEvents, mailer } = this.deps;
    const account = await this.account(uid);
    const normalizedEmail = normalizeEmail(email);
    if (normalizedEmail === normalizeEmail(account.email)) throw appError('USER_PRIMARY_EMAIL_EXISTS');
    const now = clock.now();
    const holder = await store.findAddress(db, normalizedEmail);
    if (holder) await this.release(holder, uid, now);

    const code = this.newCode(uid, normalizedEmail);
    try {
      await db.transaction().execute(async (trx) => {
        await store.insertSecondary(trx, { uid, email, normalizedEmail, emailCode: randomHex(16), codeHash: code.hash, codeExpiresAt: code.expiresAt, codeTries: code.tries, now });
        await securityEvents.record(trx, uid, { name: 'account.secondary_email_added', ctx, verified: true });
      });
    } catch (err) {
      // Another request took the address between the read above and this INSERT.
      if (isUniqueViolation(err)) throw appError('EMAIL_EXISTS', {}, 'Email already exists: another account took this address first');
      throw err;
    }
    try {
      await this.sendCode(account, email, code.code);
    } catch (err) {
      await store.deleteSecondary(db, uid, normalizedEmail);
      throw err;
    }
    await this.notify(account, () => mailer.send('secondaryEmailAdded', account.email, account.locale, { secondary: email }));
  }

  /** Why `holder` keeps the address from this account; nothing (after removing it) when its claim expired. */
  private async release(holder: store.AddressRecord, uid: string, now: number): Promise<void> {
    if (holder.uid === uid) {
      throw appError('EMAIL_EXISTS', {}, holder.isVerified
        ? 'Email already exists: this address is already a secondary email of the account'
        : 'Email already exists: this address is waiting for its code; send it again with /recovery_email/secondary/resend_code');
    }
    if (holder.isPrimary) {
      const other = await this.deps.records.find(this.deps.db, holder.uid);
      throw appError(other?.emailVerified ? 'VERIFIED_PRIMARY_EMAIL_EXISTS' : 'UNVERIFIED_PRIMARY_EMAIL_EXISTS');
    }
    if (holder.isVerified) throw appError('VERIFIED_SECONDARY_EMAIL_EXISTS');
    if (await this.deps.records.releaseStaleClaim(this.deps.db, holder.normalizedEmail, now - this.deps.pendingMs)) return;
    throw appError('EMAIL_EXISTS', {}, 'Email already exists: another account is confirming this address; try again later');
  }

  /** The account's own secondary row for `email`, or null. */
  private async own(uid: string, email: string): Promise<store.AddressRecord | null> {
    const row = await store.findAddress(this.deps.db, normalizeEmail(email));
    return row && row.uid === uid ? row : null;
  }

  /**
   * POST /recovery_email/secondary/resend_code: a new code for the account's unconfirmed address
   * (the old one stops working; the address's failure count stays). 150 for an address that is not
   * one of the account's secondary addresses; nothing is sent for a confirmed one.
   */
  async resendCode(uid: string, email: string): Promise<void> {
    const row = await this.own(uid, email);
    if (!row || row.isPrimary) throw appError('RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL');
    if (row.isVerified) return;
    const code = this.newCode(uid, row.normalizedEmail);
    if (!(await store.replaceCode(this.deps.db, uid, row.normalizedEmail, code))) throw appError('RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL');
    await this.sendCode(await this.account(uid), row.email, code.code);
  }

  /**
   * POST /recovery_email/secondary/verify_code: confirms the address with its code. Each guess
   * spends a try first (183 when none is left or no code is pending, 153 when it expired); a
   * wrong code also counts against the address (at SECONDARY_EMAIL_MAX_FAILURES the address is
   * removed) and against the account's code budget (429/114 past it). 143 for an address that is
   * not one of the account's secondary addresses. A confirmed address answers {} again.
   */
  async verifyCode(uid: string, email: string, code: string, ctx: RequestContext): Promise<void> {
    const { db, clock, records, mailer, maxFailures } = this.deps;
    const row = await this.own(uid, email);
    if (!row || row.isPrimary) throw appError('SECONDARY_EMAIL_UNKNOWN');
    if (row.isVerified) return;
    const now = clock.now();
    await records.checkCodeBudget(db, uid, now);
    if (!(await store.spendTry(db, uid, row.normalizedEmail, now, maxFailures))) {
      if (row.codeHash !== null && row.codeExpiresAt !== null && row.codeExpiresAt <= now) throw appError('EXPIRED_TOKEN_VERIFICATION_CODE');
      throw appError('INVALID_EXPIRED_OTP_CODE', {}, 'Invalid or expired confirmation code: request a new code with /recovery_email/secondary/resend_code');
    }
    const hash = this.hash(uid, row.normalizedEmail, code);
    if (row.codeHash === null || !constantTimeStringEqual(hash, row.codeHash) || !(await this.confirm(uid, row, hash, now, ctx))) {
      await records.recordCodeFailure(db, uid, now);
      const failures = await store.recordFailure(db, uid, row.normalizedEmail);
      if (failures >= maxFailures) {
        await store.deleteSecondary(db, uid, row.normalizedEmail);
        throw appError('INVALID_EXPIRED_OTP_CODE', {}, 'Invalid confirmation code: too many wrong codes for this address, which was removed; add it again');
      }
      throw appError('INVALID_EXPIRED_OTP_CODE');
    }
    const account = await this.account(uid);
    await this.notify(account, () => mailer.send('secondaryEmailVerified', account.email, account.locale, { secondary: row.email }));
  }

  /** Marks the address confirmed if the code is still its pending one (single use under races). */
  private async confirm(uid: string, row: store.AddressRecord, hash: string, now: number, ctx: RequestContext): Promise<boolean> {
    return this.deps.db.transaction().execute(async (trx) => {
      if (!(await store.markVerified(trx, uid, row.normalizedEmail, hash, now))) return false;
      await this.deps.securityEvents.record(trx, uid, { name: 'account.secondary_email_verified', ctx, verified: true });
      return true;
    });
  }

  /** POST /recovery_email/destroy: removes a secondary address (137 for the primary, 143 for none of the account's). */
  async destroy(uid: string, email: string, ctx: RequestContext): Promise<void> {
    const { db, mailer } = this.deps;
    const row = await this.own(uid, email);
    if (!row) throw appError('SECONDARY_EMAIL_UNKNOWN');
    if (row.isPrimary) throw appError('EMAIL_DELETE_PRIMARY');
    const removed = await db.transaction().execute(async (trx) => {
      if (!(await store.deleteSecondary(trx, uid, row.normalizedEmail))) return false;
      await this.deps.securityEvents.record(trx, uid, { name: 'account.secondary_email_removed', ctx, verified: true });
      return true;
    });
    if (!removed) throw appError('SECONDARY_EMAIL_UNKNOWN');
    const account = await this.account(uid);
    await this.notify(account, () => mailer.send('secondaryEmailRemoved', account.email, account.locale, { secondary: row.email }));
  }

  /**
   * Removes another account's unconfirmed claim on `email`, whatever its age, for a sign-in whose
   * identity provider verified the address (issue 22, hole 8: linked accounts call this). The
   * claim's code went to that mailbox, so only the person the provider vouches for could have
   * finished it; keeping it would let anyone who knows the address hold it against its owner by
   * adding it again and again. The row is deleted only while still unconfirmed, with a security
   * event on the claimant's account, in one transaction. True when a claim was removed.
   */
  async releaseUnconfirmedClaim(email: string, ctx: RequestContext, reason: string): Promise<boolean> {
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await store.findAddress(trx, normalizeEmail(email));
      if (!row || row.isPrimary || row.isVerified) return false;
      if (!(await store.deleteUnconfirmedSecondary(trx, row.uid, row.normalizedEmail))) return false;
      await this.deps.securityEvents.record(trx, row.uid, { name: 'account.secondary_email_removed', ctx, verified: false, additionalInfo: { reason } });
      return true;
    });
  }

  /**
   * POST /recovery_email/set_primary: a confirmed secondary address becomes the primary (147 when
   * unconfirmed, 148 when not the account's); the old primary stays as a confirmed secondary. Sign-in
   * and mail follow the new primary at once. Reset codes, reset tokens and unblock codes mailed to
   * the old primary end (the lifecycle's onPrimaryEmailChanged). Both addresses get a notice.
   */
  async setPrimary(uid: string, email: string, ctx: RequestContext): Promise<void> {
    const { db, clock, records, mailer } = this.deps;
    const row = await this.own(uid, email);
    if (!row) throw appError('CHANGE_EMAIL_TO_UNOWNED_EMAIL');
    if (row.isPrimary) return;
    if (!row.isVerified) throw appError('CHANGE_EMAIL_TO_UNVERIFIED_EMAIL');
    const before = await this.account(uid);
    const now = clock.now();
    await db.transaction().execute(async (trx) => {
      // Removed (or the account changed) between the read and here: nothing is changed.
      if (!(await store.promote(trx, uid, row, now))) throw appError('CHANGE_EMAIL_TO_UNOWNED_EMAIL');
      await records.primaryEmailChanged(trx, uid);
      // The address relying parties show changed: the account's devices hear it (fxaccounts:profile_updated).
      await records.accountChanged(trx, uid, 'profile');
      await this.deps.securityEvents.record(trx, uid, { name: 'account.primary_email_changed', ctx, verified: true });
    });
    const data = { oldPrimary: before.email, newPrimary: row.email };
    await this.notify(before, () => mailer.send('primaryEmailChanged', before.email, before.locale, data));
    await this.notify(before, () => mailer.send('primaryEmailChanged', row.email, before.locale, data));
  }
}
