import {
  crockfordEncode, decryptRecoveryData, deriveTokenKeys, encryptRecoveryData, generateRecoveryKey, openKeyBundle,
  parseRecoveryKey, passwordFields, randomHex, recoveryKeyId, stretchV1, stretchV2, unwrapKb, type StretchedCredentials,
} from '@tessera/protocol';
import type { TesseraClient } from './generated/client.js';
import type { Body, Reply } from './types.js';
import { assertPasswordAllowed, isTesseraError } from './errors.js';

// Whole flows on top of the route methods: the client side of onepw (stretching, choosing kB,
// unwrapping bundles) so an application never handles authPW or wrapKb itself.

export interface SignedIn {
  uid: string;
  sessionToken: string;
  /** Present with `keys: true`; spend it with fetchKeys(). */
  keyFetchToken?: string;
  /** Unwraps kB from the bundle of that keyFetchToken; keep it in memory only. */
  unwrapBKey: string;
  /** The address the v1 password is stretched with (may differ in case from what was typed). */
  email: string;
  verified: boolean;
  verificationMethod?: string;
  verificationReason?: string;
}

export interface Keys {
  kA: string;
  kB: string;
}

export class TesseraAccounts {
  constructor(readonly client: TesseraClient) {}

  /**
   * POST /support/ticket as a trusted helpdesk front end: the server's SUPPORT_SECRET goes in the
   * `Tessera-Support-Secret` header instead of a session (then `email` is required). Sessions use
   * `client.supportTicket({ sessionToken }, body)`.
   */
  supportTicketWithSecret(supportSecret: string, body: Body<'/v1/support/ticket', 'post'>): Promise<Reply<'/v1/support/ticket', 'post'>> {
    return this.client.transport.request({ method: 'POST', path: '/support/ticket', body, headers: { 'tessera-support-secret': supportSecret } });
  }

  /**
   * Signs up with a version-2 password (a random kB wrapped under both stretches). A password the
   * policy refuses (`checkPassword`: under 8 characters, or the address itself) throws
   * PasswordPolicyError, whose message is the reason, before anything is sent.
   *
   * @example
   * const { sessionToken } = await accounts.signUp('me@example.com', 'correct horse battery', { verificationMethod: 'email-otp' });
   */
  async signUp(email: string, password: string, options: { keys?: boolean; verificationMethod?: Body<'/v1/account/create'>['verificationMethod']; service?: string } = {}): Promise<SignedIn> {
    assertPasswordAllowed(password, email);
    const { v2, fields } = await passwordFields(email, password, randomHex(32));
    const reply = await this.client.accountCreate(
      { email, ...fields, ...(options.verificationMethod ? { verificationMethod: options.verificationMethod } : {}), ...(options.service ? { service: options.service } : {}) },
      { keys: options.keys ?? false },
    );
    return {
      uid: reply.uid, sessionToken: reply.sessionToken, email, verified: false, unwrapBKey: v2.unwrapBKey,
      ...(reply.keyFetchTokenVersion2 ? { keyFetchToken: reply.keyFetchTokenVersion2 } : {}),
      ...(reply.verificationMethod ? { verificationMethod: reply.verificationMethod } : {}),
    };
  }

  /**
   * The stretch this account needs: v2 with its clientSalt, else v1 with the address. `stretchWith`
   * is the address a v1 password was set with when it is not `email` (a 120 reply names it).
   */
  async credentialsFor(email: string, password: string, stretchWith = email): Promise<StretchedCredentials & { version: 1 | 2 }> {
    const status = await this.client.accountCredentialsStatus({ email });
    if (status.currentVersion === 'v2' && status.clientSalt) return { ...(await stretchV2(status.clientSalt, password)), version: 2 };
    return { ...(await stretchV1(stretchWith, password)), version: 1 };
  }

