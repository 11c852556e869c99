import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { deriveTokenKeys, hawkHeader } from '@tessera/protocol';
import { AUTH_ERRORS, type AuthErrorName } from '@tessera/errors';
import { createTestServer, httpDialects, newEmail, type TestServer } from '../harness.js';

// Issue 9, hole 7: one token holder could flush the Hawk nonce cache (100k nonces signed with its
// own token pushed out the nonces of others, so a replay passed). Nonces are now kept until their
// request's timestamp leaves the skew window, or refused when they cannot be (503/201); one token
// may only use so many (429/114); long nonces are refused (401/115). In process and in Redis.
// Floods go through inject (no sockets): they are about the nonce store, not HTTP.

interface Answer {
  status: number;
  errno: number | undefined;
  retryAfter: number | undefined;
  header: string | undefined;
}

async function statusWith(t: TestServer, authorization: string): Promise<Answer> {
  const res = await t.app.server.inject({ method: 'GET', url: '/v1/session/status', headers: { authorization } });
  const body = res.statusCode === 200 ? {} : (res.json() as { errno?: number; retryAfter?: number });
  return { status: res.statusCode, errno: body.errno, retryAfter: body.retryAfter, header: res.headers['retry-after'] as string | undefined };
}

/** A Hawk header for GET /v1/session/status with a session token, as a client signs it. */
function signer(t: TestServer, sessionToken: string) {
  const keys = deriveTokenKeys('sessionToken', sessionToken);
  const url = new URL('/v1/session/status', t.url);
  return (nonce?: string) => hawkHeader({ method: 'GET', url, credentials: { id: keys.tokenId, key: keys.authKey }, ...(nonce ? { nonce } : {}) });
}

function expectRefusal(a: Answer, name: AuthErrorName) {
  expect(a.status).toBe(AUTH_ERRORS[name].status);
  expect(a.errno).toBe(AUTH_ERRORS[name].errno);
}

/** Signs up (no confirmation needed for /session/status) and returns a signer for the session. */
async function session(t: TestServer) {
  const { sessionToken } = await t.accounts.signUp(newEmail('nonce'), 'nonce cache password');
  return signer(t, sessionToken);
}

describe.each(httpDialects())('the Hawk nonce cache in process (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { HAWK_NONCE_CACHE_SIZE: '1000', HAWK_NONCES_PER_TOKEN: '1000000' } });
  });
  afterAll(async () => t?.close());

  it('cannot be flushed: after a flood of the attacker\'s own nonces, a replay of another request is still refused', async () => {
    const victim = await session(t);
    const attacker = await session(t);
    const observed = victim();
    expect((await statusWith(t, observed)).status).toBe(200);
    const seen = new Map<number, number>();
    let busy: Answer | undefined;
    for (let i = 0; i < 1500; i++) {
      const a = await statusWith(t, attacker());
      seen.set(a.status, (seen.get(a.status) ?? 0) + 1);
      if (a.status !== 200) busy ??= a;
    }
    expectRefusal(await statusWith(t, observed), 'INVALID_NONCE');
    // The cache filled up and refused new nonces (fail closed) instead of forgetting old ones.
    expect(seen.get(200)).toBeLessThan(1000);
    expect(busy).toBeDefined();
    expectRefusal(busy!, 'SERVER_BUSY');
    expect(busy!.retryAfter).toBeGreaterThanOrEqual(1);
    expect(busy!.header).toBe(String(busy!.retryAfter));
    expect([...seen.keys()].sort()).toEqual([200, 503]);
  });
});

