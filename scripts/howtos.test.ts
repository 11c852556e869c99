// Every how-to in the portal runs as written (issue 10). A shell block is marked in its fence:
// ```bash ci             runs in the page's shell, in order; a failing command fails the page;
// ```bash ci-start=9000  starts in the background (its own process group) and must listen on the
//                        port; it is stopped at the end of the page or when a later block needs
//                        the same port;
// ```bash not-in-ci      is not run, and the page says why.
// Each page runs in one bash session (so `export`s carry over) in a sandbox: a temporary folder of
// links to the repository's files with its own `data/` and `$HOME`. The only edits made to the
// commands are the substitutions listed per page (free ports, unique names); each must match, so
// a list that no longer fits its page fails too.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const howtoDir = join(root, 'apps/portal/docs/how-tos');
const SHELLS = new Set(['bash', 'sh', 'shell']);

interface Block { line: number; meta: string; body: string; mark: 'ci' | 'start' | 'skip' | undefined; port?: string }

/** The fenced shell blocks of a Markdown page, with their CI marking. */
export function shellBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  const fence = /^```(\w*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    if (!SHELLS.has(m[1]!)) continue;
    const meta = m[2]!.trim();
    const start = /(?:^|\s)ci-start=(\d+)(?:\s|$)/.exec(meta);
    const mark = start ? 'start' : /(?:^|\s)ci(?:\s|$)/.test(meta) ? 'ci' : /(?:^|\s)not-in-ci(?:\s|$)/.test(meta) ? 'skip' : undefined;
    blocks.push({ line: markdown.slice(0, m.index).split('\n').length, meta, body: m[3]!, mark, port: start?.[1] });
  }
  return blocks;
}

const freePort = (): Promise<number> =>
  new Promise((ok, fail) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
    s.on('error', fail);
  });

type Substitution = [RegExp, string];

/** One bash script for a page's runnable blocks (and those of the pages it follows). */
function pageScript(blocks: Array<Block & { page: string }>, work: string): string {
  const out = [
    'set -euo pipefail',
    'set -m  # background blocks get their own process group, so stopping one stops its children',
    'declare -A __pid=()',
    '__listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }',
    '__stop() { kill -TERM -- -"$1" 2>/dev/null || return 0; for _ in $(seq 1 100); do kill -0 -- -"$1" 2>/dev/null || return 0; sleep 0.1; done; kill -KILL -- -"$1" 2>/dev/null || true; }',
    `__end() { s=$?; for p in "\${__pid[@]}"; do __stop "$p"; done; for f in ${work}/bg-*.log; do [ -e "$f" ] && { echo "── output of $(basename "$f")"; cat "$f"; }; done; exit $s; }`,
    'trap __end EXIT',
  ];
  blocks.forEach((b, i) => {
    out.push(`echo "── ${b.page}:${b.line} (at \${SECONDS} s)"`);
    if (b.mark === 'ci') {
      out.push(b.body);
      return;
    }
    const file = join(work, `bg-${i}.sh`);
    writeFileSync(file, b.body);
    const log = join(work, `bg-${i}.log`);
    out.push(
      `if [ -n "\${__pid[${b.port}]:-}" ]; then __stop "\${__pid[${b.port}]}"; fi`,
      `if __listening ${b.port}; then echo "port ${b.port} is taken before ${b.page}:${b.line} starts" >&2; exit 1; fi`,
      `bash -e ${file} > ${log} 2>&1 &`,
      `__pid[${b.port}]=$!`,
      `for _ in $(seq 1 1200); do __listening ${b.port} && break; kill -0 "\${__pid[${b.port}]}" 2>/dev/null || { echo "${b.page}:${b.line} exited before listening on ${b.port}" >&2; exit 1; }; sleep 0.1; done`,
      `__listening ${b.port} || { echo "nothing listens on ${b.port} 120 s after ${b.page}:${b.line} started" >&2; exit 1; }`,
    );
  });
  return out.join('\n') + '\n';
}

interface Page {
  file: string;
  /** Pages whose runnable blocks run first, in the same session (the page says it follows them). */
  after?: string[];
  substitutions: (ports: Record<string, number>) => Substitution[];
  ports: string[];
  home?: (home: string) => void;
  expect: RegExp[];
  skip?: () => string | undefined;
}

const read = (file: string) => readFileSync(join(howtoDir, file), 'utf8');
const portsOf = (names: string[]) => Promise.all(names.map(async (n) => [n, await freePort()] as const)).then(Object.fromEntries);
const byPort = (ports: Record<string, number>): Substitution[] => Object.entries(ports).map(([from, to]) => [new RegExp(`\\b${from}\\b`, 'g'), String(to)]);

async function runPage(page: Page, signal?: AbortSignal) {
  const sandbox = mkdtempSync(join(tmpdir(), 'tessera-howto-'));
  try {
    for (const entry of readdirSync(root)) if (entry !== 'data') symlinkSync(join(root, entry), join(sandbox, entry));
    const work = join(sandbox, '.howto');
    const home = join(sandbox, 'home');
    for (const d of [work, home, join(sandbox, 'data')]) mkdirSync(d);
    page.home?.(home);
    const ports: Record<string, number> = await portsOf(page.ports);
    const substitutions = [...byPort(ports), ...page.substitutions(ports)];
    const blocks = [...(page.after ?? []), page.file].flatMap((file) =>
      shellBlocks(read(file)).filter((b) => b.mark === 'ci' || b.mark === 'start').map((b) => ({ ...b, page: file })),
    );
    const used = new Set<number>();
    const substituted = blocks.map((b) => {
      let { body, port } = b;
      substitutions.forEach(([re, to], i) => {
        const next = body.replace(re, to);
        if (next !== body) used.add(i);
        body = next;
        if (port && port.replace(re, to) !== port) {
          port = port.replace(re, to);
          used.add(i);
        }
      });
      return { ...b, body, port };
    });
    expect(substitutions.filter((_, i) => !used.has(i)).map(([re]) => String(re)), 'substitutions that match nothing').toEqual([]);
    const script = join(work, 'page.sh');
    writeFileSync(script, pageScript(substituted, work));
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      LANG: 'C.UTF-8',
      // npx keeps its downloads in the usual cache; the sandbox's $HOME has none.
      npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
      NO_UPDATE_NOTIFIER: '1',
      PORT: String(ports['9000'] ?? ''),
      DATA_DIR: join(sandbox, 'data'),
      DATABASE_URL: `sqlite:${join(sandbox, 'data/tessera.sqlite')}`,
      // No portal build: the portal suite builds it; the how-tos here are about the server.
      PORTAL_DIR: join(sandbox, 'no-portal'),
    };
    // Its own process group: on a timeout the whole page (and through its EXIT trap, the servers it
    // started) is stopped rather than left running.
    const child = spawn('bash', [script], { cwd: sandbox, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const stop = () => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
    };
    signal?.addEventListener('abort', stop);
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d));
    child.stderr.on('data', (d: Buffer) => (output += d));
    const status = await new Promise<number | null>((ok) => child.on('close', ok));
    signal?.removeEventListener('abort', stop);
    expect(status, `${page.file} failed:\n${output.slice(-6000)}`).toBe(0);
    for (const re of page.expect) expect(output, `${page.file}: output lacks ${re}`).toMatch(re);
    return output;
  } finally {
    rmSync(sandbox, { recursive: true, force: true });
  }
}

const pages: Page[] = [
  {
    // Local emails reads the mail of Creating an account, so one run checks both pages.
    file: 'local-emails-with-maildev.md',
    after: ['creating-an-account-locally.md'],
    ports: ['9000', '1025', '1080'],
    substitutions: () => [],
    expect: [/"state":"verified"/, /X-Tessera-Code/, /Subject in MailDev: .*\S/],
  },
  {
    // Adding a secondary email continues the account and session of Creating an account.
    file: 'adding-a-secondary-email.md',
    after: ['creating-an-account-locally.md'],
    ports: ['9000'],
    substitutions: () => [],
    expect: [/"email":"alice\.backup@example\.com","verified":true,"isPrimary":true/, /"errno":142/, /"sessionToken":"[0-9a-f]{64}"/],
  },
  {
    // Using Twilio locally adds a recovery phone to the account of Creating an account, through the SMS outbox.
    file: 'using-twilio-locally.md',
    after: ['creating-an-account-locally.md'],
    ports: ['9000'],
    substitutions: () => [],
    expect: [/recoveryPhoneCode\.json/, /"exists":true,"phoneNumber":"\+1••••••0123"/],
  },
  { file: 'serve-settings-production-build-locally.md', ports: ['9000', '1025', '1080'], substitutions: () => [], expect: [/"keys":\[\{/] },
  { file: 'node-debugging.md', ports: ['9000', '9229'], substitutions: () => [], expect: [/"type": "node"/] },
];

describe('every shell block of a how-to is marked for CI', () => {
  const files = readdirSync(howtoDir).filter((f) => f.endsWith('.md'));
  it.each(files)('%s', (file) => {
    const text = read(file);
    const blocks = shellBlocks(text);
    expect(blocks.filter((b) => !b.mark).map((b) => `${file}:${b.line}`), 'blocks without ci, ci-start=PORT or not-in-ci').toEqual([]);
    if (blocks.some((b) => b.mark === 'skip')) expect(text, 'a page with a not-in-ci block says why').toMatch(/not run in CI|CI does not run/);
    if (blocks.some((b) => b.mark === 'ci' || b.mark === 'start')) {
      expect([...pages.flatMap((p) => [p.file, ...(p.after ?? [])]), 'connecting-to-a-local-mysql-db.md'], 'a page with runnable blocks is run below').toContain(file);
    }
  });
});

// The MySQL how-to against a MariaDB of its own started with skip-name-resolve (as containers and
// CI's server run), so a user that only matches socket connections fails here; PostgreSQL is CI's,
// with a role and database named for this run and dropped after it.
const pgUrl = process.env.TEST_POSTGRES_URL;
const hasMariadb = spawnSync('sh', ['-c', 'command -v mariadb-install-db && command -v mariadbd'], { stdio: 'ignore' }).status === 0;

async function withMariadb(run: (dir: string, port: number) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-howto-mariadb-'));
  let mariadbd: ChildProcess | undefined;
  try {
    const port = await freePort();
    const install = spawnSync('mariadb-install-db', ['--no-defaults', `--datadir=${dir}/data`, '--auth-root-authentication-method=normal', '--user=root', '--skip-test-db'], { encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    mariadbd = spawn('mariadbd', ['--no-defaults', `--datadir=${dir}/data`, `--port=${port}`, `--socket=${dir}/sock`, '--bind-address=127.0.0.1', '--skip-name-resolve', '--user=root', `--pid-file=${dir}/pid`, `--log-error=${dir}/err.log`], { stdio: 'ignore' });
    let up = false;
    for (let i = 0; i < 300 && !up; i++) {
      up = spawnSync('mariadb-admin', ['--no-defaults', `--socket=${dir}/sock`, '-u', 'root', 'ping'], { stdio: 'ignore' }).status === 0;
      if (!up) await new Promise((r) => setTimeout(r, 100));
    }
    if (!up) throw new Error(`the test's MariaDB did not start: ${readFileSync(`${dir}/err.log`, 'utf8').slice(-2000)}`);
    await run(dir, port);
  } finally {
    if (mariadbd && mariadbd.exitCode === null) {
      const exited = new Promise((r) => mariadbd!.once('exit', r));
      mariadbd.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the how-tos run as written', () => {
  // Built once here, so that the pages' own `npm start` and `npm run build` find nothing to write
  // while they run side by side.
  beforeAll(() => {
    const build = spawnSync('npx', ['tsc', '-b'], { cwd: root, encoding: 'utf8' });
    expect(build.status, build.stdout + build.stderr).toBe(0);
  }, 120_000);

  it.for(pages)('$file', { concurrent: true, timeout: 300_000 }, async (page, { signal }) => {
    await runPage(page, signal);
  });

  it.skipIf(!pgUrl || !hasMariadb)('connecting-to-a-local-mysql-db.md (MariaDB with skip-name-resolve, PostgreSQL)', { concurrent: true, timeout: 300_000 }, async ({ signal }) => {
    const name = `tessera_howto_${process.pid}_${Date.now().toString(36)}`;
    const psql = (sql: string) => spawnSync('psql', [pgUrl!.replace(/\/[^/]*$/, '/postgres'), '-v', 'ON_ERROR_STOP=1', '-c', sql], { encoding: 'utf8' });
    try {
      await withMariadb((dir, port) =>
        runPage({
          file: 'connecting-to-a-local-mysql-db.md',
          ports: ['9000'],
          substitutions: () => [[/tessera/g, name], [/\b3306\b/g, String(port)]],
          // The client's own configuration file points `mysql` at the test's MariaDB.
          home: (home) => writeFileSync(join(home, '.my.cnf'), `[client]\nsocket=${dir}/sock\nport=${port}\n`),
          expect: [/Tables_in_\w+[\s\S]*\baccounts\b/, /List of relations[\s\S]*\| accounts +\|/],
        }, signal).then(() => undefined),
      );
    } finally {
      psql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      psql(`DROP ROLE IF EXISTS ${name}`);
    }
  });
});
