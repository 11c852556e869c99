import { appError } from '@tessera/errors';
import { constantTimeStringEqual } from '@tessera/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { FlowContext, RequestContext } from '../../platform/request-context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Database } from '../../storage/schema.js';
import type { Account, AccountRecords } from '../account-core/index.js';
import type { SigninConfirmations } from '../accounts/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import { deliveryOf, describeDevice, type Session, type SessionsService } from '../sessions/index.js';

// Confirmation loops by email: the sign-up loop (confirms the address and the first session) and
// the sign-in loop (confirms one new session). Each comes as a link or as a 6-digit code.

export interface ConfirmationDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  sessions: SessionsService;
  /** Records confirmed addresses and sign-ins. */
  securityEvents: SecurityEvents;
  secret: string;
  codeLifetimeMs: number;
  codeTries: number;
  /** Wrong codes a session may see across resends before it ends. */
  codeFailuresPerSession: number;
  /** Builds the link of the auth server's /verify_email page. */
  verifyLink(params: Record<string, string | undefined>): string;
}

function minutes(ms: number): number {
  return Math.round(ms / 60000);
}

/** Issue 22: what a session waiting for the second factor is answered when it asks for email. */
function secondFactorRequired() {
  return appError('INSUFFICIENT_AAL', {},
    'This sign-in waits for the second factor (two-step authentication is on): confirm it with a code from the authenticator app (POST /session/verify/totp), a backup code (POST /session/verify/recoveryCode) or the recovery phone; email does not confirm it');
}

export class Confirmations implements SigninConfirmations {
  constructor(private readonly deps: ConfirmationDeps) {}

  /** A fresh 6-digit code for the session, valid for the configured time and tries. */
  private issueCode(sessionId: string): Promise<string> {
    const { deps } = this;
    return deps.sessions.issueCode(deps.db, {
      secret: deps.secret, sessionId, now: deps.clock.now(), lifetimeMs: deps.codeLifetimeMs, tries: deps.codeTries,
    });
  }

  /**
   * Issue 22: a session waiting for the second factor is refused (222) whatever asks to send it a
   * code or confirm it by one. Its account's two-step state is read now, not from the request's
   * cached session. A sign-up (the address unconfirmed) still proves the address by email; the
   * session itself is then still left to the second factor (the store's condition).
   */
  private async refuseIfAwaitingSecondFactor(session: Session): Promise<void> {
    if (session.tokenVerificationId === null) return;
    const current = await this.deps.sessions.findWithAccount(this.deps.db, session.id);
    if (current?.account.emailVerified && this.deps.sessions.awaitsSecondFactor(current)) throw secondFactorRequired();
  }

  /**
   * The session's confirmation code for another channel (a push to the account's other devices):
   * a fresh one, replacing any emailed before; /session/verify_code and /session/verify/verify_push
   * check it alike. 222 for a session waiting for the second factor: another device's code is no
   * second factor.
   */
  async codeForSession(session: Session): Promise<string> {
    await this.refuseIfAwaitingSecondFactor(session);
    return this.issueCode(session.id);
  }

  /** Sign-up loop: confirms the address and the session waiting on it. */
  async sendSignup(account: Account, session: Session, method: string | undefined, ctx: FlowContext): Promise<void> {
    const { deps } = this;
    if (deliveryOf(method) === 'code') {
      const code = await this.issueCode(session.id);
      await deps.mailer.send('verifyShortCode', account.email, account.locale, { code, minutes: minutes(deps.codeLifetimeMs) });
      return;
    }
    const link = deps.verifyLink({ uid: account.uid, code: account.emailCode, service: ctx.service, redirectTo: ctx.redirectTo, resume: ctx.resume });
    await deps.mailer.send('verify', account.email, account.locale, { link, code: account.emailCode });
  }

