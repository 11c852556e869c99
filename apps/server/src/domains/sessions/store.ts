import { sql, type Expression, type ExpressionBuilder, type Kysely, type Selectable, type SqlBool } from 'kysely';
import { preparedQuery } from '../../storage/prepared.js';
import type { Database } from '../../storage/schema.js';
import type { SessionTokensTable } from './tables.js';
import type { Executor } from '../../storage/executor.js';
import type { ColumnsJoin } from '../../storage/read-port.js';
import { joinAccountSummary, type AccountSummaryColumns } from '../account-core/index.js';

/** How a session was confirmed, as stored (protocol.md §2.3). */
export const VERIFICATION_METHODS = { email: 0, 'email-2fa': 1, 'totp-2fa': 2, 'recovery-code': 3, 'sms-2fa': 4 } as const;

/** The methods that prove a second factor ("have": an app, a backup code, a phone): a session confirmed by one is at AAL2. */
export const SECOND_FACTOR_METHODS = ['totp-2fa', 'recovery-code', 'sms-2fa'] as const satisfies readonly VerificationMethodName[];
export type SecondFactorMethod = (typeof SECOND_FACTOR_METHODS)[number];

/** protocol.md §2.3: the session's authenticator assurance level, 2 once a second factor confirmed it. */
export function sessionAal(s: Pick<Session, 'tokenVerificationId' | 'verificationMethod'>): 1 | 2 {
  return s.tokenVerificationId === null && (SECOND_FACTOR_METHODS as readonly string[]).includes(s.verificationMethod ?? '') ? 2 : 1;
}
export type VerificationMethodName = keyof typeof VERIFICATION_METHODS;
/** The methods that prove the mailbox (a link, an emailed code or one shown on another device): AAL1. */
export type EmailVerificationMethod = Exclude<VerificationMethodName, SecondFactorMethod>;
const METHOD_NAMES = Object.fromEntries(Object.entries(VERIFICATION_METHODS).map(([k, v]) => [v, k])) as Record<number, VerificationMethodName>;

export function methodName(code: number | null): VerificationMethodName | null {
  return code === null ? null : (METHOD_NAMES[code] ?? null);
}

export interface UserAgentInfo {
  browser: string | null;
  browserVersion: string | null;
  os: string | null;
  osVersion: string | null;
  deviceType: string | null;
  formFactor: string | null;
}

export interface Session {
  /**
   * The row key: HMAC of the token id under the server secret (crypto/token-secrets.ts). It is the
   * session's handle, safe to show and to log: a client cannot present it as a token.
   */
  id: string;
  /** The Hawk authKey sealed under the server secret and the token id (unsealed per request). */
  sealedAuthKey: string;
  /** Used with Hawk at least once: Bearer is refused for it. */
  hawkOnly: boolean;
  /** A device is registered on it: it does not expire for being idle. */
  hasDevice: boolean;
  uid: string;
  createdAt: number;
  lastAccessTime: number;
  authAt: number;
  ua: UserAgentInfo;
  /** Where the session was opened, when the location service knew (issue 13). */
  location?: SessionLocation | null;
  /** Non-null while the session awaits confirmation. */
  tokenVerificationId: string | null;
  mustVerify: boolean;
  verificationMethod: VerificationMethodName | null;
  verifiedAt: number | null;
  verificationReason: string | null;
}

/** A session as the auth layer loads it: with the account facts every session route needs. */
export interface SessionWithAccount extends Session {
  account: {
    email: string;
    emailVerified: boolean;
    verifierSetAt: number;
    locale: string | null;
    disabledAt: number | null;
    /** Two-step authentication is on (issue 12): the account's minimum AAL is 2. */
    twoStep: boolean;
  };
}

/** A location as domains/geo gives it (city, country, countryCode, state, stateCode; each optional). */
export type SessionLocation = Partial<Record<'city' | 'country' | 'countryCode' | 'state' | 'stateCode', string>>;

export function isSessionVerified(s: Session): boolean {
  return s.tokenVerificationId === null;
}

/**
 * Issue 22: the session waits for the second factor. Once the account has two-step on, an
 * unconfirmed session (whether it was opened before or after two-step was turned on) is confirmed
 * by a second factor only: no email is sent for it, and no emailed code or link confirms it.
 */
export function awaitsSecondFactor(s: SessionWithAccount): boolean {
  return !isSessionVerified(s) && s.account.twoStep;
}

