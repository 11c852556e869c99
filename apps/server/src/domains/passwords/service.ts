import { createHmac, timingSafeEqual } from 'node:crypto';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { ScryptPool } from '../../crypto/scrypt-pool.js';
import type { RequestContext } from '../../http/context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Database } from '../../storage/schema.js';
import { checkPasswordInput, matchPassword, newPassword, type PasswordInput } from '../accounts/password.js';
import type { AccountsService } from '../accounts/service.js';
import { findAccount, findAccountByEmail, markEmailVerified, updatePassword, type Account } from '../accounts/store.js';
import { randomDigits } from '../sessions/codes.js';
import { createKeyFetchToken, createSession } from '../sessions/service.js';
import { deleteOtherSessions, findSession, isSessionVerified, type SessionWithAccount } from '../sessions/store.js';
import {
  deletePasswordForgotToken, deleteShortLivedTokens, insertPasswordChangeToken, replaceAccountResetToken,
  replacePasswordForgotToken, setPasswordForgotPasscode, spendPasswordForgotTry, type PasswordChangeToken,
  type PasswordForgotToken,
} from '../tokens/store.js';
import { mintToken } from '../tokens/token.js';
import { deleteForgotOtp, replaceForgotOtp, spendForgotOtpTry } from './store.js';

// Every password flow of spec 1 §7 with the state rules of §4: change (start → finish), forgot
// (code by email → accountResetToken), reset, and create for accounts without a password.

export interface PasswordsDeps {
  db: Kysely<Database>;
  clock: Clock;
  scrypt: ScryptPool;
  mailer: Mailer;
  accounts: AccountsService;
  secret: string;
  tokens: {
    passwordForgotLifetime: number;
    passwordForgotTries: number;
    passwordForgotCodeLength: number;
    passwordForgotOtpLifetime: number;
    passwordForgotOtpTries: number;
    accountResetLifetime: number;
  };
  /** Builds the link of the /complete_reset_password page. */
  resetLink(params: Record<string, string | undefined>): string;
}

const seconds = (ms: number) => Math.floor(ms / 1000);
const utcTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

export class PasswordsService {
  constructor(private readonly deps: PasswordsDeps) {}

  private hash(kind: string, key: string, code: string): string {
    return createHmac('sha256', this.deps.secret).update(`${kind}:${key}:${code}`).digest('hex');
  }

  private sameHash(a: string, b: string): boolean {
    return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
  }

  /** The account a reset may start for: primary address, confirmed (else 102, 145). */
  private async accountForReset(email: string): Promise<Account> {
    const found = await findAccountByEmail(this.deps.db, email);
    if (!found || !found.account.emailVerified) throw appError('ACCOUNT_UNKNOWN', { email });
    if (!found.emailRecord.isPrimary) throw appError('RESET_PASSWORD_WITH_SECONDARY_EMAIL');
    return found.account;
  }

  // ---- change ------------------------------------------------------------------------------

  /** POST /password/change/start: proves the old password; returns the change and key tokens. */
  async changeStart(session: SessionWithAccount, email: string, oldAuthPW: string) {
    const { db, clock } = this.deps;
    this.deps.scrypt.checkCapacity();
    const found = await findAccountByEmail(db, email);
    if (!found || found.account.uid !== session.uid) throw appError('ACCOUNT_UNKNOWN', { email });
    const match = await this.deps.accounts.checkPassword(found.account, email, oldAuthPW);
    const now = clock.now();
    const change = mintToken('passwordChangeToken');
    const keyFetchToken = await db.transaction().execute(async (trx) => {
      await insertPasswordChangeToken(trx, { id: change.id, authKey: change.authKey, uid: session.uid, createdAt: now });
      // The old kB leaves only this way: in a bundle under a token the password just proved.
      return createKeyFetchToken(trx, { uid: session.uid, kA: found.account.kA, wrapKb: match.wrapKb, sessionTokenId: null, now });
    });
    return {
      ...(match.version === 2 ? { keyFetchToken2: keyFetchToken } : { keyFetchToken }),
      passwordChangeToken: change.data,
      verified: found.account.emailVerified,
    };
  }

