import type { Executor } from '../../storage/executor.js';

// The short-lived onepw tokens: keyFetch, accountReset, passwordForgot, passwordChange.

export interface KeyFetchToken {
  id: string;
  authKey: string;
  uid: string;
  keyBundle: string;
  createdAt: number;
  /** The session it was minted with: usable once that session is confirmed (null: none needed). */
  sessionTokenId: string | null;
}

export async function insertKeyFetchToken(
  db: Executor,
  row: { id: string; authKey: string; uid: string; keyBundle: string; sessionTokenId: string | null; createdAt: number },
): Promise<void> {
  await db.insertInto('key_fetch_tokens').values({
    token_id: row.id, auth_key: row.authKey, uid: row.uid, key_bundle: row.keyBundle,
    session_token_id: row.sessionTokenId, created_at: row.createdAt,
  }).execute();
}

export async function findKeyFetchToken(db: Executor, id: string): Promise<KeyFetchToken | null> {
  const r = await db.selectFrom('key_fetch_tokens').selectAll().where('token_id', '=', id).executeTakeFirst();
  return r ? { id: r.token_id, authKey: r.auth_key, uid: r.uid, keyBundle: r.key_bundle, createdAt: r.created_at, sessionTokenId: r.session_token_id } : null;
}

export async function deleteKeyFetchToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('key_fetch_tokens').where('token_id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export async function deleteKeyFetchTokensOfSession(db: Executor, sessionTokenId: string): Promise<void> {
  await db.deleteFrom('key_fetch_tokens').where('session_token_id', '=', sessionTokenId).execute();
}

export interface AccountResetToken {
  id: string;
  authKey: string;
  uid: string;
  createdAt: number;
  verificationMethod: number | null;
}

/** One reset token per account: a new one replaces the old. */
export async function replaceAccountResetToken(db: Executor, t: AccountResetToken): Promise<void> {
  await db.deleteFrom('account_reset_tokens').where('uid', '=', t.uid).execute();
  await db.insertInto('account_reset_tokens').values({
    token_id: t.id, auth_key: t.authKey, uid: t.uid, created_at: t.createdAt, verification_method: t.verificationMethod,
  }).execute();
}

export async function findAccountResetToken(db: Executor, id: string): Promise<AccountResetToken | null> {
  const r = await db.selectFrom('account_reset_tokens').selectAll().where('token_id', '=', id).executeTakeFirst();
  return r ? { id: r.token_id, authKey: r.auth_key, uid: r.uid, createdAt: r.created_at, verificationMethod: r.verification_method } : null;
}

export async function deleteAccountResetToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('account_reset_tokens').where('token_id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export interface PasswordForgotToken {
  id: string;
  authKey: string;
  uid: string;
  createdAt: number;
  passcodeHash: string;
  tries: number;
  verificationMethod: number | null;
}

/** One forgot token per account: sending a new code invalidates the old token. */
export async function replacePasswordForgotToken(db: Executor, t: PasswordForgotToken): Promise<void> {
  await db.deleteFrom('password_forgot_tokens').where('uid', '=', t.uid).execute();
  await db.insertInto('password_forgot_tokens').values({
    token_id: t.id, auth_key: t.authKey, uid: t.uid, created_at: t.createdAt, passcode_hash: t.passcodeHash,
    tries: t.tries, verification_method: t.verificationMethod,
  }).execute();
}

export async function findPasswordForgotToken(db: Executor, id: string): Promise<PasswordForgotToken | null> {
  const r = await db.selectFrom('password_forgot_tokens').selectAll().where('token_id', '=', id).executeTakeFirst();
  return r
    ? { id: r.token_id, authKey: r.auth_key, uid: r.uid, createdAt: r.created_at, passcodeHash: r.passcode_hash, tries: r.tries, verificationMethod: r.verification_method }
    : null;
}

/** Spends one try atomically; returns the tries left, or null when none were left to spend. */
export async function spendPasswordForgotTry(db: Executor, id: string): Promise<number | null> {
  const spent = await db.updateTable('password_forgot_tokens')
    .set((eb) => ({ tries: eb('tries', '-', 1) }))
    .where('token_id', '=', id).where('tries', '>', 0)
    .executeTakeFirst();
  if (Number(spent.numUpdatedRows) === 0) return null;
  const row = await db.selectFrom('password_forgot_tokens').select('tries').where('token_id', '=', id).executeTakeFirst();
  return row?.tries ?? 0;
}

/** A new passCode for the same token (resend): its age and tries stay as they are. */
export async function setPasswordForgotPasscode(db: Executor, id: string, passcodeHash: string): Promise<void> {
  await db.updateTable('password_forgot_tokens').set({ passcode_hash: passcodeHash }).where('token_id', '=', id).execute();
}

export async function deletePasswordForgotToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('password_forgot_tokens').where('token_id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

export interface PasswordChangeToken {
  id: string;
  authKey: string;
  uid: string;
  createdAt: number;
}

export async function insertPasswordChangeToken(db: Executor, t: PasswordChangeToken): Promise<void> {
  await db.insertInto('password_change_tokens').values({ token_id: t.id, auth_key: t.authKey, uid: t.uid, created_at: t.createdAt }).execute();
}

export async function findPasswordChangeToken(db: Executor, id: string): Promise<PasswordChangeToken | null> {
  const r = await db.selectFrom('password_change_tokens').selectAll().where('token_id', '=', id).executeTakeFirst();
  return r ? { id: r.token_id, authKey: r.auth_key, uid: r.uid, createdAt: r.created_at } : null;
}

export async function deletePasswordChangeToken(db: Executor, id: string): Promise<boolean> {
  const r = await db.deleteFrom('password_change_tokens').where('token_id', '=', id).executeTakeFirst();
  return Number(r.numDeletedRows) === 1;
}

/** Every short-lived token of an account (deletion, password change and reset revoke them all). */
export async function deleteShortLivedTokens(db: Executor, uid: string): Promise<void> {
  await db.deleteFrom('key_fetch_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('account_reset_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('password_forgot_tokens').where('uid', '=', uid).execute();
  await db.deleteFrom('password_change_tokens').where('uid', '=', uid).execute();
}
