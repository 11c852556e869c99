import { randomHex } from '@tessera/protocol';
import { appError, isAppError } from '@tessera/errors';
import { normalizeEmail } from '../../email-address.js';
import type { RequestContext } from '../../platform/request-context.js';
import { passwordEmailOf, type Account } from '../account-core/index.js';
import { deliveryOf, meetsMinimumAal, sessionAal, verificationState, type SessionWithAccount } from '../sessions/index.js';
import type { KeyFetchToken } from '../tokens/index.js';
import { checkPasswordInput, matchPassword, newPassword } from './password.js';
import type { TokenSubject } from './relying-parties.js';
import type { AccountsDeps, CreateInput, LoginInput } from './deps.js';

// What an unknown address's sign-in is checked against, so it takes the same scrypt as a wrong
// password and its answer's timing does not tell the two apart.
const NO_ACCOUNT = {
  authSalt: randomHex(32), verifyHash: randomHex(32), verifyHashV2: null, wrapWrapKb: randomHex(32), wrapWrapKbV2: null,
} as unknown as Account;

const seconds = (ms: number) => Math.floor(ms / 1000);

export class AccountsService {
  constructor(private readonly deps: AccountsDeps) {}

  /**
   * POST /account/create. One transaction writes account, email, session and key fetch tokens;
   * if the confirmation email then cannot be sent, the account is removed again and the request
   * fails with 151, so nothing half-made remains.
   */
  async create(input: CreateInput, ctx: RequestContext) {
    const { clock, scrypt, records, sessions, tokens } = this.deps;
    checkPasswordInput(input);
    if (input.verificationMethod === 'totp-2fa') throw appError('TOTP_REQUIRED');
    await this.clearUnverifiedHolder(input.email);

    const now = clock.now();
    const uid = randomHex(16);
    const emailCode = randomHex(16);
    const password = await newPassword(scrypt, input);
    const account: Account = {
      uid, email: input.email, passwordEmail: null, emailCode, emailVerified: false, kA: randomHex(32),
      ...password.fields, verifierVersion: 1, verifierSetAt: now, createdAt: now,
      locale: ctx.acceptLanguage, lockedAt: null, disabledAt: null, metricsOptOutAt: null,
      profileChangedAt: now, keysChangedAt: now,
    };

    const result = await records.create(account, async (trx) => {
      // onepw: the sign-up session waits on the emailCode, so confirming the address confirms it.
      const { data, session } = await sessions.create(trx, {
        uid, now, ctx, tokenVerificationId: emailCode, mustVerify: input.keys, reason: 'signup',
      });
      await this.deps.securityEvents.record(trx, uid, { name: 'account.create', ctx, verified: false });
      const keyFetchToken = input.keys
        ? await tokens.createKeyFetchToken(trx, { uid, kA: account.kA, wrapKb: password.wrapKb, sessionTokenId: session.id, now })
        : undefined;
      const keyFetchTokenVersion2 = input.keys && password.wrapKbV2
        ? await tokens.createKeyFetchToken(trx, { uid, kA: account.kA, wrapKb: password.wrapKbV2, sessionTokenId: session.id, now })
        : undefined;
      return { data, session, keyFetchToken, keyFetchTokenVersion2 };
    });

    try {
      await this.deps.confirmations.sendSignup(account, result.session, input.verificationMethod, input);
    } catch (err) {
      await records.deleteAccount(uid);
      throw err;
    }
    return {
      uid,
      sessionToken: result.data,
      ...(result.keyFetchToken ? { keyFetchToken: result.keyFetchToken } : {}),
      ...(result.keyFetchTokenVersion2 ? { keyFetchTokenVersion2: result.keyFetchTokenVersion2 } : {}),
      authAt: seconds(now),
      verificationMethod: deliveryOf(input.verificationMethod) === 'code' ? (input.verificationMethod ?? 'email-otp') : 'email',
    };
  }

