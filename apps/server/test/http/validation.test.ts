import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys } from '@tessera/protocol';
import { createTestServer, newEmail, type TestServer } from '../harness.js';
import { expectError, hex, rawRequest, type RawRequest, type Reply } from '../helpers.js';

// Spec 1 §5 through real HTTP: for every rule the current routes use, the accepted edge (the
// request gets past validation — often to a cheap business answer such as 102 unknown account)
// and the rejected edge (400/107 naming the field and the rule, or 400/108 naming the parameter).

const V1_PREFIX = 'identity.mozilla.com/picl/v1/quickStretch:';
const V2_PREFIX = 'identity.mozilla.com/picl/v1/quickStretchV2:';

describe('request validation (spec 1 §5) over HTTP', () => {
  let t: TestServer;
  /** A session token (data) of an account created in beforeAll; unconfirmed. */
  let session: { token: string; id: string; email: string; authPW: string };

  const send = (method: string, path: string, options: RawRequest = {}): Promise<Reply> => rawRequest(t.url, method, path, options);

  const post = (path: string, body: unknown, query?: Record<string, string>) => send('POST', path, { body, ...(query ? { query } : {}) });
  const bearer = (prefix: string, id: string) => `Bearer ${prefix}${id}`;

  /** 400/107 with `validation: {source, keys: [key], rule, message}` naming the field and the rule. */
  function expectInvalid(r: Reply, key: string, options: { source?: string; rule?: string | RegExp } = {}) {
    expectError(r, 'INVALID_PARAMETER', 400);
    const v = r.body.validation as { source: string; keys: string[]; rule: string; message: string };
    expect(v, r.text).toBeDefined();
    expect(v.source).toBe(options.source ?? 'payload');
    expect(v.keys).toEqual([key]);
    expect(typeof v.rule).toBe('string');
    if (options.rule instanceof RegExp) expect(v.rule).toMatch(options.rule);
    else if (options.rule) expect(v.rule).toBe(options.rule);
    expect(v.message).toContain(key.split('.').pop());
    return v;
  }

  /** 400/108 with `param`. */
  function expectMissing(r: Reply, param: string) {
    expectError(r, 'MISSING_PARAMETER', 400);
    expect(r.body.param).toBe(param);
    expect(r.body.message).toContain(param);
  }

  /** The request got past validation: whatever it answered, it was not 107/108 (nor 106/113/415). */
  function expectPassed(r: Reply, expected?: { status: number; errno?: number }) {
    expect([106, 107, 108, 113], r.text).not.toContain(r.body.errno);
    expect([413, 415], r.text).not.toContain(r.status);
    if (expected) {
      expect(r.status, r.text).toBe(expected.status);
      if (expected.errno !== undefined) expect(r.body.errno, r.text).toBe(expected.errno);
    }
  }

  /** A login for an unknown address: answers 102 before any scrypt once the body is valid. */
  const login = (extra: Record<string, unknown> = {}, query?: Record<string, string>) =>
    post('/account/login', { email: newEmail('nobody'), authPW: hex(64), ...extra }, query);
  const UNKNOWN = { status: 400, errno: 102 };

  const exists = async (email: string) => {
    const r = await post('/account/status', { email });
    expect(r.status, r.text).toBe(200);
    return r.body.exists as boolean;
  };

  /** A confirmed account and session (made once, on first use). */
  let verifiedFixture: Promise<{ email: string; authPW: string; sessionId: string }> | undefined;
  const verified = () => (verifiedFixture ??= (async () => {
    const email = newEmail('verified');
    const authPW = hex(64);
    const since = t.mail.messages.length;
    const created = await t.client.accountCreate({ email, authPW, verificationMethod: 'email-otp' });
    const code = (await t.mail.waitFor(email, 'verifyShortCode', since)).code!;
    await t.client.sessionVerifyCode(created.sessionToken, { code });
    return { email, authPW, sessionId: deriveTokenKeys('sessionToken', created.sessionToken).tokenId };
  })());

  beforeAll(async () => {
    t = await createTestServer();
    // One account (one scrypt) whose unconfirmed session the session routes below are probed with.
    const email = newEmail('probe');
    const authPW = hex(64);
    const created = await t.client.accountCreate({ email, authPW, verificationMethod: 'email-otp' });
    session = { token: created.sessionToken, id: deriveTokenKeys('sessionToken', created.sessionToken).tokenId, email, authPW };
  });
  afterAll(async () => t?.close());

  describe('framework errors', () => {
    it('malformed JSON → 400/106', async () => {
      expectError(await send('POST', '/account/login', { raw: '{"email": "a@b.c", "authPW": ' }), 'INVALID_JSON', 400);
      expectError(await send('POST', '/account/status', { raw: "{'email': 'a@b.c'}" }), 'INVALID_JSON', 400);
    });

    it('a body over BODY_LIMIT_BYTES → 413/113; a body of exactly the limit is read', async () => {
      const limit = t.config.server.bodyLimit;
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
      const origin = `${t.url}/`;
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

  describe('metricsContext', () => {
    const flowId = hex(64);
    const flowBeginTime = Date.now();

    it('flowId and flowBeginTime together are accepted', async () => {
      expectPassed(await login({ metricsContext: { flowId, flowBeginTime } }), UNKNOWN);
      expectPassed(await login({ metricsContext: {} }), UNKNOWN);
    });

    it('flowId without flowBeginTime and vice versa → 107 naming the missing one', async () => {
      const a = expectInvalid(await login({ metricsContext: { flowId } }), 'metricsContext.flowBeginTime', { rule: 'dependentRequired' });
      expect(a.message).toContain('flowId');
      const b = expectInvalid(await login({ metricsContext: { flowBeginTime } }), 'metricsContext.flowId', { rule: 'dependentRequired' });
      expect(b.message).toContain('flowBeginTime');
      expectInvalid(await post('/account/status', { email: newEmail(), metricsContext: { flowId } }), 'metricsContext.flowBeginTime', { rule: 'dependentRequired' });
    });

    it('a sign-up with flowId but no flowBeginTime is rejected and creates nothing', async () => {
      const email = newEmail('halfflow');
      expectInvalid(await post('/account/create', { email, authPW: hex(64), metricsContext: { flowId } }), 'metricsContext.flowBeginTime', { rule: 'dependentRequired' });
      expect(await exists(email)).toBe(false);
    });

    it('flowId is 64 hex; flowBeginTime a positive integer', async () => {
      expectInvalid(await login({ metricsContext: { flowId: hex(63), flowBeginTime } }), 'metricsContext.flowId');
      expectInvalid(await login({ metricsContext: { flowId: hex(65), flowBeginTime } }), 'metricsContext.flowId');
      expectInvalid(await login({ metricsContext: { flowId: `${hex(63)}q`, flowBeginTime } }), 'metricsContext.flowId', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { flowId, flowBeginTime: 0 } }), 'metricsContext.flowBeginTime', { rule: 'minimum' });
      expectInvalid(await login({ metricsContext: { flowId, flowBeginTime: 1.5 } }), 'metricsContext.flowBeginTime', { rule: 'type' });
    });

    it('deviceId is 32 hex', async () => {
      expectPassed(await login({ metricsContext: { deviceId: hex(32) } }), UNKNOWN);
      expectInvalid(await login({ metricsContext: { deviceId: hex(31) } }), 'metricsContext.deviceId');
      expectInvalid(await login({ metricsContext: { deviceId: hex(33) } }), 'metricsContext.deviceId');
      expectInvalid(await login({ metricsContext: { deviceId: `${hex(31)}z` } }), 'metricsContext.deviceId', { rule: 'pattern' });
    });

    it('utm fields: word characters, / . % - (max 128); others rejected', async () => {
      expectPassed(await login({ metricsContext: { utmSource: 'news/2024.05%20-a_b', utmCampaign: 'c'.repeat(128) } }), UNKNOWN);
      expectInvalid(await login({ metricsContext: { utmSource: 'has space' } }), 'metricsContext.utmSource', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { utmTerm: 'a<b' } }), 'metricsContext.utmTerm', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { utmCampaign: 'c'.repeat(129) } }), 'metricsContext.utmCampaign', { rule: 'maxLength' });
    });

    it('entrypoint fields: word characters, . : - (max 128); others rejected', async () => {
      expectPassed(await login({ metricsContext: { entrypoint: 'preferences:sync.menu-1', entrypointExperiment: 'exp_1', entrypointVariation: 'v.2' } }), UNKNOWN);
      expectInvalid(await login({ metricsContext: { entrypoint: 'menu/panel' } }), 'metricsContext.entrypoint', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { entrypointVariation: 'a b' } }), 'metricsContext.entrypointVariation', { rule: 'pattern' });
    });

    it('an unknown metricsContext key is rejected', async () => {
      expectInvalid(await login({ metricsContext: { flowId, flowBeginTime, utm_source: 'x' } }), 'metricsContext.utm_source', { rule: 'additionalProperties' });
    });
  });

  describe('password fields', () => {
    // finish_setup checks its setup token before the password fields' business rules, so a body that
    // passes validation answers 110 (bogus token) without any scrypt.
    const fakeSetupToken = 'eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOiJ4In0.c2lnbmF0dXJl';
    const finishSetup = (extra: Record<string, unknown>) => post('/account/finish_setup', { token: fakeSetupToken, authPW: hex(64), ...extra });

    // The v2 group with a given clientSalt (the fields go together, so each needs the others).
    const v2With = (clientSalt: string) => ({ authPWVersion2: hex(64), wrapKb: hex(64), wrapKbVersion2: hex(64), clientSalt });

    it('clientSalt: only the v2 form (quickStretchV2 prefix + 32 lowercase hex) passes; the v1 prefix and anything else is refused', async () => {
      const bogusToken = { status: 401, errno: 110 };
      expectPassed(await finishSetup(v2With(`${V2_PREFIX}${hex(32)}`)), bogusToken);
      // The server never stretches with a v1 salt the client sends (protocol.md §1.2), so the schema
      // refuses it too instead of letting the request fail later.
      expectInvalid(await finishSetup(v2With(`${V1_PREFIX}someone@example.com`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`identity.mozilla.com/picl/v1/quickStretchV3:${hex(32)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(hex(32))), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`x${V2_PREFIX}${hex(32)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'A'.repeat(32)}`)), 'clientSalt', { rule: 'pattern' });
    });

    it('clientSalt: 31 or 33 hex characters are refused, and so is anything past 128 characters', async () => {
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'a'.repeat(31)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'a'.repeat(33)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'a'.repeat(129 - V2_PREFIX.length)}`)), 'clientSalt', { rule: 'maxLength' });
    });

    it('a v2 sign-up with every field and ?keys=true is accepted and returns both key fetch tokens', async () => {
      const email = newEmail('v2');
      const r = await post('/account/create', {
        email, authPW: hex(64), authPWVersion2: hex(64), wrapKb: hex(64), wrapKbVersion2: hex(64), clientSalt: `${V2_PREFIX}${hex(32)}`,
        verificationMethod: 'email-otp',
      }, { keys: 'true' });
      expect(r.status, r.text).toBe(200);
      expect(r.body.keyFetchToken).toMatch(/^[0-9a-f]{64}$/);
      expect(r.body.keyFetchTokenVersion2).toMatch(/^[0-9a-f]{64}$/);
      expect(await exists(email)).toBe(true);
    });

    it('the version-2 fields go together, with wrapKb: a partial group → 107 naming the first missing field (a schema rule)', async () => {
      const email = newEmail('v2half');
      const r = await post('/account/create', { email, authPW: hex(64), authPWVersion2: hex(64), wrapKb: hex(64) });
      expectError(r, 'INVALID_PARAMETER', 400);
      const v = r.body.validation as { source: string; keys: string[]; rule: string; message: string };
      expect(v).toEqual({ source: 'payload', keys: ['wrapKbVersion2'], rule: 'dependentRequired', message: 'wrapKbVersion2 is required when authPWVersion2 is present' });
      const noWrapKb = await post('/account/create', { email, authPW: hex(64), authPWVersion2: hex(64), wrapKbVersion2: hex(64), clientSalt: `${V2_PREFIX}${hex(32)}` });
      expectError(noWrapKb, 'INVALID_PARAMETER', 400);
      expect((noWrapKb.body.validation as { keys: string[] }).keys).toEqual(['wrapKb']);
      const saltOnly = await post('/account/create', { email, authPW: hex(64), clientSalt: `${V2_PREFIX}${hex(32)}` });
      expectError(saltOnly, 'INVALID_PARAMETER', 400);
      expect((saltOnly.body.validation as { keys: string[] }).keys).toEqual(['authPWVersion2']);
      // The OpenAPI document says the same, so generated clients know the rule.
      const doc = JSON.parse(JSON.stringify((await send('GET', '/openapi.json')).body)) as { paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { dependentRequired?: Record<string, string[]> } } } } } }> };
      expect(doc.paths['/v1/account/create']!.post.requestBody.content['application/json'].schema.dependentRequired?.authPWVersion2).toEqual(['wrapKbVersion2', 'clientSalt', 'wrapKb']);
      // None of these left an account behind.
      expect(await exists(email)).toBe(false);
    });

    it('a rejected sign-up changes nothing', async () => {
      const email = newEmail('rejected');
      expectInvalid(await post('/account/create', { email, authPW: hex(63) }), 'authPW');
      expectInvalid(await post('/account/create', { email, authPW: hex(64), service: 'not_allowed' }), 'service');
      expectMissing(await post('/account/create', { email }), 'authPW');
      expectError(await send('POST', '/account/create', { raw: `{"email":"${email}","authPW":"${hex(64)}"` }), 'INVALID_JSON', 400);
      expect(await exists(email)).toBe(false);
      const byUid = await send('GET', '/account/status', { query: { uid: hex(32) } });
      expect(byUid.body).toEqual({ exists: false });
      // No confirmation mail went out either: MailCapture records a message before it acknowledges
      // it, and the server sends before it replies, so any mail these requests caused is already here.
      expect(t.mail.messages.filter((m) => m.to === email.toLowerCase())).toEqual([]);
    });
  });

  describe('verification codes', () => {
    it('session verify code: 6 to 8 digits pass validation; 5, 9 and non-digits are rejected', async () => {
      const auth = bearer('fxs_', session.id);
      const verify = (code: unknown) => send('POST', '/session/verify_code', { body: { code }, authorization: auth });
      // Wrong codes: past validation, refused by the code check (never 107/108).
      for (const code of ['000000', '0000000', '00000000']) {
        const r = await verify(code);
        expectPassed(r);
        expect(r.status, r.text).toBe(400);
      }
      expectInvalid(await verify('00000'), 'code', { rule: 'pattern' });
      expectInvalid(await verify('000000000'), 'code', { rule: 'pattern' });
      expectInvalid(await verify('12345a'), 'code', { rule: 'pattern' });
      expectInvalid(await verify(123456), 'code', { rule: 'type' });
      expectMissing(await send('POST', '/session/verify_code', { body: {}, authorization: auth }), 'code');
    });

    it('forgot-password code: 8 or 16 digits pass validation; 7, 9, 15, 17 and non-digits are rejected', async () => {
      const { email } = await verified();
      const { passwordForgotToken } = await t.client.passwordForgotSendCode({ email });
      const auth = bearer('fxpf_', deriveTokenKeys('passwordForgotToken', passwordForgotToken).tokenId);
      const verify = (c: unknown) => send('POST', '/password/forgot/verify_code', { body: { code: c }, authorization: auth });

      // Rejected shapes first: they must not spend any of the token's tries.
      for (const bad of ['1234567', '123456789', '123456789012345', '12345678901234567', 'abcdefgh', '1234 678']) {
        expectInvalid(await verify(bad), 'code', { rule: 'pattern' });
      }
      const before = await send('GET', '/password/forgot/status', { authorization: auth });
      expect(before.status, before.text).toBe(200);
      expect(before.body.tries).toBe(t.config.tokens.passwordForgotTries);

      const eight = await verify('00000000');
      expectPassed(eight, { status: 400, errno: 105 });
      const sixteen = await verify('0000000000000000');
      expectPassed(sixteen, { status: 400, errno: 105 });
    });

    it('/password/forgot/verify_otp code: exactly 8 digits', async () => {
      expectPassed(await post('/password/forgot/verify_otp', { email: newEmail(), code: '12345678' }), UNKNOWN);
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '1234567' }), 'code', { rule: 'pattern' });
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '123456789' }), 'code', { rule: 'pattern' });
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '1234567a' }), 'code', { rule: 'pattern' });
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '1234567890123456' }), 'code', { rule: 'pattern' });
      expectMissing(await post('/password/forgot/verify_otp', { email: newEmail() }), 'code');
    });
  });
});