  /**
   * Signs in: asks which stretch the account uses, stretches, logs in; retries once with the
   * stored spelling of the address when the server answers 120. After a 400/125 (rate limiting
   * blocked the sign-in), `sendUnblockCode` mails a code; pass it here as `unblockCode`.
   */
  async signIn(email: string, password: string, options: { keys?: boolean; verificationMethod?: Body<'/v1/account/login'>['verificationMethod']; service?: string; unblockCode?: string } = {}): Promise<SignedIn> {
    let address = email;
    for (let attempt = 0; ; attempt++) {
      const creds = await this.credentialsFor(email, password, address);
      // After a change of primary, a v1 password stays stretched with the address it was set with:
      // that address goes as `email`, the one typed as `originalLoginEmail`.
      const original = address.toLowerCase() !== email.toLowerCase() ? { originalLoginEmail: email } : {};
      try {
        const reply = await this.client.accountLogin(
          { email: address, authPW: creds.authPW, ...original, ...(options.verificationMethod ? { verificationMethod: options.verificationMethod } : {}), ...(options.service ? { service: options.service } : {}), ...(options.unblockCode ? { unblockCode: options.unblockCode } : {}) },
          { keys: options.keys ?? false },
        );
        const keyFetchToken = reply.keyFetchTokenVersion2 ?? reply.keyFetchToken;
        return {
          uid: reply.uid, sessionToken: reply.sessionToken, email: address, verified: reply.verified, unwrapBKey: creds.unwrapBKey,
          ...(keyFetchToken ? { keyFetchToken } : {}),
          ...(reply.verificationMethod ? { verificationMethod: reply.verificationMethod } : {}),
          ...(reply.verificationReason ? { verificationReason: reply.verificationReason } : {}),
        };
      } catch (err) {
        if (attempt === 0 && isTesseraError(err, 'INCORRECT_EMAIL_CASE') && typeof err.body.email === 'string') {
          address = err.body.email;
          continue;
        }
        throw err;
      }
    }
  }

  /** Mails the account an unblock code, for a sign-in that rate limiting blocked (400/125). */
  async sendUnblockCode(email: string): Promise<void> {
    await this.client.accountLoginSendUnblockCode({ email });
  }

  /** Spends the keyFetchToken and unwraps kA and kB (the bundle's MAC is checked first). */
  async fetchKeys(keyFetchToken: string, unwrapBKey: string): Promise<Keys> {
    const { bundle } = await this.client.accountKeys(keyFetchToken);
    const { kA, wrapKb } = openKeyBundle(deriveTokenKeys('keyFetchToken', keyFetchToken).bundleKey, bundle);
    return { kA, kB: unwrapKb(wrapKb, unwrapBKey) };
  }

  /**
   * Changes the password and keeps kB: proves the old password, fetches the keys, re-wraps kB
   * under the new one (v1 and v2). Returns the new session that replaces `sessionToken`. The new
   * password must pass the policy (PasswordPolicyError otherwise, before anything is sent).
   */
  async changePassword(sessionToken: string, email: string, oldPassword: string, newPassword: string, options: { keys?: boolean } = {}) {
    assertPasswordAllowed(newPassword, email);
    const old = await this.credentialsFor(email, oldPassword);
    const start = await this.client.passwordChangeStart(sessionToken, { email, oldAuthPW: old.authPW });
    const kft = start.keyFetchToken2 ?? start.keyFetchToken;
    if (!kft) throw new Error('the server returned no key fetch token');
    const { kB } = await this.fetchKeys(kft, old.unwrapBKey);
    const { v2, fields } = await passwordFields(email, newPassword, kB);
    const reply = await this.client.passwordChangeFinish(start.passwordChangeToken, { ...fields, sessionToken: deriveTokenKeys('sessionToken', sessionToken).tokenId }, { keys: options.keys ?? false });
    return { ...reply, unwrapBKey: v2.unwrapBKey, keyFetchToken: reply.keyFetchToken2 ?? reply.keyFetchToken };
  }

  /**
   * Changes the password with an MFA token scoped `mfa:password` (from `mfaOtpVerify`), in one
   * request: the caller already holds kB (from fetchKeys), which is re-wrapped under the new
   * password. The token's session ends; the reply's `sessionToken` replaces it.
   *
   * @example
   * await client.mfaOtpRequest(sessionToken, { action: 'password' });
   * const { accessToken } = await client.mfaOtpVerify(sessionToken, { action: 'password', code });
   * const { sessionToken: next } = await accounts.changePasswordWithMfa(accessToken, email, oldPassword, newPassword, kB);
   */
  async changePasswordWithMfa(mfaToken: string, email: string, oldPassword: string, newPassword: string, kB: string, options: { keys?: boolean } = {}) {
    assertPasswordAllowed(newPassword, email);
    const old = await this.credentialsFor(email, oldPassword);
    const { v2, fields } = await passwordFields(email, newPassword, kB);
    const reply = await this.client.mfaPasswordChange(mfaToken, { email, oldAuthPW: old.authPW, ...fields }, { keys: options.keys ?? false });
    return { ...reply, unwrapBKey: v2.unwrapBKey, keyFetchToken: reply.keyFetchToken2 ?? reply.keyFetchToken };
  }

