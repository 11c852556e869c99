import { appError, type AppError } from '@tessera/errors';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import type { TokenSecrets } from '../../crypto/token-secrets.js';
import { randomHex } from '@tessera/protocol';
import { mintToken } from '../../crypto/tokens.js';
import type { RequestContext } from '../../platform/request-context.js';
import type { Executor } from '../../storage/executor.js';
import type { Database } from '../../storage/schema.js';
import type { SecurityEvents } from '../security-events/index.js';
import { checkSessionCode, clearSessionCode, issueSessionCode, type CodeCheck } from './codes.js';
import {
  awaitsSecondFactor, deleteSession, findSession, findSessionByName, findSessionWithAccount, insertSession, isSessionVerified, listSessionsAwaiting, listSessionsOf,
  markSessionsVerifiedByVerificationId, elevateSession, markSessionVerified, sessionAal, setSessionAuthAt, setSessionHasDevice, touchSession,
  type EmailVerificationMethod, type SecondFactorMethod, type SecondFactorPort, type Session, type SessionLocation, type SessionWithAccount, type VerificationMethodName,
} from './store.js';
import { parseUserAgent } from './user-agent.js';

/** domains/geo's lookup, as sessions use it (the geo domain is built before this one). */
export type Locate = (ip: string) => SessionLocation | null;

/** How a new session starts: confirmed, or waiting on an id that an emailed link or code clears. */
export interface SessionStart {
  uid: string;
  now: number;
  ctx: RequestContext;
  /** null: confirmed from the start. */
  tokenVerificationId: string | null;
  mustVerify: boolean;
  reason: 'signup' | 'login' | 'change_password' | null;
  /** For a session confirmed from the start: how (copied from the session it replaces). */
  verifiedWith?: VerificationMethodName | null;
  authAt?: number;
}

/**
 * Mints a session token and stores it; `data` goes to the client once and is never stored, nor are
 * its id and authKey: the row is keyed by the id's HMAC and keeps the authKey sealed.
 */
async function createSession(db: Executor, secrets: TokenSecrets, s: SessionStart, locate?: Locate): Promise<{ data: string; session: Session }> {
  const token = mintToken('sessionToken');
  const verified = s.tokenVerificationId === null;
  const session: Session = {
    id: secrets.handle('sessionToken', token.id),
    sealedAuthKey: secrets.sealAuthKey('sessionToken', token.id, token.authKey),
    hawkOnly: false,
    hasDevice: false,
    uid: s.uid,
    createdAt: s.now,
    lastAccessTime: s.now,
    authAt: s.authAt ?? s.now,
    ua: parseUserAgent(s.ctx.userAgent),
    location: locate?.(s.ctx.ip) ?? null,
    tokenVerificationId: s.tokenVerificationId,
    mustVerify: !verified && s.mustVerify,
    verificationMethod: verified ? (s.verifiedWith ?? null) : null,
    verifiedAt: verified ? s.now : null,
    verificationReason: verified ? null : s.reason,
  };
  await insertSession(db, session);
  return { data: token.data, session };
}

/** Whether a session is confirmed at (at least) its account's assurance level: AAL2 once two-step is on. */
export function meetsMinimumAal(s: SessionWithAccount): boolean {
  return isSessionVerified(s) && (!s.account.twoStep || sessionAal(s) === 2);
}

/**
 * What a session below its account's assurance level is answered: 138 while unconfirmed, 222 when
 * confirmed below AAL2 on an account with two-step on; null when it meets the level. The
 * sessionTokenVerified strategy answers with it, and so does every handler that checks the same
 * level itself (an optional session, or a route with two rules); `action` completes the message.
 */
