import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, hex, rawRequest } from '../../helpers.js';
import { claimsOf, expectMfaGuarded, mfaToken } from '../../mfa-helpers.js';

// MFA step-up (protocol.md §4.10): /mfa/otp/request → emailed code → /mfa/otp/verify → JWT →
// an /mfa route of the token's scope. Every route that takes the token is checked with
// expectMfaGuarded; this file covers the codes and the token themselves.

describe.each(httpDialects())('MFA step-up (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({
      dialect, manualClock: true,
      env: { MFA_JWT_ISSUER: 'accounts.test', MFA_JWT_AUDIENCE: 'tessera-test', SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' },
    });
  });
  afterAll(async () => t?.close());

  it('request → emailed code → verify → token → /mfa/password/change keeps kB and ends the old sessions', async () => {
    const acct = await verifiedAccount(t, 'old password here', { keys: true });
    const { kB, kA } = await t.accounts.fetchKeys(acct.keyFetchToken!, acct.unwrapBKey);
    const other = await t.accounts.signIn(acct.email, 'old password here');

    const since = t.mail.messages.length;
    expect(await t.client.mfaOtpRequest(acct.sessionToken, { action: 'password' })).toEqual({ status: 'success' });
    const mail = await t.mail.waitFor(acct.email, 'mfaOtp', since);
    expect(mail.code).toMatch(/^[0-9]{6}$/);
    expect(mail.text).toContain('change your password');
    const { accessToken } = await t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: mail.code! });

    const claims = claimsOf(accessToken);
    expect(claims).toMatchObject({ sub: acct.uid, scope: ['mfa:password'], aud: 'tessera-test', iss: 'accounts.test' });
    expect(claims.exp! - claims.iat!).toBe(600);
    expect(claims.jti).toMatch(/^[0-9a-f-]{36}$/);
    // The session is named by its handle, never by its token id (a credential).
    expect(claims.stid).toMatch(/^[0-9a-f]{64}$/);
    expect(accessToken).not.toContain(acct.sessionToken);
    expect(JSON.parse(Buffer.from(accessToken.split('.')[0]!, 'base64url').toString())).toMatchObject({ alg: 'HS256' });

    const changed = await t.accounts.changePasswordWithMfa(accessToken, acct.email, 'old password here', 'new password there', kB, { keys: true });
    expect(changed.uid).toBe(acct.uid);
    expect(changed.verified).toBe(true);
    expect(await t.accounts.fetchKeys(changed.keyFetchToken!, changed.unwrapBKey)).toEqual({ kA, kB });
    expect((await t.client.sessionStatus(changed.sessionToken!)).state).toBe('verified');
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
    await expectError(t.client.sessionStatus(other.sessionToken), 'INVALID_TOKEN', 401);
    // The token died with the session it was issued to.
    await expectError(t.accounts.changePasswordWithMfa(accessToken, acct.email, 'new password there', 'third password', kB), 'INVALID_MFA_TOKEN', 401);
    await t.mail.waitFor(acct.email, 'passwordChanged', since);
    await expectError(t.accounts.signIn(acct.email, 'old password here'), 'INCORRECT_PASSWORD');
    expect((await t.accounts.signIn(acct.email, 'new password there')).uid).toBe(acct.uid);
    // Eight password stretches on each side: more than the default 30 s on a loaded 2-core machine.
  }, 90_000);

  it('/mfa/password/change refuses every token it must not take', async () => {
    await expectMfaGuarded(t, {
      method: 'POST', path: '/mfa/password/change',
      body: { oldAuthPW: hex(64), authPW: hex(64), wrapKb: hex(64) },
    }, 'password');
  });

  it('/mfa/password/change with a wrong old password changes nothing', async () => {
    const acct = await verifiedAccount(t);
    const token = await mfaToken(t, acct, 'password');
    await expectError(t.client.mfaPasswordChange(token, { email: acct.email, oldAuthPW: hex(64), authPW: hex(64), wrapKb: hex(64) }), 'INCORRECT_PASSWORD', 400);
    await expectError(t.client.mfaPasswordChange(token, { email: 'someone.else@example.com', oldAuthPW: hex(64), authPW: hex(64), wrapKb: hex(64) }), 'ACCOUNT_UNKNOWN', 400);
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');
    expect((await t.accounts.signIn(acct.email, acct.password)).uid).toBe(acct.uid);
  });

  it('a code is single use, bound to its action and session, and expires after MFA_OTP_LIFETIME_SECONDS', async () => {
    const acct = await verifiedAccount(t);
    let since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: 'email' });
    const { code } = await t.mail.waitFor(acct.email, 'mfaOtp', since);
    // Another action, another session of the same account: not this code.
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: code! }), 'INVALID_EXPIRED_OTP_CODE', 400);
    const second = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    const secondCode = await t.mail.waitFor(acct.email, 'verifyLoginCode', since);
    await t.client.sessionVerifyCode(second.sessionToken, { code: secondCode.code! });
    await expectError(t.client.mfaOtpVerify(second.sessionToken, { action: 'email', code: code! }), 'INVALID_EXPIRED_OTP_CODE', 400);
    const { accessToken } = await t.client.mfaOtpVerify(acct.sessionToken, { action: 'email', code: code! });
    expect(claimsOf(accessToken).scope).toEqual(['mfa:email']);
    // Replay: refused.
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'email', code: code! }), 'INVALID_EXPIRED_OTP_CODE', 400);

    since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: 'email' });
    const late = await t.mail.waitFor(acct.email, 'mfaOtp', since);
    t.clock!.advance(t.config.mfa.otpLifetimeSeconds * 1000 + 1000);
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'email', code: late.code! }), 'INVALID_EXPIRED_OTP_CODE', 400);
  });

  it('a new code replaces the old one', async () => {
    const acct = await verifiedAccount(t);
    let since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: '2fa' });
    const first = await t.mail.waitFor(acct.email, 'mfaOtp', since);
    since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: '2fa' });
    const second = await t.mail.waitFor(acct.email, 'mfaOtp', since);
    if (first.code !== second.code) await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: '2fa', code: first.code! }), 'INVALID_EXPIRED_OTP_CODE', 400);
    expect((await t.client.mfaOtpVerify(acct.sessionToken, { action: '2fa', code: second.code! })).accessToken).toBeTruthy();
  });

  it('two requests racing with the right code get one token between them', async () => {
    const acct = await verifiedAccount(t);
    const since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: 'recovery_key' });
    const { code } = await t.mail.waitFor(acct.email, 'mfaOtp', since);
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => t.client.mfaOtpVerify(acct.sessionToken, { action: 'recovery_key', code: code! })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') await expectError(Promise.reject(r.reason), 'INVALID_EXPIRED_OTP_CODE');
  });

  it('needs a confirmed session, and refuses an action outside the list', async () => {
    const acct = await verifiedAccount(t);
    const unconfirmed = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
    expect((await t.client.sessionStatus(unconfirmed.sessionToken)).state).toBe('unverified');
    await expectError(t.client.mfaOtpRequest(unconfirmed.sessionToken, { action: 'password' }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.mfaOtpVerify(unconfirmed.sessionToken, { action: 'password', code: '123456' }), 'SESSION_UNVERIFIED', 400);
    await expectError(t.client.mfaOtpRequest(acct.sessionToken, { action: 'everything' as never }), 'INVALID_PARAMETER', 400);
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: '12345' }), 'INVALID_PARAMETER', 400);
  });

  it('the OpenAPI document shows the MFA token and each route\'s scope', async () => {
    const doc = (await rawRequest(t.url, 'GET', '/v1/openapi.json')).body as {
      components: { securitySchemes: Record<string, { bearerFormat?: string }> };
      paths: Record<string, Record<string, { security: Record<string, string[]>[]; 'x-errors': { name: string }[] }>>;
    };
    expect(doc.components.securitySchemes.mfaTokenBearer?.bearerFormat).toBe('JWT');
    const op = doc.paths['/v1/mfa/password/change']!.post!;
    expect(op.security).toEqual([{ mfaTokenBearer: ['mfa:password'] }]);
    expect(op['x-errors'].map((e) => e.name)).toContain('INVALID_MFA_TOKEN');
    expect(doc.paths['/v1/mfa/otp/verify']!.post!.security).toContainEqual({ sessionTokenBearer: [] });
  });
});

