import { createHmac, randomInt } from 'node:crypto';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Database } from '../../storage/schema.js';
import { describeDevice, parseUserAgent } from '../sessions/index.js';
import type { Account, AccountRecords } from '../account-core/index.js';
import { hasUnblockCode, renewUnblockCode, replaceUnblockCode, takeUnblockCode } from './unblock-store.js';

// Unblock codes (protocol.md §4.4): when rate limiting blocks a sign-in, the account's owner can
// have an 8-character code mailed and sign in with it. The code proves the mailbox, so a sign-in
// with it needs no further confirmation; it lifts blocks (never bans) of that client and account.

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export const UNBLOCK_CODE_LENGTH = 8;

/** Who may lift rate-limit blocks: provided by the customs domain. */
export interface LoginBlocks {
  unblock(subject: { ip: string; email?: string; uid?: string }): Promise<void>;
}

export interface UnblockCodesDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  blocks: LoginBlocks;
  secret: string;
  lifetimeMs: number;
}

export class UnblockCodes {
  private readonly key: Buffer;

  constructor(private readonly deps: UnblockCodesDeps) {
    // A key of its own, derived from the server secret: an unblock code's HMAC says nothing of other HMACs.
    this.key = createHmac('sha256', deps.secret).update('tessera unblock codes v1').digest();
  }

  private hash(uid: string, code: string): string {
    return createHmac('sha256', this.key).update(`${uid}:${code.toUpperCase()}`).digest('hex');
  }

  /**
   * POST /account/login/send_unblock_code: mails a new code (the old one stops working). When rate
   * limiting blocks the send (`blocked`: a cap on mails to the address, which anyone naming it can
   * spend), nothing is mailed and the answer is 429/114; but the last code mailed stays valid for
   * another lifetime, so a cap others spent never leaves the owner without a working code (issue 22).
   */
  async send(email: string, ctx: RequestContext, blocked: { retryAfterMs: number } | null = null): Promise<void> {
    const { db, clock, mailer, records } = this.deps;
    const found = await records.findByEmail(db, email);
    if (!found) throw appError('ACCOUNT_UNKNOWN', { email });
    if (!found.emailRecord.isPrimary) throw appError('LOGIN_WITH_SECONDARY_EMAIL');
    const account = found.account;
    if (account.disabledAt) throw appError('LOGIN_WITH_INVALID_EMAIL');
    const now = clock.now();
    if (blocked) {
      const kept = await renewUnblockCode(db, account.uid, now);
      const retryAfter = Math.max(1, Math.ceil(blocked.retryAfterMs / 1000));
      throw appError('THROTTLED', { retryAfter }, kept
        ? `Too many unblock codes sent to this address: no new one for ${retryAfter} seconds; the last unblock code mailed to it works for another ${Math.round(this.deps.lifetimeMs / 60_000)} minutes`
        : `Too many unblock codes sent to this address: retry after ${retryAfter} seconds`);
    }
    let code = '';
    for (let i = 0; i < UNBLOCK_CODE_LENGTH; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    await replaceUnblockCode(db, { uid: account.uid, codeHash: this.hash(account.uid, code), createdAt: now });
    await mailer.send('unblockCode', account.email, account.locale, {
      code, minutes: Math.round(this.deps.lifetimeMs / 60_000),
      device: describeDevice(parseUserAgent(ctx.userAgent)),
    });
  }

  /**
   * Whether `code` is the account's live code, without spending it. A sign-in asks this before it
   * checks the password, so a blocked sign-in does the same work whatever its password: neither
   * its answer (127 for both) nor its timing tells a wrong password from a right one.
   */
  async matches(account: Account, code: string): Promise<boolean> {
    return hasUnblockCode(this.deps.db, account.uid, this.hash(account.uid, code), this.deps.clock.now() - this.deps.lifetimeMs);
  }

  /**
   * Spends the account's code for a sign-in that brought the right password (the caller checked
   * it, after `matches`: a guess without the password reaches no code). A wrong, expired or
   * already spent code is 400/127, counted (through the route) on the client's unblockCodeFailed
   * limit; no account budget is spent, so the answer and its timing are the same as for a wrong
   * password. 8 characters of 36 leave nothing to guess within those limits. A right one lifts the
   * blocks on this client address and account.
   */
  async use(account: Account, code: string, matched: boolean, ctx: RequestContext): Promise<void> {
    const { db, clock, blocks } = this.deps;
    // One DELETE: of two sign-ins racing with one code, only one spends it.
    if (!matched || !(await takeUnblockCode(db, account.uid, this.hash(account.uid, code), clock.now() - this.deps.lifetimeMs))) {
      throw appError('INVALID_UNBLOCK_CODE');
    }
    await blocks.unblock({ ip: ctx.ip, email: account.email, uid: account.uid });
  }

  /** POST /account/login/reject_unblock_code: the owner says "not me"; the code stops working. */
  async reject(uid: string, code: string): Promise<void> {
    const { db } = this.deps;
    // The same answer whether or not the code was the account's: it tells a guesser nothing.
    await takeUnblockCode(db, uid, this.hash(uid, code), 0);
  }
}