  /** Sign-in loop: confirms one session of an account whose address is already confirmed. */
  async sendSignin(account: Account, session: Session, method: string | undefined, ctx: FlowContext): Promise<void> {
    const { deps } = this;
    const device = describeDevice(session.ua);
    if (deliveryOf(method) === 'code') {
      const code = await this.issueCode(session.id);
      await deps.mailer.send('verifyLoginCode', account.email, account.locale, { code, minutes: minutes(deps.codeLifetimeMs), device });
      return;
    }
    const code = session.tokenVerificationId!;
    const link = deps.verifyLink({ uid: account.uid, code, service: ctx.service, redirectTo: ctx.redirectTo, resume: ctx.resume });
    await deps.mailer.send('verifyLogin', account.email, account.locale, { link, code, device });
  }

  /** Sends whichever loop the session is waiting on. */
  async sendFor(account: Account, session: Session, method: string | undefined, ctx: FlowContext): Promise<void> {
    if (!account.emailVerified) return this.sendSignup(account, session, method, ctx);
    if (session.tokenVerificationId) return this.sendSignin(account, session, method, ctx);
  }

  async sendNewSigninNotice(account: Account, session: Session): Promise<void> {
    const time = new Date(this.deps.clock.now()).toISOString().replace('T', ' ').slice(0, 16);
    await this.deps.mailer.send('newDeviceLogin', account.email, account.locale, { device: describeDevice(session.ua), time });
  }