export function aalRefusal(s: SessionWithAccount, action?: string): AppError | null {
  if (!isSessionVerified(s)) return appError('SESSION_UNVERIFIED', {}, action ? `Unconfirmed session: confirm the sign-in before you ${action}` : undefined);
  if (meetsMinimumAal(s)) return null;
  return appError('INSUFFICIENT_AAL', {}, action
    ? `This request requires a higher authentication level: the account has two-step authentication, so confirm this session with the second factor (POST /session/verify/totp) before you ${action}`
    : undefined);
}

/** The verification state every sign-in style response reports (spec 1 §3). */
export function verificationState(session: Session, emailVerified: boolean, requestedMethod?: string) {
  const sessionVerified = isSessionVerified(session);
  return {
    emailVerified,
    sessionVerified,
    verified: emailVerified && sessionVerified,
    ...(sessionVerified && emailVerified
      ? {}
      : {
          verificationMethod: requestedMethod ?? 'email',
          verificationReason: emailVerified ? (session.verificationReason ?? 'login') : 'signup',
        }),
  };
}

export interface SessionsDeps {
  db: Kysely<Database>;
  clock: Clock;
  /** The keys session rows are stored under. */
  secrets: TokenSecrets;
  /** Idle sessions without a device expire this long after their last use (0: never). */
  idleLifetimeMs: number;
  /** Records sign-outs. */
  securityEvents: SecurityEvents;
  /** Where a new session is opened from (domains/geo); none: sessions have no location. */
  locate?: Locate;
}

/** lastAccessTime is written at most this often per session, not on every request. */
const TOUCH_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Told when sessions end one by one (sign-out, idle expiry, a spent code, deletion by another
 * domain), on the executor that deleted them, so that what hangs on a session (its device) goes in
 * the same transaction. Sessions ended account-wide (password change or reset, account deletion)
 * go through the account lifecycle hooks instead.
 */
export type SessionEndedListener = (db: Executor, uid: string, sessionId: string) => Promise<void>;

export class SessionsService {
  private readonly endedListeners: SessionEndedListener[] = [];

  /** The two-step domain's read port, once it is composed (acceptSecondFactor); until then no account has a second factor. */
  private secondFactor: SecondFactorPort | null = null;

  constructor(private readonly deps: SessionsDeps) {}

  /**
   * The second-factor domain (two-step, a floor above) hands in its read port when it is
   * composed: from then on the session lookup carries whether the account has a second factor on,
   * and confirmations by email leave such an account's sessions waiting.
   */
  acceptSecondFactor(port: SecondFactorPort): void {
    this.secondFactor = port;
  }

  /** Registers a listener for sessions that end one by one (see SessionEndedListener). */
  onSessionEnded(listener: SessionEndedListener): void {
    this.endedListeners.push(listener);
  }

  private async ended(db: Executor, uid: string, sessionId: string): Promise<void> {
    for (const listener of this.endedListeners) await listener(db, uid, sessionId);
  }

  /** Deletes a session and what hangs on it, in one transaction unless given one. */
  private async end(db: Executor, session: Pick<Session, 'id' | 'uid'>): Promise<boolean> {
    if (!this.endedListeners.length) return deleteSession(db, session.id);
    const run = async (trx: Executor) => {
      await this.ended(trx, session.uid, session.id);
      return deleteSession(trx, session.id);
    };
    return db.isTransaction ? run(db) : (db as Kysely<Database>).transaction().execute(run);
  }

  // ---- for other domains: every method takes the executor first (inside or outside a transaction)

  /** Mints a session token and stores it; `data` goes to the client once and is never stored. */
  create(db: Executor, start: SessionStart): Promise<{ data: string; session: Session }> {
    return createSession(db, this.deps.secrets, start, this.deps.locate);
  }

  /** The session of this handle (`Session.id`). */
  find(db: Executor, id: string): Promise<Session | null> {
    return findSession(db, id);
  }

  /**
   * Issue 22: whether the session waits for the second factor (its account has two-step on and it
   * is unconfirmed). Such a session is never sent an emailed code or link, and no email confirms it
   * (the store refuses); only /session/verify/totp, a backup code or the recovery phone do.
   */
  awaitsSecondFactor(session: SessionWithAccount): boolean {
    return awaitsSecondFactor(session);
  }

