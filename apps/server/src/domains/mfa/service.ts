import { createHmac } from 'node:crypto';
import { appError } from '@tessera/errors';
import { constantTimeStringEqual } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { randomDigits } from '../../crypto/random.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Database } from '../../storage/schema.js';
import type { AccountRecords } from '../account-core/index.js';
import { sessionAal, type Session, type SessionsService, type SessionWithAccount } from '../sessions/index.js';
import { MfaTokenRefused, type MfaAction, type MfaJwt } from './jwt.js';
import { countFailure, findOtp, putOtp, spendTry, takeCode } from './store.js';

// The MFA step-up (protocol.md §4.10): a verified session asks for a 6-digit code for one
// protected action; the emailed code, sent back from the same session, becomes a short-lived JWT
// whose scope names that action. Routes under /mfa require the scope of their action.
//
// The incumbent derives its codes statelessly (TOTP over "<uid>-<emailCode>-<session>-<action>",
// step 300 s, window 1), which cannot make a code single-use or count wrong tries. Tessera stores
// each code as an HMAC bound to the session and action instead: used once, a few tries each, and
// a count of wrong codes per session and action that a new code does not reset.

export interface MfaDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  sessions: SessionsService;
  jwt: MfaJwt;
  /** Key of the codes' HMAC (the server secret). */
  secret: string;
  otp: { lifetimeMs: number; tries: number; failuresPerSession: number };
  /** Two-step authentication (issue 12): a token's session must stay at the account's AAL. */
  twoStep: { isEnabled(uid: string): Promise<boolean> };
}

/** What the `mfa` strategy puts on a request: who, from which session, allowed to do what. */
export interface MfaCredentials {
  uid: string;
  /** The session the code was sent to, still alive (its handle is `session.id`). */
  session: Session;
  scopes: string[];
  /** The account's primary address (rate limits count per address). */
  account: { email: string; locale: string | null };
}

export class MfaService {
  constructor(private readonly deps: MfaDeps) {}

  private codeHash(sessionId: string, action: MfaAction, code: string): string {
    return createHmac('sha256', this.deps.secret).update(`mfa-otp:${sessionId}:${action}:${code}`).digest('hex');
  }

  /** POST /mfa/otp/request: a new code for the session and action (the previous one stops working). */
  async requestCode(session: SessionWithAccount, action: MfaAction): Promise<void> {
    const { db, clock, mailer, otp } = this.deps;
    const code = randomDigits(6);
    const now = clock.now();
    await putOtp(db, {
      sessionId: session.id, action, uid: session.uid, codeHash: this.codeHash(session.id, action, code),
      expiresAt: now + otp.lifetimeMs, tries: otp.tries, now,
    });
    await mailer.send('mfaOtp', session.account.email, session.account.locale, { code, action, minutes: Math.round(otp.lifetimeMs / 60_000) });
  }

  /**
   * POST /mfa/otp/verify. One try is spent atomically before the code is compared, so parallel
   * guesses never share a try; the right code is then taken atomically, so of two requests racing
   * with it only one gets a token. Wrong codes count against the account's budget of wrong codes
   * of every kind (429 once spent) and against the session for this action: the wrong code that
   * reaches MFA_OTP_MAX_FAILURES_PER_SESSION ends the session.
   */
  async verifyCode(session: SessionWithAccount, action: MfaAction, code: string): Promise<{ accessToken: string }> {
    const { db, clock, records, sessions, jwt, otp } = this.deps;
    const now = clock.now();
    await records.checkCodeBudget(db, session.uid, now);
    const row = await findOtp(db, session.id, action);
    if (!row?.codeHash || row.expiresAt === null || row.tries <= 0) throw appError('INVALID_EXPIRED_OTP_CODE', {}, 'Invalid or expired confirmation code: request a new one with /mfa/otp/request');
    if (row.expiresAt <= now) throw appError('INVALID_EXPIRED_OTP_CODE', {}, 'Expired confirmation code: request a new one with /mfa/otp/request');
    if (!(await spendTry(db, session.id, action, row.codeHash))) throw appError('INVALID_EXPIRED_OTP_CODE');
    if (constantTimeStringEqual(row.codeHash, this.codeHash(session.id, action, code))) {
      if (!(await takeCode(db, session.id, action, row.codeHash))) throw appError('INVALID_EXPIRED_OTP_CODE', {}, 'Invalid confirmation code: it was already used');
      return { accessToken: await jwt.sign({ uid: session.uid, sessionId: session.id, scope: `mfa:${action}`, now }) };
    }
    await records.recordCodeFailure(db, session.uid, now);
    if (!(await countFailure(db, session.id, action, row.codeHash, otp.failuresPerSession))) {
      // Too many wrong codes from this session: whoever holds it must sign in again.
      await sessions.delete(db, session);
    }
    throw appError('INVALID_EXPIRED_OTP_CODE');
  }

  /**
   * The strategy's lookup: the token's claims, then its session, which must still exist and be
   * the subject's (a token outlives neither a sign-out nor a password change), on an account
   * that is not disabled. Throws MfaTokenRefused.
   */
  async authenticate(token: string, now: number): Promise<MfaCredentials> {
    const { db, sessions, records, jwt } = this.deps;
    const claims = await jwt.verify(token, now);
    const session = await sessions.find(db, claims.sessionId);
    if (!session || session.uid !== claims.uid || !(await sessions.isLive(session, now))) throw new MfaTokenRefused('its session has ended');
    const account = await records.find(db, claims.uid);
    if (!account || account.disabledAt !== null) throw new MfaTokenRefused('the account is gone or disabled');
    // A token acts for its session: once the account has two-step on, a session that never passed
    // the second factor (AAL1) no longer acts for it, whatever token it was given before.
    if (sessionAal(session) < 2 && (await this.deps.twoStep.isEnabled(claims.uid))) throw new MfaTokenRefused('its session has not passed the account\'s second factor');
    return { uid: claims.uid, session, scopes: claims.scopes, account: { email: account.email, locale: account.locale } };
  }
}
