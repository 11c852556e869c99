import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys, encryptRecoveryData, generateRecoveryKey, randomHex, recoveryKeyId, stretchV1, unwrapKb } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, rawRequest } from '../../helpers.js';

// Account recovery keys (protocol.md §4.8) through the SDK: a reset with the key keeps kB; without
// it kB and the key go; the fingerprint is checked (158/159); one key per account (161).

describe.each(httpDialects())('recovery keys (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect });
  });
  afterAll(async () => t?.close());

  /** A confirmed account with its kB (fetched with the sign-up's key fetch token). */
  async function accountWithKeys(password = 'recovery key password') {
    const acct = await verifiedAccount(t, password, { keys: true });
    const keys = await t.accounts.fetchKeys(acct.keyFetchToken!, acct.unwrapBKey);
    return { ...acct, kB: keys.kB, kA: keys.kA };
  }

  /** Forgot password by the 8-digit code: what the reset needs (token, uid, the address to stretch with). */
  async function forgot(email: string) {
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendOtp({ email });
    const otp = (await t.mail.waitFor(email, 'passwordForgotOtp', since)).code!;
    const verified = await t.client.passwordForgotVerifyOtp({ email, code: otp });
    const { accountResetToken } = await t.client.passwordForgotVerifyCode(verified.token, { code: verified.code });
    return { accountResetToken, uid: verified.uid, email: verified.emailToHashWith, forgotToken: verified.token };
  }

  /** recoveryKeyCreate's body for a fresh key of `uid` (what a client other than the SDK flow sends). */
  async function keyBody(uid: string, kB = randomHex(32)) {
    const key = generateRecoveryKey();
    return { key, body: { recoveryKeyId: recoveryKeyId(key, uid), recoveryData: await encryptRecoveryData(key, uid, { kB }) } };
  }

  it('creates a key, forgets the password, resets with the key and unwraps the same kB', async () => {
    const acct = await accountWithKeys();
    let since = t.mail.messages.length;
    const { recoveryKey, recoveryKeyId: id } = await t.accounts.createRecoveryKey(acct.sessionToken, acct.uid, acct.kB, { hint: 'in the blue folder' });
    expect(recoveryKey).toMatch(/^A[0-9A-HJKMNP-TV-Z]{31}$/);
    await t.mail.waitFor(acct.email, 'recoveryKeyCreated', since);
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toEqual({ exists: true, hint: 'in the blue folder' });
    // The database holds the fingerprint's hash, never the fingerprint.
    const row = await t.storage.db.selectFrom('recovery_keys').selectAll().where('uid', '=', acct.uid).executeTakeFirstOrThrow();
    expect(row.recovery_key_id_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(id);

    const keysChangedAt = async () => Number((await t.storage.db.selectFrom('accounts').select('keys_changed_at').where('uid', '=', acct.uid).executeTakeFirstOrThrow()).keys_changed_at);
    const keysChangedBefore = await keysChangedAt();
    const reset = await forgot(acct.email);
    since = t.mail.messages.length;
    // Typed as people type: lower case, in groups.
    const typed = recoveryKey.toLowerCase().match(/.{1,4}/g)!.join(' ');
    const done = await t.accounts.resetPasswordWithRecoveryKey(reset, typed, 'a brand new password', { keys: true });
    expect(done).toMatchObject({ uid: acct.uid, verified: true });
    const after = await t.accounts.fetchKeys(done.keyFetchToken!, done.unwrapBKey);
    expect(after).toEqual({ kA: acct.kA, kB: acct.kB });
    // keysHaveChanged is false: relying parties keep what they derived from kB.
    expect(await keysChangedAt()).toBe(keysChangedBefore);
    const notice = await t.mail.waitFor(acct.email, 'recoveryKeyUsed', since);
    expect(notice.subject).toMatch(/recovery key/);
    expect(t.mail.messages.slice(since).some((m) => m.template === 'passwordReset' && m.to === acct.email)).toBe(false);

    // The key is spent; the old password and sessions are gone; the new password opens the same kB.
    expect(await t.client.recoveryKeyExists({ sessionToken: done.sessionToken! })).toEqual({ exists: false });
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
    await expectError(t.accounts.signIn(acct.email, 'recovery key password'), 'INCORRECT_PASSWORD');
    const login = await t.accounts.signIn(acct.email, 'a brand new password', { keys: true });
    expect((await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey)).kB).toBe(acct.kB);
    const events = await t.client.securityEvents(done.sessionToken!);
    expect(events).toEqual(expect.arrayContaining([
      expect.objectContaining({ name: 'account.recovery_key_added' }),
      expect.objectContaining({ name: 'account.password_reset', additionalInfo: { method: 'recovery_key' } }),
    ]));
  });

  it('GET /recoveryKey/{id}: 158 without a key, 159 for another key, and the reset token survives it', async () => {
    const acct = await accountWithKeys();
    const none = await forgot(acct.email);
    await expectError(t.client.recoveryKeyGet(none.accountResetToken, randomHex(16)), 'RECOVERY_KEY_NOT_FOUND', 400);

    const { key, body } = await keyBody(acct.uid, acct.kB);
    await t.client.recoveryKeyCreate(acct.sessionToken, body);
    const r = await forgot(acct.email);
    await expectError(t.client.recoveryKeyGet(r.accountResetToken, randomHex(16)), 'RECOVERY_KEY_INVALID', 400);
    // A key of another account (same key bytes, other uid): its fingerprint differs.
    await expectError(t.client.recoveryKeyGet(r.accountResetToken, recoveryKeyId(key, randomHex(16))), 'RECOVERY_KEY_INVALID', 400);
    const got = await t.client.recoveryKeyGet(r.accountResetToken, body.recoveryKeyId.toUpperCase());
    expect(got).toEqual({ recoveryData: body.recoveryData });
    // Not a hex fingerprint: a validation error.
    const bearer = `Bearer fxar_${deriveTokenKeys('accountResetToken', r.accountResetToken).tokenId}`;
    expectError(await rawRequest(t.url, 'GET', `/recoveryKey/${'zz'.repeat(16)}`, { authorization: bearer }), 'INVALID_PARAMETER', 400);
    // The token still resets (GET does not spend it).
    const v1 = await stretchV1(acct.email, 'reset after looking');
    await t.client.accountReset(r.accountResetToken, { authPW: v1.authPW, wrapKb: unwrapKb(acct.kB, v1.unwrapBKey), recoveryKeyId: body.recoveryKeyId });
    const login = await t.accounts.signIn(acct.email, 'reset after looking', { keys: true });
    expect((await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey)).kB).toBe(acct.kB);
  });

  it('a reset naming another key, or no wrapKb, changes nothing (and spends the reset token)', async () => {
    const acct = await accountWithKeys('keep this password');
    const { body } = await keyBody(acct.uid, acct.kB);
    await t.client.recoveryKeyCreate(acct.sessionToken, body);
    const v1 = await stretchV1(acct.email, 'attacker password');
    const guess = await forgot(acct.email);
    // Email access alone (a reset token) with a guessed or stale fingerprint keeps no kB.
    await expectError(t.client.accountReset(guess.accountResetToken, { authPW: v1.authPW, wrapKb: randomHex(32), recoveryKeyId: randomHex(16) }), 'RECOVERY_KEY_INVALID', 400);
    await expectError(t.client.accountReset(guess.accountResetToken, { authPW: v1.authPW, wrapKb: randomHex(32), recoveryKeyId: body.recoveryKeyId }), 'INVALID_TOKEN', 401);
    const missing = await expectError(t.client.accountReset((await forgot(acct.email)).accountResetToken, { authPW: v1.authPW, recoveryKeyId: body.recoveryKeyId }), 'MISSING_PARAMETER', 400);
    expect(missing.body.param).toBe('wrapKb');
    // Nothing changed: the old password, its kB, its session and the key all still work.
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');
    const login = await t.accounts.signIn(acct.email, 'keep this password', { keys: true });
    expect((await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey)).kB).toBe(acct.kB);
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toEqual({ exists: true });
  });

  it('a reset without the key replaces kB and deletes the key', async () => {
    const acct = await accountWithKeys();
    await t.accounts.createRecoveryKey(acct.sessionToken, acct.uid, acct.kB);
    const r = await forgot(acct.email);
    const done = await t.accounts.resetPassword(r.accountResetToken, acct.email, 'no key this time', { keys: true });
    expect((await t.accounts.fetchKeys(done.keyFetchToken!, done.unwrapBKey)).kB).not.toBe(acct.kB);
    expect(await t.client.recoveryKeyExists({ sessionToken: done.sessionToken! })).toEqual({ exists: false });
    expect(await t.storage.db.selectFrom('recovery_keys').select('uid').where('uid', '=', acct.uid).executeTakeFirst()).toBeUndefined();
  });

  it('a password change keeps the key (kB is unchanged, so the key still opens it)', async () => {
    const acct = await accountWithKeys('before the change');
    const { recoveryKey } = await t.accounts.createRecoveryKey(acct.sessionToken, acct.uid, acct.kB);
    await t.accounts.changePassword(acct.sessionToken, acct.email, 'before the change', 'after the change');
    const done = await t.accounts.resetPasswordWithRecoveryKey(await forgot(acct.email), recoveryKey, 'after the reset', { keys: true });
    expect((await t.accounts.fetchKeys(done.keyFetchToken!, done.unwrapBKey)).kB).toBe(acct.kB);
  });

  it('two resets racing with one key: exactly one wins, and kB survives', async () => {
    const acct = await accountWithKeys();
    const { recoveryKey } = await t.accounts.createRecoveryKey(acct.sessionToken, acct.uid, acct.kB);
    const r = await forgot(acct.email);
    const results = await Promise.allSettled([
      t.accounts.resetPasswordWithRecoveryKey(r, recoveryKey, 'first racing password'),
      t.accounts.resetPasswordWithRecoveryKey(r, recoveryKey, 'second racing password'),
    ]);
    const won = results.filter((x) => x.status === 'fulfilled');
    expect(won).toHaveLength(1);
    const lost = results.find((x) => x.status === 'rejected') as PromiseRejectedResult;
    expect(['INVALID_TOKEN', 'RECOVERY_KEY_NOT_FOUND']).toContain((lost.reason as { errorName?: string }).errorName);
    const winner = results[0]!.status === 'fulfilled' ? 'first racing password' : 'second racing password';
    const login = await t.accounts.signIn(acct.email, winner, { keys: true });
    expect((await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey)).kB).toBe(acct.kB);
    // The key is spent: a later reset with it finds none.
    await expectError(t.accounts.resetPasswordWithRecoveryKey(await forgot(acct.email), recoveryKey, 'third password'), 'RECOVERY_KEY_NOT_FOUND', 400);
  });

  it('spends a key once when two reset transactions race for it (below HTTP, where one reset token per account already serializes them)', async () => {
    const acct = await accountWithKeys();
    const { recoveryKeyId: id } = await t.accounts.createRecoveryKey(acct.sessionToken, acct.uid, acct.kB);
    const service = t.app.services.recoveryKeys;
    const spend = () => t.storage.db.transaction().execute((trx) => service.spendForReset(trx, acct.uid, id));
    const results = await Promise.allSettled([spend(), spend()]);
    expect(results.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    expect((results.find((x) => x.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ errorName: 'RECOVERY_KEY_NOT_FOUND' });
  });

  it('one key per account: 161 without replaceKey; replaceKey swaps it; two racing creates store one', async () => {
    const acct = await accountWithKeys();
    const first = await keyBody(acct.uid, acct.kB);
    const second = await keyBody(acct.uid, acct.kB);
    const racing = await Promise.allSettled([t.client.recoveryKeyCreate(acct.sessionToken, first.body), t.client.recoveryKeyCreate(acct.sessionToken, second.body)]);
    expect(racing.filter((x) => x.status === 'fulfilled')).toHaveLength(1);
    expect((racing.find((x) => x.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({ errorName: 'RECOVERY_KEY_EXISTS' });
    const stored = racing[0]!.status === 'fulfilled' ? first : second;
    const other = stored === first ? second : first;
    await expectError(t.client.recoveryKeyCreate(acct.sessionToken, other.body), 'RECOVERY_KEY_EXISTS', 400);
    await t.client.recoveryKeyHint(acct.sessionToken, { hint: 'old note' });
    const since = t.mail.messages.length;
    await t.client.recoveryKeyCreate(acct.sessionToken, { ...other.body, replaceKey: true });
    await t.mail.waitFor(acct.email, 'recoveryKeyCreated', since);
    // The note described the old key.
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toEqual({ exists: true });
    const r = await forgot(acct.email);
    await expectError(t.client.recoveryKeyGet(r.accountResetToken, stored.body.recoveryKeyId), 'RECOVERY_KEY_INVALID', 400);
    expect((await t.client.recoveryKeyGet(r.accountResetToken, other.body.recoveryKeyId)).recoveryData).toBe(other.body.recoveryData);
  });

  it('a pending key (enabled: false) counts only after /recoveryKey/verify', async () => {
    const acct = await accountWithKeys();
    const pending = await keyBody(acct.uid, acct.kB);
    const since = t.mail.messages.length;
    await t.client.recoveryKeyCreate(acct.sessionToken, { ...pending.body, enabled: false });
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toEqual({ exists: false });
    await expectError(t.client.recoveryKeyHint(acct.sessionToken, { hint: 'x' }), 'RECOVERY_KEY_NOT_FOUND', 400);
    // A pending key is replaced without replaceKey.
    const next = await keyBody(acct.uid, acct.kB);
    await t.client.recoveryKeyCreate(acct.sessionToken, { ...next.body, enabled: false });
    await expectError(t.client.recoveryKeyVerify(acct.sessionToken, { recoveryKeyId: pending.body.recoveryKeyId }), 'RECOVERY_KEY_INVALID', 400);
    const r = await forgot(acct.email);
    await expectError(t.client.recoveryKeyGet(r.accountResetToken, next.body.recoveryKeyId), 'RECOVERY_KEY_NOT_FOUND', 400);
    expect(t.mail.messages.slice(since).some((m) => m.template === 'recoveryKeyCreated' && m.to === acct.email)).toBe(false);
    await t.client.recoveryKeyVerify(acct.sessionToken, { recoveryKeyId: next.body.recoveryKeyId });
    await t.mail.waitFor(acct.email, 'recoveryKeyCreated', since);
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toEqual({ exists: true });
    // Verifying again is harmless; a fresh account has nothing to verify.
    await t.client.recoveryKeyVerify(acct.sessionToken, { recoveryKeyId: next.body.recoveryKeyId });
    const bare = await verifiedAccount(t);
    await expectError(t.client.recoveryKeyVerify(bare.sessionToken, { recoveryKeyId: randomHex(16) }), 'RECOVERY_KEY_NOT_FOUND', 400);
  });

  it('exists: hint with a session or a forgot token that proved the address; anonymously by address only a yes/no, never 102', async () => {
    const acct = await accountWithKeys();
    await t.accounts.createRecoveryKey(acct.sessionToken, acct.uid, acct.kB, { hint: 'taped under the desk' });
    // Issue 22, hole 5: a send_code token goes to whoever names the address: a yes/no only.
    const sent = await t.client.passwordForgotSendCode({ email: acct.email });
    expect(await t.client.recoveryKeyExists({ passwordForgotToken: sent.passwordForgotToken })).toEqual({ exists: true });
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendOtp({ email: acct.email });
    const otp = (await t.mail.waitFor(acct.email, 'passwordForgotOtp', since)).code!;
    const proven = await t.client.passwordForgotVerifyOtp({ email: acct.email, code: otp });
    expect(await t.client.recoveryKeyExists({ passwordForgotToken: proven.token })).toEqual({ exists: true, hint: 'taped under the desk' });
    expect(await t.client.recoveryKeyExists(undefined, { email: acct.email })).toEqual({ exists: true });
    expect(await t.client.recoveryKeyExists(undefined, { email: acct.email.toUpperCase() })).toEqual({ exists: true });
    expect(await t.client.recoveryKeyExists(undefined, { email: newEmail('nobody') })).toEqual({ exists: false });
    const bare = await verifiedAccount(t);
    expect(await t.client.recoveryKeyExists(undefined, { email: bare.email })).toEqual({ exists: false });
    const missing = await expectError(t.client.recoveryKeyExists(undefined, {}), 'MISSING_PARAMETER', 400);
    expect(missing.body.param).toBe('email');
  });

  it('validates the hint, the fingerprint and recoveryData; a session must be verified', async () => {
    const acct = await accountWithKeys();
    const { body } = await keyBody(acct.uid, acct.kB);
    await expectError(t.client.recoveryKeyCreate(acct.sessionToken, { ...body, recoveryKeyId: 'ab'.repeat(17) }), 'INVALID_PARAMETER', 400);
    await expectError(t.client.recoveryKeyCreate(acct.sessionToken, { ...body, recoveryData: 'not a jwe' }), 'INVALID_PARAMETER', 400);
    await expectError(t.client.recoveryKeyCreate(acct.sessionToken, { ...body, recoveryData: `${body.recoveryData}${'A'.repeat(1024)}` }), 'INVALID_PARAMETER', 400);
    await t.client.recoveryKeyCreate(acct.sessionToken, body);
    await expectError(t.client.recoveryKeyHint(acct.sessionToken, { hint: 'x'.repeat(256) }), 'INVALID_PARAMETER', 400);
    await expectError(t.client.recoveryKeyHint(acct.sessionToken, { hint: 'bidi \u202e trick' }), 'INVALID_PARAMETER', 400);
    await t.client.recoveryKeyHint(acct.sessionToken, { hint: '🔑 '.repeat(10) });
    expect((await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).hint).toBe('🔑 '.repeat(10).trim());
    await t.client.recoveryKeyHint(acct.sessionToken, { hint: '' });
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toEqual({ exists: true });

    // A sign-up not yet confirmed: its session may not store or remove a key.
    const unconfirmed = await t.accounts.signUp(newEmail(), 'an unconfirmed account', { verificationMethod: 'email-otp' });
    await expectError(t.client.recoveryKeyCreate(unconfirmed.sessionToken, (await keyBody(unconfirmed.uid)).body), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.recoveryKeyDelete(unconfirmed.sessionToken), 'SESSION_UNVERIFIED', 400);
  });

  it('DELETE removes the key and emails the account; deleting the account removes it too', async () => {
    const acct = await accountWithKeys();
    await t.accounts.createRecoveryKey(acct.sessionToken, acct.uid, acct.kB);
    const since = t.mail.messages.length;
    await t.client.recoveryKeyDelete(acct.sessionToken);
    await t.mail.waitFor(acct.email, 'recoveryKeyRemoved', since);
    expect(await t.client.recoveryKeyExists({ sessionToken: acct.sessionToken })).toEqual({ exists: false });
    await t.client.recoveryKeyDelete(acct.sessionToken);

    const gone = await accountWithKeys();
    await t.accounts.createRecoveryKey(gone.sessionToken, gone.uid, gone.kB);
    const { authPW } = await t.accounts.credentialsFor(gone.email, 'recovery key password');
    await t.client.accountDestroy(gone.sessionToken, { email: gone.email, authPW });
    expect(await t.storage.db.selectFrom('recovery_keys').select('uid').where('uid', '=', gone.uid).executeTakeFirst()).toBeUndefined();
  });
});

describe('recovery key rate limits', () => {
  it('limits anonymous /recoveryKey/exists per client address (429/114)', async () => {
    const t = await createTestServer({ env: { RATE_LIMIT_RULES: 'recoveryKeyExists : ip : 3 : 15 minutes : 15 minutes : block' } });
    try {
      for (let i = 0; i < 3; i++) expect(await t.client.recoveryKeyExists(undefined, { email: newEmail('probe') })).toEqual({ exists: false });
      await expectError(t.client.recoveryKeyExists(undefined, { email: newEmail('probe') }), 'THROTTLED', 429);
    } finally {
      await t.close();
    }
  });
});
