import { expect } from 'vitest';
import { deriveTokenKeys, hawkHeader, type TokenType } from '@tessera/protocol';
import { newEmail, type TestServer } from '../harness.js';
import { expectError, hex, rawRequest, type RawRequest, type Reply } from '../helpers.js';

// The token suites' accounts, tokens of each type, and the two ways to present them (prefixed
// Bearer ids and Hawk headers): auth.test.ts and token-lifetimes.test.ts.

export const idOf = (type: TokenType, data: string) => deriveTokenKeys(type, data).tokenId;
export const PREFIX: Record<TokenType, string> = {
  sessionToken: 'fxs_', keyFetchToken: 'fxk_', accountResetToken: 'fxar_', passwordForgotToken: 'fxpf_', passwordChangeToken: 'fxpc_',
};
export const bearer = (type: TokenType, data: string) => `Bearer ${PREFIX[type]}${idOf(type, data)}`;

export function send(s: TestServer, method: string, path: string, options: RawRequest = {}): Promise<Reply> {
  return rawRequest(s.url, method, path, options);
}

export const expectInvalidToken = (r: Reply) => expectError(r, 'INVALID_TOKEN', 401);
export const expectBadSignature = (r: Reply) => expectError(r, 'INVALID_REQUEST_SIGNATURE', 401);
export function expectOk(r: Reply) {
  expect(r.status, r.text).toBe(200);
}

export interface Account {
  email: string;
  authPW: string;
  uid: string;
  sessionToken: string;
  keyFetchToken?: string;
}

/** A v1 account with a random authPW (one scrypt, no client stretch); confirmed by its emailed code unless `verify: false`. */
export async function account(s: TestServer, options: { verify?: boolean; keys?: boolean } = {}): Promise<Account> {
  const email = newEmail('auth');
  const authPW = hex(64);
  const since = s.mail.messages.length;
  const created = await s.client.accountCreate({ email, authPW, verificationMethod: 'email-otp' }, { keys: options.keys ?? false });
  if (options.verify !== false) {
    const { code } = await s.mail.waitFor(email, 'verifyShortCode', since);
    await s.client.sessionVerifyCode(created.sessionToken, { code: code! });
  }
  return { email, authPW, uid: created.uid, sessionToken: created.sessionToken, ...(created.keyFetchToken ? { keyFetchToken: created.keyFetchToken } : {}) };
}

/** A password forgot token and its emailed code. */
export async function forgotToken(s: TestServer, email: string) {
  const since = s.mail.messages.length;
  const { passwordForgotToken } = await s.client.passwordForgotSendCode({ email });
  const { code } = await s.mail.waitFor(email, 'recoveryEmail', since);
  return { passwordForgotToken, code: code! };
}

export async function resetToken(s: TestServer, email: string): Promise<string> {
  const forgot = await forgotToken(s, email);
  const { accountResetToken } = await s.client.passwordForgotVerifyCode(forgot.passwordForgotToken, { code: forgot.code });
  return accountResetToken;
}

export async function changeToken(s: TestServer, a: Account): Promise<string> {
  const { passwordChangeToken } = await s.client.passwordChangeStart(a.sessionToken, { email: a.email, oldAuthPW: a.authPW });
  return passwordChangeToken;
}

/** A Hawk header signed by hand for a request to `s`. */
export function hawk(s: TestServer, method: string, path: string, token: { type: TokenType; data: string }, extra: { payload?: string; ts?: number; nonce?: string; key?: string; url?: string } = {}) {
  const keys = deriveTokenKeys(token.type, token.data);
  return hawkHeader({
    method,
    url: extra.url ?? `${s.url}/v1${path}`,
    credentials: { id: keys.tokenId, key: extra.key ?? keys.authKey },
    ...(extra.payload !== undefined ? { payload: extra.payload, contentType: 'application/json' } : {}),
    ...(extra.ts !== undefined ? { ts: extra.ts } : {}),
    ...(extra.nonce !== undefined ? { nonce: extra.nonce } : {}),
  });
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);
