import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

// The server suite's workloads and options (bench/server.mjs); RUN_OPTIONS and runSettings are the
// options every load bench shares (bench/oauth.mjs too).

export const WORKLOADS = ['bare', 'hawk', 'bearer', 'devices', 'attached-clients', 'login', 'login-2core'];
/** Suffix of the workloads run against --baseline's server. */
export const BASELINE = ' @ baseline';
/** Not run by default: Hawk with headers computed before the run (is the load core's HMAC work felt?). */
export const DIAGNOSTIC = ['hawk-pre'];

export const HELP = `Usage: node bench/server.mjs [options]

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
