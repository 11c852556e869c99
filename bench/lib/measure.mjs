import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { log, machineCpuMs, memory, processCpuMs, sleep, start } from './processes.mjs';
import { fmt } from './report.mjs';
import { lagMark } from './servers.mjs';

// One timed run: the load generator (bench/load.mjs) on its core, the server's CPU, lag and memory
// around it, the rest of the machine's load; and the raw scrypt runs a login flood is compared with.

const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..');
/** Protocol server stretch, for sizing the raw scrypt runs. */
const SCRYPT_SECONDS = 0.135;

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
export async function waitQuiet(opts) {
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

export async function rawScrypt(opts, cores, threads, duration) {
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