  /**
   * An address belongs to one account. A verified owner makes sign-up fail with 101 (144 for a
   * verified secondary address); an unverified sign-up that was never confirmed is replaced.
   */
  private async clearUnverifiedHolder(email: string): Promise<void> {
    const { db, records } = this.deps;
    const holder = await records.findByEmail(db, email);
    if (!holder) return;
    if (!holder.emailRecord.isPrimary) {
      if (holder.emailRecord.isVerified) throw appError('VERIFIED_SECONDARY_EMAIL_EXISTS');
      // An unconfirmed secondary address holds it for SECONDARY_EMAIL_PENDING_SECONDS only.
      if (await records.releaseStaleClaim(db, email, this.deps.clock.now() - this.deps.secondaryClaimMs)) return;
      throw appError('EMAIL_EXISTS', {}, 'Email already exists: another account is confirming this address; try again later');
    }
    if (holder.account.emailVerified || holder.account.verifierSetAt === 0) throw appError('ACCOUNT_EXISTS', { email: holder.account.email });
    await records.deleteAccount(holder.account.uid);
  }

  /**
   * Finds the account an address signs in to; secondary addresses cannot sign in (142). With
   * `authPW`, an unknown address costs the same password stretch as a wrong password would.
   */
  async accountForSignin(email: string, authPW?: string): Promise<Account> {
    const found = await this.deps.records.findByEmail(this.deps.db, email);
    if (!found) {
      if (authPW !== undefined) await matchPassword(this.deps.scrypt, NO_ACCOUNT, authPW.toLowerCase());
      throw appError('ACCOUNT_UNKNOWN', { email });
    }
    if (!found.emailRecord.isPrimary) throw appError('LOGIN_WITH_SECONDARY_EMAIL');
    const account = found.account;
    if (account.disabledAt) throw appError('LOGIN_WITH_INVALID_EMAIL');
    if (account.verifierSetAt <= 0) throw appError('UNABLE_TO_LOGIN_NO_PASSWORD_SET');
    return account;
  }

  /**
   * The account a sign-in names. With `originalLoginEmail` (the address the person typed, which
   * must be a primary), `email` is only the address the client stretched the v1 password with
   * (after 120 named it): it must be that account's, and need not be one of its addresses any more.
   */
  private async accountForLogin(input: { email: string; authPW: string; originalLoginEmail?: string | undefined }): Promise<Account> {
    if (input.originalLoginEmail === undefined) return this.accountForSignin(input.email, input.authPW);
    const account = await this.accountForSignin(input.originalLoginEmail, input.authPW);
    if (normalizeEmail(input.email) !== normalizeEmail(passwordEmailOf(account))) {
      throw appError('INCORRECT_PASSWORD', { email: input.originalLoginEmail }, 'Incorrect password: email is not the address this account\'s password was set with');
    }
    return account;
  }

  /**
   * Checks authPW against the account's verifiers. A miss by a client that salted v1 with another
   * spelling of the address gets 120 with the stored spelling, so it can stretch again.
   */
  async checkPassword(account: Account, email: string, authPW: string, ctx: RequestContext) {
    const match = await matchPassword(this.deps.scrypt, account, authPW.toLowerCase());
    if (match) return match;
    // onepw v1 salts with the address: a client that stretched with another spelling, or (after a
    // change of primary) with the new primary, is told the address to stretch with (120).
    const salt = passwordEmailOf(account);
    const sameAddress = normalizeEmail(email) === normalizeEmail(salt);
    const movedPrimary = account.passwordEmail !== null && account.clientSalt === null && normalizeEmail(email) === normalizeEmail(account.email);
    if (email !== salt && (sameAddress || movedPrimary)) {
      throw appError('INCORRECT_EMAIL_CASE', { email: salt });
    }
    // Recorded outside any transaction: the request fails, the record of the attempt stays.
    await this.deps.securityEvents.record(this.deps.db, account.uid, { name: 'account.login.failure', ctx, verified: false });
    throw appError('INCORRECT_PASSWORD', { email });
  }

  /**
   * The password check of a sign-in. A sign-in that rate limiting blocked passes only with the
   * right password and a valid unblock code, so its wrong password answers as a wrong code does
   * (400/127, counted per client address by unblockCodeFailed): the block goes on saying nothing
   * of passwords. The code is used after, with the right password only.
   */
  private async checkPasswordForLogin(account: Account, input: LoginInput, ctx: RequestContext) {
    try {
      return await this.checkPassword(account, input.email, input.authPW, ctx);
    } catch (err) {
      if (input.blocked && isAppError(err, 'INCORRECT_PASSWORD')) {
        throw appError('INVALID_UNBLOCK_CODE', {}, 'Invalid unblock code: the sign-in stays blocked; send a new code (POST /account/login/send_unblock_code) and sign in with it and the right password');
      }
      throw err;
    }
  }

