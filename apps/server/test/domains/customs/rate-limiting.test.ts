import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, rawRequest } from '../../helpers.js';

// Issue 9, customs: rate limiting shared across instances, and the unblock codes that lift a
// sign-in block. Every request here comes from 127.0.0.1, as a credential-stuffing loop would.

const authPW = () => randomBytes(32).toString('hex');
const login = (t: TestServer, email: string, extra: Record<string, unknown> = {}) =>
  rawRequest(t.url, 'POST', '/account/login', { body: { email, authPW: authPW(), ...extra } });

describe.each(httpDialects())('rate limiting (%s)', (dialect) => {
  describe('a credential-stuffing loop from one address', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await createTestServer({
        dialect, manualClock: true,
        // The protocol's shape with a small limit, so the loop stays short.
        env: { RATE_LIMIT_RULES: 'accountLogin : ip : 8 : 24 hours : 15 minutes : ban' },
      });
    });
    afterAll(async () => t?.close());

    it('is cut off at the limit on every route with 429/114 and retryAfter, which is honoured', async () => {
      const victims = await Promise.all([verifiedAccount(t), verifiedAccount(t)]);
      // Eight tries over many addresses, known and unknown, all wrong.
      for (let i = 0; i < 8; i++) {
        const reply = await login(t, i % 3 === 2 ? newEmail('unknown') : victims[i % 2]!.email);
        expect(reply.status, reply.text).toBe(400);
        expect([102, 103]).toContain(reply.body.errno);
      }
      const cut = await login(t, victims[0]!.email);
      expectError(cut, 'THROTTLED');
      expect(cut.body.retryAfter).toBe(900);
      expect(cut.headers.get('retry-after')).toBe('900');
      expect(cut.body.retryAfterLocalized).toBe('in 15 minutes');
      // A ban is on the address for every action: even an existence check, and even the right password.
      expectError(await rawRequest(t.url, 'POST', '/account/status', { body: { email: victims[0]!.email } }), 'THROTTLED');
      await expectError(t.accounts.signIn(victims[1]!.email, victims[1]!.password), 'THROTTLED');
      // In the caller's language when it has one.
      const fr = await fetch(`${t.url}/v1/account/status`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': 'fr-CA, fr;q=0.8' }, body: JSON.stringify({ email: victims[0]!.email }) });
      expect(((await fr.json()) as { retryAfterLocalized: string }).retryAfterLocalized).toBe('dans 15 minutes');

      t.clock!.advance(899_000);
      expectError(await login(t, victims[0]!.email), 'THROTTLED');
      t.clock!.advance(1_001);
      const back = await t.accounts.signIn(victims[0]!.email, victims[0]!.password);
      expect(back.uid).toBe(victims[0]!.uid);
    });
  });

  describe('failures', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await createTestServer({ dialect, env: { RATE_LIMIT_RULES: 'passwordCheckFailed : ip : 3 : 24 hours : 4 hours : ban; accountLogin : ip_email : 50 : 15 minutes : 15 minutes : block' } });
    });
    afterAll(async () => t?.close());

    it('bans an address whose wrong passwords pass the limit, and counts nothing for right ones', async () => {
      const acct = await verifiedAccount(t);
      // Right passwords are not failures.
      for (let i = 0; i < 4; i++) await t.accounts.signIn(acct.email, acct.password);
      for (let i = 0; i < 3; i++) expectError(await login(t, acct.email), 'INCORRECT_PASSWORD');
      // The fourth failure is answered as a failure, and bans the address from then on.
      expectError(await login(t, acct.email), 'INCORRECT_PASSWORD');
      const banned = await rawRequest(t.url, 'GET', '/session/status', { authorization: `Bearer ${acct.sessionToken}` });
      expectError(banned, 'THROTTLED');
      expect(banned.body.retryAfter).toBe(4 * 3600);
    });
  });

  describe('unblock codes', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await createTestServer({ dialect, manualClock: true, env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
    });
    afterAll(async () => t?.close());

    /** Five wrong passwords for the account from this address: the sixth sign-in is blocked. */
    async function blocked(acct: { email: string; password: string }) {
      for (let i = 0; i < 5; i++) expectError(await login(t, acct.email), 'INCORRECT_PASSWORD');
      const reply = await login(t, acct.email);
      expectError(reply, 'REQUEST_BLOCKED');
      expect(reply.body).toMatchObject({ verificationMethod: 'email-captcha', verificationReason: 'login' });
      // The right password does not pass a block either.
      const right = await expectError(t.accounts.signIn(acct.email, acct.password), 'REQUEST_BLOCKED');
      expect(right.body.verificationMethod).toBe('email-captcha');
    }

    async function unblockCode(email: string) {
      const since = t.mail.messages.length;
      await t.accounts.sendUnblockCode(email);
      const mail = await t.mail.waitFor(email, 'unblockCode', since);
      expect(mail.code).toMatch(/^[A-Z0-9]{8}$/);
      return mail.code!;
    }

    it('runs end to end: blocked, code mailed, signed in with it, confirmed without another email', async () => {
      const acct = await verifiedAccount(t);
      await blocked(acct);
      const code = await unblockCode(acct.email);
      const mailsBefore = t.mail.count(acct.email);
      // Codes are case-insensitive; the sign-in needs no confirmation: the code came through the mailbox.
      const signedIn = await t.accounts.signIn(acct.email, acct.password, { unblockCode: code.toLowerCase() });
      expect(signedIn.verified).toBe(true);
      expect((await t.client.sessionStatus(signedIn.sessionToken)).state).toBe('verified');
      // The block is lifted: a plain sign-in works again (and needs the usual confirmation).
      const again = await t.accounts.signIn(acct.email, acct.password, { verificationMethod: 'email-otp' });
      expect(again.verified).toBe(false);
      // The unblocked sign-in got the new-sign-in notice, not a confirmation; the plain one a code.
      expect(t.mail.messages.slice(mailsBefore).filter((m) => m.to === acct.email.toLowerCase()).map((m) => m.template)).toEqual(['newDeviceLogin', 'verifyLoginCode']);
      // A code works once.
      await expectError(t.accounts.signIn(acct.email, acct.password, { unblockCode: code }), 'INVALID_UNBLOCK_CODE');
    });

    it('refuses a wrong, an expired, a replaced or a rejected code with 400/127', async () => {
      const acct = await verifiedAccount(t);
      await blocked(acct);
      const first = await unblockCode(acct.email);
      const wrong = first === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA';
      await expectError(t.accounts.signIn(acct.email, acct.password, { unblockCode: wrong }), 'INVALID_UNBLOCK_CODE');
      // A new code replaces the old one.
      const second = await unblockCode(acct.email);
      await expectError(t.accounts.signIn(acct.email, acct.password, { unblockCode: first }), 'INVALID_UNBLOCK_CODE');
      // The owner says "not me".
      const ok = await rawRequest(t.url, 'POST', '/account/login/reject_unblock_code', { body: { uid: acct.uid, unblockCode: second } });
      expect(ok.status, ok.text).toBe(200);
      await expectError(t.accounts.signIn(acct.email, acct.password, { unblockCode: second }), 'INVALID_UNBLOCK_CODE');
      // Codes last an hour.
      const third = await unblockCode(acct.email);
      t.clock!.advance(3600_000 + 1000);
      await expectError(t.accounts.signIn(acct.email, acct.password, { unblockCode: third }), 'INVALID_UNBLOCK_CODE');
    });

    it('checks the password before the code: while blocked, a wrong password gets 127 whatever the code, and the code stays the owner\'s', async () => {
      const acct = await verifiedAccount(t);
      await blocked(acct);
      const code = await unblockCode(acct.email);
      // Issue 22: a blocked sign-in learns nothing of the password without a valid code, and a
      // guess without the password spends no code: the reply is the same with the right code or a wrong one.
      expectError(await login(t, acct.email, { unblockCode: code }), 'INVALID_UNBLOCK_CODE');
      expectError(await login(t, acct.email, { unblockCode: code === 'AAAAAAAA' ? 'BBBBBBBB' : 'AAAAAAAA' }), 'INVALID_UNBLOCK_CODE');
      const signedIn = await t.accounts.signIn(acct.email, acct.password, { unblockCode: code });
      expect(signedIn.verified).toBe(true);
    });

    it('mails codes only to an account\'s primary address, and not without limit', async () => {
      await expectError(t.accounts.sendUnblockCode(newEmail('nobody')), 'ACCOUNT_UNKNOWN');
      const acct = await verifiedAccount(t);
      // sendUnblockCode : ip_email : 5 per 15 minutes.
      for (let i = 0; i < 5; i++) await t.accounts.sendUnblockCode(acct.email);
      const sixth = await expectError(t.accounts.sendUnblockCode(acct.email), 'THROTTLED');
      expect(sixth.body.retryAfter).toBe(900);
    });
  });

  describe('emailed code sends', () => {
    let t: TestServer;
    beforeAll(async () => {
      // Behind a proxy, so the test can speak from many client addresses.
      t = await createTestServer({ dialect, env: { TRUST_PROXY: 'true' } });
    });
    afterAll(async () => t?.close());

    const from = (ip: string, path: string, body: unknown) =>
      fetch(`${t.url}/v1${path}`, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-forwarded-for': ip } }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }));

    it('caps the mail one address can be sent, however many client addresses ask', async () => {
      const acct = await verifiedAccount(t);
      const since = t.mail.count(acct.email);
      // passwordForgotSendCode : email : 20 per day; each request from a new address.
      for (let i = 0; i < 20; i++) expect((await from(`198.51.100.${i + 1}`, '/password/forgot/send_code', { email: acct.email })).status).toBe(200);
      const refused = await from('203.0.113.7', '/password/forgot/send_code', { email: acct.email });
      expect(refused.status).toBe(429);
      expect(refused.body.errno).toBe(114);
      expect(refused.body.retryAfter).toBe(86400);
      expect(t.mail.count(acct.email) - since).toBe(20);
    });

    it('caps resends of a sign-in code per session and address (5 per 15 minutes)', async () => {
      const acct = await verifiedAccount(t);
      for (let i = 0; i < 5; i++) await t.client.sessionResendCode(acct.sessionToken);
      await expectError(t.client.sessionResendCode(acct.sessionToken), 'THROTTLED');
    });
  });

  describe('sign-in timing', () => {
    let t: TestServer;
    beforeAll(async () => {
      t = await createTestServer({ dialect });
    });
    afterAll(async () => t?.close());

    it('stretches the password for an unknown address as for a wrong password', async () => {
      const acct = await verifiedAccount(t);
      const before = t.app.scrypt.accepted;
      expectError(await login(t, acct.email), 'INCORRECT_PASSWORD');
      expect(t.app.scrypt.accepted - before).toBe(1);
      expectError(await login(t, newEmail('unknown')), 'ACCOUNT_UNKNOWN');
      expect(t.app.scrypt.accepted - before).toBe(2);
    });
  });
});