  /** The session of this handle with its account's facts (two-step on or not), read now, not from the cache. */
  findWithAccount(db: Executor, id: string): Promise<SessionWithAccount | null> {
    return findSessionWithAccount(db, id, this.secondFactor);
  }

  /**
   * A session of the account that a request names (`customSessionToken`, `sessionToken` of
   * /password/change/finish): by the token id FxA clients derive and send, or by its handle.
   */
  findNamed(db: Executor, uid: string, name: string): Promise<Session | null> {
    const lower = name.toLowerCase();
    return findSessionByName(db, uid, [this.deps.secrets.handle('sessionToken', lower), lower]);
  }

  /** Ends one session of the account (and what hangs on it: its device). */
  delete(db: Executor, session: Pick<Session, 'id' | 'uid'>): Promise<boolean> {
    return this.end(db, session);
  }

  /** Every session of the account, most recently used first. */
  listOf(db: Executor, uid: string): Promise<Session[]> {
    return listSessionsOf(db, uid);
  }

  /** A device was registered on the session (true) or removed from it (false). */
  setHasDevice(db: Executor, id: string, hasDevice: boolean): Promise<void> {
    return setSessionHasDevice(db, id, hasDevice);
  }

  /** The password was proven again on this session (reauth). */
  setAuthAt(db: Executor, id: string, authAt: number): Promise<void> {
    return setSessionAuthAt(db, id, authAt);
  }

  /**
   * Confirms one session by email; false when it was already confirmed, is gone, or waits for the
   * second factor (issue 22: never confirmed by email once the account has two-step on).
   */
  markVerified(db: Executor, id: string, method: EmailVerificationMethod, now: number): Promise<boolean> {
    return markSessionVerified(db, id, method, now, this.secondFactor);
  }

  /**
   * Confirms a session with a second factor (TOTP, a backup code, the recovery phone): a waiting
   * sign-in is confirmed, a session confirmed by email is raised to AAL2 (issue 12).
   */
  elevate(db: Executor, id: string, method: SecondFactorMethod, now: number): Promise<boolean> {
    return elevateSession(db, id, method, now);
  }

  /**
   * Confirms the sessions waiting on an emailed link's tokenVerificationId; how many. None when the
   * account has two-step on: its sessions wait for the second factor (issue 22).
   */
  markVerifiedByVerificationId(db: Executor, uid: string, tokenVerificationId: string, method: EmailVerificationMethod, now: number): Promise<number> {
    return markSessionsVerifiedByVerificationId(db, uid, tokenVerificationId, method, now, this.secondFactor);
  }

  /** The sessions still waiting on this tokenVerificationId. */
  listAwaiting(db: Executor, uid: string, tokenVerificationId: string): Promise<Session[]> {
    return listSessionsAwaiting(db, uid, tokenVerificationId);
  }

  /** A fresh 6-digit confirmation code for the session (replaces any earlier one); returns it. */
  issueCode(db: Executor, c: { secret: string; sessionId: string; now: number; lifetimeMs: number; tries: number }): Promise<string> {
    return issueSessionCode(db, c.secret, c.sessionId, c.now, c.lifetimeMs, c.tries);
  }

  /** Checks a confirmation code, spending one try; `spent` ends the session (see codes.ts). */
  async checkCode(db: Executor, c: { secret: string; uid: string; sessionId: string; code: string; now: number; maxFailures: number }): Promise<CodeCheck> {
    const result = await checkSessionCode(db, c.secret, c.sessionId, c.code, c.now, c.maxFailures);
    // The session row is gone; what hung on it goes too.
    if (result === 'spent') await this.ended(db, c.uid, c.sessionId);
    return result;
  }

  clearCode(db: Executor, sessionId: string): Promise<void> {
    return clearSessionCode(db, sessionId);
  }

