import type { Kysely } from 'kysely';
import type { AccountChange, AccountLifecycle, PasswordChangeKeep } from '../../domain.js';
import { normalizeEmail } from '../../email-address.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Executor, Trx } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import { appError } from '@tessera/errors';
import {
  codeFailures, recordCodeFailure,
  deleteAccountCoreRows, deleteStaleClaim, type CodeBudgetTable, findAccount, findAccountByEmail, insertAccount, insertEmail, listEmails, markEmailVerified,
  setStubClient, stubClientOf, updatePassword, type Account, type EmailRecord, type PasswordFields,
} from './store.js';

// The account core as other domains see it: reading and writing account rows, and the
// account-wide events (deletion, password change, reset) that every domain's hooks follow.

/**
 * How many wrong codes an account may see in a window (issue 9, hole 3), in two budgets (issue 22,
 * hole 2): `owner`, the codes of the owner's own confirmations and second factor (sign-in and
 * sign-up codes, TOTP, backup codes, the recovery phone, MFA step-up and secondary-address codes);
 * and `reset`, every code tried during a password reset: the reset codes, which anyone who names
 * the address can try, and the second factor tried with a forgot token, which the mailbox alone
 * gets. Spending `reset` never stops the owner's sign-in.
 */
export interface CodeBudget {
  maxFailures: number;
  resetMaxFailures: number;
  windowMs: number;
}

export type CodeBudgetKind = 'owner' | 'reset';

const BUDGET_TABLES: Record<CodeBudgetKind, CodeBudgetTable> = { owner: 'account_code_failures', reset: 'account_reset_code_failures' };

export class AccountRecords {
  constructor(private readonly deps: { db: Kysely<Database>; lifecycle: AccountLifecycle; codeBudget: CodeBudget }) {}

  /**
   * Refuses every code check of an account that spent its budget of wrong codes (`owner` unless
   * said) in the current window (429/114 with retryAfter): resends, new sessions and new reset
   * tokens do not reset it.
   */
  async checkCodeBudget(db: Executor, uid: string, now: number, kind: CodeBudgetKind = 'owner'): Promise<void> {
    const { windowMs } = this.deps.codeBudget;
    const maxFailures = kind === 'reset' ? this.deps.codeBudget.resetMaxFailures : this.deps.codeBudget.maxFailures;
    const spent = await codeFailures(db, BUDGET_TABLES[kind], uid, now - windowMs);
    if (spent && spent.failures >= maxFailures) {
      const retryAfter = Math.max(1, Math.ceil((spent.windowStartedAt + windowMs - now) / 1000));
      throw appError('THROTTLED', { retryAfter }, kind === 'reset'
        ? 'Too many wrong password-reset codes for this account: wait retryAfter seconds (signing in is not affected)'
        : 'Too many wrong codes for this account: wait retryAfter seconds');
    }
  }

  /** Counts one wrong code against the account's budget (`owner` unless said). */
  recordCodeFailure(db: Executor, uid: string, now: number, kind: CodeBudgetKind = 'owner'): Promise<void> {
    return recordCodeFailure(db, BUDGET_TABLES[kind], uid, now, now - this.deps.codeBudget.windowMs);
  }

  find(db: Executor, uid: string): Promise<Account | null> {
    return findAccount(db, uid);
  }

  /** The account owning an address, and that address's record (primary or not). */
  findByEmail(db: Executor, email: string): Promise<{ account: Account; emailRecord: EmailRecord } | null> {
    return findAccountByEmail(db, email);
  }

  listEmails(db: Executor, uid: string): Promise<EmailRecord[]> {
    return listEmails(db, uid);
  }

  /**
   * A new account with `account.email` as its primary, unconfirmed address, and whatever `with` adds
   * in the same transaction (its first session, an access token). Losing the race for the address
   * to another request is 101.
   */
  async create<T>(account: Account, more: (trx: Trx) => Promise<T>): Promise<T> {
    try {
      return await this.deps.db.transaction().execute(async (trx) => {
        await insertAccount(trx, account);
        await insertEmail(trx, {
          email: account.email, normalizedEmail: normalizeEmail(account.email), uid: account.uid, emailCode: account.emailCode,
          isVerified: false, isPrimary: true, verifiedAt: null, createdAt: account.createdAt,
        });
        return more(trx);
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw appError('ACCOUNT_EXISTS', { email: account.email });
      throw err;
    }
  }

  /**
   * Frees an address held by another account's unconfirmed secondary claim made at or before
   * `createdBefore` (the claim expired); true when one was removed.
   */
  releaseStaleClaim(db: Executor, email: string, createdBefore: number): Promise<boolean> {
    return deleteStaleClaim(db, normalizeEmail(email), createdBefore);
  }

  /**
   * Marks the primary address verified; false when it already was. When it changes, the other
   * domains hear of it (`state`: the account's devices re-check it) in the same transaction.
   */
  async markEmailVerified(trx: Trx, uid: string, now: number): Promise<boolean> {
    const changed = await markEmailVerified(trx, uid, now);
    if (changed) await this.deps.lifecycle.accountChanged(trx, uid, 'state');
    return changed;
  }

  /** Writes new password fields; with `onlyIfUnset`, only on an account that has no password yet. */
  updatePassword(db: Executor, uid: string, fields: PasswordFields, options: { onlyIfUnset?: boolean } = {}): Promise<boolean> {
    return updatePassword(db, uid, fields, options);
  }

  /** Records which OAuth client created the account as a stub (issue 9, hole 10). */
  setStubClient(db: Executor, uid: string, clientId: string): Promise<void> {
    return setStubClient(db, uid, clientId);
  }

  /** The OAuth client that created the account as a stub; null for sign-ups (and stubs older than that record). */
  stubClientOf(db: Executor, uid: string): Promise<string | null> {
    return stubClientOf(db, uid);
  }

  /** Deletes the account: every domain's rows (their hooks), then its own, in one transaction. */
  async deleteAccount(uid: string, trx?: Trx): Promise<void> {
    const run = async (t: Trx) => {
      await this.deps.lifecycle.accountDeleted(t, uid);
      await deleteAccountCoreRows(t, uid);
    };
    await (trx ? run(trx) : this.deps.db.transaction().execute(run));
  }

  /** A password change finished: other domains end what the old password granted. */
  passwordChanged(trx: Trx, uid: string, keep: PasswordChangeKeep): Promise<void> {
    return this.deps.lifecycle.passwordChanged(trx, uid, keep);
  }

  /** A change of primary address: other domains drop what they mailed to the old one (the accounts domain its unblock code). */
  primaryEmailChanged(trx: Trx, uid: string): Promise<void> {
    return this.deps.lifecycle.primaryEmailChanged(trx, uid);
  }

  /** A password reset: other domains end every session, token and grant of the account. */
  passwordReset(trx: Trx, uid: string): Promise<void> {
    return this.deps.lifecycle.passwordReset(trx, uid);
  }

  /**
   * Something relying parties show or check changed (`AccountChange` in domain.ts): the other
   * domains hear of it inside the caller's transaction; the devices domain pushes it to the
   * account's devices. E.g. a new primary address: `await records.accountChanged(trx, uid, 'profile')`.
   */
  accountChanged(trx: Trx, uid: string, change: AccountChange): Promise<void> {
    return this.deps.lifecycle.accountChanged(trx, uid, change);
  }
}
