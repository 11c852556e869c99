import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The server started (from its build, as `npm start` runs it) in each environment that stops it:
// every failure is one line on stderr, with the variable and the likely fix, no stack, status 1.

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));
// Permissions do not stop root: as root, the cases about unwritable files run the server as nobody.
const asRoot = process.getuid?.() === 0;
const unprivileged = asRoot ? { uid: 65534, gid: 65534 } : {};

interface Outcome { status: number | null; stdout: string; stderr: string }

function start(env: Record<string, string>, options: { unprivileged?: boolean } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'warn', PORTAL_DIR: '/nonexistent', SCRYPT_WORKERS: '1', ...env },
      ...(options.unprivileged ? unprivileged : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += String(d); });
    child.stderr.on('data', (d) => { stderr += String(d); });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server did not stop within 60 s; stdout: ${stdout}`));
    }, 60_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

/** One line, in the configuration errors' style, that matches every pattern; nothing else. */
function expectOneLine(o: Outcome, ...patterns: RegExp[]): void {
  expect(o.status, o.stderr).toBe(1);
  const lines = o.stderr.split('\n').filter(Boolean);
  expect(lines, o.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^(Start-up|Configuration) error: [A-Z_]+/);
  expect(o.stderr).not.toMatch(/\n\s+at /);
  for (const p of patterns) expect(lines[0]).toMatch(p);
  expect(o.stdout).toBe('');
}

let dir: string;
let closedPort: number;
let busy: Server;
let busyPort: number;
const listen = (s: Server) => new Promise<number>((resolve) => s.listen(0, '127.0.0.1', () => resolve((s.address() as { port: number }).port)));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tessera-startup-'));
  chmodSync(dir, 0o755);
  const probe = createServer();
  closedPort = await listen(probe);
  await new Promise((resolve) => probe.close(resolve));
  busy = createServer();
  busyPort = await listen(busy);
});
afterAll(() => {
  busy?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A data folder for one case; `open` makes it writable by the unprivileged user. */
function dataDir(name: string, open = false): string {
  const d = join(dir, name);
  mkdirSync(d, { recursive: true });
  chmodSync(d, open ? 0o777 : asRoot ? 0o755 : 0o555);
  return d;
}

// Each case starts a Node process: concurrently, with room for a busy machine.
describe.concurrent('start-up failures', { timeout: 120_000 }, () => {
  it('a port in use names PORT and HOST', async () => {
    expectOneLine(await start({ PORT: String(busyPort), HOST: '127.0.0.1', DATA_DIR: dataDir('port', true) }),
      /PORT \(\d+\), HOST \(127\.0\.0\.1\)/, /already in use/, /set PORT to a free port/);
  });

  it.each([
    ['postgres://', /DATABASE_URL: "postgres:\/\/" names no host/],
    ['postgres://tessera:s3cret@db:notaport/tessera', /DATABASE_URL: "postgres:\/\/tessera:\*\*\*@db:notaport\/tessera" is not a valid URL/],
    ['ftp://example/db', /is not a database URL/],
    ['sqlite:', /"sqlite:" names no file.*temporary database/],
    ['postgres://postgres@127.0.0.1:5432', /names no database.*maintenance database.*postgres:\/\/user@host:5432\/tessera/],
    ['mariadb://root@127.0.0.1:3306/', /names no database.*mysql:\/\/user@host:3306\/tessera/],
  ])('DATABASE_URL=%s is refused, naming the accepted forms or the fix', async (url, pattern) => {
    const o = await start({ DATABASE_URL: url, DATA_DIR: dataDir(`url-${url.replace(/\W/g, '')}`, true) });
    expectOneLine(o, /^Configuration error: DATABASE_URL/, pattern);
    expect(o.stderr).not.toContain('s3cret');
    if (!url.startsWith('sqlite') && !/names no database/.test(o.stderr)) expect(o.stderr).toMatch(/postgresql:\/\/.*mariadb:\/\//);
  });

  it.each([
    ['postgresql', 'postgresql://tessera:s3cret@127.0.0.1:PORT/tessera'],
    ['mariadb', 'mariadb://tessera:s3cret@127.0.0.1:PORT/tessera'],
  ])('a %s server that is down: connection refused, password masked', async (_name, url) => {
    const o = await start({ DATABASE_URL: url.replace('PORT', String(closedPort)), DATA_DIR: dataDir(`down-${_name}`, true) });
    expectOneLine(o, /^Start-up error: DATABASE_URL \([a-z]+:\/\/tessera:\*\*\*@127\.0\.0\.1:\d+\/tessera\)/, /connection refused/, /is the database server running/);
    expect(o.stderr).not.toContain('s3cret');
  });

  it('an unknown database host', async () => {
    expectOneLine(await start({ DATABASE_URL: 'postgres://tessera@no-such-host.invalid:5432/tessera', DATA_DIR: dataDir('dns', true) }),
      /DATABASE_URL/, /unknown host "no-such-host\.invalid"|no answer from/);
  });

  it.skipIf(!process.env.TEST_POSTGRES_URL)('PostgreSQL: a missing database, a refused user', async () => {
    const admin = new URL(process.env.TEST_POSTGRES_URL!);
    const missing = new URL(admin);
    missing.pathname = '/tessera_no_such_db';
    expectOneLine(await start({ DATABASE_URL: missing.toString(), DATA_DIR: dataDir('pg-missing', true) }),
      /DATABASE_URL/, /database "tessera_no_such_db" does not exist/, /createdb tessera_no_such_db/);
    const denied = new URL(admin);
    denied.username = 'tessera_no_such_user';
    denied.password = 's3cret';
    const o = await start({ DATABASE_URL: denied.toString(), DATA_DIR: dataDir('pg-denied', true) });
    expectOneLine(o, /DATABASE_URL/, /access denied for user "tessera_no_such_user"/);
    expect(o.stderr).not.toContain('s3cret');
  });

  it.skipIf(!process.env.TEST_MYSQL_URL)('MariaDB: a missing database, a refused user', async () => {
    const admin = new URL(process.env.TEST_MYSQL_URL!);
    const missing = new URL(admin);
    missing.pathname = '/tessera_no_such_db';
    expectOneLine(await start({ DATABASE_URL: missing.toString(), DATA_DIR: dataDir('my-missing', true) }),
      /DATABASE_URL/, /database "tessera_no_such_db" does not exist/, /CREATE DATABASE tessera_no_such_db/);
    const denied = new URL(admin);
    denied.username = 'tessera_no_such_user';
    denied.password = 's3cret';
    const o = await start({ DATABASE_URL: denied.toString(), DATA_DIR: dataDir('my-denied', true) });
    expectOneLine(o, /DATABASE_URL/, /access denied for user "tessera_no_such_user"/);
    expect(o.stderr).not.toContain('s3cret');
  });

  it('SIGNING_KEY_FILE missing, unreadable, or not a key', async () => {
    const d = dataDir('keys', true);
    expectOneLine(await start({ SIGNING_KEY_FILE: join(d, 'nope.pem'), DATA_DIR: d }), /SIGNING_KEY_FILE \(.*nope\.pem\)/, /no such file/);
    const text = join(d, 'not-a-key.pem');
    writeFileSync(text, 'hello\n', { mode: 0o644 });
    expectOneLine(await start({ SIGNING_KEY_FILE: text, DATA_DIR: d }), /SIGNING_KEY_FILE \(.*not-a-key\.pem\)/, /not a usable PEM RSA private key/, /openssl genpkey/);
    // Unprivileged in a folder of its own: the cases above made its outbox as this user.
    const other = dataDir('keys-unreadable', true);
    const secret = join(other, 'secret.pem');
    writeFileSync(secret, 'x', { mode: 0o600 });
    if (!asRoot) chmodSync(secret, 0o000);
    expectOneLine(await start({ SIGNING_KEY_FILE: secret, DATA_DIR: other }, { unprivileged: true }), /SIGNING_KEY_FILE \(.*secret\.pem\)/, /may not read the file/);
  });

  it('a read-only DATA_DIR', async () => {
    const d = dataDir('readonly');
    expectOneLine(await start({ DATA_DIR: d }, { unprivileged: true }), new RegExp(`^Start-up error: DATA_DIR \\(${d}\\): is not writable`), /set DATA_DIR/);
  });

  it('a read-only SQLite file is named', async () => {
    const d = dataDir('sqlite-data', true);
    const dbDir = dataDir('sqlite-db', true);
    const file = join(dbDir, 'tessera.sqlite');
    writeFileSync(file, '', { mode: 0o644 });
    if (!asRoot) chmodSync(file, 0o444);
    expectOneLine(await start({ DATA_DIR: d, DATABASE_URL: `sqlite:${file}` }, { unprivileged: true }),
      /^Start-up error: DATABASE_URL/, new RegExp(`the SQLite file ${file} is read-only`));
  });

  it('an unwritable outbox is found at start', async () => {
    const d = dataDir('outbox', true);
    mkdirSync(join(d, 'outbox'));
    chmodSync(join(d, 'outbox'), asRoot ? 0o755 : 0o555);
    expectOneLine(await start({ DATA_DIR: d }, { unprivileged: true }), /DATA_DIR \(.*\): the mail outbox .*outbox: is not writable/, /SMTP_URL/);
  });
});