  private async accountOf(session: Session): Promise<Account> {
    const account = await this.deps.records.find(this.deps.db, session.uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    return account;
  }

  /**
   * `POST /session/resend_code`: a fresh code for whatever the session is waiting on; 222 for a
   * sign-in waiting for the second factor.
   */
  async resendCode(session: Session, ctx: FlowContext): Promise<void> {
    await this.refuseIfAwaitingSecondFactor(session);
    await this.sendFor(await this.accountOf(session), session, 'email-otp', ctx);
  }

  /**
   * `POST /recovery_email/resend_code`: the link email again for whatever the session is waiting
   * on. An `email` naming an address that is not the account's gets 150; a sign-in waiting for the
   * second factor, 222.
   */
  async resendLink(session: Session, email: string | undefined, ctx: FlowContext): Promise<void> {
    const account = await this.accountOf(session);
    if (email !== undefined && email.toLowerCase() !== account.email.toLowerCase()) throw appError('RESEND_EMAIL_CODE_TO_UNOWNED_EMAIL');
    await this.refuseIfAwaitingSecondFactor(session);
    await this.sendFor(account, session, 'email', ctx);
  }

  /** `POST /session/verify_code`, then the sign-in notice (informational: a delivery failure is only logged). */
  async confirmSession(session: Session, code: string, ctx: RequestContext, onNoticeFailure: (err: unknown) => void): Promise<void> {
    const account = await this.accountOf(session);
    const { notice } = await this.verifySessionCode(session, account, code, ctx);
    if (notice) await this.sendNewSigninNotice(account, session).catch(onNoticeFailure);
  }

  /**
   * `POST /session/verify_code`: a 6-digit code confirms this session, and the address too when
   * the session was waiting on sign-up. Wrong → 183, expired → 153, no code left → 183; a sign-in
   * waiting for the second factor → 222, before any code is checked or try spent.
   */
  async verifySessionCode(session: Session, account: Account, code: string, ctx: RequestContext): Promise<{ notice: boolean }> {
    const { db, clock, secret, records, sessions, securityEvents } = this.deps;
    if (!session.tokenVerificationId && account.emailVerified) return { notice: false };
    await this.refuseIfAwaitingSecondFactor(session);
    const now = clock.now();
    await records.checkCodeBudget(db, account.uid, now);
    const result = await sessions.checkCode(db, { secret, uid: session.uid, sessionId: session.id, code, now, maxFailures: this.deps.codeFailuresPerSession });
    if (result === 'expired') throw appError('EXPIRED_TOKEN_VERIFICATION_CODE');
    if (result === 'none') throw appError('INVALID_EXPIRED_OTP_CODE', {}, 'Invalid or expired confirmation code: request a new code');
    if (result === 'wrong' || result === 'spent') await records.recordCodeFailure(db, account.uid, now);
    if (result === 'wrong') throw appError('INVALID_EXPIRED_OTP_CODE');
    if (result === 'spent') throw appError('INVALID_TOKEN', { detail: 'Too many wrong codes: this session has ended; sign in again' });
    const signup = !account.emailVerified;
    await db.transaction().execute(async (trx) => {
      // Either change is pushed to the account's devices (the address's by markEmailVerified); a
      // session a racing request confirmed first is not pushed twice.
      if (signup) await records.markEmailVerified(trx, account.uid, now);
      const confirmed = await sessions.markVerified(trx, session.id, 'email-2fa', now);
      // Not confirmed and still waiting: two-step was turned on since the check above.
      if (!signup && !confirmed && (await sessions.find(trx, session.id))?.tokenVerificationId) throw secondFactorRequired();
      if (!signup && confirmed) await records.accountChanged(trx, account.uid, 'state');
      await sessions.clearCode(trx, session.id);
      await securityEvents.record(trx, account.uid, { name: signup ? 'account.email_verified' : 'account.login.confirmed', ctx, verified: true, additionalInfo: { method: 'code' } });
    });
    return { notice: !signup };
  }

  /**
   * What an emailed link would confirm, read without changing anything (the page shows it before the
   * person confirms): the sign-up of an address, or a sign-in with its device and time. Null when
   * the link confirms nothing (wrong, used or expired).
   */
  async describeLinkCode(uid: string, code: string): Promise<
    { kind: 'signup'; email: string } | { kind: 'signin'; email: string; device: string; at: number } | null
  > {
    const { db, records, sessions } = this.deps;
    const account = await records.find(db, uid);
    if (!account) return null;
    if (constantTimeStringEqual(code, account.emailCode)) return account.emailVerified ? null : { kind: 'signup', email: account.email };
    const [session] = await sessions.listAwaiting(db, uid, code);
    if (!session) return null;
    // A sign-in waiting for the second factor is not the link's to confirm (issue 22).
    const current = await sessions.findWithAccount(db, session.id);
    if (!current || sessions.awaitsSecondFactor(current)) return null;
    return { kind: 'signin', email: account.email, device: describeDevice(session.ua), at: session.createdAt };
  }

  /**
   * `POST /recovery_email/verify_code` (the emailed link): the account's emailCode confirms the
   * address and the session that signed up; a session's tokenVerificationId confirms that session.
   * On an account with two-step on no session is confirmed by a link (issue 22): a sign-in link
   * of a session still waiting answers 222 (it waits for the second factor), a sign-up link still
   * confirms the address.
   */
  async verifyLinkCode(uid: string, code: string, ctx: RequestContext, onNoticeFailure: (err: unknown) => void = () => undefined) {
    const { db, clock, records, sessions } = this.deps;
    const account = await records.find(db, uid);
    if (!account) throw appError('ACCOUNT_UNKNOWN');
    const now = clock.now();
    const isEmailCode = constantTimeStringEqual(code, account.emailCode);
    const waiting = isEmailCode ? [] : await sessions.listAwaiting(db, uid, code);
    let confirmed = 0;
    await db.transaction().execute(async (trx) => {
      const verifiedEmail = isEmailCode && (await records.markEmailVerified(trx, uid, now));
      confirmed = await sessions.markVerifiedByVerificationId(trx, uid, code, 'email', now);
      // None confirmed, yet some still wait on this code: they wait for the second factor.
      if (!isEmailCode && confirmed === 0 && waiting.length > 0 && (await sessions.listAwaiting(trx, uid, code)).length > 0) throw secondFactorRequired();
      if (confirmed > 0 && !verifiedEmail) await records.accountChanged(trx, uid, 'state');
      if (verifiedEmail || confirmed > 0) {
        await this.deps.securityEvents.record(trx, uid, { name: verifiedEmail ? 'account.email_verified' : 'account.login.confirmed', ctx, verified: true, additionalInfo: { method: 'link' } });
      }
    });
    if (!isEmailCode && confirmed === 0) throw appError('INVALID_VERIFICATION_CODE');
    // A sign-in confirmed by link gets the same notice as one confirmed by code.
    for (const session of waiting) await this.sendNewSigninNotice(account, session).catch(onNoticeFailure);
    return { account, confirmedSession: confirmed > 0, signup: isEmailCode };
  }
}

