import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stretchV1 } from '@tessera/protocol';
import { createTestServer, newEmail, verifiedAccount, type TestServer } from '../harness.js';
import { expectError, rawRequest } from '../helpers.js';

// Bodies of arbitrary shape, read field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = Record<string, any>;

async function raw(t: TestServer, path: string, init: RequestInit = {}) {
  const headers = (init.headers ?? {}) as Record<string, string>;
  const r = await rawRequest(t.url, init.method ?? 'GET', path, {
    ...(init.body !== undefined ? { raw: String(init.body), contentType: headers['content-type'] } : {}),
    ...(headers.authorization ? { authorization: headers.authorization } : {}),
  });
  return { status: r.status, headers: r.headers, text: r.text, json: r.body as Loose };
}

describe('errors at the edges of the HTTP layer', () => {
  let t: TestServer;
  beforeAll(async () => {
    // The flood comes from one address; rate limiting would turn it away before the pool sees it.
    t = await createTestServer({ env: { SCRYPT_WORKERS: '1', SCRYPT_MAX_PENDING: '1', RATE_LIMIT_IGNORE_IPS: '127.0.0.1' } });
  });
  afterAll(async () => t?.close());

  it('answers an oversized body with 413/113', async () => {
    const r = await raw(t, '/v1/account/status', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'a'.repeat(70_000) }) });
    expect(r.status).toBe(413);
    expect(r.json).toMatchObject({ code: 413, errno: 113, error: 'Request Entity Too Large' });
  });

  it('answers a body that is not JSON with 415 and malformed JSON with 400/106', async () => {
    const a = await raw(t, '/v1/account/status', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(a.status).toBe(415);
    expect(a.json).toMatchObject({ errno: 999, code: 415 });
    const b = await raw(t, '/v1/account/status', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email": ' });
    expect(b.json).toMatchObject({ code: 400, errno: 106 });
  });

  it('answers unknown endpoints with a 404 JSON body', async () => {
    const r = await raw(t, '/v1/no/such/route');
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.json).toMatchObject({ code: 404, errno: 999, error: 'Not Found', message: 'Unknown endpoint: GET /v1/no/such/route' });
    expect(r.json.info).toMatch(/\/ecosystem-platform\/reference\/errors#errno-999$/);
  });

  it('sheds a login flood with 503/201, retryAfter and Retry-After instead of queueing', async () => {
    const email = newEmail();
    const creds = await stretchV1(email, 'flood password');
    await t.client.accountCreate({ email, authPW: creds.authPW });
    const impatient = t.newClient('bearer', { busyRetries: 0 });
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => impatient.accountLogin({ email, authPW: creds.authPW })));
    const busy = attempts.filter((a) => a.status === 'rejected').map((a) => (a as PromiseRejectedResult).reason);
    expect(busy.length).toBeGreaterThan(0);
    for (const err of busy) {
      expect(err.errorName).toBe('SERVER_BUSY');
      expect(err.code).toBe(503);
      expect(err.body.retryAfter).toBeGreaterThanOrEqual(1);
    }
    expect(attempts.some((a) => a.status === 'fulfilled')).toBe(true);
    // The header carries the same number of seconds.
    const flood = await Promise.all(Array.from({ length: 6 }, () => raw(t, '/v1/account/login', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, authPW: creds.authPW }),
    })));
    const shed = flood.find((r) => r.status === 503);
    expect(shed).toBeDefined();
    expect(shed!.headers.get('retry-after')).toBe(String(shed!.json.retryAfter));
    // The SDK waits retryAfter and tries again by itself.
    const patient = await Promise.all(Array.from({ length: 3 }, () => t.client.accountLogin({ email, authPW: creds.authPW })));
    expect(patient.every((p) => p.uid)).toBe(true);
  });

  it('answers an unexpected failure with 500, a request id, and no internals', async () => {
    const acct = await verifiedAccount(t);
    const broken = await createTestServer();
    try {
      await verifiedAccount(broken);
      await broken.storage.db.schema.dropTable('session_tokens').execute();
      const r = await raw(broken, '/v1/session/status', { headers: { authorization: `Bearer fxs_${'a'.repeat(64)}` } });
      expect(r.status).toBe(500);
      expect(r.json).toMatchObject({ code: 500, errno: 999, error: 'Internal Server Error', message: 'Unspecified error' });
      expect(r.json.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.text).not.toMatch(/session_tokens|select|sqlite|at .*\.js/i);
    } finally {
      await broken.close();
    }
    expect((await t.client.sessionStatus(acct.sessionToken)).state).toBe('verified');
  });

  it('serves the OpenAPI document it generates, identical to the committed openapi.json', async () => {
    const served = await raw(t, '/v1/openapi.json');
    const committed = JSON.parse(readFileSync(new URL('../../../../openapi.json', import.meta.url), 'utf8'));
    expect(served.json).toEqual(committed);
    const login = served.json.paths['/v1/account/login'].post;
    expect(login.security).toEqual([]);
    const status = served.json.paths['/v1/session/status'].get;
    expect(status.security).toEqual([{ sessionTokenBearer: [] }, { sessionTokenHawk: [] }]);
    expect(served.json.components.securitySchemes.sessionTokenHawk).toMatchObject({ type: 'http', scheme: 'Hawk' });
    expect(served.json.paths['/v1/account/status'].get.security).toContainEqual({});
  });

  it('refuses sessions of deleted accounts', async () => {
    const acct = await verifiedAccount(t);
    await t.storage.db.deleteFrom('accounts').where('uid', '=', acct.uid).execute();
    await expectError(t.client.sessionStatus(acct.sessionToken), 'INVALID_TOKEN', 401);
  });
});
