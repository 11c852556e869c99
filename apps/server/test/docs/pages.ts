import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { createTestServer, type TestServer } from '../harness.js';

// Helpers for tests that run a portal page's code as written: its fenced blocks, the declared
// substitutions of its sample values (each must match, so a list that no longer fits the page
// fails), and its shell blocks run in bash with `set -euo pipefail`.

export interface CodeBlock {
  lang: string;
  /** The fence's `title="…"`, when it has one (Docusaurus shows it above the block). */
  title: string | undefined;
  meta: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
}

/** The page's fenced code blocks, in order. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const out: CodeBlock[] = [];
  const fence = /^```(\w*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;
  for (let m = fence.exec(markdown); m; m = fence.exec(markdown)) {
    const meta = m[2]!.trim();
    out.push({ lang: m[1]!, title: /title="([^"]*)"/.exec(meta)?.[1], meta, body: m[3]!, line: markdown.slice(0, m.index).split('\n').length });
  }
  return out;
}

export type Substitution = [RegExp, string];

/** Applies each substitution; one that matches nothing is an error (the page changed under the test). */
export function substitute(text: string, substitutions: Substitution[]): string {
  return substitutions.reduce((body, [re, to]) => {
    if (!re.test(body)) throw new Error(`the substitution ${String(re)} matches nothing in:\n${body}`);
    re.lastIndex = 0;
    return body.replace(re, () => to);
  }, text);
}

export interface ShellRun extends Promise<{ status: number | null; output: string }> {
  /** Resolves with the first match of `re` in the output so far or to come; fails if the shell exits first. */
  waitFor(re: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Stops the shell and everything it started (its own process group). */
  stop(): void;
  /** Types into the shell's standard input (with `stdin: true`). */
  write(text: string): void;
}

/** Runs a shell block in bash (`set -euo pipefail`), in its own process group. */
export function runShell(body: string, options: { cwd: string; env?: Record<string, string>; stdin?: boolean }): ShellRun {
  const child = spawn('bash', ['-c', `set -euo pipefail\n${body}`], {
    cwd: options.cwd,
    detached: true,
    stdio: [options.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? homedir(),
      LANG: 'C.UTF-8',
      NO_UPDATE_NOTIFIER: '1',
      npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
      ...options.env,
    },
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    output += d.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
  };
  const done = new Promise<{ status: number | null; output: string }>((ok) => child.on('close', (status) => {
    for (const l of listeners) l();
    ok({ status, output });
  }));
  const run = done as ShellRun;
  run.stop = stop;
  run.write = (text) => {
    if (!child.stdin) throw new Error('runShell: started without stdin: true');
    child.stdin.write(text);
  };
  run.waitFor = (re, timeoutMs) => new Promise((ok, fail) => {
    const timer = setTimeout(() => {
      listeners.delete(check);
      stop();
      fail(new Error(`no ${String(re)} within ${timeoutMs} ms; output:\n${output}`));
    }, timeoutMs);
    function check() {
      const m = re.exec(output);
      if (m) {
        clearTimeout(timer);
        listeners.delete(check);
        ok(m);
      } else if (child.exitCode !== null || child.signalCode !== null) {
        clearTimeout(timer);
        listeners.delete(check);
        fail(new Error(`the shell exited (${child.exitCode ?? child.signalCode}) before printing ${String(re)}; output:\n${output}`));
      }
    }
    listeners.add(check);
    check();
  });
  return run;
}

/** The repository's root. */
export const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

/** How the pages compile their TypeScript files (the tutorial's "Run it" step says so). */
export const TSC = 'npx tsc --module nodenext --target es2022 --strict --types node';

/** A folder for a page's files: ESM, resolving packages from the repository's node_modules. */
export function pageFolder(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-page-'));
  symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
  writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The ts blocks of a page, joined per file name (each block names its file with title="…"). */
export function tsFiles(blocks: CodeBlock[]): Map<string, string> {
  const files = new Map<string, string[]>();
  for (const b of blocks.filter((x) => x.lang === 'ts' || x.lang === 'typescript')) {
    if (!b.title) throw new Error(`the ts block at line ${b.line} does not name its file (title="…")`);
    files.set(b.title, [...(files.get(b.title) ?? []), b.body]);
  }
  return new Map([...files].map(([name, parts]) => [name, parts.join('\n')]));
}

/**
 * What a page's test needs, started once per describe block: a test server and a page folder,
 * after checking that the builds the page's commands run from exist. Read `t` and `dir` inside tests.
 */
export function pageServer(options: { builds?: string[]; env?: Record<string, string> } = {}): { readonly t: TestServer; readonly dir: string } {
  let server: TestServer | undefined;
  let folder: ReturnType<typeof pageFolder> | undefined;
  beforeAll(async () => {
    for (const built of options.builds ?? []) {
      if (!existsSync(join(repoRoot, built))) throw new Error(`${built} is missing: run \`npx tsc -b\` first`);
    }
    server = await createTestServer(options.env ? { env: options.env } : {});
    folder = pageFolder();
  }, 60_000);
  afterAll(async () => {
    folder?.remove();
    await server?.close();
  });
  return { get t() { return server!; }, get dir() { return folder!.dir; } };
}

/**
 * A relying-party page set up as its reader does it: its shell blocks (their titles must be
 * `shellTitles`), its TypeScript files (named `files`) written into the page folder, and the client
 * that its first shell block, the admin command, registers on the test server's database.
 */
export async function registerFromPage(page: { readonly t: TestServer; readonly dir: string }, path: string, expected: { shellTitles: string[]; files: string[] }) {
  const blocks = codeBlocks(readFileSync(path, 'utf8'));
  const shell = blocks.filter((b) => b.lang === 'sh' || b.lang === 'bash');
  if (JSON.stringify(shell.map((b) => b.title ?? '')) !== JSON.stringify(expected.shellTitles)) {
    throw new Error(`the page's shell blocks are titled ${JSON.stringify(shell.map((b) => b.title ?? ''))}, not ${JSON.stringify(expected.shellTitles)}`);
  }
  const files = tsFiles(blocks);
  if (JSON.stringify([...files.keys()]) !== JSON.stringify(expected.files)) {
    throw new Error(`the page's files are ${JSON.stringify([...files.keys()])}, not ${JSON.stringify(expected.files)}`);
  }
  for (const [name, text] of files) writeFileSync(join(page.dir, name), text);
  const register = await runShell(shell[0]!.body, { cwd: repoRoot, env: { DATABASE_URL: page.t.databaseUrl } });
  const clientId = /client_id ([0-9a-f]{16})/.exec(register.output)?.[1];
  if (register.status !== 0 || !clientId) throw new Error(`the page's admin command failed (${register.status}):\n${register.output}`);
  return { shell, clientId };
}
