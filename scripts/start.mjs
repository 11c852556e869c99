#!/usr/bin/env node
// `npm start`: compile the TypeScript, build the developer portal once if it is not built yet,
// then run the server (which prints its URLs). Configuration comes from the environment; see
// README "Configuration". PORTAL_DIR set (to any path) skips the portal build.
//
// This script never outlives or orphans what it starts: SIGINT and SIGTERM go to the running step
// or the server exactly once, and it exits with the server's status. npm forwards signals to a
// shell that does not pass them on, so a parent that goes away (`kill <npm pid>`) counts as
// SIGTERM too.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// `npm start | npx pino-pretty` where the reader exits: this script must live on to relay signals.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE') throw err;
});

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SIGNAL_STATUS = { SIGINT: 130, SIGTERM: 143 };

/** The process running now (a build step, then the server), and how its signals reach it. */
let current = null;
let lastSignal = { name: '', at: 0 };
let stopping = false;

function relay(signal) {
  // Ctrl-C reaches this process from the terminal and again from npm: one press, one signal.
  const now = Date.now();
  if (signal === lastSignal.name && now - lastSignal.at < 300) return;
  lastSignal = { name: signal, at: now };
  stopping = true;
  if (!current) process.exit(SIGNAL_STATUS[signal]);
  // The child runs in its own process group (detached), so the terminal's Ctrl-C reaches it only
  // through here; the group is signalled so that npx/npm steps take their own children along.
  try {
    process.kill(-current.pid, signal);
  } catch {
    current.kill(signal);
  }
}
for (const signal of Object.keys(SIGNAL_STATUS)) process.on(signal, () => relay(signal));

// The parent (npm, or the shell npm started) is gone: nobody is left to stop the server.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) relay('SIGTERM');
}, 500).unref();

/** Runs a command in its own process group; resolves with its exit status (128 + n for a signal). */
function run(cmd, args) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', detached: true, env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } });
    current = child;
    child.on('error', (err) => {
      process.stderr.write(`npm start: could not run ${cmd}: ${err.message}\n`);
      resolvePromise(1);
    });
    child.on('exit', (code, signal) => {
      current = null;
      resolvePromise(signal ? (SIGNAL_STATUS[signal] ?? 1) : (code ?? 1));
    });
  });
}

async function step(label, cmd, args) {
  process.stdout.write(`› ${label}\n`);
  const status = await run(cmd, args);
  if (status !== 0 || stopping) process.exit(status || 1);
}

await step('compiling TypeScript (tsc -b)', 'npx', ['tsc', '-b']);
const portalDir = process.env.PORTAL_DIR ? resolve(root, process.env.PORTAL_DIR) : join(root, 'apps/portal/build');
if (!process.env.PORTAL_DIR && !existsSync(join(portalDir, 'index.html'))) {
  await step('building the developer portal (first start only; `npm run build -w apps/portal` rebuilds it)', 'npm', ['run', 'build', '-w', 'apps/portal']);
}
process.exit(await run(process.execPath, [join(root, 'apps/server/dist/main.js')]));
