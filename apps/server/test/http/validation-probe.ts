import { afterAll, beforeAll, expect } from 'vitest';
import { deriveTokenKeys } from '@tessera/protocol';
import { createTestServer, newEmail, type TestServer } from '../harness.js';
import { expectError, hex, rawRequest, type RawRequest, type Reply } from '../helpers.js';

// The request-validation suites' server and probes (validation.test.ts, validation-fields.test.ts):
// a reply that passed validation, one refused as 400/107 naming the field and the rule, one refused
// as 400/108 naming the missing parameter.

export const V1_PREFIX = 'identity.mozilla.com/picl/v1/quickStretch:';
export const V2_PREFIX = 'identity.mozilla.com/picl/v1/quickStretchV2:';

/** Starts a server for the calling suite (beforeAll/afterAll) and returns the probes; `t` and `session` are read inside tests. */
export function validationProbe() {
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

  return {
    get t() { return t; },
    get session() { return session; },
    send, post, bearer, expectInvalid, expectMissing, expectPassed, login, UNKNOWN, exists, verified,
  };
}
