#!/usr/bin/env node
// Summarises a V8 .cpuprofile (node --cpu-prof): self time per function and per package.
//
//   node bench/cpuprofile-summary.mjs <file.cpuprofile> [top=10]
//
// Self time is the sum of the sampling intervals spent in a function itself (not its callees).
// Percentages are of the busy time: (idle) is left out, (garbage collector) and (program) are kept.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

/** Where a script URL lives: `fastify`, `node:internal`, `apps/server`, … */
export function packageOf(url) {
  if (!url) return '(native/v8)';
  if (url.startsWith('node:')) return url.startsWith('node:internal') ? 'node:internal' : url;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const m = /\/(apps\/[^/]+|packages\/[^/]+|bench)\//.exec(url);
  return m ? m[1] : url;
}

function shortUrl(url) {
  if (!url) return '';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const m = /\/((?:apps|packages|bench)\/.*)$/.exec(url);
  return m ? m[1] : url.replace(/^file:\/\//, '');
}

/**
 * `window` ({ from, to } in µs of CLOCK_MONOTONIC, the clock of the profile's timestamps) keeps only
 * the samples taken in it — e.g. one load run, without start-up and idle time around it.
 */
export function summarize(profile, top = 10, window = null) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map();
  const { samples, timeDeltas } = profile;
  let t = profile.startTime;
  for (let i = 0; i < samples.length; i++) {
    t += timeDeltas[i];
    if (window && (t < window.from || t > window.to)) continue;
    // timeDeltas[i] is the time before sample i; attribute the interval after it (next delta).
    const dt = timeDeltas[i + 1] ?? 0;
    selfUs.set(samples[i], (selfUs.get(samples[i]) ?? 0) + dt);
  }
  const byFunction = new Map();
  const byPackage = new Map();
  let busy = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const { callFrame } = nodes.get(id);
    const name = callFrame.functionName || '(anonymous)';
    if (name === '(idle)') { idle += us; continue; }
    busy += us;
    const key = `${name} ${shortUrl(callFrame.url)}${callFrame.url ? `:${callFrame.lineNumber + 1}` : ''}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    const pkg = name.startsWith('(') ? name : packageOf(callFrame.url);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }
  const rank = (map) => [...map].sort((a, b) => b[1] - a[1]).map(([what, us]) => ({
    what, selfMs: Math.round(us / 100) / 10, pctOfBusy: Math.round((us / busy) * 1000) / 10,
  }));
  return {
    window: window ? { from: window.from, to: window.to, profileStart: profile.startTime, profileEnd: profile.endTime } : null,
    busyMs: Math.round(busy / 1000), idleMs: Math.round(idle / 1000),
    functions: rank(byFunction).slice(0, top), packages: rank(byPackage).slice(0, top),
  };
}

export function formatSummary(s) {
  const lines = [`busy ${s.busyMs} ms, idle ${s.idleMs} ms`, '', 'top self time by function:'];
  s.functions.forEach((f, i) => lines.push(`${String(i + 1).padStart(3)}. ${f.pctOfBusy.toFixed(1).padStart(5)}%  ${String(f.selfMs).padStart(8)} ms  ${f.what}`));
  lines.push('', 'self time by package:');
  s.packages.forEach((p) => lines.push(`     ${p.pctOfBusy.toFixed(1).padStart(5)}%  ${String(p.selfMs).padStart(8)} ms  ${p.what}`));
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    process.stderr.write('usage: node bench/cpuprofile-summary.mjs <file.cpuprofile> [top] [fromUs toUs]\n');
    process.exit(2);
  }
  process.stdout.write(formatSummary(summarize(JSON.parse(readFileSync(file, 'utf8')), Number(process.argv[3] ?? 10),
    process.argv[5] ? { from: Number(process.argv[4]), to: Number(process.argv[5]) } : null)) + '\n');
}