  /** Whether a new sign-in must be confirmed by email (protocol.md §4.3). */
  private needsConfirmation(account: Account, now: number): boolean {
    const { signin } = this.deps;
    if (!signin.confirmationEnabled) return false;
    if (signin.forcedEmail?.test(account.email)) return true;
    return !(signin.skipForNewAccountsMs > 0 && now - account.createdAt <= signin.skipForNewAccountsMs);
  }

  /** POST /account/login. */
  async login(input: LoginInput, ctx: RequestContext) {
    const { db, clock, sessions, tokens, confirmations } = this.deps;
    // A blocked sign-in without an unblock code learns nothing, not even whether the account exists.
    if (input.blocked && !input.unblockCode) {
      throw appError('REQUEST_BLOCKED', { verificationMethod: 'email-captcha', verificationReason: 'login' },
        'Sign-in blocked after too many attempts: send an unblock code (POST /account/login/send_unblock_code) and sign in with it');
    }
    const account = await this.accountForLogin(input);
    // Issue 12: an account with two-step authentication: the sign-in always waits for the second
    // factor (an app code, a backup code or the recovery phone), never for an email.
    const twoStep = await this.deps.twoStep.isEnabled(account.uid);
    if (input.verificationMethod === 'totp-2fa' && !twoStep) throw appError('TOTP_REQUIRED');
    // Issue 22, hole 2: an unblock code is looked up (not spent) before the password is checked, so
    // a blocked sign-in costs the same whatever its password; it is used only with the right
    // password, so guessing one needs the password and a guess without it spends nothing.
    const unblockMatched = input.unblockCode ? await this.deps.unblockCodes.matches(account, input.unblockCode) : false;
    const match = await this.checkPasswordForLogin(account, input, ctx);
    if (input.unblockCode) await this.deps.unblockCodes.use(account, input.unblockCode, unblockMatched, ctx);
    const now = clock.now();
    const signup = !account.emailVerified;
    // An unblock code came through the mailbox: the sign-in is confirmed by it (not the second factor).
    const confirm = signup || twoStep || (!input.unblockCode && this.needsConfirmation(account, now));
    const tokenVerificationId = signup ? account.emailCode : confirm ? randomHex(16) : null;
    const requestedMethod = twoStep && !signup ? 'totp-2fa' : input.verificationMethod;

    const { data, session, keyFetchToken } = await db.transaction().execute(async (trx) => {
      const created = await sessions.create(trx, {
        uid: account.uid, now, ctx, tokenVerificationId, mustVerify: input.keys || twoStep, reason: signup ? 'signup' : 'login',
      });
      await this.deps.securityEvents.record(trx, account.uid, { name: 'account.login', ctx, verified: tokenVerificationId === null });
      const kft = input.keys
        ? await tokens.createKeyFetchToken(trx, { uid: account.uid, kA: account.kA, wrapKb: match.wrapKb, sessionTokenId: created.session.id, now })
        : undefined;
      return { ...created, keyFetchToken: kft };
    });

    if (!confirm) {
      // The notice only informs; the sign-in stands whether or not it can be delivered.
      await confirmations.sendNewSigninNotice(account, session).catch((err) => this.deps.warn('sign-in notice not sent', err));
    } else if (requestedMethod === 'totp-2fa') {
      // Nothing is mailed: the session waits for /session/verify/totp (or a backup code, or the phone).
    } else try {
      await confirmations.sendFor(account, session, input.verificationMethod, input);
    } catch (err) {
      // No usable session is left behind when its confirmation email could not go out.
      await db.transaction().execute(async (trx) => {
        await sessions.delete(trx, session);
        if (keyFetchToken) await tokens.deleteKeyFetchTokensOfSession(trx, session.id);
      });
      throw err;
    }

    return {
      uid: account.uid,
      sessionToken: data,
      // v2 logins return keyFetchTokenVersion2, as the protocol's clients expect.
      ...(keyFetchToken ? (match.version === 2 ? { keyFetchTokenVersion2: keyFetchToken } : { keyFetchToken }) : {}),
      ...verificationState(session, account.emailVerified, requestedMethod),
      authAt: seconds(now),
      metricsEnabled: account.metricsOptOutAt === null,
    };
  }

