import { BASELINE, DIAGNOSTIC, WORKLOADS } from './options.mjs';
import { BENCH_DEVICES } from './servers.mjs';

// Which run is reported, and the report: the table, the login floods' details, memory, and the
// targets of DESIGN.md.

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)] : NaN;
};
let pick = 'median';

/** --pick: the median run (by req/s) or the quietest one. */
export function pickRuns(how) {
  pick = how;
}
/**
 * The reported run: the one with the median req/s (the lower middle for an even count), or with
 * --pick quietest the one during which other processes used the least CPU.
 */
export const medianRun = (runs) => (pick === 'quietest'
  ? [...runs].sort((a, b) => a.otherCores - b.otherCores)[0]
  : [...runs].sort((a, b) => a.rps - b.rps)[Math.floor((runs.length - 1) / 2)]);
/** The raw scrypt figure a login flood is compared with: the median, or the run paired with the picked login run. */
function rawFor(results, w) {
  const raws = results.scrypt[w];
  if (!raws?.length) return null;
  if (pick === 'quietest') return raws[results.runs[w].indexOf(medianRun(results.runs[w]))]?.perSecond ?? median(raws.map((x) => x.perSecond));
  return median(raws.map((x) => x.perSecond));
}

export const fmt = (n, digits = 0) => (n === null || n === undefined || Number.isNaN(n) ? '–' : n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }));

export function table(headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join(' | ')} |`;
  return [line(headers), `|${widths.map((w, i) => (i === 0 ? ':' : '-') + '-'.repeat(w) + (i === 0 ? '-' : ':')).join('|')}|`, ...rows.map(line)].join('\n');
}

export const LABELS = {
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
export const LISTS = ['devices', 'attached-clients'];

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