  /**
   * Sets a new password with an accountResetToken; kB is new (a fresh random one, v2 wrapped). The
   * password must pass the policy (PasswordPolicyError otherwise, before anything is sent).
   */
  async resetPassword(accountResetToken: string, email: string, newPassword: string, options: { keys?: boolean; session?: boolean } = {}) {
    assertPasswordAllowed(newPassword, email);
    const { v2, fields } = await passwordFields(email, newPassword, randomHex(32));
    const reply = await this.client.accountReset(accountResetToken, { ...fields, sessionToken: options.session ?? true }, { keys: options.keys ?? false });
    return { ...reply, unwrapBKey: v2.unwrapBKey, keyFetchToken: reply.keyFetchTokenVersion2 ?? reply.keyFetchToken };
  }

  /**
   * Makes a recovery key for a signed-in account and stores it (kB encrypted under it, and its
   * fingerprint). `kB` comes from fetchKeys(); it never leaves this process unencrypted. Returns the
   * key as the person should write it down (32 Crockford base32 characters starting with `A`).
   * An account that has a key needs `replaceKey: true` (else 161).
   *
   * @example
   * const { kB } = await accounts.fetchKeys(signedIn.keyFetchToken!, signedIn.unwrapBKey);
   * const { recoveryKey } = await accounts.createRecoveryKey(signedIn.sessionToken, signedIn.uid, kB, { hint: 'in the safe' });
   */
  async createRecoveryKey(sessionToken: string, uid: string, kB: string, options: { replaceKey?: boolean; hint?: string } = {}) {
    const key = generateRecoveryKey();
    const id = recoveryKeyId(key, uid);
    const recoveryData = await encryptRecoveryData(key, uid, { kB });
    await this.client.recoveryKeyCreate(sessionToken, { recoveryKeyId: id, recoveryData, ...(options.replaceKey ? { replaceKey: true } : {}) });
    if (options.hint) await this.client.recoveryKeyHint(sessionToken, { hint: options.hint });
    return { recoveryKey: crockfordEncode(key), recoveryKeyId: id };
  }

  /**
   * Resets a forgotten password and keeps kB, with the recovery key the person wrote down: fetches
   * recoveryData with the account reset token (not spending it), opens it with the key, and resets
   * with kB wrapped under the new password (v1 and v2). The key is spent by the reset. `uid` and
   * `email` are what `/password/forgot/verify_otp` returned (`uid`, `emailToHashWith`). A key that
   * is not the account's throws 159 (the server's) before anything changes; a key that does not
   * open the data throws before the reset is sent.
   *
   * @example
   * const { accountResetToken } = await client.passwordForgotVerifyCode(token, { code });
   * const reset = await accounts.resetPasswordWithRecoveryKey({ accountResetToken, uid, email }, 'A1B2…', 'new password', { keys: true });
   */
  async resetPasswordWithRecoveryKey(
    reset: { accountResetToken: string; uid: string; email: string },
    recoveryKey: string,
    newPassword: string,
    options: { keys?: boolean } = {},
  ) {
    assertPasswordAllowed(newPassword, reset.email);
    const key = parseRecoveryKey(recoveryKey);
    const id = recoveryKeyId(key, reset.uid);
    const { recoveryData } = await this.client.recoveryKeyGet(reset.accountResetToken, id);
    const { kB } = await decryptRecoveryData(key, reset.uid, recoveryData);
    const { v2, fields } = await passwordFields(reset.email, newPassword, kB.toLowerCase());
    const reply = await this.client.accountReset(reset.accountResetToken, { ...fields, recoveryKeyId: id, sessionToken: true }, { keys: options.keys ?? false });
    return { ...reply, unwrapBKey: v2.unwrapBKey, keyFetchToken: reply.keyFetchTokenVersion2 ?? reply.keyFetchToken };
  }
}
