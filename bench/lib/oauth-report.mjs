import { fmt, table } from './report.mjs';

// bench/oauth.mjs's servers and workloads by name, and what it makes of the runs: each server's
// median figures and ratios to oidc-provider, the targets of issue 14, the report.

/** Tessera on its default store (an SQLite file) and on its fastest (SQLite in memory), and the opponent. */
export const TESSERAS = {
  tessera: 'Tessera (SQLite file)', 'tessera-memory': 'Tessera (SQLite :memory:)', 'tessera-uncached': 'Tessera (SQLite file, OAUTH_TOKEN_CACHE_MS=0)',
};
export const OPPONENT = 'oidc-provider';
/** --baseline's Tessera: another checkout's server, with the settings of `tessera` (the file store). */
export const BASELINE = 'tessera-baseline';
TESSERAS[BASELINE] = `${TESSERAS.tessera} @ baseline`;
/** The targets of issue 14: Tessera's req/s over oidc-provider's in the same run. */
export const TARGETS = { token: 2, introspect: 3 };
export const LABELS = {
  token: 'POST /token, refresh grant (with id_token)',
  'token-noid': 'POST /token, refresh grant, scope=profile (no id_token)',
  introspect: 'POST /introspect, live access token',
};

const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/** Per workload: each server's median figures, and per Tessera the median of the per-round ratios to oidc-provider. */
export function summarize(results) {
  const out = {};
  const stats = (rs) => ({
    rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)),
    cpuUs: median(rs.map((r) => r.serverCpuUsPerReq)), non2xx: rs.reduce((a, r) => a + r.non2xx, 0), runs: rs.map((r) => r.rps),
    otherCores: median(rs.map((r) => r.otherCores)),
  });
  for (const w of results.opts.workloads) {
    const o = results.runs[w]?.[OPPONENT] ?? [];
    if (!o.length) continue;
    out[w] = { [OPPONENT]: stats(o) };
    for (const name of [...results.opts.tesseras, ...(results.opts.baseline ? [BASELINE] : [])]) {
      const t = results.runs[w]?.[name] ?? [];
      if (!t.length) continue;
      const ratios = t.map((r, i) => (o[i] ? r.rps / o[i].rps : NaN));
      const cpuRatios = t.map((r, i) => (o[i] ? o[i].serverCpuUsPerReq / r.serverCpuUsPerReq : NaN));
      out[w][name] = { ...stats(t), ratio: median(ratios), ratios, cpuRatio: median(cpuRatios) };
    }
    // This checkout (file store) over the baseline, round by round, as against oidc-provider.
    const t = results.runs[w]?.tessera ?? [];
    const b = results.runs[w]?.[BASELINE] ?? [];
    if (out[w].tessera && b.length) {
      const ratios = t.map((r, i) => (b[i] ? r.rps / b[i].rps : NaN));
      const cpuRatios = t.map((r, i) => (b[i] ? b[i].serverCpuUsPerReq / r.serverCpuUsPerReq : NaN));
      out[w].tessera.vsBaseline = { ratio: median(ratios), ratios, cpuRatio: median(cpuRatios) };
    }
  }
  return out;
}

export function targets(summary, tesseras) {
  return Object.entries(TARGETS).filter(([w]) => summary[w]).flatMap(([w, want]) => tesseras.filter((n) => summary[w][n]).map((n) => ({
    workload: w, server: n, want, ratio: summary[w][n].ratio, cpuRatio: summary[w][n].cpuRatio, met: summary[w][n].ratio >= want,
  })));
}