function rowToSession(r: Selectable<SessionTokensTable>): Session {
  return {
    id: r.id_hash,
    sealedAuthKey: r.sealed_auth_key,
    hawkOnly: r.hawk_only === 1,
    hasDevice: r.has_device === 1,
    uid: r.uid,
    createdAt: r.created_at,
    lastAccessTime: r.last_access_time,
    authAt: r.auth_at,
    ua: {
      browser: r.ua_browser, browserVersion: r.ua_browser_version, os: r.ua_os, osVersion: r.ua_os_version,
      deviceType: r.ua_device_type, formFactor: r.ua_form_factor,
    },
    location: r.location ? (JSON.parse(r.location) as SessionLocation) : null,
    tokenVerificationId: r.token_verification_id,
    mustVerify: r.must_verify === 1,
    verificationMethod: methodName(r.verification_method),
    verifiedAt: r.verified_at,
    verificationReason: r.verification_reason,
  };
}

export async function insertSession(db: Executor, s: Session): Promise<void> {
  await db.insertInto('session_tokens').values({
    id_hash: s.id,
    sealed_auth_key: s.sealedAuthKey,
    hawk_only: s.hawkOnly ? 1 : 0,
    has_device: s.hasDevice ? 1 : 0,
    uid: s.uid,
    created_at: s.createdAt,
    last_access_time: s.lastAccessTime,
    auth_at: s.authAt,
    ua_browser: s.ua.browser,
    ua_browser_version: s.ua.browserVersion,
    ua_os: s.ua.os,
    ua_os_version: s.ua.osVersion,
    ua_device_type: s.ua.deviceType,
    ua_form_factor: s.ua.formFactor,
    location: s.location ? JSON.stringify(s.location) : null,
    token_verification_id: s.tokenVerificationId,
    must_verify: s.mustVerify ? 1 : 0,
    verification_method: s.verificationMethod === null ? null : VERIFICATION_METHODS[s.verificationMethod],
    verified_at: s.verifiedAt,
    verification_reason: s.verificationReason,
  }).execute();
}

/**
 * What sessions read of the account's second factor inside their own queries: the two-step domain,
 * a floor above, provides it (it owns the `totp` table) when it is composed; without it no account
 * has a second factor. Issue 12: read with the session, so that the AAL check of every
 * confirmed-session route costs no query.
 */
export interface SecondFactorPort {
  /** Adds `second_factor_uid` to the query, non-null when the account (of `uidColumn`) has a second factor on. */
  join: ColumnsJoin<{ second_factor_uid: string | null }>;
  /** The condition that the account of a `session_tokens` row has no second factor on. */
  absent(eb: ExpressionBuilder<Database, 'session_tokens'>): Expression<SqlBool>;
}

// Behind every session-authenticated request: compiled once per port and executor, run with the id.
// The account's columns (and its second factor's) come through the owners' read ports, in the same
// query: one indexed query instead of two on every authenticated request; writes go through services.
function sessionWithAccount(secondFactor: SecondFactorPort | null) {
  return preparedQuery<SessionWithAccountRow, [string]>((db) => {
    const withAccount = joinAccountSummary(db.selectFrom('session_tokens as s').selectAll('s'), 's.uid');
    return (secondFactor ? secondFactor.join(withAccount, 's.uid') : withAccount.select(sql<null>`null`.as('second_factor_uid')))
      .where('s.id_hash', '=', '');
  });
}
// One per port, dropped with it (each app built in a process, as tests do, hands in its own).
const lookups = new WeakMap<SecondFactorPort, ReturnType<typeof sessionWithAccount>>();
const lookupWithoutSecondFactor = sessionWithAccount(null);

type SessionWithAccountRow = Selectable<SessionTokensTable> & AccountSummaryColumns & { second_factor_uid: string | null };

/** The session and its account, with whether the account has a second factor on (`secondFactor`: the two-step domain's port, null without one). */
export async function findSessionWithAccount(db: Executor, id: string, secondFactor: SecondFactorPort | null): Promise<SessionWithAccount | null> {
  let lookup = secondFactor ? lookups.get(secondFactor) : lookupWithoutSecondFactor;
  if (!lookup) {
    lookup = sessionWithAccount(secondFactor);
    lookups.set(secondFactor!, lookup);
  }
  const [row] = await lookup(db as Kysely<Database>, id);
  if (!row) return null;
  return {
    ...rowToSession(row),
    account: {
      email: row.email, emailVerified: row.email_verified === 1, verifierSetAt: row.verifier_set_at,
      locale: row.locale, disabledAt: row.disabled_at, twoStep: row.second_factor_uid !== null,
    },
  };
}

export async function findSession(db: Executor, id: string): Promise<Session | null> {
  const row = await db.selectFrom('session_tokens').selectAll().where('id_hash', '=', id).executeTakeFirst();
  return row ? rowToSession(row) : null;
}

/**
 * A session named by a client: by its handle, or by the token id (which the client derives from a
 * token it holds) — the two are told apart by trying both, since they look alike.
 */
export async function findSessionByName(db: Executor, uid: string, handles: string[]): Promise<Session | null> {
  const row = await db.selectFrom('session_tokens').selectAll().where('uid', '=', uid).where('id_hash', 'in', handles).executeTakeFirst();
  return row ? rowToSession(row) : null;
}

