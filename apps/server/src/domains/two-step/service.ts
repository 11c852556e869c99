import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Clock } from '../../clock.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Executor, Trx } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import type { AccountRecords, CodeBudgetKind } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import { VERIFICATION_METHODS, type SecondFactorMethod, type SessionsService, type SessionWithAccount } from '../sessions/index.js';
import type { TokensService } from '../tokens/index.js';
import { SecretBox } from './secret-box.js';
import {
  countRecoveryCodes, deleteRecoveryCodes, deleteTotp, enableTotp, findTotp, insertTotp, isTotpEnabled, replaceRecoveryCodes,
  setPendingSecret, spendRecoveryCode, spendStep, swapInPendingSecret, type TotpRow,
} from './store.js';

// Two-step authentication (protocol.md §4.6, §4.7): an authenticator app (TOTP, RFC 6238: HMAC-SHA1,
// 6 digits, 30 s, one step either side) and backup codes.
//
// - The shared secret is sealed at rest (secret-box.ts) and shown once, at /totp/create or
//   /totp/replace/start.
// - A code is accepted once per time step: the row keeps the last step a code was accepted for,
//   and the update that spends a step is conditional, so a replayed code (or two requests racing
//   with one) is refused.
// - Wrong codes count against the account's budget of wrong codes (AccountRecords), shared with
//   every other code the account can be sent: guessing is bounded per account, whatever the
//   sessions or addresses it comes from; customs rules bound it per client too.
// - Backup codes are kept as HMACs, one row per code; using one deletes its row (single use, race-safe).
// - Two-step is on once /totp/setup/complete ran; from then on a sign-in waits for a second factor
//   and sessions confirmed otherwise stay below the account's AAL (sessions/index.ts refuses them 222).

const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** protocol.md §4.7: backup codes are 10 characters of Crockford's base32, lower-cased. */
const CODE_ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const CODE_LENGTH = 10;

export interface TwoStepDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  sessions: SessionsService;
  tokens: TokensService;
  securityEvents: SecurityEvents;
  /** TOTP_ENCRYPTION_KEY: 64 hex characters. */
  encryptionKey: string;
  /** The issuer an authenticator app shows. */
  serviceName: string;
  recoveryCodeCount: number;
  recoveryCodeNotifyLow: number;
}

/** Told inside the transaction that turns two-step off, so what depends on it (the recovery phone) goes with it. */
export type TwoStepDisabledListener = (trx: Trx, uid: string) => Promise<void>;

type Notice = 'twoStepEnabled' | 'twoStepReplaced' | 'twoStepDisabled' | 'backupCodesReplaced';

const utcTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