  /** POST /session/reauth: proves the password again on an existing session. */
  async reauth(session: SessionWithAccount, input: LoginInput, ctx: RequestContext) {
    const { db, clock, sessions, tokens } = this.deps;
    const account = await this.accountForLogin(input);
    if (account.uid !== session.uid) throw appError('INVALID_TOKEN', { detail: 'The session belongs to another account' });
    const match = await this.checkPassword(account, input.email, input.authPW, ctx);
    const now = clock.now();
    await sessions.setAuthAt(db, session.id, now);
    const keyFetchToken = input.keys
      ? await tokens.createKeyFetchToken(db, { uid: account.uid, kA: account.kA, wrapKb: match.wrapKb, sessionTokenId: session.id, now })
      : undefined;
    // A session waiting for the second factor keeps waiting for it: no email (issue 12).
    const twoStep = session.tokenVerificationId !== null && account.emailVerified && (await this.deps.twoStep.isEnabled(account.uid));
    if (session.tokenVerificationId && !twoStep) await this.deps.confirmations.sendFor(account, session, input.verificationMethod, input);
    return {
      uid: account.uid,
      ...(keyFetchToken ? (match.version === 2 ? { keyFetchTokenVersion2: keyFetchToken } : { keyFetchToken }) : {}),
      ...verificationState(session, account.emailVerified, twoStep ? 'totp-2fa' : input.verificationMethod),
      authAt: seconds(now),
      metricsEnabled: account.metricsOptOutAt === null,
    };
  }

  /**
   * GET /account/keys: the bundle, once. Until the address and the session the token was minted
   * with are confirmed it answers 104 and keeps the token; if that session is gone, so is the
   * proof the token ever had.
   */
  async keys(token: KeyFetchToken) {
    const { db, records, sessions, tokens } = this.deps;
    const account = await records.find(db, token.uid);
    const session = token.sessionTokenId === null ? null : await sessions.find(db, token.sessionTokenId);
    const sessionOk = token.sessionTokenId === null || (session !== null && session.tokenVerificationId === null);
    if (!account?.emailVerified || !sessionOk) throw appError('ACCOUNT_UNVERIFIED');
    // Issue 12: on an account with two-step authentication the session must have passed the
    // second factor (AAL2); a sign-in confirmed only by email does not get the keys.
    if (session !== null && sessionAal(session) < 2 && (await this.deps.twoStep.isEnabled(token.uid))) throw appError('ACCOUNT_UNVERIFIED');
    if (!(await tokens.spendKeyFetchToken(db, token.id))) throw appError('INVALID_TOKEN', { detail: 'Token already used' });
    return { bundle: token.keyBundle };
  }

  /** POST /account/destroy: needs the password again; everything of the account goes at once. */
  async destroy(session: SessionWithAccount, email: string, authPW: string, ctx: RequestContext): Promise<void> {
    const found = await this.deps.records.findByEmail(this.deps.db, email);
    if (!found || found.account.uid !== session.uid) throw appError('ACCOUNT_UNKNOWN', { email });
    await this.checkPassword(found.account, email, authPW, ctx);
    await this.deps.records.deleteAccount(session.uid);
    // Its security events went with it: the owner learns of the deletion by email instead (best effort).
    const time = new Date(this.deps.clock.now()).toISOString().replace('T', ' ').slice(0, 16);
    await this.deps.mailer.send('accountDeleted', found.account.email, found.account.locale, { time }).catch((err) => this.deps.warn('account deletion notice not sent', err));
  }

  /** GET /account/status with a session, or anonymously by uid. */
  async statusByUid(uid: string) {
    return { exists: (await this.deps.records.find(this.deps.db, uid.toLowerCase())) !== null };
  }

  /** POST /account/status. */
  async statusByEmail(email: string, thirdPartyAuthStatus: boolean) {
    const found = await this.deps.records.findByEmail(this.deps.db, email);
    const exists = !!found && found.emailRecord.isPrimary;
    if (!thirdPartyAuthStatus) return { exists };
    return {
      exists,
      hasLinkedAccount: exists ? await this.deps.linkedAccounts.hasLink(this.deps.db, found!.account.uid) : false,
      // Passkeys arrive with their issue; none exist yet.
      hasPassword: exists ? found!.account.verifierSetAt > 0 : false,
      hasPasskey: false,
    };
  }

