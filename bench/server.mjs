#!/usr/bin/env node
// Server load benchmarks (issue 2; targets in DESIGN.md "Performance targets").
//
//   npx tsc -b                      # once; this script builds nothing
//   node bench/server.mjs           # 10 s per run, median of 3, 50 connections
//   node bench/server.mjs --quick   # 3 s per run, one run
//
// The servers under test run pinned to core 0 (`taskset -c 0`), the load generator (autocannon,
// bench/load.mjs) pinned to core 1. Workloads:
//   bare          bare node:http JSON server: the ceiling
//   hawk          GET /v1/session/status with a Hawk header computed per request (fresh nonce)
//   bearer        GET /v1/session/status with `Authorization: Bearer fxs_<id>`
//   devices       GET /v1/account/devices (Bearer) for an account with 10 devices, each on its own
//                 session: the read of a device list, compared with bearer session status
//   attached-clients  GET /v1/account/attached_clients (Bearer), the same account: 12 entries
//   login         POST /v1/account/login flood (scrypt in the server's worker threads), server on
//                 core 0; compared with raw scrypt on the same core
//   login-2core   the same flood with the server allowed both cores; compared with raw scrypt on
//                 both cores (the load generator shares core 1; it needs little at this rate)
// The Tessera server runs with bench/lag-probe.mjs, which reports its event-loop delay per run.
// Options: see `--help`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { formatSummary, summarize } from './cpuprofile-summary.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const SERVER_MAIN = join(ROOT, 'apps/server/dist/main.js');
const CLIENT_DIST = join(ROOT, 'packages/client/dist/index.js');
const PROTOCOL_DIST = join(ROOT, 'packages/protocol/dist/index.js');
/** Protocol server stretch, for sizing the raw scrypt runs. */
const SCRYPT_SECONDS = 0.135;

export const WORKLOADS = ['bare', 'hawk', 'bearer', 'devices', 'attached-clients', 'login', 'login-2core'];
/** Devices the benchmark account registers, each on its own session (issue 11). */
const BENCH_DEVICES = 10;
/** Suffix of the workloads run against --baseline's server. */
const BASELINE = ' @ baseline';
/** Not run by default: Hawk with headers computed before the run (is the load core's HMAC work felt?). */
const DIAGNOSTIC = ['hawk-pre'];

const HELP = `Usage: node bench/server.mjs [options]

  --quick                 3 s per run, 1 run, 1 s warm-up (unless --duration/--runs are given)
  --duration <s>          seconds per run (default 10)
  --runs <n>              runs per workload (default 3)
  --pick <how>            which run is reported: median (by req/s, default) or quietest (least
                          CPU used by other processes during the run)
  --connections <n>       autocannon connections (default 50)
  --login-connections <n> connections for the login floods (default: --connections)
  --warmup <s>            untimed warm-up per fast workload before the runs (default 3)
  --workloads <list>      comma-separated subset of: ${WORKLOADS.join(', ')} (default: all);
                          also hawk-pre: Hawk with headers computed before the run (diagnostic)
  --profile               afterwards, run the profiled workloads once more against a server
                          started with --cpu-prof and print their top self-time functions
  --profile-workloads <l> which ones (default hawk,bearer,login)
  --server-cpu <list>     cores for the servers (default 0)
  --load-cpu <list>       cores for autocannon (default 1)
  --no-pin                do not use taskset
  --quiet-wait <s>        before each run, wait up to this long for the rest of the machine to go
                          quiet (other processes < --quiet-cores); default 15, 0 with --quick
  --quiet-cores <n>       what counts as quiet, in cores busy (default 0.5)
  --json <file>           also write every measurement to this file
  --keep                  keep the temporary folder (database, outbox, lag files, profiles)
  --check                 exit with status 1 when a target is not met
  --baseline <dir>        also run the hawk, bearer and login workloads against the server of another
                          built checkout (<dir>/apps/server/dist/main.js), in the same rounds:
                          a before/after comparison in one run (rows "… @ baseline")
  --baseline-env <list>   environment for the baseline server, KEY=VALUE separated by commas; with
                          --baseline . this compares one build with itself under two settings
                          (e.g. RATE_LIMIT_ENABLED=false: what rate limiting costs)
`;

