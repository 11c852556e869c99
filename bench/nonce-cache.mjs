#!/usr/bin/env node
// The in-process Hawk nonce cache (apps/server/src/http/hawk.ts, issue 9 hole 7) on its own, fed
// at a steady rate of simulated time: one token signing every request with ts = now, as the hawk
// workload of bench/server.mjs does. For each rate it reports the time per add (real time), the
// entries held, the bytes of the tables (the typed arrays of its slices, read from the instance)
// and how many adds were refused (503/201: the cache was full). `npx tsc -b` first.
//
//   node bench/nonce-cache.mjs [--size 2000000] [--rates 5000,10000,20000,28000,40000] [--seconds 200] [--quick]
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const HAWK = join(ROOT, 'apps/server/dist/http/hawk.js');
if (!existsSync(HAWK)) throw new Error(`${HAWK} is missing: run \`npx tsc -b\` first`);
const { NonceCache } = await import(pathToFileURL(HAWK).href);

const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '2000000' },
    rates: { type: 'string', default: '5000,10000,20000,28000,40000' },
    seconds: { type: 'string', default: '200' },
    skew: { type: 'string', default: '60' },
    quick: { type: 'boolean', default: false },
  },
});
const size = Number(values.size);
const skewSeconds = Number(values.skew);
const seconds = values.quick ? 80 : Number(values.seconds);
const mib = (bytes) => (bytes / 2 ** 20).toFixed(1);
// The cache's tables: its slices' typed arrays (private fields, read here for the figure only).
const tableBytes = (cache) => cache.slices.reduce((n, slice) => n + slice.slots.byteLength, 0);

process.stdout.write(`nonce cache: HAWK_NONCE_CACHE_SIZE ${size}, skew ${skewSeconds} s, ${seconds} s of simulated time per rate, Node ${process.version}\n`);
process.stdout.write('| rate (req/s) | ns per add | entries held (max) | bytes per entry | table memory (max MiB) | refused (503/201) |\n|--:|--:|--:|--:|--:|--:|\n');
for (const rate of values.rates.split(',').map(Number)) {
  const cache = new NonceCache({ size, perToken: Number.MAX_SAFE_INTEGER, skewSeconds });
  const start = 1_700_000_000_000;
  const total = rate * seconds;
  let refused = 0;
  let maxEntries = 0;
  let maxBytes = 0;
  let busyNs = 0n;
  const batch = Math.max(1, Math.floor(rate / 10)); // a tenth of a second at a time
  for (let i = 0; i < total; i += batch) {
    const t0 = process.hrtime.bigint();
    for (let k = i; k < Math.min(total, i + batch); k++) {
      const now = start + Math.floor((k * 1000) / rate);
      const ts = Math.floor(now / 1000);
      if (cache.add('0123456789abcdef', `n${k.toString(36)}`, (ts + skewSeconds + 1) * 1000, now) !== true) refused++;
    }
    busyNs += process.hrtime.bigint() - t0;
    if (cache.size > maxEntries) maxEntries = cache.size;
    maxBytes = Math.max(maxBytes, tableBytes(cache));
  }
  const perEntry = maxEntries ? maxBytes / maxEntries : 0;
  process.stdout.write(`| ${rate.toLocaleString('en')} | ${(Number(busyNs) / total).toFixed(0)} | ${maxEntries.toLocaleString('en')} | ${perEntry.toFixed(1)} | ${mib(maxBytes)} | ${refused.toLocaleString('en')} |\n`);
}
