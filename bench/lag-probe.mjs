// Event-loop lag probe, loaded into the server under test before its own code:
//
//   LAG_PROBE_FILE=/tmp/lag.jsonl node --import ./bench/lag-probe.mjs apps/server/dist/main.js
//
// It samples the main thread's event-loop delay with perf_hooks.monitorEventLoopDelay and appends
// one JSON line of percentiles (milliseconds) to LAG_PROBE_FILE:
//   - on SIGUSR2 (reason "mark"), then starts a fresh histogram — the benchmark sends one signal
//     before a load run and one after, so the second line covers exactly that run;
//   - every LAG_PROBE_INTERVAL_MS if set (reason "interval", cumulative since the last mark);
//   - on SIGTERM / exit (reason "exit").
// The histogram records the time between ticks of a LAG_PROBE_RESOLUTION_MS timer (default 2 ms);
// the lag reported is that minus the resolution (as @fastify/under-pressure does), never below 0.
// Each line also carries the process memory. Without LAG_PROBE_FILE the probe does nothing.
import { appendFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.LAG_PROBE_FILE;

if (file) {
  const resolution = Number(process.env.LAG_PROBE_RESOLUTION_MS ?? 2);
  const histogram = monitorEventLoopDelay({ resolution });
  histogram.enable();
  let seq = 0;
  let since = Date.now();
  let written = false;

  const lag = (ns) => (histogram.count ? Math.max(0, Math.round((ns / 1e6 - resolution) * 1000) / 1000) : null);
  const write = (reason) => {
    const mem = process.memoryUsage();
    const line = {
      seq: seq++, reason, pid: process.pid, resolutionMs: resolution, from: since, to: Date.now(),
      samples: histogram.count,
      meanMs: lag(histogram.mean), p50Ms: lag(histogram.percentile(50)), p90Ms: lag(histogram.percentile(90)),
      p99Ms: lag(histogram.percentile(99)), maxMs: lag(histogram.max),
      rssBytes: mem.rss, heapUsedBytes: mem.heapUsed, heapTotalBytes: mem.heapTotal, externalBytes: mem.external,
      arrayBuffersBytes: mem.arrayBuffers,
    };
    try {
      appendFileSync(file, JSON.stringify(line) + '\n');
    } catch {
      // The benchmark's temporary folder may already be gone; nothing to report to.
    }
  };

  process.on('SIGUSR2', () => {
    write('mark');
    histogram.reset();
    since = Date.now();
  });
  const interval = Number(process.env.LAG_PROBE_INTERVAL_MS ?? 0);
  if (interval > 0) setInterval(() => write('interval'), interval).unref();
  const final = () => {
    if (written) return;
    written = true;
    write('exit');
  };
  // Listening to SIGTERM does not stop the server's own handler from running (it shuts down).
  process.on('SIGTERM', final);
  process.on('exit', final);
}