/** The options every load bench takes (this one and oauth.mjs), as parseArgs reads them. */
export const RUN_OPTIONS = {
  quick: { type: 'boolean', default: false },
  duration: { type: 'string' },
  runs: { type: 'string' },
  connections: { type: 'string', default: '50' },
  warmup: { type: 'string' },
  'server-cpu': { type: 'string', default: '0' },
  'load-cpu': { type: 'string', default: '1' },
  'no-pin': { type: 'boolean', default: false },
  'quiet-wait': { type: 'string' },
  json: { type: 'string' },
  keep: { type: 'boolean', default: false },
  check: { type: 'boolean', default: false },
  profile: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

/** What RUN_OPTIONS' values mean (--quick: 3 s, one run, 1 s warm-up, no wait for quiet). */
export function runSettings(values, quietWaitSeconds) {
  return {
    help: values.help,
    duration: Number(values.duration ?? (values.quick ? 3 : 10)),
    runs: Number(values.runs ?? (values.quick ? 1 : 3)),
    warmup: Number(values.warmup ?? (values.quick ? 1 : 3)),
    connections: Number(values.connections),
    serverCpu: values['server-cpu'],
    loadCpu: values['load-cpu'],
    pin: !values['no-pin'],
    quietWait: Number(values['quiet-wait'] ?? (values.quick ? 0 : quietWaitSeconds)),
    json: values.json ? resolve(values.json) : null,
    keep: values.keep,
    check: values.check,
    profile: values.profile,
  };
}

export function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...RUN_OPTIONS,
      pick: { type: 'string', default: 'median' },
      'login-connections': { type: 'string' },
      workloads: { type: 'string', default: WORKLOADS.join(',') },
      'profile-workloads': { type: 'string', default: 'hawk,bearer,login' },
      'quiet-cores': { type: 'string', default: '0.5' },
      'baseline-env': { type: 'string' },
      baseline: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const workloads = values.workloads.split(',').map((w) => w.trim()).filter(Boolean);
  for (const w of workloads) if (![...WORKLOADS, ...DIAGNOSTIC].includes(w)) throw new Error(`unknown workload ${w} (known: ${[...WORKLOADS, ...DIAGNOSTIC].join(', ')})`);
  if (!['median', 'quietest'].includes(values.pick)) throw new Error('--pick is median or quietest');
  const profileWorkloads = values['profile-workloads'].split(',').filter(Boolean);
  for (const w of profileWorkloads) if (!['hawk', 'bearer', 'login'].includes(w)) throw new Error(`cannot profile ${w} (hawk, bearer or login)`);
  const run = runSettings(values, 15);
  return {
    ...run,
    pick: values.pick,
    loginConnections: Number(values['login-connections'] ?? run.connections),
    workloads,
    profileWorkloads,
    quietCores: Number(values['quiet-cores']),
    baseline: values.baseline ? resolve(values.baseline) : null,
    baselineEnv: Object.fromEntries((values['baseline-env'] ?? '').split(',').filter(Boolean).map((kv) => {
      const i = kv.indexOf('=');
      if (i < 1) throw new Error(`--baseline-env: "${kv}" is not KEY=VALUE`);
      return [kv.slice(0, i), kv.slice(i + 1)];
    })),
  };
}

// ---- processes --------------------------------------------------------------------------------

const children = new Set();
/** The temporary folder of the run in progress, removed on Ctrl-C too (unless --keep). */
let scratch = null;