function sameCode(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

export class TwoStepService {
  private readonly box: SecretBox;
  private readonly disabledListeners: TwoStepDisabledListener[] = [];

  constructor(private readonly deps: TwoStepDeps) {
    this.box = new SecretBox(deps.encryptionKey);
  }

  // ---- for other domains

  /** Whether two-step is on for the account (sign-ins need a second factor; its minimum AAL is 2). */
  isEnabled(uid: string, db: Executor = this.deps.db): Promise<boolean> {
    return isTotpEnabled(db, uid);
  }

  /** How many unused backup codes the account has. */
  backupCodeCount(uid: string, db: Executor = this.deps.db): Promise<number> {
    return countRecoveryCodes(db, uid);
  }

  /** Registers a listener called inside the transaction that turns two-step off (see TwoStepDisabledListener). */
  onDisabled(listener: TwoStepDisabledListener): void {
    this.disabledListeners.push(listener);
  }

  /**
   * Confirms `session` with a second factor (`totp-2fa`, `recovery-code`, or the recovery phone's
   * `sms-2fa`): a waiting sign-in becomes confirmed, a session confirmed by email rises to AAL2.
   * The caller has checked the factor; this writes the session (and records the event) inside the
   * caller's transaction when given one, else in its own.
   */
  async upgradeSessionToAal2(db: Executor, session: { id: string; uid: string; tokenVerificationId: string | null }, method: SecondFactorMethod, ctx: RequestContext): Promise<void> {
    if (!db.isTransaction) {
      await (db as Kysely<Database>).transaction().execute((trx) => this.upgradeSessionToAal2(trx, session, method, ctx));
      return;
    }
    const trx = db as Trx;
    const now = this.deps.clock.now();
    await this.deps.sessions.elevate(trx, session.id, method, now);
    await this.deps.securityEvents.record(trx, session.uid, {
      name: 'account.two_step_session_verified', ctx, verified: true, additionalInfo: { method },
    });
    // The account's devices re-check their state (a waiting sign-in is now confirmed).
    if (session.tokenVerificationId !== null) await this.deps.records.accountChanged(trx, session.uid, 'state');
  }

  /**
   * A passwordForgotToken's holder passed a second factor: the account reset token it yields
   * carries the method, and /account/reset on a two-step account needs it (else 138).
   */
  async markForgotTokenVerified(db: Executor, forgotTokenId: string, method: SecondFactorMethod): Promise<void> {
    await this.deps.tokens.setPasswordForgotVerificationMethod(db, forgotTokenId, VERIFICATION_METHODS[method]);
  }

  // ---- TOTP

  private totp(secretBase32: string, email: string): TOTP {
    return new TOTP({
      issuer: this.deps.serviceName, label: email, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS,
      secret: Secret.fromBase32(secretBase32),
    });
  }

  /**
   * The time step `code` belongs to (the current one or one either side), or null. Every candidate
   * is compared, in constant time, whatever matched first.
   */
  private matchStep(secretBase32: string, code: string, now: number): number | null {
    const totp = this.totp(secretBase32, '');
    const current = Math.floor(now / 1000 / PERIOD_SECONDS);
    let found: number | null = null;
    for (const step of [current - 1, current, current + 1]) {
      if (sameCode(totp.generate({ timestamp: step * PERIOD_SECONDS * 1000 }), code) && found === null) found = step;
    }
    return found;
  }

  /**
   * Checks a code against a sealed secret under the account's budget of wrong codes: the owner's,
   * or during a password reset the reset budget (issue 22: a mailbox alone never locks the owner's
   * own sign-in). A wrong code is counted; a right one returns its step (the caller spends it).
   */
  private async checkCode(uid: string, sealed: string, code: string, now: number, budget: CodeBudgetKind = 'owner'): Promise<number | null> {
    const { db, records } = this.deps;
    await records.checkCodeBudget(db, uid, now, budget);
    const step = code.length === DIGITS ? this.matchStep(this.box.open(uid, sealed), code, now) : null;
    if (step === null) await records.recordCodeFailure(db, uid, now, budget);
    return step;
  }

  private async notify(uid: string, template: Notice, now: number): Promise<void> {
    const account = await this.deps.records.find(this.deps.db, uid);
    if (!account) return;
    // Notices inform: the change already happened, so a failed delivery is not the request's error.
    await this.deps.mailer.send(template, account.email, account.locale, { time: utcTime(now) }).catch(() => undefined);
  }

  private async newSecret(uid: string, email: string): Promise<{ sealed: string; secret: string; qrCodeUrl: string }> {
    const secret = new Secret({ buffer: new Uint8Array(randomBytes(20)).buffer }).base32;
    const uri = this.totp(secret, email).toString();
    const qrCodeUrl = await QRCode.toDataURL(uri, { errorCorrectionLevel: 'H', type: 'image/png' });
    return { sealed: this.box.seal(uid, secret), secret, qrCodeUrl };
  }

  /** GET /totp/exists. */
  async exists(uid: string): Promise<{ exists: boolean; verified: boolean }> {
    const row = await findTotp(this.deps.db, uid);
    return { exists: row !== null && row.enabled, verified: row !== null && row.verified };
  }

  /**
   * POST /totp/create: a new secret for the app, shown once. 154 when two-step is on; a setup
   * left unfinished is started again with a new secret.
   */
  async create(uid: string): Promise<{ qrCodeUrl: string; secret: string }> {
    const { db, clock } = this.deps;
    const account = await this.deps.records.find(db, uid);
    if (!account) throw appError('ACCOUNT_UNKNOWN');
    const made = await this.newSecret(uid, account.email);
    await db.transaction().execute(async (trx) => {
      const existing = await findTotp(trx, uid);
      if (existing?.enabled) throw appError('TOTP_TOKEN_EXISTS');
      if (existing) await deleteTotp(trx, uid);
      await insertTotp(trx, uid, made.sealed, clock.now());
    }).catch((err: unknown) => {
      if (isUniqueViolation(err)) throw appError('TOTP_TOKEN_EXISTS');
      throw err;
    });
    return { qrCodeUrl: made.qrCodeUrl, secret: made.secret };
  }

  private async pending(uid: string): Promise<TotpRow> {
    const row = await findTotp(this.deps.db, uid);
    if (!row) throw appError('TOTP_TOKEN_NOT_FOUND');
    if (row.enabled) throw appError('TOTP_TOKEN_EXISTS');
    return row;
  }

  /** POST /totp/setup/verify: the app shows the right code. `success: false` for a wrong one. */
  async setupVerify(uid: string, code: string): Promise<{ success: boolean }> {
    const now = this.deps.clock.now();
    const row = await this.pending(uid);
    const step = await this.checkCode(uid, row.sealedSecret, code, now);
    if (step === null) return { success: false };
    return { success: await spendStep(this.deps.db, uid, step, { verified: 1 }) };
  }

  /**
   * POST /totp/setup/complete: turns two-step on (after /totp/setup/verify). The calling session
   * (or the MFA token's) proved the app and is raised to AAL2.
   */
  async setupComplete(uid: string, ctx: RequestContext, session?: { id: string }): Promise<{ success: boolean }> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const row = await this.pending(uid);
    if (!row.verified) throw appError('TOTP_TOKEN_NOT_FOUND', {}, 'TOTP token not found: verify a code from the app first (/totp/setup/verify)');
    await db.transaction().execute(async (trx) => {
      if (!(await enableTotp(trx, uid, now))) throw appError('TOTP_TOKEN_EXISTS');
      await this.deps.securityEvents.record(trx, uid, { name: 'account.two_step_enabled', ctx, verified: true });
      if (session) await this.deps.sessions.elevate(trx, session.id, 'totp-2fa', now);
      await this.deps.records.accountChanged(trx, uid, 'profile');
    });
    await this.notify(uid, 'twoStepEnabled', now);
    return { success: true };
  }

  /** A code from the account's app, spent: true when right and not used before in its step. */
  private async spendAppCode(uid: string, code: string, budget: CodeBudgetKind = 'owner'): Promise<boolean> {
    const now = this.deps.clock.now();
    const row = await findTotp(this.deps.db, uid);
    if (!row?.enabled) throw appError('TOTP_TOKEN_NOT_FOUND');
    const step = await this.checkCode(uid, row.sealedSecret, code, now, budget);
    if (step === null) return false;
    if (!(await spendStep(this.deps.db, uid, step))) {
      // A replay: the code was right but its step is spent. Counted like a wrong code.
      await this.deps.records.recordCodeFailure(this.deps.db, uid, now, budget);
      return false;
    }
    return true;
  }

  /** POST /session/verify/totp: a right code confirms the session with `totp-2fa` (AAL2). */
  async verifySession(session: SessionWithAccount, code: string, ctx: RequestContext): Promise<{ success: boolean }> {
    if (!(await this.spendAppCode(session.uid, code))) return { success: false };
    await this.deps.db.transaction().execute((trx) => this.upgradeSessionToAal2(trx, session, 'totp-2fa', ctx));
    return { success: true };
  }

  /** POST /totp/verify with a passwordForgotToken: the reset that follows may proceed on a two-step account. */
  async verifyForgot(uid: string, forgotTokenId: string, code: string): Promise<{ success: boolean }> {
    if (!(await this.spendAppCode(uid, code, 'reset'))) return { success: false };
    await this.markForgotTokenVerified(this.deps.db, forgotTokenId, 'totp-2fa');
    return { success: true };
  }

  /**
   * POST /totp/destroy (and /mfa/totp/destroy): turns two-step off — the app, the backup codes and
   * whatever listeners remove (the recovery phone) — in one transaction.
   */
  async destroy(uid: string, ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const wasOn = await db.transaction().execute(async (trx) => {
      const row = await findTotp(trx, uid);
      if (!row) return false;
      await deleteTotp(trx, uid);
      await deleteRecoveryCodes(trx, uid);
      if (!row.enabled) return false;
      for (const listener of this.disabledListeners) await listener(trx, uid);
      await this.deps.securityEvents.record(trx, uid, { name: 'account.two_step_disabled', ctx, verified: true });
      await this.deps.records.accountChanged(trx, uid, 'profile');
      return true;
    });
    if (wasOn) await this.notify(uid, 'twoStepDisabled', now);
  }

  /** POST /totp/replace/start (and /mfa): a new secret for a new app, kept aside until confirmed. 155 without two-step. */
  async replaceStart(uid: string): Promise<{ qrCodeUrl: string; secret: string }> {
    const { db } = this.deps;
    const account = await this.deps.records.find(db, uid);
    if (!account) throw appError('ACCOUNT_UNKNOWN');
    const made = await this.newSecret(uid, account.email);
    if (!(await setPendingSecret(db, uid, made.sealed))) throw appError('TOTP_TOKEN_NOT_FOUND');
    return { qrCodeUrl: made.qrCodeUrl, secret: made.secret };
  }

  /** POST /totp/replace/confirm (and /mfa): a code from the new app makes it the account's. */
  async replaceConfirm(uid: string, code: string, ctx: RequestContext): Promise<{ success: boolean }> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const row = await findTotp(db, uid);
    if (!row?.enabled || !row.pendingSealedSecret) throw appError('TOTP_TOKEN_NOT_FOUND', {}, 'TOTP token not found: start a replacement first (/totp/replace/start)');
    const pending = row.pendingSealedSecret;
    const step = await this.checkCode(uid, pending, code, now);
    if (step === null) return { success: false };
    const replaced = await db.transaction().execute(async (trx) => {
      if (!(await swapInPendingSecret(trx, uid, pending, pending, step))) return false;
      await this.deps.securityEvents.record(trx, uid, { name: 'account.two_step_replaced', ctx, verified: true });
      return true;
    });
    if (replaced) await this.notify(uid, 'twoStepReplaced', now);
    return { success: replaced };
  }

  // ---- backup codes

  private async storeCodes(uid: string, codes: string[], ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const hashes = codes.map((c) => this.box.hashCode(uid, c));
    if (new Set(hashes).size !== hashes.length) {
      throw appError('INVALID_PARAMETER', { validation: { source: 'payload', keys: ['recoveryCodes'], rule: 'unique', message: 'each backup code must be different' } },
        'Invalid parameter in request body: each backup code must be different (compared without case)');
    }
    await db.transaction().execute(async (trx) => {
      await replaceRecoveryCodes(trx, uid, hashes, now);
      await this.deps.securityEvents.record(trx, uid, { name: 'account.recovery_codes_replaced', ctx, verified: true });
    });
    await this.notify(uid, 'backupCodesReplaced', now);
  }

  /** GET /recoveryCodes: new codes replace every earlier one; returned once, stored only hashed. */
  async generateCodes(uid: string, ctx: RequestContext): Promise<{ recoveryCodes: string[] }> {
    const codes = new Set<string>();
    while (codes.size < this.deps.recoveryCodeCount) {
      codes.add(Array.from({ length: CODE_LENGTH }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join(''));
    }
    const recoveryCodes = [...codes];
    await this.storeCodes(uid, recoveryCodes, ctx);
    return { recoveryCodes };
  }

  /** POST and PUT /recoveryCodes: codes the client made replace every earlier one. */
  async setCodes(uid: string, codes: string[], ctx: RequestContext): Promise<{ success: boolean }> {
    await this.storeCodes(uid, codes, ctx);
    return { success: true };
  }

  /** GET /recoveryCodes/exists. */
  async codesExist(uid: string): Promise<{ hasBackupCodes: boolean; count: number }> {
    const count = await countRecoveryCodes(this.deps.db, uid);
    return { hasBackupCodes: count > 0, count };
  }

  /** Spends one backup code (156 when it is not one of the account's unused codes); how many remain. */
  private async spendCode(uid: string, code: string, budget: CodeBudgetKind = 'owner'): Promise<number> {
    const { db, clock, records } = this.deps;
    const now = clock.now();
    await records.checkCodeBudget(db, uid, now, budget);
    if (!(await spendRecoveryCode(db, uid, this.box.hashCode(uid, code)))) {
      await records.recordCodeFailure(db, uid, now, budget);
      throw appError('RECOVERY_CODE_NOT_FOUND');
    }
    const remaining = await countRecoveryCodes(db, uid);
    const account = await records.find(db, uid);
    if (account) {
      await this.deps.mailer.send('backupCodeUsed', account.email, account.locale, {
        time: utcTime(now), remaining, low: remaining <= this.deps.recoveryCodeNotifyLow,
      }).catch(() => undefined);
    }
    return remaining;
  }

  /** POST /session/verify/recoveryCode: a backup code confirms the session (`recovery-code`, AAL2). */
  async verifySessionWithCode(session: SessionWithAccount, code: string, ctx: RequestContext): Promise<{ remaining: number }> {
    if (!(await this.isEnabled(session.uid))) throw appError('TOTP_REQUIRED');
    const remaining = await this.spendCode(session.uid, code);
    await this.deps.db.transaction().execute((trx) => this.upgradeSessionToAal2(trx, session, 'recovery-code', ctx));
    return { remaining };
  }

  /** POST /totp/verify/recoveryCode with a passwordForgotToken. */
  async verifyForgotWithCode(uid: string, forgotTokenId: string, code: string): Promise<{ remaining: number }> {
    if (!(await this.isEnabled(uid))) throw appError('TOTP_REQUIRED');
    const remaining = await this.spendCode(uid, code, 'reset');
    await this.markForgotTokenVerified(this.deps.db, forgotTokenId, 'recovery-code');
    return { remaining };
  }

  /** The account's rows, for its deletion. */
  async deleteAccount(trx: Trx, uid: string): Promise<void> {
    await deleteTotp(trx, uid);
    await deleteRecoveryCodes(trx, uid);
  }
}
