import { createHmac, hkdfSync, randomInt, timingSafeEqual } from 'node:crypto';
import { appError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import { parsePhoneNumberFromString } from 'libphonenumber-js';
import type { Clock } from '../../clock.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Mailer } from '../../senders/mail/mailer.js';
import { pickLocale, translator } from '../../senders/mail/render.js';
import { SmsDeliveryError, type SmsSender } from '../../senders/sms/sender.js';
import { isUniqueViolation } from '../../storage/db.js';
import type { Executor, Trx } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import type { AccountRecords, CodeBudgetKind } from '../account-core/index.js';
import type { SecurityEvents } from '../security-events/index.js';
import type { SessionWithAccount } from '../sessions/index.js';
import type { TwoStepService } from '../two-step/index.js';
import {
  countOtherAccounts, deleteCodes, deletePhone, findCode, findPhone, insertPhone, putCode, spendCode, takeGuess, updatePhone,
  type CodePurpose,
} from './store.js';

// The recovery phone (protocol.md §4.9): a number that receives 6-digit SMS codes, each of which
// can stand in for the authenticator app once — to confirm a sign-in (AAL2, `sms-2fa`) or the
// second factor of a password reset. It belongs to two-step authentication: adding one needs
// two-step on and backup codes kept, and turning two-step off removes it.
//
// Codes: 6 digits, 10 minutes, single use, kept as HMACs (one row per account and purpose). Wrong
// guesses count twice: against the row (RECOVERY_PHONE_CODE_MAX_FAILURES; a resend carries the
// count over, so asking for a new code never buys more guesses) and against the account's budget
// of wrong codes of every kind (AccountRecords). Customs rules bound sends per client and account.

const DIGITS = 6;
const E164 = /^\+[1-9]\d{1,14}$/;

export interface RecoveryPhoneDeps {
  db: Kysely<Database>;
  clock: Clock;
  mailer: Mailer;
  records: AccountRecords;
  securityEvents: SecurityEvents;
  twoStep: TwoStepService;
  /** Where SMS go; null when none is configured (production without Twilio): the routes answer 202. */
  sms: SmsSender | null;
  /** The server secret: the key that hashes codes is derived from it. */
  secret: string;
  regions: string[];
  maxAccountsPerNumber: number;
  codeLifetimeSeconds: number;
  codeMaxFailures: number;
}

/** A number checked against the E.164 grammar, a real numbering plan and the allowed regions. */
export interface CheckedNumber {
  e164: string;
  region: string;
  nationalFormat: string;
}

/** `+1••••••0123`: the country code and the last four digits. */
export function maskPhoneNumber(e164: string): string {
  const parsed = parsePhoneNumberFromString(e164);
  const cc = parsed ? `+${parsed.countryCallingCode}` : e164.slice(0, 2);
  const rest = e164.slice(cc.length);
  const shown = rest.slice(-4);
  return `${cc}${'•'.repeat(Math.max(0, rest.length - shown.length))}${shown}`;
}

/** The national format with every digit but the last four masked: `(•••) •••-0123`. */
function maskNational(national: string): string {
  let keep = 4;
  const out: string[] = [];
  for (const ch of [...national].reverse()) {
    if (/\d/.test(ch)) out.push(keep-- > 0 ? ch : '•');
    else out.push(ch);
  }
  return out.reverse().join('');
}

const utcTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

export class RecoveryPhoneService {
  private readonly codeKey: Buffer;

  constructor(private readonly deps: RecoveryPhoneDeps) {
    this.codeKey = Buffer.from(hkdfSync('sha256', deps.secret, 'tessera', 'recovery phone codes', 32));
  }

  /** Whether SMS can be sent at all (a transport is configured). */
  get smsConfigured(): boolean {
    return this.deps.sms !== null;
  }

  private requireSms(): SmsSender {
    if (!this.deps.sms) throw appError('FEATURE_NOT_ENABLED', {}, 'Feature not enabled: this server sends no SMS (configure TWILIO_* to use the recovery phone)');
    return this.deps.sms;
  }

  /** 129 for a malformed or impossible number, 130 for a region not allowed. */
  checkNumber(phoneNumber: string): CheckedNumber {
    if (!E164.test(phoneNumber)) throw appError('INVALID_PHONE_NUMBER');
    const parsed = parsePhoneNumberFromString(phoneNumber);
    if (!parsed?.isValid() || !parsed.country) throw appError('INVALID_PHONE_NUMBER');
    if (!this.deps.regions.includes(parsed.country)) throw appError('INVALID_REGION', { region: parsed.country });
    return { e164: parsed.number, region: parsed.country, nationalFormat: parsed.formatNational() };
  }

  private hash(uid: string, purpose: CodePurpose, code: string): string {
    return createHmac('sha256', this.codeKey).update(`${uid}:${purpose}:${code}`, 'utf8').digest('hex');
  }

  /**
   * Makes a code for (uid, purpose), stores it (carrying over the wrong guesses of an unexpired
   * earlier one) and sends it. While those guesses are used up, 429/114 until that code expires.
   */
  private async sendCode(uid: string, purpose: CodePurpose, to: string): Promise<void> {
    const sms = this.requireSms();
    const { db, clock, codeLifetimeSeconds, codeMaxFailures } = this.deps;
    const now = clock.now();
    const account = await this.deps.records.find(db, uid);
    if (!account) throw appError('ACCOUNT_UNKNOWN');
    const earlier = await findCode(db, uid, purpose);
    const live = earlier !== null && earlier.expiresAt > now;
    const failures = live ? earlier.failures : 0;
    if (live && failures >= codeMaxFailures) {
      throw appError('THROTTLED', { retryAfter: Math.max(1, Math.ceil((earlier.expiresAt - now) / 1000)) }, 'Too many wrong codes: wait retryAfter seconds before asking for another');
    }
    const code = String(randomInt(10 ** DIGITS)).padStart(DIGITS, '0');
    // A resend keeps the earlier code's expiry window for its count of failures (see above).
    await putCode(db, { uid, purpose, codeHash: this.hash(uid, purpose, code), phoneNumber: to, failures, createdAt: now, expiresAt: now + codeLifetimeSeconds * 1000 });
    const t = translator(pickLocale(account.locale));
    try {
      await sms.send({ to, body: t('sms.recoveryPhoneCode', { code, minutes: Math.round(codeLifetimeSeconds / 60) }), kind: 'recoveryPhoneCode', code });
    } catch (err) {
      if (err instanceof SmsDeliveryError) throw appError('BACKEND_SERVICE_FAILURE', { service: 'sms', operation: 'send' });
      throw err;
    }
  }

  /**
   * Checks `code` against the (uid, purpose) code and spends it: the number it went to. A wrong,
   * expired or used-up code is 183 and counts against the row and the account's budget: during a
   * password reset the reset budget, so a mailbox alone never locks the owner's sign-in (issue 22).
   */
  private async spend(uid: string, purpose: CodePurpose, code: string): Promise<string> {
    const { db, clock, records, codeMaxFailures } = this.deps;
    const now = clock.now();
    const budget: CodeBudgetKind = purpose === 'reset' ? 'reset' : 'owner';
    await records.checkCodeBudget(db, uid, now, budget);
    const row = await findCode(db, uid, purpose);
    // Every guess takes one from the budget first (the right one too: its row is then deleted).
    const allowed = row !== null && row.expiresAt > now && (await takeGuess(db, uid, purpose, row.codeHash, codeMaxFailures));
    const presented = Buffer.from(this.hash(uid, purpose, code), 'hex');
    const right = row !== null && code.length === DIGITS && timingSafeEqual(presented, Buffer.from(row.codeHash, 'hex'));
    if (!allowed || !right) {
      await records.recordCodeFailure(db, uid, now, budget);
      throw appError('INVALID_EXPIRED_OTP_CODE');
    }
    if (!(await spendCode(db, uid, purpose, row.codeHash))) throw appError('INVALID_EXPIRED_OTP_CODE');
    return row.phoneNumber;
  }

  private async notify(uid: string, send: (email: string, locale: string | null) => Promise<void>): Promise<void> {
    const account = await this.deps.records.find(this.deps.db, uid);
    // Notices inform: the change already happened, so a failed delivery is not the request's error.
    if (account) await send(account.email, account.locale).catch(() => undefined);
  }

  // ---- routes

  /** GET /recovery_phone: masked; the national format only for a confirmed session. */
  async get(uid: string, full: boolean): Promise<{ exists: boolean; phoneNumber?: string; nationalFormat?: string }> {
    const phone = await findPhone(this.deps.db, uid);
    if (!phone) return { exists: false };
    const parsed = parsePhoneNumberFromString(phone.phoneNumber);
    return {
      exists: true, phoneNumber: maskPhoneNumber(phone.phoneNumber),
      ...(full && parsed ? { nationalFormat: maskNational(parsed.formatNational()) } : {}),
    };
  }

  /** POST /recovery_phone/available: whether this account could add a phone now. */
  async available(uid: string): Promise<{ available: boolean }> {
    if (!this.deps.sms) return { available: false };
    const { db, twoStep } = this.deps;
    const ok = (await twoStep.isEnabled(uid)) && (await twoStep.backupCodeCount(uid)) > 0 && !(await findPhone(db, uid));
    return { available: ok };
  }

  /**
   * POST /recovery_phone/create (and /mfa): sends a code to a new number. Needs two-step on with
   * backup codes (216); 214 for the account's own number; 217 when the number serves too many
   * accounts. With a phone already there, the code is for /mfa/recovery_phone/change.
   */
  async create(uid: string, phoneNumber: string): Promise<{ success: boolean; nationalFormat: string }> {
    this.requireSms();
    const number = this.checkNumber(phoneNumber);
    const { db, twoStep } = this.deps;
    if (!(await twoStep.isEnabled(uid)) || (await twoStep.backupCodeCount(uid)) === 0) throw appError('RECOVERY_PHONE_BACKUP_CODES_REQUIRED');
    const current = await findPhone(db, uid);
    if (current?.phoneNumber === number.e164) throw appError('RECOVERY_PHONE_NUMBER_ALREADY_EXISTS');
    if ((await countOtherAccounts(db, number.e164, uid)) >= this.deps.maxAccountsPerNumber) throw appError('RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED');
    await this.sendCode(uid, 'setup', number.e164);
    return { success: true, nationalFormat: number.nationalFormat };
  }

  /**
   * POST /recovery_phone/confirm (and /mfa): the code sent by create makes its number the
   * account's recovery phone (214 when it has one: change it instead).
   * POST /mfa/recovery_phone/change: the same, replacing the account's phone (215 when none).
   */
  async confirmSetup(uid: string, code: string, mode: 'add' | 'change', ctx: RequestContext): Promise<{ success: boolean }> {
    const { db, clock, twoStep } = this.deps;
    const now = clock.now();
    const pending = await findCode(db, uid, 'setup');
    if (!pending) throw appError('RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST', {}, 'Recovery phone number does not exist: send a code to the new number first (/recovery_phone/create)');
    const current = await findPhone(db, uid);
    if (mode === 'add' && current) throw appError('RECOVERY_PHONE_NUMBER_ALREADY_EXISTS');
    if (mode === 'change' && !current) throw appError('RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST');
    const number = await this.spend(uid, 'setup', code);
    await db.transaction().execute(async (trx) => {
      // Two-step may have gone, or the number filled up, since the code was sent.
      if (!(await twoStep.isEnabled(uid, trx)) || (await twoStep.backupCodeCount(uid, trx)) === 0) throw appError('RECOVERY_PHONE_BACKUP_CODES_REQUIRED');
      if ((await countOtherAccounts(trx, number, uid)) >= this.deps.maxAccountsPerNumber) throw appError('RECOVERY_PHONE_REGISTRATION_LIMIT_REACHED');
      if (mode === 'add') {
        await insertPhone(trx, uid, number, now).catch((err: unknown) => {
          if (isUniqueViolation(err)) throw appError('RECOVERY_PHONE_NUMBER_ALREADY_EXISTS');
          throw err;
        });
      } else if (!(await updatePhone(trx, uid, number, now))) {
        throw appError('RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST');
      }
      await this.deps.securityEvents.record(trx, uid, { name: mode === 'add' ? 'account.recovery_phone_added' : 'account.recovery_phone_changed', ctx, verified: true });
      await this.deps.records.accountChanged(trx, uid, 'profile');
    });
    const phone = maskPhoneNumber(number);
    await this.notify(uid, (email, locale) => this.deps.mailer.send(mode === 'add' ? 'recoveryPhoneAdded' : 'recoveryPhoneChanged', email, locale, { time: utcTime(now), phone }));
    return { success: true };
  }

  /** DELETE /recovery_phone (and /mfa): 215 when there is none. */
  async remove(uid: string, ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const phone = await db.transaction().execute(async (trx) => {
      const found = await findPhone(trx, uid);
      if (!found || !(await deletePhone(trx, uid))) throw appError('RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST');
      await deleteCodes(trx, uid);
      await this.deps.securityEvents.record(trx, uid, { name: 'account.recovery_phone_removed', ctx, verified: true });
      await this.deps.records.accountChanged(trx, uid, 'profile');
      return found.phoneNumber;
    });
    await this.notify(uid, (email, locale) => this.deps.mailer.send('recoveryPhoneRemoved', email, locale, { time: utcTime(now), phone: maskPhoneNumber(phone) }));
  }

  private async phoneOf(uid: string): Promise<string> {
    const phone = await findPhone(this.deps.db, uid);
    if (!phone) throw appError('RECOVERY_PHONE_NUMBER_DOES_NOT_EXIST');
    return phone.phoneNumber;
  }

  /** POST /recovery_phone/signin/send_code and /reset_password/send_code. */
  async sendTo(uid: string, purpose: 'signin' | 'reset'): Promise<void> {
    this.requireSms();
    await this.sendCode(uid, purpose, await this.phoneOf(uid));
  }

  /** POST /recovery_phone/signin/confirm: the code confirms the session with `sms-2fa` (AAL2). */
  async confirmSignin(session: SessionWithAccount, code: string, ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    await this.phoneOf(session.uid);
    const number = await this.spend(session.uid, 'signin', code);
    await db.transaction().execute((trx) => this.deps.twoStep.upgradeSessionToAal2(trx, session, 'sms-2fa', ctx));
    await this.notify(session.uid, (email, locale) => this.deps.mailer.send('recoveryPhoneUsed', email, locale, { time: utcTime(clock.now()), phone: maskPhoneNumber(number), during: 'signin' }));
  }

  /** POST /recovery_phone/reset_password/confirm: the forgot token carries `sms-2fa` to the reset. */
  async confirmReset(uid: string, forgotTokenId: string, code: string, ctx: RequestContext): Promise<void> {
    const { db, clock } = this.deps;
    await this.phoneOf(uid);
    const number = await this.spend(uid, 'reset', code);
    await db.transaction().execute(async (trx) => {
      await this.deps.twoStep.markForgotTokenVerified(trx, forgotTokenId, 'sms-2fa');
      await this.deps.securityEvents.record(trx, uid, { name: 'account.recovery_phone_reset_verified', ctx, verified: true });
    });
    await this.notify(uid, (email, locale) => this.deps.mailer.send('recoveryPhoneUsed', email, locale, { time: utcTime(clock.now()), phone: maskPhoneNumber(number), during: 'reset' }));
  }

  /** Two-step went off (inside its transaction): the phone goes with it. */
  async onTwoStepDisabled(trx: Trx, uid: string): Promise<void> {
    // The two-step event and email that come with this say so; no separate notice.
    await deletePhone(trx, uid);
    await deleteCodes(trx, uid);
  }

  /** The account's rows, for its deletion. */
  async deleteAccount(db: Executor, uid: string): Promise<void> {
    await deletePhone(db, uid);
    await deleteCodes(db, uid);
  }
}
