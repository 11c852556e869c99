#!/usr/bin/env node
// The load generator: one autocannon run in this process, which bench/server.mjs starts pinned to
// the load core (`taskset -c 1`). The run is described by a JSON argument; the result is printed as
// one JSON line on stdout. Hawk headers are computed here, per request, with a fresh nonce each —
// that is CPU on the load core, which is why it is not the server's core.
//
//   node bench/load.mjs '{"url":"http://127.0.0.1:9000","path":"/","duration":10,"connections":50}'
//
// Fields: url, path, method, duration (s), connections, headers, body (string),
// hawk: { publicUrl, sessionToken, precompute? } — sign every request with the session token's
// Hawk key (precompute: N headers made before the run instead of during it — a diagnostic),
// trackErrors: true — also keep the latencies of non-2xx answers (for the login flood's 503s).
import autocannon from 'autocannon';
import { deriveTokenKeys, fromHex, hawkHeader } from '../packages/protocol/dist/index.js';

const spec = JSON.parse(process.argv[2] ?? '{}');
const method = spec.method ?? 'GET';
const path = spec.path ?? '/';

const request = { method, path, headers: { ...(spec.headers ?? {}) }, ...(spec.body !== undefined ? { body: spec.body } : {}) };

let signed = 0;
if (spec.hawk) {
  // Derived once (a client caches them); the header — ts, nonce, MAC — is new for every request.
  const { tokenId, authKey } = deriveTokenKeys('sessionToken', spec.hawk.sessionToken);
  const credentials = { id: tokenId, key: fromHex(authKey) };
  // Host and port are those of PUBLIC_URL: the server checks the MAC against them.
  const url = new URL(path, spec.hawk.publicUrl);
  if (spec.hawk.precompute) {
    // Diagnostic variant: the headers (each with its own nonce) are computed before the run, so the
    // load core does no HMAC work while it runs. Past the pool's end, nonces would repeat (401s).
    const pool = Array.from({ length: spec.hawk.precompute }, () => hawkHeader({ method, url, credentials }));
    request.setupRequest = (req) => {
      req.headers = { ...req.headers, authorization: pool[signed++ % pool.length] };
      return req;
    };
  } else {
    request.setupRequest = (req) => {
      signed++;
      req.headers = { ...req.headers, authorization: hawkHeader({ method, url, credentials }) };
      return req;
    };
  }
}

const errorLatencies = [];
const cpu0 = process.cpuUsage(); // after any precomputation
const t0 = process.hrtime.bigint();

const instance = autocannon({
  url: spec.url,
  connections: spec.connections ?? 50,
  duration: spec.duration ?? 10,
  pipelining: 1,
  timeout: spec.timeout ?? 20,
  requests: [request],
});
// autocannon's own histogram keeps whole milliseconds; these keep the exact times (2xx only).
let okTimes = new Float64Array(1 << 16);
let okCount = 0;
instance.on('response', (_client, status, _bytes, ms) => {
  if (status >= 200 && status < 300) {
    if (okCount === okTimes.length) {
      const bigger = new Float64Array(okTimes.length * 2);
      bigger.set(okTimes);
      okTimes = bigger;
    }
    okTimes[okCount++] = ms;
  } else if (spec.trackErrors) {
    errorLatencies.push(ms);
  }
});
const result = await instance;

const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
const cpu = process.cpuUsage(cpu0);
/** Nearest-rank percentile of an ascending array. */
const rank = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] : null);
const pct = (arr, p) => rank([...arr].sort((a, b) => a - b), p);
const ok = okTimes.subarray(0, okCount).sort();
const r2 = (x) => (x === null ? null : Math.round(x * 100) / 100);

process.stdout.write(JSON.stringify({
  duration: result.duration,
  total: result.requests.total,
  ok: result['2xx'],
  non2xx: result.non2xx,
  statusCodes: result.statusCodeStats,
  errors: result.errors,
  timeouts: result.timeouts,
  // Latencies of 2xx answers, ms, from request written to response parsed on the load generator.
  latency: { p50: r2(rank(ok, 50)), p90: r2(rank(ok, 90)), p99: r2(rank(ok, 99)), max: r2(rank(ok, 100)), count: okCount },
  autocannonLatency: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
  errorLatency: spec.trackErrors ? { count: errorLatencies.length, p50: pct(errorLatencies, 50), p99: pct(errorLatencies, 99) } : undefined,
  signed,
  loadCpuMs: (cpu.user + cpu.system) / 1000,
  loadCpuPct: ((cpu.user + cpu.system) / 1000 / wallMs) * 100,
}) + '\n');
