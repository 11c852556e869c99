#!/usr/bin/env node
// What raw scrypt sustains here: THREADS worker threads each run COUNT scryptSync calls with the
// protocol's server-stretch parameters (N=65536, r=8, p=1, 32 bytes, 64 MiB each), back to back.
// bench/server.mjs runs it under the same CPU pinning as the server it compares with.
//
//   node bench/scrypt-raw.mjs [threads=2] [countPerThread=20]
//
// Prints one JSON line: hashes, wall seconds, hashes per second, ms per hash per thread.
import { Worker } from 'node:worker_threads';

const threads = Number(process.argv[2] ?? 2);
const count = Number(process.argv[3] ?? 20);

const SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const { scryptSync, randomBytes } = require('node:crypto');
const N = 65536, r = 8, p = 1;
const times = [];
// One untimed call first: the first allocation of the 64 MiB block is not steady state.
scryptSync(randomBytes(32), randomBytes(32), 32, { N, r, p, maxmem: 256 * N * r });
parentPort.postMessage({ ready: true });
parentPort.once('message', () => {
  for (let i = 0; i < workerData.count; i++) {
    const t = process.hrtime.bigint();
    scryptSync(randomBytes(32), randomBytes(32), 32, { N, r, p, maxmem: 256 * N * r });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  parentPort.postMessage({ done: true, times });
});
`;

const workers = Array.from({ length: threads }, () => new Worker(SOURCE, { eval: true, workerData: { count } }));
await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))));
const cpu0 = process.cpuUsage();
const t0 = process.hrtime.bigint();
const results = await Promise.all(workers.map((w) => new Promise((resolve, reject) => {
  w.once('message', (m) => resolve(m.times));
  w.once('error', reject);
  w.postMessage('go');
})));
const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
const cpu = process.cpuUsage(cpu0);
await Promise.all(workers.map((w) => w.terminate()));

const all = results.flat().sort((a, b) => a - b);
process.stdout.write(JSON.stringify({
  threads, hashes: all.length, wallS: Math.round(wallS * 1000) / 1000,
  perSecond: Math.round((all.length / wallS) * 100) / 100,
  cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  msPerHashMedian: Math.round(all[Math.floor(all.length / 2)] * 10) / 10,
}) + '\n');
