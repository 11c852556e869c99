import { createHmac } from 'node:crypto';
import { appError } from '@tessera/errors';
import { constantTimeStringEqual } from '@tessera/protocol';
import { randomDigits } from '../../crypto/random.js';
import type { FlowContext, RequestContext } from '../../platform/request-context.js';
import { passwordEmailOf, type Account } from '../account-core/index.js';
import type { PasswordForgotToken } from '../tokens/index.js';
import type { PasswordsDeps } from './service.js';
import { deleteForgotOtp, replaceForgotOtp, spendForgotOtpTry } from './store.js';

// A forgotten password (spec 1 §7, §4): a code by email with its forgot token, or a one-time code
// that the address's owner exchanges for one; the right code gives an accountResetToken. Each
// wrong code spends a try, and the account's reset budget.

export class ForgotPassword {
  constructor(private readonly deps: PasswordsDeps) {}

  // ---- code + token ---------------------------------------------------------------------------

  private hash(kind: string, key: string, code: string): string {
    return createHmac('sha256', this.deps.secret).update(`${kind}:${key}:${code}`).digest('hex');
  }

  /**
   * The account a reset may start for: primary address (else 145), not disabled, and confirmed
   * unless `unconfirmed` allows an account whose address was never confirmed (else 102).
   */
  private async accountForReset(email: string, allow: { unconfirmed?: boolean } = {}): Promise<Account> {
    const found = await this.deps.records.findByEmail(this.deps.db, email);
    // A disabled account cannot be taken back by a reset either.
    if (!found || (!found.account.emailVerified && !allow.unconfirmed) || found.account.disabledAt !== null) throw appError('ACCOUNT_UNKNOWN', { email });
    if (!found.emailRecord.isPrimary) throw appError('RESET_PASSWORD_WITH_SECONDARY_EMAIL');
    return found.account;
  }

  /**
   * A new forgot token and its code. `proven`: its holder already proved the address (the one-time
   * code of /password/forgot/verify_otp came by mail), so the token may reach what only the
   * address's owner may see and do: the recovery key's hint and the second factor (issue 22, hole 5).
   * A token of /password/forgot/send_code goes to whoever names the address: not proven.
   */
  private async issueForgotToken(account: Account, proven: boolean): Promise<{ data: string; token: PasswordForgotToken; code: string }> {
    const { db, clock, config } = this.deps;
    const code = randomDigits(config.passwordForgotCodeLength);
    const { data, token } = await this.deps.tokens.createPasswordForgotToken(db, {
      uid: account.uid, now: clock.now(), tries: config.passwordForgotTries, passcodeHash: (id) => this.hash('forgot', id, code), proven,
    });
    return { data, token, code };
  }

  private forgotReply(token: PasswordForgotToken) {
    const { clock, config } = this.deps;
    return {
      ttl: Math.max(0, Math.ceil((token.createdAt + config.passwordForgotLifetime * 1000 - clock.now()) / 1000)),
      codeLength: config.passwordForgotCodeLength,
      tries: token.tries,
    };
  }

  private async mailForgotCode(account: Account, data: string, code: string, ctx: FlowContext) {
    const link = this.deps.resetLink({ email: account.email, code, token: data, service: ctx.service, redirectTo: ctx.redirectTo, resume: ctx.resume });
    await this.deps.mailer.send('recoveryEmail', account.email, account.locale, { link, code, minutes: Math.round(this.deps.config.passwordForgotLifetime / 60) });
  }

  /**
   * POST /password/forgot/send_code: one forgot token per account; a new one voids the old. An
   * account whose address was never confirmed may reset too (issue 22, as the incumbent does): the
   * code goes to that address, so using it proves the mailbox, and the reset confirms the address.
   */
  async sendCode(email: string, ctx: FlowContext, request: RequestContext) {
    const account = await this.accountForReset(email, { unconfirmed: true });
    const { data, token, code } = await this.issueForgotToken(account, false);
    try {
      await this.mailForgotCode(account, data, code, ctx);
    } catch (err) {
      await this.deps.tokens.deletePasswordForgotToken(this.deps.db, token.id);
      throw err;
    }
    await this.deps.securityEvents.record(this.deps.db, account.uid, { name: 'account.password_reset_requested', ctx: request, verified: false, additionalInfo: { method: 'code' } });
    return { passwordForgotToken: data, ...this.forgotReply(token) };
  }

  /**
   * POST /password/forgot/resend_code: the same token, a new code. Its age and tries carry over,
   * so the reply's ttl and tries are what is left of them. The client keeps the token it has.
   */
  async resendCode(token: PasswordForgotToken, email: string) {
    const { db, records, tokens } = this.deps;
    const account = await records.find(db, token.uid);
    if (!account || account.email.toLowerCase() !== email.toLowerCase()) throw appError('INVALID_TOKEN', { detail: 'The token is for another address' });
    const code = randomDigits(this.deps.config.passwordForgotCodeLength);
    await tokens.setPasswordForgotPasscode(db, token.id, this.hash('forgot', token.id, code));
    await this.deps.mailer.send('recoveryEmail', account.email, account.locale, { code, minutes: Math.round(this.deps.config.passwordForgotLifetime / 60) });
    return this.forgotReply(token);
  }