export function report(results, summary) {
  const rows = [];
  const { tesseras } = results.opts;
  const servers = [...tesseras, ...(results.opts.baseline ? [BASELINE] : []), OPPONENT];
  for (const [w, s] of Object.entries(summary)) {
    for (const name of servers) {
      const r = s[name];
      if (!r) continue;
      rows.push([`${LABELS[w]}: ${TESSERAS[name] ?? `oidc-provider ${results.oidcProviderVersion}`}`, fmt(r.rps), fmt(r.p50, 2), fmt(r.p99, 2), fmt(r.non2xx), fmt(r.cpuUs, 1),
        name === OPPONENT ? '1×' : `**${fmt(r.ratio, 2)}×** (by CPU ${fmt(r.cpuRatio, 2)}×)`, r.runs.map((x) => fmt(x)).join(' · '), fmt(r.otherCores, 2)]);
    }
  }
  const m = results.machine;
  const rounds = (x) => x.ratios.map((v) => fmt(v, 2)).join(', ');
  const lines = [
    table(['workload: server', 'req/s (2xx)', 'p50 ms', 'p99 ms', 'non-2xx', 'server µs CPU/req', 'vs oidc-provider', 'all runs req/s', 'other load (cores)'], rows),
    '',
    '| target (issue 14) | Tessera store | req/s ratio (median of the rounds; each round) | by server CPU per request | met? |',
    '|---|---|--:|--:|---|',
    ...targets(summary, tesseras).map((t) => `| ${t.workload === 'token' ? 'token issuance (refresh grant)' : 'introspection'} ≥ ${t.want}× | ${TESSERAS[t.server]} | ${fmt(t.ratio, 2)}× (${rounds(summary[t.workload][t.server])}) | ${fmt(t.cpuRatio, 2)}× | ${t.met ? '**yes**' : '**no**'} |`),
    ...(summary.token?.[OPPONENT] && results.rsaSignUs ? [`| token issuance: the ceiling by CPU | any server | – | ${fmt(summary.token[OPPONENT].cpuUs / results.rsaSignUs, 2)}× | what a refresh that did nothing but sign its RS256 id_token would reach: one signature alone costs ${fmt(results.rsaSignUs, 1)} µs CPU on the servers' core, oidc-provider's whole refresh ${fmt(summary.token[OPPONENT].cpuUs, 1)} µs |`] : []),
    ...(summary['token-noid'] ? tesseras.filter((n) => summary['token-noid'][n]).map((n) => `| (no target) refresh grant without id_token | ${TESSERAS[n]} | ${fmt(summary['token-noid'][n].ratio, 2)}× (${rounds(summary['token-noid'][n])}) | ${fmt(summary['token-noid'][n].cpuRatio, 2)}× | – |`) : []),
    ...(results.opts.baseline ? [
      '',
      `| before/after: this checkout (${results.machine.commit ?? '?'}) over the baseline (${results.baselineCommit ?? '?'}, ${results.opts.baseline}), SQLite file | this checkout req/s | baseline req/s | req/s ratio (median of the rounds; each round) | by server CPU per request |`,
      '|---|--:|--:|--:|--:|',
      ...Object.entries(summary).filter(([, s]) => s.tessera?.vsBaseline).map(([w, s]) => `| ${LABELS[w]} | ${fmt(s.tessera.rps)} | ${fmt(s[BASELINE].rps)} | **${fmt(s.tessera.vsBaseline.ratio, 2)}×** (${s.tessera.vsBaseline.ratios.map((v) => fmt(v, 2)).join(', ')}) | ${fmt(s.tessera.vsBaseline.cpuRatio, 2)}× |`),
    ] : []),
    '',
    `Measured ${m.date} at ${m.commit ?? '?'}: ${m.cpu}, ${m.cores} cores, Node ${m.node}; oidc-provider ${results.oidcProviderVersion}.`
      + ` ${results.opts.duration} s per run, ${results.opts.runs} round(s), ${results.opts.connections} connections, warm-up ${results.opts.warmup} s;`
      + ` ${m.pinned ? `every server on core ${results.opts.serverCpu} (idle while another runs), autocannon on core ${results.opts.loadCpu}` : 'NOT pinned'}.`
      + ` Load average ${m.loadavg.join(' / ')} before the run, ${results.loadavgAfter.join(' / ')} after.`
      + ` Tessera: rate limiting ${results.opts.rateLimitOff ? 'OFF (--rate-limit-off)' : 'on (oauthToken and oauthIntrospect raised to 10⁹ per 15 minutes)'}.`
      + (results.opts.baseline ? ` Baseline: ${results.opts.baseline}/apps/server/dist/main.js at ${results.baselineCommit ?? '?'}, the file store's settings; "> 1×" means this checkout is faster.` : ''),
  ];
  return lines.join('\n');
}