describe('Hawk nonce limits in process', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ env: { HAWK_NONCES_PER_TOKEN: '20' } });
  });
  afterAll(async () => t?.close());

  it('refuses nonces beyond the per-token quota with 429/114 and retryAfter; other tokens go on', async () => {
    const greedy = await session(t);
    const other = await session(t);
    // The quota holds per slice of 9 s of timestamps; the 20 requests below take well under that,
    // but may straddle one boundary, so the first refusal comes within 40 requests.
    let first: Answer | undefined;
    let accepted = 0;
    for (let i = 0; i < 40 && !first; i++) {
      const a = await statusWith(t, greedy());
      if (a.status === 200) accepted++;
      else first = a;
    }
    expect(first).toBeDefined();
    expect(accepted).toBeGreaterThanOrEqual(20);
    expectRefusal(first!, 'THROTTLED');
    expect(first!.retryAfter).toBeGreaterThanOrEqual(1);
    expect(first!.retryAfter).toBeLessThanOrEqual(9);
    expect(first!.header).toBe(String(first!.retryAfter));
    expect((await statusWith(t, other())).status).toBe(200);
  });

  it('refuses a nonce longer than 64 characters with 401/115', async () => {
    const sign = await session(t);
    expectRefusal(await statusWith(t, sign('n'.repeat(65))), 'INVALID_NONCE');
    expectRefusal(await statusWith(t, sign('x'.repeat(1000))), 'INVALID_NONCE');
    expect((await statusWith(t, sign('n'.repeat(64)))).status).toBe(200);
  });

  it('declares 503/201 and 429/114 on the routes that take Hawk', async () => {
    const doc = (await t.app.server.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as {
      paths: Record<string, Record<string, { 'x-errors'?: { status: number; errno: number }[] }>>;
    };
    const errors = (path: string, method: string) => (doc.paths[path]![method]!['x-errors'] ?? []).map((e) => `${e.status}/${e.errno}`);
    for (const [path, method] of [['/v1/session/status', 'get'], ['/v1/account/keys', 'get'], ['/v1/account/status', 'get']] as const) {
      expect(errors(path, method)).toEqual(expect.arrayContaining(['503/201', '429/114', '401/115']));
    }
  });
});

describe.runIf(process.env.TEST_REDIS_URL)('the Hawk nonce store in Redis', () => {
  const url = process.env.TEST_REDIS_URL!;
  let t: TestServer;
  let redis: Redis;
  beforeAll(async () => {
    t = await createTestServer({ env: { REDIS_URL: url, HAWK_NONCES_PER_TOKEN: '20' } });
    redis = new Redis(url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    redis?.disconnect();
    await t?.close();
  });

  it('keeps a nonce exactly until its request\'s timestamp leaves the window, and refuses its replay', async () => {
    const sign = await session(t);
    const nonce = `n${Date.now().toString(36)}`;
    const header = sign(nonce);
    const ts = Number(/ts="(\d+)"/.exec(header)![1]);
    expect((await statusWith(t, header)).status).toBe(200);
    const keys = await redis.keys(`tessera:hawk-nonce:*:n:${nonce}`);
    expect(keys).toHaveLength(1);
    const ttl = await redis.pttl(keys[0]!);
    const expected = (ts + t.config.server.hawkSkewSeconds + 1) * 1000 - Date.now();
    expect(ttl).toBeGreaterThan(expected - 2000);
    expect(ttl).toBeLessThanOrEqual(expected + 1000);
    expectRefusal(await statusWith(t, header), 'INVALID_NONCE');
  });

  it('refuses nonces beyond the per-token quota with 429/114 and keeps refusing replays', async () => {
    const greedy = await session(t);
    const first = greedy();
    expect((await statusWith(t, first)).status).toBe(200);
    let refusal: Answer | undefined;
    for (let i = 0; i < 40 && !refusal; i++) {
      const a = await statusWith(t, greedy());
      if (a.status !== 200) refusal = a;
    }
    expect(refusal).toBeDefined();
    expectRefusal(refusal!, 'THROTTLED');
    expect(refusal!.retryAfter).toBeGreaterThanOrEqual(1);
    expectRefusal(await statusWith(t, first), 'INVALID_NONCE');
    expect((await statusWith(t, (await session(t))())).status).toBe(200);
  });

  it('refuses a nonce longer than 64 characters with 401/115', async () => {
    const sign = await session(t);
    expectRefusal(await statusWith(t, sign('n'.repeat(65))), 'INVALID_NONCE');
  });
});

describe('the Hawk nonce store when Redis is unreachable', () => {
  it('refuses Hawk requests with 503/201 (fail closed), never 500 and never unchecked', async () => {
    // Nothing listens on port 1. Rate limiting is off so that only the nonce store meets Redis.
    const t = await createTestServer({ env: { REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_ENABLED: 'false' } });
    try {
      const sign = await session(t);
      const a = await statusWith(t, sign());
      expectRefusal(a, 'SERVER_BUSY');
      expect(a.retryAfter).toBeGreaterThanOrEqual(1);
    } finally {
      await t.close();
    }
  });
});