describe.each(httpDialects())('MFA step-up codes under attack (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true, env: { MFA_OTP_TRIES: '2', MFA_OTP_MAX_FAILURES_PER_SESSION: '4' } });
  });
  afterAll(async () => t?.close());

  const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

  it('a code dies after MFA_OTP_TRIES wrong tries; a new code does not reset the session\'s count, which ends the session', async () => {
    const acct = await verifiedAccount(t);
    let since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: 'password' });
    const first = (await t.mail.waitFor(acct.email, 'mfaOtp', since)).code!;
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: wrong(first) }), 'INVALID_EXPIRED_OTP_CODE', 400);
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: wrong(first) }), 'INVALID_EXPIRED_OTP_CODE', 400);
    // Two wrong tries spent the code: the right one no longer works.
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: first }), 'INVALID_EXPIRED_OTP_CODE', 400);

    since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: 'password' });
    const second = (await t.mail.waitFor(acct.email, 'mfaOtp', since)).code!;
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: wrong(second) }), 'INVALID_EXPIRED_OTP_CODE', 400);
    // The fourth wrong code of this session ends it.
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: wrong(second) }), 'INVALID_EXPIRED_OTP_CODE', 400);
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'password', code: second }), 'INVALID_TOKEN', 401);
  });

  it('guessing stops: parallel guesses share no try, and the rate limit refuses the right code too', async () => {
    const acct = await verifiedAccount(t);
    const since = t.mail.messages.length;
    await t.client.mfaOtpRequest(acct.sessionToken, { action: 'email' });
    const code = (await t.mail.waitFor(acct.email, 'mfaOtp', since)).code!;
    // Ten guesses at once against a code with two tries: at most two are compared.
    const guesses = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => t.client.mfaOtpVerify(acct.sessionToken, { action: 'email', code: String(i).padStart(6, '0') === code ? wrong(code) : String(i).padStart(6, '0') })));
    expect(guesses.every((g) => g.status === 'rejected')).toBe(true);
    // mfaOtpCodeVerify allows 10 checks per client address and account in 10 minutes: the 11th,
    // even with the right code, is refused.
    await expectError(t.client.mfaOtpVerify(acct.sessionToken, { action: 'email', code }), 'THROTTLED', 429);
  });

  it('requests are limited per action (mfaOtpCodeRequestFor<Action>)', async () => {
    const acct = await verifiedAccount(t);
    for (let i = 0; i < 5; i++) await t.client.mfaOtpRequest(acct.sessionToken, { action: 'passkey' });
    await expectError(t.client.mfaOtpRequest(acct.sessionToken, { action: 'passkey' }), 'THROTTLED', 429);
    expect(await t.client.mfaOtpRequest(acct.sessionToken, { action: 'recovery_key' })).toEqual({ status: 'success' });
  });
});