const redisUrl = process.env.TEST_REDIS_URL;
describe.skipIf(!redisUrl)('rate limiting shared through Redis', () => {
  let a: TestServer;
  let b: TestServer;
  const prefix = `test:rl:${randomBytes(6).toString('hex')}:`;
  beforeAll(async () => {
    const env = { REDIS_URL: redisUrl!, RATE_LIMIT_REDIS_PREFIX: prefix };
    [a, b] = await Promise.all([createTestServer({ env }), createTestServer({ env })]);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('counts one limit across two instances', async () => {
    const email = newEmail('shared');
    // accountLogin : ip_email : 5 per 15 minutes, alternating between the instances.
    for (let i = 0; i < 5; i++) expectError(await login(i % 2 ? a : b, email), 'ACCOUNT_UNKNOWN');
    expectError(await login(a, email), 'REQUEST_BLOCKED');
    expectError(await login(b, email), 'REQUEST_BLOCKED');
    // Another address from the same client is not blocked.
    expectError(await login(b, newEmail('other')), 'ACCOUNT_UNKNOWN');
  });

  it('lifts the block on every instance with an unblock code used on one', async () => {
    const acct = await verifiedAccount(a);
    // b's database does not know the account (102); the attempts count the same.
    for (let i = 0; i < 5; i++) expectError(await login(i % 2 ? b : a, acct.email), i % 2 ? 'ACCOUNT_UNKNOWN' : 'INCORRECT_PASSWORD');
    expectError(await login(b, acct.email), 'REQUEST_BLOCKED');
    const since = a.mail.messages.length;
    await a.accounts.sendUnblockCode(acct.email);
    const code = (await a.mail.waitFor(acct.email, 'unblockCode', since)).code!;
    await a.accounts.signIn(acct.email, acct.password, { unblockCode: code });
    // b shares the block store (its database does not know the account: 102, not 125).
    expectError(await login(b, acct.email), 'ACCOUNT_UNKNOWN');
  });
});

describe('when the rate-limit store is down', () => {
  // Nothing listens on port 1: every Redis command fails.
  const down = { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_REDIS_PREFIX: 'test:rl:down:' };

  it('fails closed by default: rate-limited actions get 503/201 with retryAfter, logged; other routes work', async () => {
    const logLines: string[] = [];
    const t = await createTestServer({ env: down, logLines });
    try {
      const refused = await login(t, newEmail());
      expectError(refused, 'SERVER_BUSY');
      expect(refused.body.retryAfter).toBe(5);
      expect(logLines.some((l) => l.includes('rate-limit store unavailable'))).toBe(true);
      expect(logLines.some((l) => /"level":50/.test(l))).toBe(false);
      const status = await rawRequest(t.url, 'GET', '/.well-known/public-keys');
      expect(status.status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('fails open when configured: the actions run unchecked', async () => {
    const t = await createTestServer({ env: { ...down, RATE_LIMIT_STORE_FAILURE: 'open' } });
    try {
      expectError(await login(t, newEmail()), 'ACCOUNT_UNKNOWN');
    } finally {
      await t.close();
    }
  });
});
