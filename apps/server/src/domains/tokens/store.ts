import type { Executor } from '../../storage/executor.js';

// The short-lived onepw tokens: keyFetch, accountReset, passwordForgot, passwordChange. Rows are
// keyed by the HMAC of the token id (`id` below) and keep the Hawk authKey sealed (see
// crypto/token-secrets.ts); neither the id nor the authKey is stored.

/** What every stored onepw token has. */
export interface StoredToken {
  /** HMAC of the token id under the server secret: the row key and the token's handle. */
  id: string;
  /** The Hawk authKey, sealed under the server secret and the token id. */
  sealedAuthKey: string;
  /** Used with Hawk at least once: Bearer is refused for it. */
  hawkOnly: boolean;
  uid: string;
  createdAt: number;
}

export interface KeyFetchToken extends StoredToken {
  keyBundle: string;
  /** The handle of the session it was minted with: usable once that session is confirmed (null: none needed). */
  sessionTokenId: string | null;
}

export async function insertKeyFetchToken(db: Executor, t: KeyFetchToken): Promise<void> {
  await db.insertInto('key_fetch_tokens').values({
    id_hash: t.id, sealed_auth_key: t.sealedAuthKey, hawk_only: t.hawkOnly ? 1 : 0, uid: t.uid, key_bundle: t.keyBundle,
    session_id_hash: t.sessionTokenId, created_at: t.createdAt,
  }).execute();
}

export async function findKeyFetchToken(db: Executor, id: string): Promise<KeyFetchToken | null> {
  const r = await db.selectFrom('key_fetch_tokens').selectAll().where('id_hash', '=', id).executeTakeFirst();
  return r
    ? { ...storedToken(r), keyBundle: r.key_bundle, sessionTokenId: r.session_id_hash }
    : null;
}

function storedToken(r: { id_hash: string; sealed_auth_key: string; hawk_only: number; uid: string; created_at: number }): StoredToken {
  return { id: r.id_hash, sealedAuthKey: r.sealed_auth_key, hawkOnly: r.hawk_only === 1, uid: r.uid, createdAt: r.created_at };
}

export type ShortLivedTable = 'key_fetch_tokens' | 'account_reset_tokens' | 'password_forgot_tokens' | 'password_change_tokens';

/** The token was used with Hawk: from now on Bearer is refused for it. */
export async function markTokenHawkOnly(db: Executor, table: ShortLivedTable, id: string): Promise<void> {
  await db.updateTable(table).set({ hawk_only: 1 }).where('id_hash', '=', id).where('hawk_only', '=', 0).execute();
}

export async function deleteKeyFetchToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('key_fetch_tokens').where('id_hash', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export async function deleteKeyFetchTokensOfSession(db: Executor, sessionTokenId: string): Promise<void> {
  await db.deleteFrom('key_fetch_tokens').where('session_id_hash', '=', sessionTokenId).execute();
}

export interface AccountResetToken extends StoredToken {
  verificationMethod: number | null;
}

/** One reset token per account: a new one replaces the old. */
export async function replaceAccountResetToken(db: Executor, t: AccountResetToken): Promise<void> {
  await db.deleteFrom('account_reset_tokens').where('uid', '=', t.uid).execute();
  await db.insertInto('account_reset_tokens').values({
    id_hash: t.id, sealed_auth_key: t.sealedAuthKey, hawk_only: t.hawkOnly ? 1 : 0, uid: t.uid, created_at: t.createdAt,
    verification_method: t.verificationMethod,
  }).execute();
}

export async function findAccountResetToken(db: Executor, id: string): Promise<AccountResetToken | null> {
  const r = await db.selectFrom('account_reset_tokens').selectAll().where('id_hash', '=', id).executeTakeFirst();
  return r ? { ...storedToken(r), verificationMethod: r.verification_method } : null;
}

export async function deleteAccountResetToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('account_reset_tokens').where('id_hash', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export interface PasswordForgotToken extends StoredToken {
  passcodeHash: string;
  tries: number;
  verificationMethod: number | null;
}

/** One forgot token per account: sending a new code invalidates the old token. */
export async function replacePasswordForgotToken(db: Executor, t: PasswordForgotToken): Promise<void> {
  await db.deleteFrom('password_forgot_tokens').where('uid', '=', t.uid).execute();
  await db.insertInto('password_forgot_tokens').values({
    id_hash: t.id, sealed_auth_key: t.sealedAuthKey, hawk_only: t.hawkOnly ? 1 : 0, uid: t.uid, created_at: t.createdAt,
    passcode_hash: t.passcodeHash, tries: t.tries, verification_method: t.verificationMethod,
  }).execute();
}

export async function findPasswordForgotToken(db: Executor, id: string): Promise<PasswordForgotToken | null> {
  const r = await db.selectFrom('password_forgot_tokens').selectAll().where('id_hash', '=', id).executeTakeFirst();
  return r
    ? { ...storedToken(r), passcodeHash: r.passcode_hash, tries: r.tries, verificationMethod: r.verification_method }
    : null;
}

/** Spends one try atomically; returns the tries left, or null when none were left to spend. */
export async function spendPasswordForgotTry(db: Executor, id: string): Promise<number | null> {
  const spent = await db.updateTable('password_forgot_tokens')
    .set((eb) => ({ tries: eb('tries', '-', 1) }))
    .where('id_hash', '=', id).where('tries', '>', 0)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) === 0) return null;
  const row = await db.selectFrom('password_forgot_tokens').select('tries').where('id_hash', '=', id).executeTakeFirst();
  return row?.tries ?? 0;
}

/** A new passCode for the same token (resend): its age and tries stay as they are. */
export async function setPasswordForgotPasscode(db: Executor, id: string, passcodeHash: string): Promise<void> {
  await db.updateTable('password_forgot_tokens').set({ passcode_hash: passcodeHash }).where('id_hash', '=', id).execute();
}

/** Records the second factor a forgot token's holder passed (copied to the reset token it yields). */
export async function setPasswordForgotVerificationMethod(db: Executor, id: string, verificationMethod: number): Promise<boolean> {
  const done = await db.updateTable('password_forgot_tokens').set({ verification_method: verificationMethod }).where('id_hash', '=', id).executeTakeFirst();
  return Number(done.numUpdatedRows) === 1;
}

export async function deletePasswordForgotToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('password_forgot_tokens').where('id_hash', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export type PasswordChangeToken = StoredToken;

export async function insertPasswordChangeToken(db: Executor, t: PasswordChangeToken): Promise<void> {
  await db.insertInto('password_change_tokens').values({
    id_hash: t.id, sealed_auth_key: t.sealedAuthKey, hawk_only: t.hawkOnly ? 1 : 0, uid: t.uid, created_at: t.createdAt,
  }).execute();
}

export async function findPasswordChangeToken(db: Executor, id: string): Promise<PasswordChangeToken | null> {
  const r = await db.selectFrom('password_change_tokens').selectAll().where('id_hash', '=', id).executeTakeFirst();
  return r ? storedToken(r) : null;
}

export async function deletePasswordChangeToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('password_change_tokens').where('id_hash', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Every short-lived token of an account (deletion, password change and reset revoke them all). */
export async function deleteShortLivedTokens(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('key_fetch_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('account_reset_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('password_forgot_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('password_change_tokens').where('uid', '=', uid).execute();
}

/** The tokens an email gave out (forgot-password and the reset tokens it leads to): after a change of primary. */
export async function deleteEmailedTokens(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('account_reset_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('password_forgot_tokens').where('uid', '=', uid).execute();
}
