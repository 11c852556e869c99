import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../src/storage/db.js';
import { DELIVERY_HEADER } from '../../src/senders/webhook/index.js';
import { freshDatabase } from '../harness.js';
import { storageDialects } from '../storage/fixtures.js';
import { freePort } from '../helpers.js';

// kill -9 between commit and delivery (issue 23): the real server files a support ticket (the
// ticket and its webhook delivery commit in one transaction) and starts delivering it; the
// helpdesk holds that request, and the server is killed there. Started again on the same
// database, the server delivers the ticket: once, with the same delivery id, and marks it forwarded.

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A helpdesk that holds every request while `holding`, and accepts (200) them otherwise. */
function helpdesk() {
  const state = { holding: true, held: [] as string[], accepted: [] as string[] };
  const waiters: (() => void)[] = [];
  const server = createHttpServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers[DELIVERY_HEADER]);
      if (state.holding) {
        state.held.push(id);
      } else {
        state.accepted.push(id);
        res.writeHead(200).end('{}');
      }
      for (const w of waiters.splice(0)) w();
    });
  });
  const until = async (done: () => boolean, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!done()) {
      if (Date.now() > end) throw new Error('the helpdesk waited in vain');
      await new Promise<void>((resolve) => { waiters.push(resolve); setTimeout(resolve, 200); });
    }
  };
  return {
    state, until,
    start: () => new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}/hook`))),
    stop: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

function startServer(env: Record<string, string>): { child: ChildProcess; ready: Promise<void>; exited: Promise<unknown> } {
  const child = spawn(process.execPath, [MAIN], { env });
  let out = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${out}`)), 90_000);
    const add = (d: Buffer) => {
      out += String(d);
      if (/Tessera is running/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
  });
  return { child, ready, exited: new Promise((resolve) => child.on('exit', resolve)) };
}

describe.each(storageDialects)('a job across kill -9 (%s)', (dialect) => {
  it('is delivered once after the restart, with the same delivery id', { timeout: 240_000 }, async () => {
    const database = await freshDatabase(dialect);
    const hook = helpdesk();
    const hookUrl = await hook.start();
    const dataDir = mkdtempSync(join(tmpdir(), 'tessera-kill-'));
    dirs.push(dataDir);
    const port = await freePort();
    const env = {
      PATH: process.env.PATH ?? '', HOME: dataDir, PORT: String(port), DATA_DIR: dataDir, PORTAL_DIR: '/nonexistent', DATABASE_URL: database.url,
      SCRYPT_WORKERS: '1', LOG_FORMAT: 'json', NO_UPDATE_NOTIFIER: '1',
      SUPPORT_WEBHOOK_URL: hookUrl, SUPPORT_WEBHOOK_SECRET: 'kill-test-webhook-secret-0123456789', SUPPORT_SECRET: 'kill-test-support-secret-0123456789',
      // An attempt holds its delivery for twice this (2 s): the restarted server takes it up after.
      WEBHOOK_TIMEOUT_MS: '1000', JOBS_SWEEP_SECONDS: '1',
    };
    try {
      const first = startServer(env);
      await first.ready;
      const filed = fetch(`http://127.0.0.1:${port}/v1/support/ticket`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'tessera-support-secret': env.SUPPORT_SECRET },
        body: JSON.stringify({ productName: 'Tessera', topic: 'kill', message: 'killed mid-delivery', email: 'killed@example.com' }),
      }).catch(() => null);
      // Committed, and the delivery is on its way: kill the server before the helpdesk answers.
      await hook.until(() => hook.state.held.length === 1);
      first.child.kill('SIGKILL');
      await first.exited;
      expect(await filed).toBeNull();
      const delivery = hook.state.held[0]!;

      hook.state.holding = false;
      const second = startServer(env);
      await second.ready;
      await hook.until(() => hook.state.accepted.length === 1);
      // Long enough for a second attempt (lease, sweep) to have come, had one been made.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      expect(hook.state.accepted).toEqual([delivery]);
      second.child.kill('SIGTERM');
      await second.exited;

      const storage = openStorage(database.url, { poolSize: 1 });
      try {
        expect(await storage.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
        expect(await storage.db.selectFrom('support_tickets').select(['email', 'status']).execute()).toEqual([{ email: 'killed@example.com', status: 'forwarded' }]);
      } finally {
        await storage.destroy();
      }
    } finally {
      await hook.stop();
      await database.drop();
    }
  });
});