  /**
   * What GET /complete_reset_password shows: the seconds left on the link's forgot token, or null
   * when the link was used, replaced by a newer one, ran out of tries or expired. Reads only:
   * opening the page (or a mail scanner fetching it) spends no try, and the code is not checked
   * here, so the page gives no way round the tries of /password/forgot/verify_code. The address is
   * the account's own: the page stretches the new password with it (onepw's v1 salt), so an address
   * edited in the link cannot leave a password that its owner's email does not open.
   */
  async linkStatus(tokenData: string): Promise<{ ttl: number; email: string } | null> {
    const token = await this.deps.tokens.findPasswordForgotTokenByData(this.deps.db, tokenData);
    if (!token || token.tries <= 0) return null;
    const { ttl } = this.forgotReply(token);
    const account = ttl > 0 ? await this.deps.records.find(this.deps.db, token.uid) : undefined;
    return account ? { ttl, email: passwordEmailOf(account) } : null;
  }

  /** GET /password/forgot/status. */
  status(token: PasswordForgotToken) {
    const { ttl, tries } = this.forgotReply(token);
    return { tries, ttl };
  }

  /**
   * POST /password/forgot/verify_code: the right code spends the forgot token for an
   * accountResetToken; a wrong one spends a try (105 with the tries and ttl left) and the last
   * wrong try deletes the token, so a new code must be requested.
   */
  async verifyCode(token: PasswordForgotToken, code: string) {
    const { db, clock, tokens, records } = this.deps;
    // Issue 22: anyone naming the address gets a forgot token, so its wrong codes count on the
    // reset budget, never on the one that guards the owner's sign-in.
    await records.checkCodeBudget(db, token.uid, clock.now(), 'reset');
    const left = await tokens.spendPasswordForgotTry(db, token.id);
    if (left === null) throw appError('INVALID_TOKEN', { detail: 'No tries left: request a new code' });
    if (!constantTimeStringEqual(token.passcodeHash, this.hash('forgot', token.id, code))) {
      // New forgot tokens bring new tries; the account's reset budget is what they do not reset.
      await records.recordCodeFailure(db, token.uid, clock.now(), 'reset');
      if (left === 0) await tokens.deletePasswordForgotToken(db, token.id);
      throw appError('INVALID_VERIFICATION_CODE', { tries: left, ttl: this.forgotReply(token).ttl });
    }
    const accountResetToken = await db.transaction().execute(async (trx) => {
      if (!(await tokens.deletePasswordForgotToken(trx, token.id))) throw appError('INVALID_TOKEN', { detail: 'Token already used' });
      return tokens.createAccountResetToken(trx, token.uid, clock.now(), token.verificationMethod);
    });
    return { accountResetToken };
  }

  // ---- forgot (one-time code) -------------------------------------------------------------

  /** POST /password/forgot/send_otp: an 8-digit code, valid 10 minutes, one per account. */
  async sendOtp(email: string, ctx: RequestContext): Promise<void> {
    const { db, clock, config, mailer } = this.deps;
    const account = await this.accountForReset(email);
    const code = randomDigits(8);
    const now = clock.now();
    await replaceForgotOtp(db, {
      uid: account.uid, codeHash: this.hash('otp', account.uid, code), expiresAt: now + config.passwordForgotOtpLifetime * 1000,
      tries: config.passwordForgotOtpTries, now,
    });
    try {
      await mailer.send('passwordForgotOtp', account.email, account.locale, { code, minutes: Math.round(config.passwordForgotOtpLifetime / 60) });
    } catch (err) {
      await deleteForgotOtp(db, account.uid);
      throw err;
    }
    await this.deps.securityEvents.record(db, account.uid, { name: 'account.password_reset_requested', ctx, verified: false, additionalInfo: { method: 'otp' } });
  }

  /** POST /password/forgot/verify_otp: the code is exchanged for a forgot token and its passCode. */
  async verifyOtp(email: string, code: string) {
    const { db, clock, records } = this.deps;
    const account = await this.accountForReset(email);
    // A guess by address alone: the reset budget (issue 22), apart from the owner's.
    await records.checkCodeBudget(db, account.uid, clock.now(), 'reset');
    const spent = await spendForgotOtpTry(db, account.uid, clock.now());
    if (spent === 'expired') throw appError('EXPIRED_TOKEN_VERIFICATION_CODE');
    if (spent === 'none') throw appError('INVALID_VERIFICATION_CODE', {}, 'Invalid confirmation code: request a new code');
    if (!constantTimeStringEqual(spent.codeHash, this.hash('otp', account.uid, code))) {
      await records.recordCodeFailure(db, account.uid, clock.now(), 'reset');
      if (spent.triesLeft === 0) await deleteForgotOtp(db, account.uid);
      throw appError('INVALID_VERIFICATION_CODE', { tries: spent.triesLeft });
    }
    await deleteForgotOtp(db, account.uid);
    const { data, code: passCode } = await this.issueForgotToken(account, true);
    // onepw v1: the new password is stretched with the same address as the old one, which after a
    // change of primary is not the primary (accounts.password_email).
    return { code: passCode, emailToHashWith: passwordEmailOf(account), token: data, uid: account.uid };
  }

}