/** Every session of the account, most recently used first. */
export async function listSessionsOf(db: Executor, uid: string): Promise<Session[]> {
  const rows = await db.selectFrom('session_tokens').selectAll().where('uid', '=', uid).orderBy('last_access_time', 'desc').execute();
  return rows.map(rowToSession);
}

/** The ids of the account's sessions but `keepId`: what deleteOtherSessions is about to delete. */
export async function otherSessionIds(db: Executor, uid: string, keepId: string | null): Promise<string[]> {
  let q = db.selectFrom('session_tokens').select('id_hash').where('uid', '=', uid);
  if (keepId) q = q.where('id_hash', '!=', keepId);
  return (await q.execute()).map((r) => r.id_hash);
}

export async function setSessionHasDevice(db: Executor, id: string, hasDevice: boolean): Promise<void> {
  await db.updateTable('session_tokens').set({ has_device: hasDevice ? 1 : 0 }).where('id_hash', '=', id).execute();
}

/** The session was used with Hawk: from now on Bearer is refused for it. */
export async function markSessionHawkOnly(db: Executor, id: string): Promise<void> {
  await db.updateTable('session_tokens').set({ hawk_only: 1 }).where('id_hash', '=', id).where('hawk_only', '=', 0).execute();
}

/** The sessions still waiting on this tokenVerificationId (an emailed sign-in link). */
export async function listSessionsAwaiting(db: Executor, uid: string, tokenVerificationId: string): Promise<Session[]> {
  const rows = await db.selectFrom('session_tokens').selectAll().where('uid', '=', uid).where('token_verification_id', '=', tokenVerificationId).execute();
  return rows.map(rowToSession);
}

export async function deleteSession(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('session_tokens').where('id_hash', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Deletes every session of the account but `keepId` (account deletion, password change and reset). */
export async function deleteOtherSessions(db: Executor, uid: string, keepId: string | null): Promise<number> {
  let q = db.deleteFrom('session_tokens').where('uid', '=', uid);
  if (keepId) q = q.where('id_hash', '!=', keepId);
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function touchSession(db: Executor, id: string, now: number): Promise<void> {
  await db.updateTable('session_tokens').set({ last_access_time: now }).where('id_hash', '=', id).execute();
}

export async function setSessionAuthAt(db: Executor, id: string, authAt: number): Promise<void> {
  await db.updateTable('session_tokens').set({ auth_at: authAt, last_access_time: authAt }).where('id_hash', '=', id).execute();
}

const confirmed = (method: VerificationMethodName, now: number) => ({
  token_verification_id: null, must_verify: 0, verification_method: VERIFICATION_METHODS[method], verified_at: now, verification_reason: null,
});

/**
 * Issue 22: the condition of every confirmation by email — the session's account does not have
 * two-step on (its sessions wait for the second factor, see awaitsSecondFactor). It is part of the
 * UPDATE itself, so that no caller can confirm such a session by email, whatever it checked before;
 * the two-step domain's port writes it (read-only), as it does for the session lookup.
 */
const withoutSecondFactor = (secondFactor: SecondFactorPort) => (eb: ExpressionBuilder<Database, 'session_tokens'>) => secondFactor.absent(eb);
/**
 * Confirms one session by email; false when it was already confirmed, is gone, or waits for the
 * second factor (its account has two-step on).
 */
export async function markSessionVerified(db: Executor, id: string, method: EmailVerificationMethod, now: number, secondFactor: SecondFactorPort | null): Promise<boolean> {
  const r = await db
    .updateTable('session_tokens')
    .set(confirmed(method, now))
    .where('id_hash', '=', id)
    .where('token_verification_id', 'is not', null)
    .$if(secondFactor !== null, (q) => q.where(withoutSecondFactor(secondFactor!)))
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Confirms one session with a second factor, whether it waited or was confirmed by email before (AAL1 → AAL2). */
export async function elevateSession(db: Executor, id: string, method: VerificationMethodName, now: number): Promise<boolean> {
  const r = await db.updateTable('session_tokens').set(confirmed(method, now)).where('id_hash', '=', id).executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/**
 * Confirms the session(s) awaiting this tokenVerificationId (emailed links carry it), unless they
 * wait for the second factor (the account has two-step on): then none.
 */
export async function markSessionsVerifiedByVerificationId(
  db: Executor, uid: string, tokenVerificationId: string, method: EmailVerificationMethod, now: number, secondFactor: SecondFactorPort | null,
): Promise<number> {
  const r = await db
    .updateTable('session_tokens')
    .set(confirmed(method, now))
    .where('uid', '=', uid)
    .where('token_verification_id', '=', tokenVerificationId)
    .$if(secondFactor !== null, (q) => q.where(withoutSecondFactor(secondFactor!)))
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}