  /** POST /account/credentials/status: which stretching the client must use for this account. */
  async credentialsStatus(email: string) {
    const account = await this.accountForSignin(email);
    return {
      currentVersion: account.clientSalt ? ('v2' as const) : ('v1' as const),
      ...(account.clientSalt ? { clientSalt: account.clientSalt } : {}),
      upgradeNeeded: !account.wrapWrapKbV2,
    };
  }

  /** GET /account: what the account settings page shows. */
  async summary(session: SessionWithAccount) {
    const { db, records } = this.deps;
    const account = await records.find(db, session.uid);
    if (!account) throw appError('ACCOUNT_UNKNOWN');
    const emails = await records.listEmails(db, session.uid);
    return {
      uid: account.uid,
      email: emails.find((e) => e.isPrimary)?.email ?? account.email,
      // A session below the account's AAL (it proved the password only) sees the primary address alone, as /recovery_emails.
      emails: emails.filter((e) => e.isPrimary || meetsMinimumAal(session)).map((e) => ({ email: e.email, verified: e.isVerified, isPrimary: e.isPrimary })),
      emailVerified: account.emailVerified,
      createdAt: account.createdAt,
      passwordCreatedAt: account.verifierSetAt,
      hasPassword: account.verifierSetAt > 0,
      locale: account.locale,
      metricsEnabled: account.metricsOptOutAt === null,
      keysChangedAt: account.keysChangedAt,
      profileChangedAt: account.profileChangedAt,
      passwordVersion: account.clientSalt ? ('v2' as const) : ('v1' as const),
      linkedAccounts: await this.deps.linkedAccounts.list(db, session.uid),
      ...(await this.assurance(session.uid)),
    };
  }

  /**
   * protocol.md §2.3: the account's authentication methods (amr) and assurance level: the password
   * and email always; with two-step on, `otp` too, and AAL2.
   */
  private async assurance(uid: string): Promise<{ authenticationMethods: string[]; authenticatorAssuranceLevel: number }> {
    const twoStep = await this.deps.twoStep.isEnabled(uid);
    return twoStep
      ? { authenticationMethods: ['pwd', 'email', 'otp'], authenticatorAssuranceLevel: 2 }
      : { authenticationMethods: ['pwd', 'email'], authenticatorAssuranceLevel: 1 };
  }

  /**
   * GET /account/profile: everything with a session; with an OAuth token, what its scopes allow, and
   * the account's times as its client may see them (a pairwise client gets per-subject markers, so
   * nothing here is the same for the account at another client).
   */
  async profile(uid: string, token: (TokenSubject & { scope: string[] }) | null) {
    const { db, records } = this.deps;
    const scopes = token?.scope ?? null;
    const time = <V extends number | null>(field: string, value: V): V => (token ? this.deps.oauth.timestampFor(token, field, value) : value);
    const account = await records.find(db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    const emails = await records.listEmails(db, uid);
    const allows = (scope: string) => scopes === null || scopes.includes('profile') || scopes.includes(scope) || scopes.includes(`${scope}:write`);
    const { authenticationMethods: amr, authenticatorAssuranceLevel: aal } = await this.assurance(uid);
    return {
      ...(allows('profile:email') ? { email: emails.find((e) => e.isPrimary)?.email ?? account.email } : {}),
      ...(allows('profile:locale') ? { locale: account.locale } : {}),
      ...(allows('profile:amr') ? { authenticationMethods: amr, authenticatorAssuranceLevel: aal } : {}),
      ...(allows('profile:account_disabled_at') ? { accountDisabledAt: time('accountDisabledAt', account.disabledAt) } : {}),
      ...(allows('profile:account_locked_at') ? { accountLockedAt: time('accountLockedAt', account.lockedAt) } : {}),
      profileChangedAt: time('profileChangedAt', account.profileChangedAt),
      ...(scopes === null ? { metricsEnabled: account.metricsOptOutAt === null, keysChangedAt: account.keysChangedAt } : {}),
    };
  }
}