  // ---- the session routes

  /**
   * The auth strategy's check: expired sessions are refused (and removed). Synchronous unless it
   * has to write, which is rare: it runs on every authenticated request.
   */
  isLive(session: Session, now: number): boolean | Promise<boolean> {
    const { idleLifetimeMs } = this.deps;
    // protocol.md §2.1: only sessions without a device expire for being idle.
    if (idleLifetimeMs > 0 && !session.hasDevice && now - session.lastAccessTime > idleLifetimeMs) {
      return this.end(this.deps.db, session).then(() => false);
    }
    if (now - session.lastAccessTime > TOUCH_INTERVAL_MS) return touchSession(this.deps.db, session.id, now).then(() => true);
    return true;
  }

  status(session: SessionWithAccount) {
    const sessionVerified = isSessionVerified(session);
    const emailVerified = session.account.emailVerified;
    return {
      state: sessionVerified ? ('verified' as const) : ('unverified' as const),
      uid: session.uid,
      details: {
        accountEmailVerified: emailVerified,
        sessionVerificationMethod: session.verificationMethod,
        sessionVerified,
        // The account's minimum is AAL2 with two-step on, else AAL1 (any confirmed session).
        sessionVerificationMeetsMinimumAAL: meetsMinimumAal(session),
        verified: sessionVerified && emailVerified,
      },
    };
  }

  /**
   * Destroys the caller's session, or another session of the same account named by id or handle.
   * Issue 22, hole 4: signing out another session takes what /account/attached_client/destroy
   * takes, a session confirmed at the account's AAL (138 unconfirmed, 222 below AAL2 on a two-step
   * account); a session signs out itself in any state. A caller below that level is refused
   * whether or not the name is a session of the account, so it learns nothing about which are.
   */
  async destroy(session: SessionWithAccount, otherSession: string | undefined, ctx: RequestContext): Promise<void> {
    const signedOut = (which: 'current' | 'other') => this.deps.securityEvents.record(this.deps.db, session.uid, {
      name: 'session.destroy', ctx, verified: isSessionVerified(session), additionalInfo: { session: which },
    });
    if (otherSession) {
      const other = await this.findNamed(this.deps.db, session.uid, otherSession);
      const itself = other?.id === session.id;
      const refused = itself ? null : aalRefusal(session, 'sign out another session (a session may always sign out itself)');
      if (refused) throw refused;
      if (!other) throw appError('INVALID_TOKEN', { detail: 'Unknown session' });
      await this.end(this.deps.db, other);
      await signedOut(itself ? 'current' : 'other');
      return;
    }
    await this.end(this.deps.db, session);
    await signedOut('current');
  }

  /**
   * A second session for the same sign-in, in the same confirmation state but with its own: a
   * confirmed session's copy is confirmed the same way (method, so AAL); an unconfirmed session's
   * copy waits on a verification id of its own, so that confirming either leaves the other as it
   * was (the incumbent's protocol; issue 22). On a two-step account the copy waits for the second
   * factor, as the original does.
   */
  async duplicate(session: SessionWithAccount, ctx: RequestContext) {
    const now = this.deps.clock.now();
    const { data, session: copy } = await createSession(this.deps.db, this.deps.secrets, {
      uid: session.uid, now, ctx,
      tokenVerificationId: isSessionVerified(session) ? null : randomHex(16),
      mustVerify: session.mustVerify,
      reason: (session.verificationReason as SessionStart['reason']) ?? null,
      verifiedWith: session.verificationMethod,
      authAt: session.authAt,
    }, this.deps.locate);
    return {
      uid: session.uid,
      sessionToken: data,
      authAt: Math.floor(copy.authAt / 1000),
      ...verificationState(copy, session.account.emailVerified, awaitsSecondFactor(session) && session.account.emailVerified ? 'totp-2fa' : undefined),
    };
  }
}