  /**
   * POST /password/change/finish. kB survives: the client re-wrapped it (wrapKb). Every other
   * session and token ends, and the caller gets a new session in its old session's state —
   * except for a v1→v2 upgrade (same password, version-2 fields added), which ends nothing.
   */
  async changeFinish(token: PasswordChangeToken, input: PasswordInput & { sessionToken?: string | undefined; keys: boolean }, ctx: RequestContext) {
    const { db, clock, scrypt, mailer } = this.deps;
    scrypt.checkCapacity();
    checkPasswordInput(input, { requireWrapKb: true });
    const account = await findAccount(db, token.uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    const old = input.sessionToken ? await findSession(db, input.sessionToken.toLowerCase()) : null;
    if (input.sessionToken && (!old || old.uid !== account.uid)) throw appError('INVALID_TOKEN', { detail: 'sessionToken does not name a session of this account' });

    const upgrade = input.authPWVersion2 !== undefined && account.clientSalt === null
      && (await matchPassword(scrypt, account, input.authPW.toLowerCase()))?.version === 1;
    const password = await newPassword(scrypt, input);
    const now = clock.now();
    const result = await db.transaction().execute(async (trx) => {
      await updatePassword(trx, account.uid, { ...password.fields, verifierSetAt: now });
      if (upgrade) return null;
      await deleteOtherSessions(trx, account.uid, null);
      await deleteShortLivedTokens(trx, account.uid);
      await trx.deleteFrom('oauth_access_tokens').where('uid', '=', account.uid).execute();
      if (!old) return null;
      const created = await createSession(trx, {
        uid: account.uid, now, ctx, tokenVerificationId: old.tokenVerificationId, mustVerify: old.mustVerify,
        reason: (old.verificationReason as 'login' | null) ?? null, verifiedWith: old.verificationMethod, authAt: now,
      });
      const verified = isSessionVerified(created.session);
      const kft = input.keys
        ? await createKeyFetchToken(trx, { uid: account.uid, kA: account.kA, wrapKb: password.wrapKb, sessionTokenId: verified ? null : created.session.id, now })
        : undefined;
      const kft2 = input.keys && password.wrapKbV2
        ? await createKeyFetchToken(trx, { uid: account.uid, kA: account.kA, wrapKb: password.wrapKbV2, sessionTokenId: verified ? null : created.session.id, now })
        : undefined;
      return { session: created, kft, kft2, verified };
    });
    if (!upgrade) await this.notify(mailer, account, 'passwordChanged', now);
    if (!result) return {};
    return {
      uid: account.uid,
      sessionToken: result.session.data,
      verified: result.verified && account.emailVerified,
      authAt: seconds(now),
      ...(result.kft ? { keyFetchToken: result.kft } : {}),
      ...(result.kft2 ? { keyFetchToken2: result.kft2 } : {}),
    };
  }

  /** Notices are informational: the change already happened, so a failed delivery is not an error. */
  private async notify(mailer: Mailer, account: Account, template: 'passwordChanged' | 'passwordReset', now: number): Promise<void> {
    await mailer.send(template, account.email, account.locale, { time: utcTime(now) }).catch(() => undefined);
  }

  // ---- forgot (code + token) ------------------------------------------------------------------

  private async issueForgotToken(account: Account): Promise<{ data: string; token: PasswordForgotToken; code: string }> {
    const { db, clock, tokens } = this.deps;
    const t = mintToken('passwordForgotToken');
    const code = randomDigits(tokens.passwordForgotCodeLength);
    const token: PasswordForgotToken = {
      id: t.id, authKey: t.authKey, uid: account.uid, createdAt: clock.now(),
      passcodeHash: this.hash('forgot', t.id, code), tries: tokens.passwordForgotTries, verificationMethod: null,
    };
    await replacePasswordForgotToken(db, token);
    return { data: t.data, token, code };
  }

  private forgotReply(token: PasswordForgotToken) {
    const { clock, tokens } = this.deps;
    return {
      ttl: Math.max(0, Math.ceil((token.createdAt + tokens.passwordForgotLifetime * 1000 - clock.now()) / 1000)),
      codeLength: tokens.passwordForgotCodeLength,
      tries: token.tries,
    };
  }

  private async mailForgotCode(account: Account, data: string, code: string, ctx: { service?: string | undefined; redirectTo?: string | undefined }) {
    const link = this.deps.resetLink({ email: account.email, code, token: data, service: ctx.service, redirectTo: ctx.redirectTo });
    await this.deps.mailer.send('recoveryEmail', account.email, account.locale, { link, code, minutes: Math.round(this.deps.tokens.passwordForgotLifetime / 60) });
  }

  /** POST /password/forgot/send_code: one forgot token per account; a new one voids the old. */
  async forgotSendCode(email: string, ctx: { service?: string | undefined; redirectTo?: string | undefined }) {
    const account = await this.accountForReset(email);
    const { data, token, code } = await this.issueForgotToken(account);
    try {
      await this.mailForgotCode(account, data, code, ctx);
    } catch (err) {
      await deletePasswordForgotToken(this.deps.db, token.id);
      throw err;
    }
    return { passwordForgotToken: data, ...this.forgotReply(token) };
  }

  /**
   * POST /password/forgot/resend_code: the same token, a new code. Its age and tries carry over,
   * so the reply's ttl and tries are what is left of them. The client keeps the token it has.
   */
  async forgotResendCode(token: PasswordForgotToken, email: string) {
    const account = await findAccount(this.deps.db, token.uid);
    if (!account || account.email.toLowerCase() !== email.toLowerCase()) throw appError('INVALID_TOKEN', { detail: 'The token is for another address' });
    const code = randomDigits(this.deps.tokens.passwordForgotCodeLength);
    await setPasswordForgotPasscode(this.deps.db, token.id, this.hash('forgot', token.id, code));
    await this.deps.mailer.send('recoveryEmail', account.email, account.locale, { code, minutes: Math.round(this.deps.tokens.passwordForgotLifetime / 60) });
    return this.forgotReply(token);
  }

  /** GET /password/forgot/status. */
  forgotStatus(token: PasswordForgotToken) {
    const { ttl, tries } = this.forgotReply(token);
    return { tries, ttl };
  }

  /**
   * POST /password/forgot/verify_code: the right code spends the forgot token for an
   * accountResetToken; a wrong one spends a try (105 with the tries and ttl left) and the last
   * wrong try deletes the token, so a new code must be requested.
   */
  async forgotVerifyCode(token: PasswordForgotToken, code: string) {
    const { db, clock } = this.deps;
    const left = await spendPasswordForgotTry(db, token.id);
    if (left === null) throw appError('INVALID_TOKEN', { detail: 'No tries left: request a new code' });
    if (!this.sameHash(token.passcodeHash, this.hash('forgot', token.id, code))) {
      if (left === 0) await deletePasswordForgotToken(db, token.id);
      throw appError('INVALID_VERIFICATION_CODE', { tries: left, ttl: this.forgotReply(token).ttl });
    }
    const reset = mintToken('accountResetToken');
    await db.transaction().execute(async (trx) => {
      if (!(await deletePasswordForgotToken(trx, token.id))) throw appError('INVALID_TOKEN', { detail: 'Token already used' });
      await replaceAccountResetToken(trx, { id: reset.id, authKey: reset.authKey, uid: token.uid, createdAt: clock.now(), verificationMethod: token.verificationMethod });
    });
    return { accountResetToken: reset.data };
  }

  // ---- forgot (one-time code) -------------------------------------------------------------

  /** POST /password/forgot/send_otp: an 8-digit code, valid 10 minutes, one per account. */
  async forgotSendOtp(email: string): Promise<void> {
    const { db, clock, tokens, mailer } = this.deps;
    const account = await this.accountForReset(email);
    const code = randomDigits(8);
    const now = clock.now();
    await replaceForgotOtp(db, {
      uid: account.uid, codeHash: this.hash('otp', account.uid, code), expiresAt: now + tokens.passwordForgotOtpLifetime * 1000,
      tries: tokens.passwordForgotOtpTries, now,
    });
    try {
      await mailer.send('passwordForgotOtp', account.email, account.locale, { code, minutes: Math.round(tokens.passwordForgotOtpLifetime / 60) });
    } catch (err) {
      await deleteForgotOtp(db, account.uid);
      throw err;
    }
  }

  /** POST /password/forgot/verify_otp: the code is exchanged for a forgot token and its passCode. */
  async forgotVerifyOtp(email: string, code: string) {
    const { db, clock } = this.deps;
    const account = await this.accountForReset(email);
    const spent = await spendForgotOtpTry(db, account.uid, clock.now());
    if (spent === 'expired') throw appError('EXPIRED_TOKEN_VERIFICATION_CODE');
    if (spent === 'none') throw appError('INVALID_VERIFICATION_CODE', {}, 'Invalid confirmation code: request a new code');
    if (!this.sameHash(spent.codeHash, this.hash('otp', account.uid, code))) {
      if (spent.triesLeft === 0) await deleteForgotOtp(db, account.uid);
      throw appError('INVALID_VERIFICATION_CODE', { tries: spent.triesLeft });
    }
    await deleteForgotOtp(db, account.uid);
    const { data, code: passCode } = await this.issueForgotToken(account);
    return { code: passCode, emailToHashWith: account.email, token: data, uid: account.uid };
  }

  // ---- reset and create --------------------------------------------------------------------

  /**
   * POST /account/reset. A new password with a new authSalt; without client-supplied wrapKbs kB
   * is new (keysChangedAt moves). Every session, token and OAuth token of the account ends; the
   * reset proves the address, so it counts as confirmed.
   */
  async reset(
    uid: string,
    input: PasswordInput & { recoveryKeyId?: string | undefined; sessionToken?: boolean | undefined; keys: boolean },
    ctx: RequestContext,
  ) {
    const { db, clock, scrypt, mailer } = this.deps;
    scrypt.checkCapacity();
    checkPasswordInput(input);
    const v2 = input.authPWVersion2 !== undefined;
    if (input.wrapKb !== undefined && !v2 && input.recoveryKeyId === undefined) {
      throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['wrapKb'], rule: 'and', message: 'wrapKb needs recoveryKeyId (or the version-2 fields)' } }, 'Invalid parameter in request body: wrapKb needs recoveryKeyId (or the version-2 fields)');
    }
    if (input.recoveryKeyId !== undefined) {
      // Account recovery keys arrive with their own issue; until then no key can match.
      throw appError('RECOVERY_KEY_NOT_FOUND');
    }
    if (input.keys && input.sessionToken !== true) {
      throw appError('MISSING_PARAMETER', { param: 'sessionToken' }, 'Missing parameter in request body: sessionToken (keys=true needs a new session)');
    }
    const account = await findAccount(db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    const password = await newPassword(scrypt, input);
    const now = clock.now();
    const result = await db.transaction().execute(async (trx) => {
      await updatePassword(trx, uid, { ...password.fields, verifierSetAt: now, keysChangedAt: now });
      await markEmailVerified(trx, uid, now);
      await deleteOtherSessions(trx, uid, null);
      await deleteShortLivedTokens(trx, uid);
      await trx.deleteFrom('oauth_access_tokens').where('uid', '=', uid).execute();
      if (!input.sessionToken) return null;
      const created = await createSession(trx, { uid, now, ctx, tokenVerificationId: null, mustVerify: false, reason: null, verifiedWith: 'email' });
      const kft = input.keys ? await createKeyFetchToken(trx, { uid, kA: account.kA, wrapKb: password.wrapKb, sessionTokenId: null, now }) : undefined;
      const kft2 = input.keys && password.wrapKbV2 ? await createKeyFetchToken(trx, { uid, kA: account.kA, wrapKb: password.wrapKbV2, sessionTokenId: null, now }) : undefined;
      return { created, kft, kft2 };
    });
    await this.notify(mailer, account, 'passwordReset', now);
    if (!result) return {};
    return {
      uid,
      sessionToken: result.created.data,
      emailVerified: true,
      sessionVerified: true,
      verified: true,
      authAt: seconds(now),
      verificationMethod: 'email',
      ...(result.kft ? { keyFetchToken: result.kft } : {}),
      ...(result.kft2 ? { keyFetchTokenVersion2: result.kft2 } : {}),
    };
  }

  /** POST /password/create: the first password of an account that has none (206 otherwise). */
  async create(session: SessionWithAccount, input: PasswordInput) {
    const { db, clock, scrypt } = this.deps;
    scrypt.checkCapacity();
    checkPasswordInput(input);
    if (session.account.verifierSetAt > 0) throw appError('CANNOT_CREATE_PASSWORD');
    const password = await newPassword(scrypt, input);
    const now = clock.now();
    if (!(await updatePassword(db, session.uid, { ...password.fields, verifierSetAt: now }, { onlyIfUnset: true }))) {
      throw appError('CANNOT_CREATE_PASSWORD');
    }
    return { passwordCreated: now };
  }
}
