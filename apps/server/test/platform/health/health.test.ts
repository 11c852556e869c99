import { connect } from 'node:net';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../../harness.js';

const serverVersion = (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

describe('the API index and the health endpoints', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /v1 and /v1/ say what the API is and link to documents that exist', async () => {
    for (const path of ['/v1', '/v1/']) {
      const res = await fetch(`${t.url}${path}`);
      expect(res.status).toBe(200);
      const body = await res.json() as { name: string; version: string; links: Record<string, string> };
      expect(body).toMatchObject({ name: 'Tessera account API', version: serverVersion });
      // The test server serves no portal: its links are left out rather than pointing at a 404.
      expect(body.links.portal).toBeUndefined();
      for (const link of [body.links.openapi!, body.links.heartbeat!, body.links.version!]) {
        expect((await fetch(link.replace(t.config.server.publicUrl, t.url))).status).toBe(200);
      }
    }
  });

  it('/__lbheartbeat__ answers 200 without consulting anything; /__version__ names the code', async () => {
    const lb = await fetch(`${t.url}/__lbheartbeat__`);
    expect(lb.status).toBe(200);
    expect(await lb.json()).toEqual({});
    const version = await (await fetch(`${t.url}/__version__`)).json() as { name: string; version: string; commit?: string; from: string };
    expect(version).toMatchObject({ name: 'tessera', version: serverVersion, from: 'package.json' });
    if (version.commit !== undefined) expect(version.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('/__heartbeat__ checks the database: 200 while it answers, 503 naming the failed check when it is gone', async () => {
    const ok = await fetch(`${t.url}/__heartbeat__`);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    expect(await ok.json()).toMatchObject({ status: 'ok', checks: { database: { status: 'ok' } } });
    // The test's own database handle, closed under the running server.
    await t.storage.destroy();
    const down = await fetch(`${t.url}/__heartbeat__`);
    expect(down.status).toBe(503);
    expect(await down.json()).toMatchObject({ status: 'error', checks: { database: { status: 'error' } } });
    // The load balancer's liveness check does not follow the database down.
    expect((await fetch(`${t.url}/__lbheartbeat__`)).status).toBe(200);
  });
});

describe.skipIf(!process.env.TEST_REDIS_URL)('the heartbeat with Redis configured', () => {
  it('checks Redis too', async () => {
    const t = await createTestServer({ env: { REDIS_URL: process.env.TEST_REDIS_URL! } });
    try {
      const res = await fetch(`${t.url}/__heartbeat__`);
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'ok', checks: { database: { status: 'ok' }, redis: { status: 'ok' } } });
    } finally {
      await t.close();
    }
  });
});

describe('a server shutting down', () => {
  it('answers a request that arrives on an open connection with the catalogue\'s 503/201 and retryAfter', async () => {
    const t = await createTestServer();
    const port = Number(new URL(t.url).port);
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => { received += String(d); });
    await new Promise((resolve) => socket.once('connect', resolve));
    // A request whose body is still arriving keeps the connection busy while close() begins.
    const body = JSON.stringify({});
    socket.write(`POST /v1/get_random_bytes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = t.close();
    expect(t.app.closing).toBe(true);
    // The body ends, and a second request follows on the same connection.
    socket.write(`${body}GET /v1/ HTTP/1.1\r\nHost: x\r\n\r\n`);
    await new Promise((resolve) => socket.once('close', resolve));
    await closed;
    const responses = received.split(/(?=HTTP\/1\.1 )/);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    expect(responses[1]).toMatch(/^HTTP\/1\.1 503/);
    expect(responses[1]).toMatch(/retry-after: 5/i);
    const error = JSON.parse(responses[1]!.slice(responses[1]!.indexOf('\r\n\r\n') + 4)) as Record<string, unknown>;
    expect(error).toMatchObject({ code: 503, errno: 201, retryAfter: 5 });
  });
});