const hasTaskset = () => spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Starts a tracked child, under `taskset -c <cpus>` when pinning. Output is kept (last 64 KiB). */
function start(command, args, { cpus: cores, pin, env, cwd = ROOT } = {}) {
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

async function stop(child, timeoutMs = 10_000) {
  if (!children.has(child)) return;
  child.kill('SIGTERM');
  const done = await Promise.race([child.exited, sleep(timeoutMs).then(() => null)]);
  if (!done) {
    child.kill('SIGKILL');
    await child.exited;
  }
}

async function stopAll() {
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

async function waitForOutput(child, pattern, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(child.out)) {
    if (!children.has(child)) throw new Error(`${what} exited before it was ready:\n${child.err || child.out}`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready after ${timeoutMs} ms:\n${child.err || child.out}`);
    await sleep(50);
  }
}

function freePort() {
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
function memory(pid) {
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
function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** Busy and total time of the whole machine (all cores), in ms. Busy includes steal. */
function machineCpuMs() {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const [user, nice, system, idle, iowait, irq, softirq, steal = 0] = line;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy * TICK_MS, total: (busy + idle + iowait) * TICK_MS };
}

// ---- servers ------------------------------------------------------------------------------

async function startBare(opts) {
  const port = await freePort();
  const child = start(process.execPath, [join(BENCH, 'bare-server.mjs')], {
    cpus: opts.serverCpu, pin: opts.pin, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
  });
  await waitForOutput(child, /listening/, 10_000, 'bare server');
  return { kind: 'bare', child, pid: child.pid, url: `http://127.0.0.1:${port}` };
}

/** The most Hawk requests a second the hawk workloads can send (hawk-pre precomputes 40,000 a second). */
const HAWK_BENCH_MAX_RPS = 60_000;

/** Tessera from apps/server/dist, with the lag probe, on its own temporary data folder. */
async function startTessera(opts, { name, dataDir, cores, nodeArgs = [], env = {}, root = ROOT }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const lagFile = join(dataDir, `lag-${name}.jsonl`);
  const main = root === ROOT ? SERVER_MAIN : join(root, 'apps/server/dist/main.js');
  const child = start(process.execPath, ['--import', pathToFileURL(join(BENCH, 'lag-probe.mjs')).href, ...nodeArgs, main], {
    cpus: cores, pin: opts.pin, cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATABASE_URL: `sqlite:${join(dataDir, 'db.sqlite')}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PORTAL_DIR: '/nonexistent',
      SMTP_URL: '',
      REDIS_URL: '',
      SIGNIN_CONFIRMATION_ENABLED: 'false',
      // Rate limiting stays on, so its cost is measured, with the sign-in limits raised so the
      // flood (one account, one address, the right password) is counted but never blocked.
      RATE_LIMIT_RULES: ['ip_email', 'ip', 'email']
        .map((p) => `accountLogin : ${p} : 1000000000 : 15 minutes : 15 minutes : block`)
        .concat('getCredentialsStatus : ip : 1000000000 : 15 minutes : 15 minutes : block')
        .join('; '),
      // The hawk workloads sign every request with one session, at up to HAWK_BENCH_MAX_RPS. The
      // nonce cache refuses (503/201) rather than forget a nonce inside its window, so it must hold
      // that rate × (skew 60 s + 1 s + a 9 s slice), and the one token must be allowed that rate
      // × 9 s per slice (defaults: 2,000,000 entries, 200 per token; bench/README.md).
      HAWK_NONCE_CACHE_SIZE: String(HAWK_BENCH_MAX_RPS * 70),
      HAWK_NONCES_PER_TOKEN: String(HAWK_BENCH_MAX_RPS * 9),
      LAG_PROBE_FILE: lagFile,
      ...env,
    },
  });
  await waitForOutput(child, /Tessera is running/, 60_000, `Tessera server ${name}`);
  return { kind: 'tessera', name, child, pid: child.pid, url, lagFile };
}

function lagLines(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** SIGUSR2 to the probe: it writes the histogram since the last mark and starts a new one. */
async function lagMark(server) {
  const before = lagLines(server.lagFile).length;
  server.child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = lagLines(server.lagFile);
    if (lines.length > before) return lines.at(-1);
    if (Date.now() > deadline) return null;
    await sleep(20);
  }
}

// ---- account ------------------------------------------------------------------------------

async function outboxCode(outbox, email, template, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(outbox)) {
      for (const f of readdirSync(outbox).filter((n) => n.endsWith('.json')).sort().reverse()) {
        const m = JSON.parse(readFileSync(join(outbox, f), 'utf8'));
        if (m.to === email && m.template === template && m.headers?.['X-Tessera-Code']) return m.headers['X-Tessera-Code'];
      }
    }
    if (Date.now() > deadline) throw new Error(`no ${template} message to ${email} in ${outbox}`);
    await sleep(100);
  }
}

/** Signs up through the SDK, confirms the address with the emailed link code, signs in. */
async function prepareAccount(server, dataDir) {
  const { TesseraClient, TesseraAccounts } = await import(pathToFileURL(CLIENT_DIST).href);
  const { bearerHeader, deriveTokenKeys } = await import(pathToFileURL(PROTOCOL_DIST).href);
  const client = new TesseraClient({ baseUrl: server.url });
  const accounts = new TesseraAccounts(client);
  const email = `bench-${Date.now()}@example.com`;
  const password = 'tessera bench correct horse battery staple';
  const signedUp = await accounts.signUp(email, password);
  const code = await outboxCode(join(dataDir, 'outbox'), email, 'verify');
  await client.recoveryEmailVerifyCode({ uid: signedUp.uid, code });
  // Hawk and Bearer get a session each: a token once used with Hawk refuses Bearer.
  const session = await accounts.signIn(email, password);
  const hawkSession = await accounts.signIn(email, password);
  // The same checks the load runs rely on: Hawk (as the SDK signs it) and Bearer both pass.
  const hawkClient = new TesseraClient({ baseUrl: server.url, presentation: 'hawk' });
  const status = await hawkClient.sessionStatus(hawkSession.sessionToken);
  if (status.state !== 'verified') throw new Error(`the benchmark session is ${status.state}`);
  await client.sessionStatus(session.sessionToken);
  // Ten more sessions, a device on each: what the devices and attached-clients workloads list.
  for (let i = 0; i < BENCH_DEVICES; i++) {
    const signedIn = await accounts.signIn(email, password);
    await client.accountDevice(signedIn.sessionToken, { name: `Bench device ${i + 1}`, type: i % 2 ? 'mobile' : 'desktop', availableCommands: { 'https://identity.mozilla.com/cmd/open-uri': 'bench' } });
  }
  const devices = await client.accountDevices(session.sessionToken);
  if (devices.length !== BENCH_DEVICES) throw new Error(`the benchmark account lists ${devices.length} devices, not ${BENCH_DEVICES}`);
  const { authPW } = await accounts.credentialsFor(email, password);
  const tokenId = deriveTokenKeys('sessionToken', session.sessionToken).tokenId;
  return { email, uid: signedUp.uid, sessionToken: hawkSession.sessionToken, authPW, bearer: bearerHeader('sessionToken', tokenId) };
}

// ---- load ---------------------------------------------------------------------------------

function loadSpec(workload, server, account, opts, duration) {
  const base = { url: server.url, duration, connections: opts.connections };
  switch (workload) {
    case 'bare':
      return { ...base, path: '/' };
    case 'hawk':
      return { ...base, path: '/v1/session/status', hawk: { publicUrl: server.url, sessionToken: account.sessionToken } };
    case 'hawk-pre':
      // Enough distinct headers for 40k req/s; a header's ts stays valid for HAWK_TIMESTAMP_SKEW_SECONDS.
      return { ...base, path: '/v1/session/status', hawk: { publicUrl: server.url, sessionToken: account.sessionToken, precompute: Math.max(1, duration) * 40_000 } };
    case 'bearer':
      return { ...base, path: '/v1/session/status', headers: { authorization: account.bearer } };
    case 'devices':
      return { ...base, path: '/v1/account/devices', headers: { authorization: account.bearer } };
    case 'attached-clients':
      return { ...base, path: '/v1/account/attached_clients', headers: { authorization: account.bearer } };
    case 'login':
    case 'login-2core':
      return {
        ...base, connections: opts.loginConnections, method: 'POST', path: '/v1/account/login',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: account.email, authPW: account.authPW }),
        trackErrors: true,
      };
    default:
      throw new Error(workload);
  }
}

async function runLoad(spec, opts) {
  const child = start(process.execPath, [join(BENCH, 'load.mjs'), JSON.stringify(spec)], { cpus: opts.loadCpu, pin: opts.pin });
  const timer = setTimeout(() => child.kill('SIGKILL'), (spec.duration + 60) * 1000);
  const { code } = await child.exited;
  clearTimeout(timer);
  const line = child.out.trim().split('\n').at(-1);
  if (code !== 0 || !line) throw new Error(`load generator failed (${code}):\n${child.err}`);
  return JSON.parse(line);
}

/**
 * Other engineers share the machine: wait (at most opts.quietWait s) for a second in which the
 * rest of the machine uses under opts.quietCores cores. Our own servers are idle meanwhile.
 */
async function waitQuiet(opts) {
  if (!(opts.quietWait > 0)) return null;
  const deadline = Date.now() + opts.quietWait * 1000;
  let best = Infinity;
  for (;;) {
    const a = machineCpuMs();
    await sleep(1000);
    const b = machineCpuMs();
    const busy = ((b.busy - a.busy) / (b.total - a.total)) * cpus().length;
    best = Math.min(best, busy);
    if (busy < opts.quietCores) return busy;
    if (Date.now() > deadline) {
      log(`  the machine did not go quiet in ${opts.quietWait} s (other load ${fmt(busy, 2)} cores): running anyway`);
      return busy;
    }
  }
}

/** One timed run against a server: throughput, latency, CPU accounting, lag, peak RSS. */
async function measure(workload, server, account, opts, duration = opts.duration) {
  return measureSpec(workload, server, loadSpec(workload.replace(BASELINE, ''), server, account, opts, duration), opts, duration);
}

/** One timed run of a load spec (bench/load.mjs's JSON) against a server; other suites use it too (bench/oauth.mjs). */
export async function measureSpec(workload, server, spec, opts, duration = opts.duration) {
  const quietBefore = duration === opts.duration ? await waitQuiet(opts) : null;
  if (server.lagFile) await lagMark(server);
  const cpu0 = processCpuMs(server.pid);
  const m0 = machineCpuMs();
  let peakRss = memory(server.pid).rssMiB;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, memory(server.pid).rssMiB);
  }, 200);
  let load;
  // CLOCK_MONOTONIC in µs, the clock of V8's profile timestamps: --profile keeps only this window.
  const from = Number(process.hrtime.bigint() / 1000n);
  try {
    load = await runLoad(spec, opts);
  } finally {
    clearInterval(sampler);
  }
  const to = Number(process.hrtime.bigint() / 1000n);
  const serverCpu = processCpuMs(server.pid) - cpu0;
  const m1 = machineCpuMs();
  const lag = server.lagFile ? await lagMark(server) : null;
  const wallMs = load.duration * 1000;
  const machineBusy = m1.busy - m0.busy;
  return {
    workload,
    rps: load.ok / load.duration,
    totalRps: load.total / load.duration,
    ok: load.ok,
    total: load.total,
    non2xx: load.non2xx,
    statusCodes: load.statusCodes,
    errors: load.errors,
    timeouts: load.timeouts,
    p50: load.latency.p50,
    p90: load.latency.p90,
    p99: load.latency.p99,
    max: load.latency.max,
    errorLatency: load.errorLatency,
    signed: load.signed,
    serverCpuPct: (serverCpu / wallMs) * 100,
    serverCpuUsPerReq: load.total ? (serverCpu * 1000) / load.total : null,
    loadCpuPct: load.loadCpuPct,
    // What other processes on the machine used meanwhile, in cores (0 = quiet, 2 = both busy).
    otherCores: Math.max(0, (machineBusy - serverCpu - load.loadCpuMs) / (m1.total - m0.total)) * cpus().length,
    lagP99: lag?.p99Ms ?? null,
    lagMax: lag?.maxMs ?? null,
    lagP50: lag?.p50Ms ?? null,
    peakRssMiB: peakRss,
    window: { from, to },
    quietBefore,
  };
}

async function rawScrypt(opts, cores, threads, duration) {
  const available = opts.pin ? cores.split(',').length : cpus().length;
  const perThread = Math.max(3, Math.round(((duration / SCRYPT_SECONDS) * Math.min(available, threads)) / threads));
  const m0 = machineCpuMs();
  const child = start(process.execPath, [join(BENCH, 'scrypt-raw.mjs'), String(threads), String(perThread)], { cpus: cores, pin: opts.pin });
  const { code } = await child.exited;
  const m1 = machineCpuMs();
  const line = child.out.trim().split('\n').at(-1);
  if (code !== 0 || !line) throw new Error(`scrypt-raw failed (${code}):\n${child.err}`);
  const r = JSON.parse(line);
  const ownMs = r.cpuMs ?? Math.min(available, threads) * r.wallS * 1000;
  return { ...r, cores, otherCores: Math.max(0, (m1.busy - m0.busy - ownMs) / (m1.total - m0.total)) * cpus().length };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};
let pick = 'median';
/**
 * The reported run: the one with the median req/s (the lower middle for an even count), or with
 * --pick quietest the one during which other processes used the least CPU.
 */
const medianRun = (runs) => (pick === 'quietest'
  ? [...runs].sort((a, b) => a.otherCores - b.otherCores)[0]
  : [...runs].sort((a, b) => a.rps - b.rps)[Math.floor((runs.length - 1) / 2)]);
/** The raw scrypt figure a login flood is compared with: the median, or the run paired with the picked login run. */
function rawFor(results, w) {
  const raws = results.scrypt[w];
  if (!raws?.length) return null;
  if (pick === 'quietest') return raws[results.runs[w].indexOf(medianRun(results.runs[w]))]?.perSecond ?? median(raws.map((x) => x.perSecond));
  return median(raws.map((x) => x.perSecond));
}

// ---- report -------------------------------------------------------------------------------

const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (i === 0 ? ':' : '-') + '-'.repeat(w) + (i === 0 ? '-' : ':')).join('|')}|`, ...rows.map(line)].join('\n');
}

const LABELS = {
  bare: 'bare node:http JSON (ceiling)',
  hawk: 'GET /v1/session/status, Hawk',
  'hawk-pre': 'GET /v1/session/status, Hawk (headers precomputed)',
  bearer: 'GET /v1/session/status, Bearer',
  devices: `GET /v1/account/devices, Bearer (${BENCH_DEVICES} devices)`,
  'attached-clients': `GET /v1/account/attached_clients, Bearer (${BENCH_DEVICES + 2} entries)`,
  login: 'POST /v1/account/login (server 1 core)',
  'login-2core': 'POST /v1/account/login (server 2 cores)',
};

/** The workloads that read lists: their ratio is also given to Bearer session status in the same run. */
const LISTS = ['devices', 'attached-clients'];

function ratioCell(r, bare, status) {
  const parts = [];
  if (bare) parts.push(`${fmt((r.rps / bare.rps) * 100, 1)}%`);
  if (status) parts.push(`${fmt((r.rps / status.rps) * 100, 1)}% of session status`);
  return parts.join('; ') || '–';
}

export function report(results) {
  const { runs, scrypt, opts } = results;
  const bare = runs.bare ? medianRun(runs.bare) : null;
  const rows = [];
  for (const w of [...WORKLOADS, ...DIAGNOSTIC].flatMap((x) => [x, `${x}${BASELINE}`])) {
    if (!runs[w]?.length) continue;
    const r = medianRun(runs[w]);
    const login = w.startsWith('login');
    const raw = login ? rawFor(results, w) : null;
    rows.push([
      w.endsWith(BASELINE) ? `${LABELS[w.slice(0, -BASELINE.length)]}${BASELINE}` : LABELS[w],
      fmt(r.rps, login ? 1 : 0),
      fmt(r.p50, login ? 0 : 2), fmt(r.p99, login ? 0 : 2),
      fmt(r.non2xx),
      login ? (raw ? `${fmt((r.rps / raw) * 100, 0)}% of raw scrypt (${fmt(raw, 1)}/s)` : '–') : ratioCell(r, bare, LISTS.includes(w) && runs.bearer?.length ? medianRun(runs.bearer) : null),
      fmt(r.serverCpuUsPerReq, 1),
      login ? '–' : `${fmt(1e6 / r.serverCpuUsPerReq)}${bare && w !== 'bare' ? ` (${fmt((bare.serverCpuUsPerReq / r.serverCpuUsPerReq) * 100, 1)}%)` : ''}`,
      w === 'bare' ? '–' : `${fmt(r.lagP99, 1)} / ${fmt(r.lagMax, 0)}`,
      fmt(r.loadCpuPct, 0),
      fmt(r.otherCores, 2),
      runs[w].map((x) => fmt(x.rps, login ? 1 : 0)).join(', '),
    ]);
  }
  const out = [];
  out.push(table(['workload', 'req/s (2xx)', 'p50 ms', 'p99 ms', 'non-2xx', 'ratio', 'server µs CPU/req', 'req/s per core by CPU cost', 'lag p99/max ms', 'loadgen CPU %', 'other load (cores)', 'all runs req/s'], rows));
  for (const w of ['login', 'login-2core']) {
    if (!runs[w]?.length) continue;
    const r = medianRun(runs[w]);
    const codes = Object.entries(r.statusCodes ?? {}).map(([c, v]) => `${c}: ${v.count}`).join(', ');
    out.push(`\n${LABELS[w]}: median run ${fmt(r.ok)} × 2xx + ${fmt(r.non2xx)} non-2xx (${codes}) in ${r.total ? fmt(r.total / r.totalRps, 0) : '–'} s;`
      + ` non-2xx answered in p50 ${fmt(r.errorLatency?.p50)} ms / p99 ${fmt(r.errorLatency?.p99)} ms;`
      + ` peak RSS ${fmt(r.peakRssMiB, 0)} MiB; scrypt workers: ${results.scryptWorkers?.[w] ?? '?'}.`);
    if (scrypt[w]?.length) out.push(`  per run (login/raw scrypt): ${runs[w].map((x, i) => `${fmt(x.rps, 2)}/${fmt(scrypt[w][i]?.perSecond, 2)} = ${fmt((x.rps / scrypt[w][i]?.perSecond) * 100, 0)}% (other load ${fmt(x.otherCores, 2)})`).join('; ')}`);
    if (scrypt[w]?.length) out.push(`  raw scrypt on cores ${scrypt[w][0].cores} (${scrypt[w][0].threads} threads): ${scrypt[w].map((s) => `${fmt(s.perSecond, 2)}/s (${fmt(s.msPerHashMedian, 0)} ms/hash, other load ${fmt(s.otherCores, 2)})`).join('; ')}`);
  }
  const mem = results.memory;
  if (mem) {
    const parts = [`${fmt(mem.idleStart, 1)} MiB idle after start (V8 heap ${fmt(mem.idleHeapUsedMiB, 1)} MiB used of ${fmt(mem.idleHeapTotalMiB, 1)}, external ${fmt(mem.idleExternalMiB, 1)} MiB)`,
      `${fmt(mem.afterPrepare, 1)} MiB idle after the account set-up (one scrypt worker alive)`];
    if (mem.afterFast !== undefined) parts.push(`${fmt(mem.afterFast, 1)} MiB after the GET runs`);
    if (mem.loginPeak !== undefined) parts.push(`peak ${fmt(mem.loginPeak, 1)} MiB during the login flood`);
    if (mem.afterLogin !== undefined) parts.push(`${fmt(mem.afterLogin, 1)} MiB 3 s after it`);
    out.push(`\nTessera RSS: ${parts.join('; ')}.`);
  }
  out.push('', 'Targets (DESIGN.md):');
  const mark = (m) => (m === null ? '   n/a    ' : m === 'borderline' ? 'BORDERLINE' : m ? '   MET    ' : ' NOT MET  ');
  for (const t of targets(results)) out.push(`  [${mark(t.met)}] ${t.what}: ${t.measured}`);
  out.push(`\nMeasured ${results.machine.date} at ${results.machine.commit ?? '?'}: ${results.machine.cpu}, ${results.machine.cores} cores, Node ${results.machine.node}.`);
  out.push(`${opts.duration} s per run, median of ${opts.runs} run(s), ${opts.connections} connections (login: ${opts.loginConnections});`
    + ` ${results.machine.pinned ? `servers on core ${opts.serverCpu}, autocannon on core ${opts.loadCpu}` : 'NOT pinned (taskset unavailable or --no-pin)'}.`
    + ` ${pick === 'quietest' ? 'Reported: the quietest run of each workload.' : 'Reported: the median run (by req/s).'}`
    + ' "other load" = CPU used by other processes on the machine during the run, in cores.'
    + ' "req/s per core by CPU cost" = 10⁶ / server µs CPU per request: what one dedicated core would sustain, less sensitive to other load than req/s (in brackets: relative to the bare server).');
  return out.join('\n');
}

export function targets(results) {
  const { runs } = results;
  const list = [];
  const bare = runs.bare?.length ? medianRun(runs.bare) : null;
  if (runs.hawk?.length && bare) {
    const r = medianRun(runs.hawk);
    const ratio = r.rps / bare.rps;
    list.push({ what: 'Hawk GET /v1/session/status ≥ 50% of the bare server\'s req/s', met: ratio >= 0.5, measured: `${fmt(ratio * 100, 1)}% (${fmt(r.rps)} vs ${fmt(bare.rps)} req/s)` });
    list.push({ what: 'Hawk GET /v1/session/status p99 ≤ 5 ms', met: r.p99 <= 5, measured: `${fmt(r.p99, 1)} ms` });
  }
  for (const w of ['login', 'login-2core']) {
    if (!runs[w]?.length) continue;
    const r = medianRun(runs[w]);
    const raw = rawFor(results, w);
    if (raw) list.push({ what: `${LABELS[w]} ≥ 90% of raw scrypt`, met: r.rps / raw >= 0.9, measured: `${fmt((r.rps / raw) * 100, 0)}% (${fmt(r.rps, 2)} vs ${fmt(raw, 2)} hashes/s)` });
    const worst = Math.max(...runs[w].map((x) => x.lagP99 ?? NaN));
    list.push({ what: `event-loop lag p99 < 20 ms during the flood (${LABELS[w]})`, met: r.lagP99 !== null ? r.lagP99 < 20 : null, measured: `${fmt(r.lagP99, 1)} ms in the median run, worst run ${fmt(worst, 1)} ms` });
  }
  if (results.memory) {
    // MB as in DESIGN.md (10⁶ bytes). Judged on the idle server as started; with a scrypt worker
    // alive (after any password check) it is reported as borderline when that crosses the line.
    const mb = (mib) => mib * 1.048576;
    const { idleStart, afterPrepare, afterLogin } = results.memory;
    const met = mb(idleStart) < 150 ? (mb(afterPrepare) < 150 ? true : 'borderline') : false;
    list.push({
      what: 'idle RSS < 150 MB', met,
      measured: `${fmt(mb(idleStart), 0)} MB after start, ${fmt(mb(afterPrepare), 0)} MB idle with a scrypt worker alive${afterLogin ? `, ${fmt(mb(afterLogin), 0)} MB 3 s after the login flood` : ''}`,
    });
  }
  return list;
}

// For other suites (bench/oauth.mjs): processes, servers, the account's emailed codes, reporting.
export { start, stop, stopAll, sleep, waitForOutput, freePort, memory, hasTaskset, startTessera, outboxCode, waitQuiet, fmt, table, machine, medianRun, log, gitDescribe };

// ---- main ---------------------------------------------------------------------------------

/** The short commit of the checkout at `root` (this one by default), and whether its server or packages differ from it. */
function gitDescribe(root = ROOT) {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).stdout?.trim();
  const dirty = spawnSync('git', ['status', '--porcelain', '--', 'apps/server', 'packages'], { cwd: root, encoding: 'utf8' }).stdout?.trim();
  return head ? `${head}${dirty ? ' (+ uncommitted changes in apps/server or packages)' : ''}` : null;
}

function machine(pinned) {
  const c = cpus();
  return {
    commit: gitDescribe(),
    cpu: c[0]?.model, cores: c.length, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version,
    loadavg: loadavg().map((x) => Math.round(x * 100) / 100), pinned, date: new Date().toISOString(),
  };
}

function log(msg) {
  process.stderr.write(`[bench] ${msg}\n`);
}

export async function runServerBench(argv = []) {
  const opts = parseOptions(argv);
  pick = opts.pick;
  if (opts.help) {
    process.stdout.write(HELP);
    return null;
  }
  for (const f of [SERVER_MAIN, CLIENT_DIST, PROTOCOL_DIST]) {
    if (!existsSync(f)) throw new Error(`${f} is missing: run \`npx tsc -b\` first`);
  }
  const pinned = opts.pin && hasTaskset();
  if (opts.pin && !pinned) log('taskset is not available: running WITHOUT CPU pinning (figures are less comparable)');
  opts.pin = pinned;
  const want = new Set(opts.workloads);
  const tmp = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  scratch = opts.keep ? null : tmp;
  const dataDir = join(tmp, 'data');
  const results = { machine: machine(pinned), opts, runs: {}, scrypt: {}, scryptWorkers: {}, memory: null, profile: null };
  log(`${results.machine.cpu}, ${results.machine.cores} cores, Node ${process.version}, load average ${results.machine.loadavg.join(' ')}; commit ${results.machine.commit}; temporary folder ${tmp}`);

  const push = (w, r) => {
    (results.runs[w] ??= []).push(r);
    const extra = w.startsWith('login') ? `, non-2xx ${r.non2xx}, lag p99 ${fmt(r.lagP99, 1)} ms, peak RSS ${fmt(r.peakRssMiB, 0)} MiB` : `, non-2xx ${r.non2xx}`;
    log(`  ${w}: ${fmt(r.rps, w.startsWith('login') ? 2 : 0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms${extra}, server CPU ${fmt(r.serverCpuPct, 0)}%, loadgen CPU ${fmt(r.loadCpuPct, 0)}%, other load ${fmt(r.otherCores, 2)} cores`);
  };

  try {
    const needTessera = ['hawk', 'hawk-pre', 'bearer', ...LISTS, 'login'].some((w) => want.has(w)) || want.has('login-2core') || opts.profile;
    const bare = want.has('bare') ? await startBare(opts) : null;
    let tessera = null;
    let account = null;
    if (needTessera) {
      tessera = await startTessera(opts, { name: 'core0', dataDir, cores: opts.serverCpu });
      await sleep(1000);
      const idleStart = memory(tessera.pid).rssMiB;
      const idleLine = await lagMark(tessera);
      log(`Tessera up at ${tessera.url} (pid ${tessera.pid}), RSS ${fmt(idleStart, 1)} MiB; preparing the account`);
      account = await prepareAccount(tessera, dataDir);
      await sleep(1000);
      results.memory = {
        idleStart, afterPrepare: memory(tessera.pid).rssMiB,
        idleHeapUsedMiB: idleLine ? idleLine.heapUsedBytes / 2 ** 20 : null,
        idleHeapTotalMiB: idleLine ? idleLine.heapTotalBytes / 2 ** 20 : null,
        idleExternalMiB: idleLine ? idleLine.externalBytes / 2 ** 20 : null,
      };
      log(`account ${account.email} ready; RSS ${fmt(results.memory.afterPrepare, 1)} MiB`);
    }
    // The baseline: another checkout's server, same settings and pinning, its own data and account.
    let baseline = null;
    let baselineAccount = null;
    if (opts.baseline && tessera) {
      if (!existsSync(join(opts.baseline, 'apps/server/dist/main.js'))) throw new Error(`${opts.baseline}/apps/server/dist/main.js is missing: build that checkout first`);
      const baseData = join(tmp, 'baseline');
      baseline = await startTessera(opts, { name: 'baseline', dataDir: baseData, cores: opts.serverCpu, root: opts.baseline, env: opts.baselineEnv });
      baselineAccount = await prepareAccount(baseline, baseData);
      log(`baseline ${opts.baseline} up at ${baseline.url} (pid ${baseline.pid})`);
    }
    const serverFor = (w) => (w === 'bare' ? bare : w.endsWith(BASELINE) ? baseline : tessera);
    const accountFor = (w) => (w.endsWith(BASELINE) ? baselineAccount : account);

    // Fast workloads: warm-up, then round-robin so that noise from other processes spreads evenly.
    const fast = ['bare', 'hawk', 'bearer', 'hawk-pre', ...LISTS].filter((w) => want.has(w))
      .flatMap((w) => (baseline && (w === 'hawk' || w === 'bearer') ? [w, `${w}${BASELINE}`] : [w]));
    if (opts.warmup > 0) {
      for (const w of fast) {
        log(`warm-up ${w} (${opts.warmup} s)`);
        await measure(w, serverFor(w), accountFor(w), opts, opts.warmup);
      }
    }
    for (let i = 1; i <= opts.runs && fast.length; i++) {
      log(`round ${i}/${opts.runs}`);
      for (const w of fast) push(w, await measure(w, serverFor(w), accountFor(w), opts));
    }
    if (tessera && results.memory) results.memory.afterFast = memory(tessera.pid).rssMiB;

    // Login floods, each run beside a raw scrypt run under the same pinning (servers idle meanwhile).
    const flood = async (w, server, cores, who = account) => {
      results.scryptWorkers[w] = opts.pin ? cores.split(',').length : cpus().length;
      for (let i = 1; i <= opts.runs; i++) {
        log(`${w} ${i}/${opts.runs}: raw scrypt on cores ${cores}, then the login flood`);
        await waitQuiet(opts);
        const raw = await rawScrypt(opts, cores, 2, opts.duration);
        (results.scrypt[w] ??= []).push(raw);
        log(`  raw scrypt: ${fmt(raw.perSecond, 2)} hashes/s (${raw.msPerHashMedian} ms/hash), other load ${fmt(raw.otherCores, 2)} cores`);
        push(w, await measure(w, server, who, opts));
        await sleep(1500); // let the queue drain before the next raw scrypt run
      }
    };
    if (want.has('login')) {
      await flood('login', tessera, opts.serverCpu);
      if (baseline) await flood(`login${BASELINE}`, baseline, opts.serverCpu, baselineAccount);
      results.memory.loginPeak = Math.max(...results.runs.login.map((r) => r.peakRssMiB));
      await sleep(3000);
      results.memory.afterLogin = memory(tessera.pid).rssMiB;
    }
    if (tessera) await stop(tessera.child);
    if (baseline) await stop(baseline.child);

    if (want.has('login-2core')) {
      const cores = `${opts.serverCpu},${opts.loadCpu}`;
      const wide = await startTessera(opts, { name: 'cores01', dataDir, cores });
      await measure('bearer', wide, account, opts, 1); // proves the session still works; warms up
      await flood('login-2core', wide, cores);
      if (results.memory && !results.memory.loginPeak) results.memory.loginPeak = Math.max(...results.runs['login-2core'].map((r) => r.peakRssMiB));
      if (results.memory && !results.memory.afterLogin) {
        await sleep(3000);
        results.memory.afterLogin = memory(wide.pid).rssMiB;
      }
      await stop(wide.child);
    }

    if (opts.profile) {
      // One server started with --cpu-prof; each workload's run is cut out of the profile by time.
      const profDir = join(tmp, 'profile');
      const prof = await startTessera(opts, { name: 'profile', dataDir, cores: opts.serverCpu, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profDir}`] });
      const windows = [];
      for (const w of opts.profileWorkloads) {
        log(`profiling ${w} (${opts.duration} s after a ${opts.warmup} s warm-up)`);
        if (opts.warmup > 0) await measure(w, prof, account, opts, opts.warmup);
        windows.push([w, await measure(w, prof, account, opts)]);
      }
      await stop(prof.child, 30_000);
      // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread (the others
      // are the scrypt workers).
      const files = existsSync(profDir) ? readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')) : [];
      const file = files.find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)) ?? files[0];
      if (!file) throw new Error(`no .cpuprofile was written in ${profDir}`);
      const profile = JSON.parse(readFileSync(join(profDir, file), 'utf8'));
      results.profile = { file: join(profDir, file), otherFiles: files.filter((f) => f !== file), runs: {} };
      for (const [w, run] of windows) {
        let summary = summarize(profile, 15, run.window);
        if (summary.busyMs === 0) {
          log('no profile samples fell in the run\'s time window (clock mismatch?): summarising the whole profile');
          summary = summarize(profile, 15);
        }
        results.profile.runs[w] = { rpsWhileProfiling: run.rps, serverCpuUsPerReq: run.serverCpuUsPerReq, summary };
      }
    }
    if (bare) await stop(bare.child);

    const text = report(results);
    process.stdout.write(`\n${text}\n`);
    if (results.profile) {
      for (const [w, p] of Object.entries(results.profile.runs)) {
        process.stdout.write(`\nCPU profile, ${LABELS[w]} (${fmt(p.rpsWhileProfiling)} req/s and ${fmt(p.serverCpuUsPerReq, 1)} µs CPU/req while profiling):\n`);
        process.stdout.write(formatSummary(p.summary) + '\n');
      }
      process.stdout.write(`\nprofile: ${opts.keep ? results.profile.file : '(use --keep to keep the .cpuprofile)'}\n`);
    }
    if (opts.json) {
      writeFileSync(opts.json, JSON.stringify({ ...results, targets: targets(results) }, null, 2) + '\n');
      log(`measurements written to ${opts.json}`);
    }
    if (opts.check && targets(results).some((t) => t.met === false)) {
      const err = new Error('some targets are not met (--check)');
      err.targetsMissed = true;
      throw err;
    }
    return results;
  } finally {
    await stopAll();
    if (opts.keep) log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Runs `bench(argv)` when `moduleUrl` is the script node was started with: exit 0 when it is done;
 * otherwise a missed target's message (or the failure's stack) and exit 1 once every server stopped.
 */
export function runIfMain(moduleUrl, name, bench) {
  if (moduleUrl !== pathToFileURL(process.argv[1] ?? '').href) return;
  bench(process.argv.slice(2)).then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(err?.targetsMissed ? `${err.message}\n` : `${name} failed: ${err?.stack ?? err}\n`);
      void stopAll().finally(() => process.exit(1));
    },
  );
}

runIfMain(import.meta.url, 'bench/server.mjs', runServerBench);
