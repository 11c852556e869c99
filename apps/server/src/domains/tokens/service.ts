import { createKeyBundle, deriveTokenKeys, type TokenType } from '@tessera/protocol';
import type { TokenSecrets } from '../../crypto/token-secrets.js';
import { mintToken } from '../../crypto/tokens.js';
import type { Executor } from '../../storage/executor.js';
import * as store from './store.js';
import type { AccountResetToken, PasswordChangeToken, PasswordForgotToken } from './store.js';

// The short-lived onepw tokens (protocol.md §2.1) as other domains use them: minted here, stored
// by the HMAC of the id with the authKey sealed, spent once. Every method takes the executor first
// so callers can make a token inside their own transaction. Ids passed in and out are handles.

/** verificationMethod of a forgot token whose holder proved the address by email (sessions' VERIFICATION_METHODS.email). */
const PROVEN_BY_EMAIL = 0;

/**
 * Issue 22, hole 5: whether a forgot token's holder proved the address (the one-time reset code
 * came by mail, or a second factor was passed with a proven token). A token of
 * /password/forgot/send_code goes to whoever names the address: not proven until its code is
 * checked, which spends it for an accountResetToken.
 */
export function forgotTokenProven(token: Pick<PasswordForgotToken, 'verificationMethod'>): boolean {
  return token.verificationMethod !== null;
}

export class TokensService {
  constructor(private readonly secrets: TokenSecrets) {}

  /** A fresh token of the type: its data (for the client once), bundleKey, and what is stored. */
  private mint(type: TokenType) {
    const token = mintToken(type);
    return {
      data: token.data, bundleKey: token.bundleKey,
      stored: { id: this.secrets.handle(type, token.id), sealedAuthKey: this.secrets.sealAuthKey(type, token.id, token.authKey), hawkOnly: false },
    };
  }

  /** Mints a keyFetchToken whose bundle holds kA and this password's wrapKb; returns the token data. */
  async createKeyFetchToken(
    db: Executor, k: { uid: string; kA: string; wrapKb: string; sessionTokenId: string | null; now: number },
  ): Promise<string> {
    const token = this.mint('keyFetchToken');
    await store.insertKeyFetchToken(db, {
      ...token.stored, uid: k.uid, keyBundle: createKeyBundle(token.bundleKey, k.kA, k.wrapKb), sessionTokenId: k.sessionTokenId, createdAt: k.now,
    });
    return token.data;
  }

  /** Spends a keyFetchToken; false when another request spent it first. */
  spendKeyFetchToken(db: Executor, id: string): Promise<boolean> {
    return store.deleteKeyFetchToken(db, id);
  }

  /** The key fetch tokens minted with a session that is being withdrawn. */
  deleteKeyFetchTokensOfSession(db: Executor, sessionTokenId: string): Promise<void> {
    return store.deleteKeyFetchTokensOfSession(db, sessionTokenId);
  }

  /** A new passwordChangeToken for the account; returns the token data. */
  async createPasswordChangeToken(db: Executor, uid: string, now: number): Promise<string> {
    const token = this.mint('passwordChangeToken');
    await store.insertPasswordChangeToken(db, { ...token.stored, uid, createdAt: now } satisfies PasswordChangeToken);
    return token.data;
  }

  /** The holder of a passwordForgotToken passed a second factor (issue 12): the reset token it yields carries it. */
  setPasswordForgotVerificationMethod(db: Executor, id: string, verificationMethod: number): Promise<boolean> {
    return store.setPasswordForgotVerificationMethod(db, id, verificationMethod);
  }

  /** The account's one accountResetToken (a new one replaces the old); returns the token data. */
  async createAccountResetToken(db: Executor, uid: string, now: number, verificationMethod: number | null): Promise<string> {
    const token = this.mint('accountResetToken');
    await store.replaceAccountResetToken(db, { ...token.stored, uid, createdAt: now, verificationMethod } satisfies AccountResetToken);
    return token.data;
  }

  /**
   * The account's one passwordForgotToken (a new one voids the old). `passcodeHash(id)` hashes the
   * emailed code with the new token's handle. `proven`: the holder already proved the address (its
   * verificationMethod starts at `email`, see forgotTokenProven). Returns the token data and the stored token.
   */
  async createPasswordForgotToken(
    db: Executor, t: { uid: string; now: number; tries: number; passcodeHash: (tokenId: string) => string; proven: boolean },
  ): Promise<{ data: string; token: PasswordForgotToken }> {
    const minted = this.mint('passwordForgotToken');
    const token: PasswordForgotToken = {
      ...minted.stored, uid: t.uid, createdAt: t.now, passcodeHash: t.passcodeHash(minted.stored.id), tries: t.tries,
      verificationMethod: t.proven ? PROVEN_BY_EMAIL : null,
    };
    await store.replacePasswordForgotToken(db, token);
    return { data: minted.data, token };
  }

  /**
   * The forgot token whose data an emailed reset link carries (the reset page reads its state when
   * it opens, without spending a try), or null when none is stored for it.
   */
  findPasswordForgotTokenByData(db: Executor, tokenData: string): Promise<PasswordForgotToken | null> {
    const { tokenId } = deriveTokenKeys('passwordForgotToken', tokenData);
    return store.findPasswordForgotToken(db, this.secrets.handle('passwordForgotToken', tokenId));
  }

  /** Spends one try of a forgot token atomically; the tries left, or null when none were left. */
  spendPasswordForgotTry(db: Executor, id: string): Promise<number | null> {
    return store.spendPasswordForgotTry(db, id);
  }

  /** A new passCode for the same forgot token (resend): its age and tries stay as they are. */
  setPasswordForgotPasscode(db: Executor, id: string, passcodeHash: string): Promise<void> {
    return store.setPasswordForgotPasscode(db, id, passcodeHash);
  }

  /** Deletes a forgot token; false when it was already gone. */
  deletePasswordForgotToken(db: Executor, id: string): Promise<boolean> {
    return store.deletePasswordForgotToken(db, id);
  }
}
