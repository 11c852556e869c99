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
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { formatSummary, summarize } from './cpuprofile-summary.mjs';
import { measureSpec, rawScrypt, waitQuiet } from './lib/measure.mjs';
import { BASELINE, HELP, parseOptions } from './lib/options.mjs';
import {
  freePort, gitDescribe, hasTaskset, log, machine, memory, removeOnInterrupt, sleep, start, stop, stopAll, waitForOutput,
} from './lib/processes.mjs';
import { fmt, LABELS, LISTS, medianRun, pickRuns, report, table, targets } from './lib/report.mjs';
import { CLIENT_DIST, lagMark, outboxCode, prepareAccount, PROTOCOL_DIST, SERVER_MAIN, startBare, startTessera } from './lib/servers.mjs';

// The pieces live in bench/lib/: options.mjs (workloads, --help), processes.mjs (children, /proc),
// servers.mjs (the servers, the account), measure.mjs (one timed run), report.mjs (the report).
export { WORKLOADS, RUN_OPTIONS, runSettings, parseOptions } from './lib/options.mjs';
export { measureSpec, report, targets };

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

/** One timed run against a server: throughput, latency, CPU accounting, lag, peak RSS. */
async function measure(workload, server, account, opts, duration = opts.duration) {
  return measureSpec(workload, server, loadSpec(workload.replace(BASELINE, ''), server, account, opts, duration), opts, duration);
}

// For other suites (bench/oauth.mjs): processes, servers, the account's emailed codes, reporting.
export { start, stop, stopAll, sleep, waitForOutput, freePort, memory, hasTaskset, startTessera, outboxCode, waitQuiet, fmt, table, machine, medianRun, log, gitDescribe };

export async function runServerBench(argv = []) {
  const opts = parseOptions(argv);
  pickRuns(opts.pick);
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
  removeOnInterrupt(opts.keep ? null : tmp);
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
