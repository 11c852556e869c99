import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers.js';

// The server as a process: how it stops (once, twice, from `npm start`) and what it does when
// stdout's reader goes away.

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const MAIN = join(ROOT, 'apps/server/dist/main.js');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

async function environment(extra: Record<string, string> = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'tessera-shutdown-'));
  dirs.push(dataDir);
  const port = await freePort();
  const mark = randomUUID();
  return {
    port, mark,
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dataDir, PORT: String(port), DATA_DIR: dataDir, PORTAL_DIR: '/nonexistent',
      SCRYPT_WORKERS: '1', LOG_FORMAT: 'json', NO_UPDATE_NOTIFIER: '1', TESSERA_TEST_MARK: mark, ...extra,
    },
  };
}

/** Collects a child's output; `waitFor` resolves when a pattern has appeared. */
function watch(child: ChildProcess) {
  let out = '';
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  const add = (d: Buffer) => {
    out += String(d);
    for (const w of waiters.splice(0)) if (w.pattern.test(out)) w.resolve(); else waiters.push(w);
  };
  child.stdout?.on('data', add);
  child.stderr?.on('data', add);
  return {
    get output() { return out; },
    waitFor: (pattern: RegExp, ms = 90_000) => new Promise<void>((resolve, reject) => {
      if (pattern.test(out)) return resolve();
      const timer = setTimeout(() => reject(new Error(`no ${pattern} within ${ms} ms; output:\n${out}`)), ms);
      waiters.push({ pattern, resolve: () => { clearTimeout(timer); resolve(); } });
    }),
    exited: new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal }))),
  };
}

/** Processes whose environment carries the mark (Linux /proc). */
function marked(mark: string): number[] {
  return readdirSync('/proc').filter((p) => /^\d+$/.test(p)).filter((p) => {
    try {
      return readFileSync(`/proc/${p}/environ`, 'utf8').includes(`TESSERA_TEST_MARK=${mark}`);
    } catch {
      return false;
    }
  }).map(Number);
}

/** A request whose body never finishes arriving: the server waits for it. */
function slowRequest(port: number) {
  const socket = connect(port, '127.0.0.1', () => {
    socket.write('POST /v1/get_random_bytes HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
  });
  socket.on('error', () => undefined);
  return socket;
}

describe('stopping the server', { timeout: 180_000 }, () => {
  it('a second Ctrl-C during a slow request exits at once with 130, after saying what it waits for', async () => {
    const { port, env } = await environment();
    const child = spawn(process.execPath, [MAIN], { env });
    const w = watch(child);
    await w.waitFor(/Tessera is running/);
    const socket = slowRequest(port);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGINT');
    await w.waitFor(/waiting for 1 request in progress to finish \(at most 10 s\)/);
    const before = Date.now();
    child.kill('SIGINT');
    const { code } = await w.exited;
    expect(code).toBe(130);
    expect(Date.now() - before).toBeLessThan(5000);
    expect(w.output).toMatch(/SIGINT again: exiting now/);
    socket.destroy();
  });

  it('SHUTDOWN_TIMEOUT_SECONDS bounds the wait for a request that never ends (status 1)', async () => {
    const { port, env } = await environment({ SHUTDOWN_TIMEOUT_SECONDS: '1' });
    const child = spawn(process.execPath, [MAIN], { env });
    const w = watch(child);
    await w.waitFor(/Tessera is running/);
    const socket = slowRequest(port);
    await new Promise((resolve) => setTimeout(resolve, 300));
    child.kill('SIGTERM');
    const { code } = await w.exited;
    expect(code).toBe(1);
    expect(w.output).toMatch(/requests still in progress after 1 s \(SHUTDOWN_TIMEOUT_SECONDS\)/);
    socket.destroy();
  });

  it('keeps serving when stdout\'s reader goes away (EPIPE), and says so once on stderr', async () => {
    const { port, env } = await environment();
    const child = spawn(process.execPath, [MAIN], { env });
    // The reader is gone before the banner is written.
    child.stdout.destroy();
    const w = watch(child);
    await w.waitFor(/Standard output was closed \(EPIPE\): the server keeps running/);
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = await fetch(`http://127.0.0.1:${port}/__heartbeat__`).then((r) => r.status, () => 0);
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(status).toBe(200);
    child.kill('SIGTERM');
    expect((await w.exited).code).toBe(0);
    expect(w.output.match(/EPIPE/g)).toHaveLength(1);
  });

  it.skipIf(!existsSync('/proc/self/environ'))('SIGTERM to the `npm start` process leaves no process behind', async () => {
    const { port, mark, env } = await environment();
    const npm = spawn('npm', ['start'], { cwd: ROOT, env });
    const w = watch(npm);
    await w.waitFor(/Tessera is running/, 150_000);
    expect((await fetch(`http://127.0.0.1:${port}/__lbheartbeat__`)).status).toBe(200);
    // npm, its shell, scripts/start.mjs and the server.
    expect(marked(mark).length).toBeGreaterThanOrEqual(3);
    npm.kill('SIGTERM');
    await w.exited;
    let left = marked(mark);
    for (let i = 0; i < 50 && left.length; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      left = marked(mark);
    }
    expect(left, w.output).toEqual([]);
    await expect(fetch(`http://127.0.0.1:${port}/__lbheartbeat__`)).rejects.toThrow();
  });
});
