import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The benches' child processes (tracked, pinned, stopped on exit), what /proc says about them and
// the machine, and the run's log lines.

const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = dirname(BENCH);

// ---- processes --------------------------------------------------------------------------------

const children = new Set();
/** The temporary folder of the run in progress, removed on Ctrl-C too (unless --keep). */
let scratch = null;

/** The run's temporary folder (null: keep it): removed if the run is interrupted. */
export function removeOnInterrupt(dir) {
  scratch = dir;
}

export const hasTaskset = () => spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Starts a tracked child, under `taskset -c <cpus>` when pinning. Output is kept (last 64 KiB). */
export function start(command, args, { cpus: cores, pin, env, cwd = ROOT } = {}) {
  const [cmd, argv] = pin && cores ? ['taskset', ['-c', cores, command, ...args]] : [command, args];
  const child = spawn(cmd, argv, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.out = '';
  child.err = '';
  const keep = (key) => (chunk) => {
    child[key] = (child[key] + chunk.toString()).slice(-65536);
  };
  child.stdout.on('data', keep('out'));
  child.stderr.on('data', keep('err'));
  child.exited = new Promise((r) => child.once('exit', (code, signal) => {
    children.delete(child);
    r({ code, signal });
  }));
  children.add(child);
  return child;
}

export async function stop(child, timeoutMs = 10_000) {
  if (!children.has(child)) return;
  child.kill('SIGTERM');
  const done = await Promise.race([child.exited, sleep(timeoutMs).then(() => null)]);
  if (!done) {
    child.kill('SIGKILL');
    await child.exited;
  }
}

export async function stopAll() {
  await Promise.all([...children].map((c) => stop(c, 5000)));
}

// Last resort: whatever is still running when this process exits is killed.
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    process.stderr.write(`\n${signal}: stopping the servers\n`);
    void stopAll().finally(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      process.exit(130);
    });
  });
}

export async function waitForOutput(child, pattern, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(child.out)) {
    if (!children.has(child)) throw new Error(`${what} exited before it was ready:\n${child.err || child.out}`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready after ${timeoutMs} ms:\n${child.err || child.out}`);
    await sleep(50);
  }
}

export function freePort() {
  return new Promise((resolve_, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve_(port));
    });
  });
}

// ---- /proc --------------------------------------------------------------------------------

/** VmRSS and VmHWM in MiB. */
export function memory(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kb('VmRSS') / 1024, hwmMiB: kb('VmHWM') / 1024 };
  } catch {
    return { rssMiB: NaN, hwmMiB: NaN };
  }
}

const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK']).stdout?.toString().trim() || 100);

/** User + system CPU of a process (all its threads), in ms. */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** Busy and total time of the whole machine (all cores), in ms. Busy includes steal. */
export function machineCpuMs() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = line;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy * TICK_MS, total: (busy + idle + iowait) * TICK_MS };
}

/** The short commit of the checkout at `root` (this one by default), and whether its server or packages differ from it. */
export function gitDescribe(root = ROOT) {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout?.trim();
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'apps/server', 'packages'], { cwd: root, encoding: 'utf8' }).stdout?.trim();
  return head ? `${head}${dirty ? ' (+ uncommitted changes in apps/server or packages)' : ''}` : null;
}

export function machine(pinned) {
  const c = cpus();
  return {
    commit: gitDescribe(),
    cpu: c[0]?.model, cores: c.length, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version,
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100), pinned, date: new Date().toISOString(),
  };
}

export function log(msg) {
  process.stderr.write(`[bench] ${msg}\n`);
}
