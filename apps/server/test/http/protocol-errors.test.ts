import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, type TestServer } from '../harness.js';

// Issue 9, hole 5: nothing a client sends makes the server answer 5xx or log an error. Faults of
// the request itself (before or after routing) answer 4xx in the catalogue's shape, logged at info.

/** Sends raw bytes and reads the whole answer (the server closes after a protocol error). */
function rawExchange(port: number, bytes: Buffer | string, opts: { endAfterWrite?: boolean; destroyAfterMs?: number } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', (e) => ((e as NodeJS.ErrnoException).code === 'ECONNRESET' ? resolve(Buffer.concat(chunks).toString('latin1')) : reject(e)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(bytes);
    if (opts.destroyAfterMs !== undefined) setTimeout(() => socket.destroy(), opts.destroyAfterMs);
    const timer = setTimeout(() => socket.destroy(), 5000);
    socket.on('close', () => clearTimeout(timer));
  });
}

function parse(answer: string): { status: number; body: Record<string, unknown> } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const text = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return { status, body: JSON.parse(text) as Record<string, unknown> };
}

describe('protocol-level faults answer 4xx in the catalogue shape', () => {
  let t: TestServer;
  let port: number;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await createTestServer({ logLines: lines });
    port = Number(new URL(t.url).port);
  });
  afterAll(async () => t?.close());

  const errorLines = () => lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level >= 50);

  it('a header section over the limit → 431 MALFORMED_REQUEST', async () => {
    const r = parse(await rawExchange(port, `GET /v1/account/status HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(r.status).toBe(431);
    expect(r.body).toMatchObject({ code: 431, errno: 999, error: 'Request Header Fields Too Large' });
    const q = new URLSearchParams(Array.from({ length: 10_000 }, (_, i) => [`a${i}`, '1'])).toString();
    expect(parse(await rawExchange(port, `GET /v1/account/status?${q} HTTP/1.1\r\nHost: x\r\n\r\n`)).status).toBe(431);
  });

  it('a raw 0xFF in the request line and Content-Length with Transfer-Encoding → 400', async () => {
    const ff = parse(await rawExchange(port, Buffer.concat([Buffer.from('GET /v1/'), Buffer.from([0xff]), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')])));
    expect(ff).toMatchObject({ status: 400, body: { code: 400, errno: 999 } });
    const smuggle = parse(await rawExchange(port, 'POST /v1/account/status HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'));
    expect(smuggle).toMatchObject({ status: 400, body: { code: 400, errno: 999 } });
  });

  it('a URL escape that does not decode → 400 in the catalogue shape, not the framework\'s', async () => {
    const r = await fetch(`${t.url}/v1/%zz`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 400, errno: 999, error: 'Bad Request', info: expect.stringContaining('#errno-999') });
  });

  it('QUERY without a Content-Type, on known and unknown paths → 4xx, never 500', async () => {
    for (const path of ['/v1/account/status', '/v1/no/such/route']) {
      const r = await fetch(`${t.url}${path}`, { method: 'QUERY' });
      expect(r.status, path).toBeGreaterThanOrEqual(400);
      expect(r.status, path).toBeLessThan(500);
      expect(await r.json()).toMatchObject({ errno: 999 });
    }
  });

  it('a client that leaves mid-body leaves no error in the log', async () => {
    await rawExchange(port, 'POST /v1/account/status HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":', { destroyAfterMs: 100 });
    await new Promise((r) => setTimeout(r, 300));
    expect(errorLines()).toEqual([]);
  });

  it('none of the above logged at error level', () => {
    expect(errorLines()).toEqual([]);
  });
});
