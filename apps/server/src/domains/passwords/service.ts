import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { ScryptPool } from '../../crypto/scrypt-pool.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import { normalizeEmail } from '../../email-address.js';
import { passwordEmailOf, type Account, type AccountRecords } from '../account-core/index.js';
import { checkPasswordInput, matchPassword, newPassword, type AccountsService, type PasswordInput } from '../accounts/index.js';
import type { RecoveryKeysService } from '../recovery-keys/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import { isSessionVerified, methodName, VERIFICATION_METHODS, type Session, type SessionsService, type SessionWithAccount } from '../sessions/index.js';
import type { PasswordChangeToken, TokensService } from '../tokens/index.js';
import { ForgotPassword } from './forgot.js';

// Every password flow of spec 1 §7 with the state rules of §4: change (start → finish), forgot
// (code by email → accountResetToken; forgot.ts), reset, and create for accounts without a password.

export interface PasswordsDeps {
  db: Kysely<Database>;
  clock: Clock;
  scrypt: ScryptPool;
  mailer: Mailer;
  records: AccountRecords;
  accounts: AccountsService;
  sessions: SessionsService;
  tokens: TokensService;
  /** Spends the recovery key a reset names (protocol.md §4.8). */
  recoveryKeys: RecoveryKeysService;
  /** Two-step authentication (issue 12): a reset of such an account needs the second factor or a recovery key. */
  twoStep: { isEnabled(uid: string, db?: Executor): Promise<boolean> };
  /** Records password changes, resets and reset requests. */
  securityEvents: SecurityEvents;
  secret: string;
  /** Lifetimes (seconds), tries and code length of the forgot-password codes. */
  config: {
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
  /** The forgot flows: code by email, one-time code, the reset link's state. */
  readonly forgot: ForgotPassword;

  constructor(private readonly deps: PasswordsDeps) {
    this.forgot = new ForgotPassword(deps);
  }

  /** What the /complete_reset_password page shows for its link (the pages domain reads it). */
  resetLinkStatus(tokenData: string): Promise<{ ttl: number; email: string } | null> {
    return this.forgot.linkStatus(tokenData);
  }

  // ---- change ------------------------------------------------------------------------------

  /**
   * The session's account, when `email` is one of its addresses or the address its v1 password was
   * stretched with (after a change of primary that address may be gone from the account).
   */
  private async changingAccount(uid: string, email: string): Promise<Account> {
    const { db, records } = this.deps;
    const found = await records.findByEmail(db, email);
    if (found?.account.uid === uid) return found.account;
    const account = await records.find(db, uid);
    if (!account || normalizeEmail(passwordEmailOf(account)) !== normalizeEmail(email)) throw appError('ACCOUNT_UNKNOWN', { email });
    return account;
  }

  /** POST /password/change/start: proves the old password; returns the change and key tokens. */
  async changeStart(session: SessionWithAccount, email: string, oldAuthPW: string, ctx: RequestContext) {
    const { db, clock, tokens } = this.deps;
    const account = await this.changingAccount(session.uid, email);
    const match = await this.deps.accounts.checkPassword(account, email, oldAuthPW, ctx);
    const now = clock.now();
    const { passwordChangeToken, keyFetchToken } = await db.transaction().execute(async (trx) => ({
      passwordChangeToken: await tokens.createPasswordChangeToken(trx, session.uid, now),
      // The old kB leaves only this way: in a bundle under a token the password just proved.
      keyFetchToken: await tokens.createKeyFetchToken(trx, { uid: session.uid, kA: account.kA, wrapKb: match.wrapKb, sessionTokenId: null, now }),
    }));
    return {
      ...(match.version === 2 ? { keyFetchToken2: keyFetchToken } : { keyFetchToken }),
      passwordChangeToken,
      verified: account.emailVerified,
    };
  }

  /**
   * POST /password/change/finish. kB survives: the client re-wrapped it (wrapKb). Every other
   * session and token ends, and the caller gets a new session in its old session's state —
   * except for a v1→v2 upgrade (same password, version-2 fields added), which ends nothing.
   */
  async changeFinish(token: PasswordChangeToken, input: PasswordInput & { sessionToken?: string | undefined; keys: boolean }, ctx: RequestContext) {
    const { db, records, sessions } = this.deps;
    checkPasswordInput(input, { requireWrapKb: true });
    const account = await records.find(db, token.uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    const old = input.sessionToken ? await sessions.findNamed(db, account.uid, input.sessionToken) : null;
    if (input.sessionToken && !old) throw appError('INVALID_TOKEN', { detail: 'sessionToken does not name a session of this account' });
    return this.applyChange(account, old, input, ctx);
  }

  /**
   * POST /mfa/password/change (protocol.md §5.10): start and finish in one request, authorised by
   * an MFA token scoped `mfa:password`. The old password is proven here as /password/change/start
   * would; the change itself is finish's, with the token's session as the one the caller keeps
   * (so the reply always holds a new session).
   */
  async changeWithMfa(
    caller: { uid: string; session: Session },
    input: PasswordInput & { email?: string | undefined; oldAuthPW: string; keys: boolean },
    ctx: RequestContext,
  ) {
    const { db, records } = this.deps;
    checkPasswordInput(input, { requireWrapKb: true });
    const found = input.email !== undefined ? await records.findByEmail(db, input.email) : null;
    if (input.email !== undefined && found?.account.uid !== caller.uid) throw appError('ACCOUNT_UNKNOWN', { email: input.email });
    const account = found?.account ?? await records.find(db, caller.uid);
    if (!account) throw appError('ACCOUNT_UNKNOWN', {});
    // The v1 authPW was stretched with the address the client names (or the current primary).
    await this.deps.accounts.checkPassword(account, input.email ?? account.email, input.oldAuthPW, ctx);
    return this.applyChange(account, caller.session, input, ctx);
  }

  /**
   * The change itself, for both routes: new verifiers; then, unless it is a v1→v2 upgrade, a new
   * session in `old`'s state and the end of every other session and token.
   */
  private async applyChange(account: Account, old: Session | null, input: PasswordInput & { keys: boolean }, ctx: RequestContext) {
    const { db, clock, scrypt, mailer, records, sessions, tokens } = this.deps;
    const upgrade = input.authPWVersion2 !== undefined && account.clientSalt === null
      && (await matchPassword(scrypt, account, input.authPW.toLowerCase()))?.version === 1;
    const password = await newPassword(scrypt, input);
    const now = clock.now();
    const result = await db.transaction().execute(async (trx) => {
      await records.updatePassword(trx, account.uid, { ...password.fields, verifierSetAt: now });
      if (upgrade) return null;
      // The caller's new session is made first and kept; every other session, token and grant ends.
      const created = old
        ? await sessions.create(trx, {
            uid: account.uid, now, ctx, tokenVerificationId: old.tokenVerificationId, mustVerify: old.mustVerify,
            reason: (old.verificationReason as 'login' | null) ?? null, verifiedWith: old.verificationMethod, authAt: now,
          })
        : null;
      await records.passwordChanged(trx, account.uid, { sessionTokenId: created?.session.id ?? null, replaces: old?.id ?? null });
      await this.deps.securityEvents.record(trx, account.uid, { name: 'account.password_changed', ctx, verified: true });
      if (!created) return null;
      const verified = isSessionVerified(created.session);
      const kft = input.keys
        ? await tokens.createKeyFetchToken(trx, { uid: account.uid, kA: account.kA, wrapKb: password.wrapKb, sessionTokenId: verified ? null : created.session.id, now })
        : undefined;
      const kft2 = input.keys && password.wrapKbV2
        ? await tokens.createKeyFetchToken(trx, { uid: account.uid, kA: account.kA, wrapKb: password.wrapKbV2, sessionTokenId: verified ? null : created.session.id, now })
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

  // ---- reset and create --------------------------------------------------------------------

  /**
   * POST /account/reset. A new password with a new authSalt; every session, token and OAuth token
   * of the account ends; the reset proves the address, so it counts as confirmed.
   *
   * kB: without a recovery key it is new (random for a v1 client, the client's choice for a v2 one)
   * and keysChangedAt moves. With `recoveryKeyId` the client sends kB re-wrapped (`wrapKb`), having
   * opened recoveryData with the key: the key must be the account's (158/159) and is spent in the
   * same transaction, kB is unchanged and keysChangedAt stays (protocol.md §4.8, keysHaveChanged
   * false). The fingerprint is what proves the key: a reset token alone (access to the email) and
   * a stale or guessed id keep nothing.
   */
  async reset(
    uid: string,
    input: PasswordInput & { recoveryKeyId?: string | undefined; sessionToken?: boolean | undefined; keys: boolean },
    ctx: RequestContext,
    /** How the reset token's holder proved more than the mailbox (protocol.md §4.5 step 3): a VERIFICATION_METHODS code. */
    resetVerificationMethod: number | null = null,
  ) {
    const { db, clock, scrypt, mailer, records, sessions, tokens, recoveryKeys } = this.deps;
    checkPasswordInput(input);
    const v2 = input.authPWVersion2 !== undefined;
    const withKey = input.recoveryKeyId !== undefined;
    if (input.wrapKb !== undefined && !v2 && !withKey) {
      throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['wrapKb'], rule: 'and', message: 'wrapKb needs recoveryKeyId (or the version-2 fields)' } }, 'Invalid parameter in request body: wrapKb needs recoveryKeyId (or the version-2 fields)');
    }
    if (withKey && input.wrapKb === undefined) {
      // protocol.md §5.12: a reset with a recovery key keeps kB, so the client must send it re-wrapped.
      throw appError('MISSING_PARAMETER', { param: 'wrapKb' }, 'Missing parameter in request body: wrapKb (kB from recoveryData, wrapped with the new password; required with recoveryKeyId)');
    }
    if (input.keys && input.sessionToken !== true) {
      throw appError('MISSING_PARAMETER', { param: 'sessionToken' }, 'Missing parameter in request body: sessionToken (keys=true needs a new session)');
    }
    const account = await records.find(db, uid);
    if (!account) throw appError('INVALID_TOKEN', { detail: 'The account is gone' });
    // protocol.md §4.5 step 5: on an account with two-step authentication the mailbox alone does
    // not reset the password: the forgot token's holder passed the second factor (/totp/verify,
    // a backup code, the recovery phone), or the reset keeps kB with the recovery key.
    const secondFactor = resetVerificationMethod !== null && resetVerificationMethod >= VERIFICATION_METHODS['totp-2fa'];
    if (!withKey && !secondFactor && (await this.deps.twoStep.isEnabled(uid))) {
      throw appError('SESSION_UNVERIFIED', {}, 'Unconfirmed session: this account has two-step authentication; pass it with the password forgot token (/totp/verify, /totp/verify/recoveryCode) or reset with the recovery key');
    }
    const verifiedWith = secondFactor ? (methodName(resetVerificationMethod) ?? 'email') : 'email';
    // Checked before the stretch too, so a wrong key costs no scrypt; checked again (and spent) below.
    if (withKey) await recoveryKeys.check(db, uid, input.recoveryKeyId!);
    const password = await newPassword(scrypt, input);
    const now = clock.now();
    const result = await db.transaction().execute(async (trx) => {
      // First: of two resets racing with one key, the loser stops here and its transaction rolls back.
      if (withKey) await recoveryKeys.spendForReset(trx, uid, input.recoveryKeyId!);
      await records.updatePassword(trx, uid, { ...password.fields, verifierSetAt: now, ...(withKey ? {} : { keysChangedAt: now }) });
      await records.markEmailVerified(trx, uid, now);
      await records.passwordReset(trx, uid);
      await this.deps.securityEvents.record(trx, uid, { name: 'account.password_reset', ctx, verified: true, ...(withKey ? { additionalInfo: { method: 'recovery_key' } } : {}) });
      if (!input.sessionToken) return null;
      // protocol.md §5.12: the new session is confirmed, with the reset token's verification method.
      const created = await sessions.create(trx, { uid, now, ctx, tokenVerificationId: null, mustVerify: false, reason: null, verifiedWith });
      const kft = input.keys ? await tokens.createKeyFetchToken(trx, { uid, kA: account.kA, wrapKb: password.wrapKb, sessionTokenId: null, now }) : undefined;
      const kft2 = input.keys && password.wrapKbV2 ? await tokens.createKeyFetchToken(trx, { uid, kA: account.kA, wrapKb: password.wrapKbV2, sessionTokenId: null, now }) : undefined;
      return { created, kft, kft2 };
    });
    if (withKey) await recoveryKeys.notifyUsed(uid, now);
    else await this.notify(mailer, account, 'passwordReset', now);
    if (!result) return {};
    return {
      uid,
      sessionToken: result.created.data,
      emailVerified: true,
      sessionVerified: true,
      verified: true,
      authAt: seconds(now),
      verificationMethod: verifiedWith,
      ...(result.kft ? { keyFetchToken: result.kft } : {}),
      ...(result.kft2 ? { keyFetchTokenVersion2: result.kft2 } : {}),
    };
  }

  /** POST /password/create: the first password of an account that has none (206 otherwise). */
  async create(session: SessionWithAccount, input: PasswordInput) {
    const { db, clock, scrypt, records } = this.deps;
    checkPasswordInput(input);
    if (session.account.verifierSetAt > 0) throw appError('CANNOT_CREATE_PASSWORD');
    const password = await newPassword(scrypt, input);
    const now = clock.now();
    if (!(await records.updatePassword(db, session.uid, { ...password.fields, verifierSetAt: now }, { onlyIfUnset: true }))) {
      throw appError('CANNOT_CREATE_PASSWORD');
    }
    return { passwordCreated: now };
  }
}
