import { describe, expect, it } from 'vitest';
import { newEmail } from '../harness.js';
import { expectError, hex } from '../helpers.js';
import { validationProbe } from './validation-probe.js';

// Spec 1 §5 through real HTTP: for every rule the current routes use, the accepted edge (the
// request gets past validation — often to a cheap business answer such as 102 unknown account)
// and the rejected edge (400/107 naming the field and the rule, or 400/108 naming the parameter).
// Framework errors, hex lengths, email addresses, login and sign-up fields; the rest is in
// validation-fields.test.ts.

describe('request validation (spec 1 §5) over HTTP', () => {
  const p = validationProbe();
  const { send, post, bearer, expectInvalid, expectMissing, expectPassed, login, UNKNOWN, verified } = p;

  describe('framework errors', () => {
    it('malformed JSON → 400/106', async () => {
      expectError(await send('POST', '/account/login', { raw: '{"email": "a@b.c", "authPW": ' }), 'INVALID_JSON', 400);
      expectError(await send('POST', '/account/status', { raw: "{'email': 'a@b.c'}" }), 'INVALID_JSON', 400);
    });

    it('a body over BODY_LIMIT_BYTES → 413/113; a body of exactly the limit is read', async () => {
      const limit = p.t.config.server.bodyLimit;
      expect(limit).toBe(65536);
      const frame = JSON.stringify({ email: newEmail(), authPW: hex(64), redirectTo: '' });
      const padded = (size: number) => frame.replace('"redirectTo":""', `"redirectTo":"${'a'.repeat(size - frame.length)}"`);
      expect(Buffer.byteLength(padded(limit + 1))).toBe(limit + 1);
      expectError(await send('POST', '/account/login', { raw: padded(limit + 1) }), 'REQUEST_TOO_LARGE', 413);
      // At the limit the body is parsed and validated: redirectTo is then too long (107), not 413.
      expect(Buffer.byteLength(padded(limit))).toBe(limit);
      expectInvalid(await send('POST', '/account/login', { raw: padded(limit) }), 'redirectTo', { rule: 'maxLength' });
    });

    it('an unknown endpoint → 404 JSON with errno 999', async () => {
      const r = await send('GET', '/no/such/route');
      expectError(r, 'ENDPOINT_NOT_FOUND', 404);
      expect(r.body.message).toContain('/v1/no/such/route');
      expectError(await send('POST', '/nope', { body: {} }), 'ENDPOINT_NOT_FOUND', 404);
      // A known path with a method it does not have is 405 with Allow (issue 22; test/http/document-agreement.test.ts).
      const wrongMethod = await send('GET', '/account/login');
      expectError(wrongMethod, 'MALFORMED_REQUEST', 405);
      expect(wrongMethod.headers.get('allow')).toBe('POST');
    });

    it('a non-JSON content type → 415', async () => {
      const body = JSON.stringify({ email: newEmail(), authPW: hex(64) });
      expectError(await send('POST', '/account/login', { raw: body, contentType: 'text/plain' }), 'UNSUPPORTED_MEDIA_TYPE', 415);
      expectError(await send('POST', '/account/login', { raw: 'email=a%40b.c', contentType: 'application/x-www-form-urlencoded' }), 'UNSUPPORTED_MEDIA_TYPE', 415);
      // application/json with parameters is JSON.
      expectPassed(await send('POST', '/account/login', { raw: body, contentType: 'application/json; charset=utf-8' }), UNKNOWN);
    });

    it('an unknown extra field → 107 (additionalProperties), at the top and inside metricsContext', async () => {
      expectInvalid(await login({ isAdmin: true }), 'isAdmin', { rule: 'additionalProperties' });
      expectInvalid(await post('/account/status', { email: newEmail(), extra: 1 }), 'extra', { rule: 'additionalProperties' });
      expectInvalid(await login({ metricsContext: { foo: 'bar' } }), 'metricsContext.foo', { rule: 'additionalProperties' });
    });

    it('a missing required field → 108 with param', async () => {
      expectMissing(await post('/account/login', { email: newEmail() }), 'authPW');
      expectMissing(await post('/account/login', { authPW: hex(64) }), 'email');
      expectMissing(await post('/account/status', {}), 'email');
      expectMissing(await post('/recovery_email/verify_code', { uid: hex(32) }), 'code');
    });

    it('a body that is not a JSON object → 107 on the body; no body is {} (108 for the first required field)', async () => {
      for (const raw of ['["a@b.c"]', 'null', '"a@b.c"']) {
        const r = await send('POST', '/account/login', { raw });
        expectError(r, 'INVALID_PARAMETER', 400);
        expect(r.body.validation).toMatchObject({ source: 'payload', keys: [], rule: 'type' });
      }
      const empty = await send('POST', '/account/login', { raw: '' });
      expectError(empty, 'MISSING_PARAMETER', 400);
      expect(empty.body.param).toBe('email');
      // Routes whose fields are all optional accept a POST without a body.
      const noBody = await send('POST', '/get_random_bytes');
      expect(noBody.status).toBe(200);
    });
  });

  describe('hex lengths', () => {
    it('authPW: 64 hex in either case is accepted; 63, 65 and non-hex are rejected', async () => {
      expectPassed(await login({ authPW: hex(64).toLowerCase() }), UNKNOWN);
      expectPassed(await login({ authPW: hex(64).toUpperCase().replace(/^./, 'A') }), UNKNOWN);
      expectInvalid(await login({ authPW: hex(63) }), 'authPW');
      expectInvalid(await login({ authPW: hex(65) }), 'authPW');
      expectInvalid(await login({ authPW: `${hex(63)}g` }), 'authPW', { rule: 'pattern' });
      expectInvalid(await login({ authPW: 64 }), 'authPW', { rule: 'type' });
    });

    it('uid in GET /account/status?uid=: 32 hex accepted; 31, 33 and non-hex rejected (source query); absent → 108', async () => {
      const ok = await send('GET', '/account/status', { query: { uid: hex(32) } });
      expectPassed(ok, { status: 200 });
      expect(ok.body).toEqual({ exists: false });
      expectPassed(await send('GET', '/account/status', { query: { uid: hex(32).toUpperCase() } }), { status: 200 });
      expectInvalid(await send('GET', '/account/status', { query: { uid: hex(31) } }), 'uid', { source: 'query' });
      expectInvalid(await send('GET', '/account/status', { query: { uid: hex(33) } }), 'uid', { source: 'query' });
      expectInvalid(await send('GET', '/account/status', { query: { uid: `${hex(31)}z` } }), 'uid', { source: 'query', rule: 'pattern' });
      const none = await send('GET', '/account/status');
      expectError(none, 'MISSING_PARAMETER', 400);
      expect(none.body.param).toBe('uid');
    });

    it('code and uid in /recovery_email/verify_code: 32 hex accepted; 31, 33 and non-hex rejected', async () => {
      expectPassed(await post('/recovery_email/verify_code', { uid: hex(32), code: hex(32) }), UNKNOWN);
      expectPassed(await post('/recovery_email/verify_code', { uid: hex(32), code: hex(32).toUpperCase() }), UNKNOWN);
      expectInvalid(await post('/recovery_email/verify_code', { uid: hex(32), code: hex(31) }), 'code');
      expectInvalid(await post('/recovery_email/verify_code', { uid: hex(32), code: hex(33) }), 'code');
      expectInvalid(await post('/recovery_email/verify_code', { uid: hex(32), code: `${hex(31)}x` }), 'code', { rule: 'pattern' });
      expectInvalid(await post('/recovery_email/verify_code', { uid: hex(31), code: hex(32) }), 'uid');
      expectInvalid(await post('/recovery_email/verify_code', { uid: hex(33), code: hex(32) }), 'uid');
    });

    it('customSessionToken on /session/destroy: 64 hex accepted; 63, 65 and non-hex rejected; a rejected request destroys nothing', async () => {
      // A confirmed session: an unconfirmed one may sign out only itself (issue 22, hole 4).
      const auth = bearer('fxs_', (await verified()).sessionId);
      const destroy = (customSessionToken: unknown) => send('POST', '/session/destroy', { body: { customSessionToken }, authorization: auth });
      // 64 hex naming no session of this account: past validation, refused as an unknown session.
      expectPassed(await destroy(hex(64)), { status: 401, errno: 110 });
      expectInvalid(await destroy(hex(63)), 'customSessionToken');
      expectInvalid(await destroy(hex(65)), 'customSessionToken');
      expectInvalid(await destroy(`${hex(63)}g`), 'customSessionToken', { rule: 'pattern' });
      expectInvalid(await send('POST', '/session/destroy', { body: { sessionToken: hex(64) }, authorization: auth }), 'sessionToken', { rule: 'additionalProperties' });
      const status = await send('GET', '/session/status', { authorization: auth });
      expect(status.status, status.text).toBe(200);
    });

    it('oldAuthPW on /password/change/start: 64 hex accepted (then 103); 63, 65 and non-hex rejected', async () => {
      const v = await verified();
      const start = (oldAuthPW: unknown) => send('POST', '/password/change/start', { body: { email: v.email, oldAuthPW }, authorization: bearer('fxs_', v.sessionId) });
      expectPassed(await start(hex(64)), { status: 400, errno: 103 });
      expectInvalid(await start(hex(63)), 'oldAuthPW');
      expectInvalid(await start(hex(65)), 'oldAuthPW');
      expectInvalid(await start(`${hex(63)}g`), 'oldAuthPW', { rule: 'pattern' });
    });
  });

  describe('email', () => {
    const status = (email: string) => post('/account/status', { email });

    it('255 characters accepted, 256 rejected', async () => {
      // A local part is at most 64 characters and a domain label 63, so the longest address is long
      // in its domain.
      const at255 = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`;
      expect(at255).toHaveLength(255);
      const ok = await status(at255);
      expectPassed(ok, { status: 200 });
      expect(ok.body.exists).toBe(false);
      expectPassed(await login({ email: at255 }), UNKNOWN);
      expectInvalid(await status(`a${at255}`), 'email', { rule: 'maxLength' });
      expectInvalid(await login({ email: `a${at255}` }), 'email', { rule: 'maxLength' });
    });

    it('control characters are rejected (C0, DEL, C1)', async () => {
      for (const c of ['\u0000', '\u0007', '\u001f', '\u007f', '\u0085', '\u009f', '\n', '\t']) {
        expectInvalid(await status(`ab${c}c@example.com`), 'email', { rule: 'pattern' });
      }
    });

    it('zero-width and direction-changing characters are rejected', async () => {
      for (const c of ['\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u202a', '\u202e', '\u2066', '\u2069', '\ufeff', '\u00ad']) {
        expectInvalid(await status(`ab${c}c@example.com`), 'email', { rule: 'pattern' });
      }
    });

    it('plain unicode is accepted', async () => {
      for (const email of ['andré@example.org', 'jürgen@bücher.de', 'δοκιμή@παράδειγμα.ελ', '用户@例子.中国']) {
        const r = await status(email);
        expectPassed(r, { status: 200 });
        expect(r.body.exists).toBe(false);
      }
      expectPassed(await login({ email: 'andré@example.org' }), UNKNOWN);
    });

    it('the other email fields follow the same rule (originalLoginEmail)', async () => {
      expectPassed(await login({ originalLoginEmail: 'andré@example.org' }), UNKNOWN);
      expectInvalid(await login({ originalLoginEmail: 'a\u0000b@example.org' }), 'originalLoginEmail', { rule: 'pattern' });
    });
  });

  describe('login and sign-up fields', () => {
    it('service: 16 letters/digits/hyphens accepted; 17 or an underscore rejected (body and query)', async () => {
      const s16 = 'sync-Service-123';
      expect(s16).toHaveLength(16);
      expectPassed(await login({ service: s16 }), UNKNOWN);
      expectPassed(await login({}, { service: s16 }), UNKNOWN);
      expectInvalid(await login({ service: `${s16}x` }), 'service', { rule: 'maxLength' });
      expectInvalid(await login({ service: 'sync_service' }), 'service', { rule: 'pattern' });
      expectInvalid(await login({ service: 'sync service' }), 'service', { rule: 'pattern' });
      expectInvalid(await login({}, { service: `${s16}x` }), 'service', { source: 'query', rule: 'maxLength' });
      expectInvalid(await login({}, { service: 'a_b' }), 'service', { source: 'query', rule: 'pattern' });
    });

    it('redirectTo and resume: 2048 accepted, 2049 rejected', async () => {
      // On the server's own origin: another one is refused whatever its length (issue 22).
      const origin = `${p.t.url}/`;
      const at2048 = `${origin}${'r'.repeat(2048 - origin.length)}`;
      expect(at2048).toHaveLength(2048);
      expectPassed(await login({ redirectTo: at2048 }), UNKNOWN);
      expectInvalid(await login({ redirectTo: `${at2048}x` }), 'redirectTo', { rule: 'maxLength' });
      expectPassed(await login({ resume: 'x'.repeat(2048) }), UNKNOWN);
      expectInvalid(await login({ resume: 'x'.repeat(2049) }), 'resume', { rule: 'maxLength' });
      expectPassed(await post('/password/forgot/send_code', { email: newEmail(), redirectTo: at2048, resume: 'x'.repeat(2048) }), UNKNOWN);
      expectInvalid(await post('/password/forgot/send_code', { email: newEmail(), redirectTo: `${at2048}x` }), 'redirectTo', { rule: 'maxLength' });
    });

    it('reason (login): 16 accepted, 17 rejected', async () => {
      expectPassed(await login({ reason: 'r'.repeat(16) }), UNKNOWN);
      expectInvalid(await login({ reason: 'r'.repeat(17) }), 'reason', { rule: 'maxLength' });
    });

    it('unblockCode: 8 alphanumerics accepted; 7, 9 and punctuation rejected', async () => {
      expectPassed(await login({ unblockCode: 'aB3dE5g7' }), UNKNOWN);
      expectPassed(await login({ unblockCode: '12345678' }), UNKNOWN);
      expectInvalid(await login({ unblockCode: 'aB3dE5g' }), 'unblockCode');
      expectInvalid(await login({ unblockCode: 'aB3dE5g78' }), 'unblockCode');
      expectInvalid(await login({ unblockCode: 'aB3d-5g7' }), 'unblockCode', { rule: 'pattern' });
    });

    it('verificationMethod: each of the five values accepted (body and query); anything else rejected', async () => {
      for (const m of ['email', 'email-otp', 'email-2fa', 'email-captcha', 'totp-2fa']) {
        expectPassed(await login({ verificationMethod: m }), UNKNOWN);
        expectPassed(await login({}, { verificationMethod: m }), UNKNOWN);
      }
      // The rule is an enumeration (TypeBox compiles it to a union of constants).
      const rule = /^(enum|anyOf|const)$/;
      expectInvalid(await login({ verificationMethod: 'sms' }), 'verificationMethod', { rule });
      expectInvalid(await login({ verificationMethod: 'EMAIL' }), 'verificationMethod', { rule });
      expectInvalid(await login({}, { verificationMethod: 'push' }), 'verificationMethod', { source: 'query', rule });
      // Sign-up shares the rule.
      expectInvalid(await post('/account/create', { email: newEmail(), authPW: hex(64), verificationMethod: 'sms' }), 'verificationMethod', { rule });
    });

    it('keys query: true/false coerced from text; anything else → 107 with source query', async () => {
      expectPassed(await login({}, { keys: 'true' }), UNKNOWN);
      expectPassed(await login({}, { keys: 'false' }), UNKNOWN);
      expectInvalid(await login({}, { keys: 'maybe' }), 'keys', { source: 'query', rule: 'type' });
      expectInvalid(await post('/account/create', { email: newEmail(), authPW: hex(64) }, { keys: 'yes please' }), 'keys', { source: 'query', rule: 'type' });
    });
  });
});
