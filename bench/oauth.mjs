#!/usr/bin/env node
// OAuth server throughput beside node-oidc-provider, in one run (issue 14, "done when"): token
// issuance with the refresh grant and RFC 7662 introspection, req/s of each server under the same
// load, alternating round by round. Targets: introspection ≥ 3× oidc-provider, token issuance ≥ 2×.
//
//   npx tsc -b                    # once; this script builds nothing
//   node bench/oauth.mjs          # 10 s per run, median of 3, 50 connections
//   node bench/oauth.mjs --quick  # 3 s per run, one run
//   node bench/oauth.mjs --stores file --baseline /tmp/before   # before/after: another built checkout
//   npm run bench -- --only oauth --runs 5
//
// Both servers run pinned to core 0 (each idle while the other is measured), autocannon
// (bench/load.mjs) to core 1, as in bench/server.mjs. Workloads, each against both servers:
//   token        POST /token grant_type=refresh_token, client_secret_basic; the refresh token's scope
//                is openid + profile, so each answer carries an RS256 id_token
//   token-noid   the same with scope=profile (a narrowing both servers allow): no id_token, so no RSA
//                signature; what the grant itself costs
//   introspect   POST /introspect of a live access token, client_secret_basic, token_type_hint
//                access_token
// --baseline <dir> adds a Tessera started from another built checkout (<dir>/apps/server/dist/main.js)
// with the settings of the file store, measured in the same rounds as the others: rows "@ baseline"
// and this checkout's ratio to it.
// Options: see --help. The figures go to bench/README.md between the oauth markers (not with
// --no-readme, --profile or --baseline).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  fmt, freePort, gitDescribe, hasTaskset, log, machine, measureSpec, outboxCode, RUN_OPTIONS, runIfMain, runSettings, start, startTessera, stop, stopAll, waitForOutput,
} from './server.mjs';
import { formatSummary, summarize as summarizeProfile } from './cpuprofile-summary.mjs';
import { BASELINE, LABELS, OPPONENT, report, summarize, targets, TESSERAS } from './lib/oauth-report.mjs';

const BENCH = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(BENCH);
const CLIENT_DIST = join(ROOT, 'packages/client/dist/index.js');
const README = join(BENCH, 'README.md');
const REDIRECT = 'https://rp.example/callback';

export const OAUTH_WORKLOADS = ['token', 'token-noid', 'introspect'];
const STORES = { file: 'tessera', memory: 'tessera-memory', 'file-uncached': 'tessera-uncached' };

const HELP = `Usage: node bench/oauth.mjs [options]

  --quick               3 s per run, 1 run, 1 s warm-up (unless --duration/--runs are given)
  --duration <s>        seconds per run (default 10)
  --runs <n>            runs (rounds) per workload and server (default 3)
  --connections <n>     autocannon connections (default 50)
  --warmup <s>          untimed warm-up per workload and server (default 3)
  --workloads <list>    comma-separated subset of ${OAUTH_WORKLOADS.join(', ')} (default: all)
  --stores <list>       Tessera's stores: file (DATABASE_URL an SQLite file, the default store),
                        memory (sqlite::memory:, its fastest; nothing survives a restart),
                        file-uncached (the file with OAUTH_TOKEN_CACHE_MS=0: every introspection
                        reads the database); default file,memory,file-uncached
  --server-cpu <list>   core(s) for both servers (default 0)
  --load-cpu <list>     core(s) for autocannon (default 1)
  --no-pin              do not use taskset
  --quiet-wait <s>      before each run, wait up to this long for the machine to go quiet
                        (default 5, 0 with --quick)
  --rate-limit-off      RATE_LIMIT_ENABLED=false for Tessera (default: rate limiting on, with the
                        oauthToken and oauthIntrospect limits raised so the flood is counted but
                        never refused)
  --json <file>         also write every measurement to this file
  --no-readme           do not write the figures into bench/README.md
  --check               exit with status 1 when a target is missed
  --keep                keep the temporary folder
  --profile             start Tessera with --cpu-prof and print each workload's top self-time
                        functions (slows Tessera down: the figures are then not written to README)
  --baseline <dir>      also run the workloads against a Tessera started from another built
                        checkout (<dir>/apps/server/dist/main.js), on the file store with the same
                        settings, in the same rounds: a before/after comparison in one run (rows
                        "@ baseline", and this checkout's ratio to it). Needs file in --stores; the
                        figures are then not written to README
`;

function parseOptions(argv) {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...RUN_OPTIONS,
      workloads: { type: 'string', default: OAUTH_WORKLOADS.join(',') },
      stores: { type: 'string', default: 'file,memory,file-uncached' },
      'rate-limit-off': { type: 'boolean', default: false },
      'no-readme': { type: 'boolean', default: false },
      baseline: { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const workloads = values.workloads.split(',').map((w) => w.trim()).filter(Boolean);
  for (const w of workloads) if (!OAUTH_WORKLOADS.includes(w)) throw new Error(`unknown workload ${w} (known: ${OAUTH_WORKLOADS.join(', ')})`);
  const opts = {
    ...runSettings(values, 5),
    workloads,
    tesseras: values.stores.split(',').filter(Boolean).map((x) => {
      if (STORES[x]) return STORES[x];
      throw new Error(`--stores: ${x} is not one of ${Object.keys(STORES).join(', ')}`);
    }),
    quietCores: 0.5,
    rateLimitOff: values['rate-limit-off'],
    baseline: values.baseline ? resolve(values.baseline) : null,
    // A before/after run is a comparison, not the figures of record (nor is a profiled one).
    readme: !values['no-readme'] && !values.profile && !values.baseline,
  };
  if (opts.baseline && !opts.tesseras.includes('tessera')) throw new Error('--baseline compares with the file store: include file in --stores');
  for (const k of ['duration', 'runs', 'connections']) if (!(opts[k] > 0)) throw new Error(`--${k} must be a positive number`);
  return opts;
}

const basic = (id, secret) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const form = (fields) => new URLSearchParams(fields).toString();

/** POST a form, with Basic credentials; the JSON answer, or an error with the body. */
async function postForm(url, authorization, fields) {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization }, body: form(fields) });
  const body = await res.json();
  if (!res.ok) throw new Error(`${url}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

// ---- Tessera ------------------------------------------------------------------------------

/**
 * Signs up (SDK), confirms the address with the emailed code, signs in, authorizes the client
 * (POST /v1/oauth/authorization, scope openid profile, access_type offline, PKCE S256) and trades
 * the code at POST /v1/token with Basic credentials: the refresh and access tokens under test.
 */
async function tesseraTokens(server, dataDir, clientId, secret) {
  const { TesseraClient, TesseraAccounts } = await import(pathToFileURL(CLIENT_DIST).href);
  const client = new TesseraClient({ baseUrl: server.url });
  const accounts = new TesseraAccounts(client);
  const email = `oauth-bench-${Date.now()}@example.com`;
  const password = 'tessera oauth bench correct horse battery';
  const signedUp = await accounts.signUp(email, password);
  await client.recoveryEmailVerifyCode({ uid: signedUp.uid, code: await outboxCode(join(dataDir, 'outbox'), email, 'verify') });
  const { sessionToken } = await accounts.signIn(email, password);
  const verifier = randomBytes(32).toString('base64url');
  const { code } = await client.oauthAuthorization(sessionToken, {
    client_id: clientId, scope: 'openid profile', access_type: 'offline', redirect_uri: REDIRECT, response_type: 'code',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  });
  const tokens = await postForm(`${server.url}/v1/token`, basic(clientId, secret), { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT });
  if (!tokens.refresh_token || !tokens.id_token) throw new Error(`Tessera's code exchange gave no refresh token or id_token: ${JSON.stringify(tokens)}`);
  return { uid: signedUp.uid, refreshToken: tokens.refresh_token, accessToken: tokens.access_token };
}

// ---- the two servers' endpoints --------------------------------------------------------------

/** What differs between the servers: paths and the credentials. The request bodies are the same. */
function endpoints(server) {
  return server.kind === 'tessera'
    ? { token: '/v1/token', introspect: '/v1/introspect' }
    : { token: '/token', introspect: '/token/introspection' };
}

function loadSpec(workload, server, opts, duration) {
  const paths = endpoints(server);
  const headers = { 'content-type': 'application/x-www-form-urlencoded', authorization: server.basic };
  const base = { url: server.url, duration, connections: opts.connections, method: 'POST', headers };
  switch (workload) {
    case 'token':
      return { ...base, path: paths.token, body: form({ grant_type: 'refresh_token', refresh_token: server.refreshToken }) };
    case 'token-noid':
      return { ...base, path: paths.token, body: form({ grant_type: 'refresh_token', refresh_token: server.refreshToken, scope: 'profile' }) };
    case 'introspect':
      return { ...base, path: paths.introspect, body: form({ token: server.accessToken, token_type_hint: 'access_token' }) };
    default:
      throw new Error(workload);
  }
}

/**
 * Before any load: each request of each workload answers as it should on each server (a refresh
 * gives an access token, with an id_token only when openid is kept; introspection says active),
 * so that a fast error can never pass for throughput.
 */
async function checkAnswers(server) {
  const paths = endpoints(server);
  const full = await postForm(`${server.url}${paths.token}`, server.basic, { grant_type: 'refresh_token', refresh_token: server.refreshToken });
  if (!full.access_token || !full.id_token) throw new Error(`${server.kind}: the refresh grant gave ${JSON.stringify(full)}`);
  if (full.refresh_token && full.refresh_token !== server.refreshToken) throw new Error(`${server.kind} rotated the refresh token: the bench needs a non-rotating client`);
  const narrow = await postForm(`${server.url}${paths.token}`, server.basic, { grant_type: 'refresh_token', refresh_token: server.refreshToken, scope: 'profile' });
  if (!narrow.access_token || narrow.id_token) throw new Error(`${server.kind}: the refresh grant with scope=profile gave ${JSON.stringify(narrow)}`);
  const active = await postForm(`${server.url}${paths.introspect}`, server.basic, { token: server.accessToken, token_type_hint: 'access_token' });
  if (active.active !== true || active.sub === undefined) throw new Error(`${server.kind}: introspection gave ${JSON.stringify(active)}`);
  const other = await postForm(`${server.url}${paths.introspect}`, server.basic, { token: randomBytes(32).toString('hex'), token_type_hint: 'access_token' });
  if (other.active !== false) throw new Error(`${server.kind}: introspection of an unknown token gave ${JSON.stringify(other)}`);
  return { full, narrow, active };
}

// One RS256 signature with a 2048-bit key, alone, on the servers' core: every refresh with an
// id_token pays at least this on either server, so oidc-provider's CPU per such refresh divided by
// it is the most any server could reach against it by CPU (the ceiling of the token target).
const SIGN_SCRIPT = `
const c = require('node:crypto');
const { privateKey } = c.generateKeyPairSync('rsa', { modulusLength: 2048 });
const data = Buffer.alloc(700, 97);
for (let i = 0; i < 300; i++) c.sign('sha256', data, privateKey);
const n = 3000, u0 = process.cpuUsage();
for (let i = 0; i < n; i++) c.sign('sha256', data, privateKey);
const u = process.cpuUsage(u0);
console.log('sign ' + JSON.stringify({ us: (u.user + u.system) / n }));
`;

async function measureSignature(opts) {
  const child = start(process.execPath, ['-e', SIGN_SCRIPT], { cpus: opts.serverCpu, pin: opts.pin });
  await waitForOutput(child, /^sign /m, 60_000, 'the RS256 signature measurement');
  await stop(child);
  return JSON.parse(/^sign (.*)$/m.exec(child.out)[1]).us;
}

function writeReadme(section) {
  const text = readFileSync(README, 'utf8');
  const re = /<!-- oauth:start -->[\s\S]*<!-- oauth:end -->/;
  if (!re.test(text)) throw new Error('bench/README.md has no <!-- oauth:start --> … <!-- oauth:end --> markers');
  writeFileSync(README, text.replace(re, `<!-- oauth:start -->\n${section}\n<!-- oauth:end -->`));
}

// ---- main ---------------------------------------------------------------------------------

export async function runOAuthBench(argv = []) {
  const opts = parseOptions(argv);
  if (opts.help) {
    process.stdout.write(HELP);
    return null;
  }
  for (const f of [join(ROOT, 'apps/server/dist/main.js'), CLIENT_DIST]) if (!existsSync(f)) throw new Error(`${f} is missing: run \`npx tsc -b\` first`);
  if (opts.baseline && !existsSync(join(opts.baseline, 'apps/server/dist/main.js'))) throw new Error(`${opts.baseline}/apps/server/dist/main.js is missing: build that checkout first`);
  opts.pin = opts.pin && hasTaskset();
  const tmp = mkdtempSync(join(tmpdir(), 'tessera-oauth-bench-'));
  const results = { machine: machine(opts.pin), opts, runs: {}, checks: {} };
  if (opts.baseline) results.baselineCommit = gitDescribe(opts.baseline);
  results.oidcProviderVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/oidc-provider/package.json'), 'utf8')).version;
  log(`${results.machine.cpu}, ${results.machine.cores} cores, load average ${results.machine.loadavg.join(' ')}; commit ${results.machine.commit}; ${tmp}`);
  try {
    // The same client on both: confidential, client_secret_basic, refresh tokens not rotated.
    const clientId = randomBytes(8).toString('hex');
    const secret = randomBytes(32).toString('hex');
    const clientsFile = join(tmp, 'clients.json');
    writeFileSync(clientsFile, JSON.stringify([{
      id: clientId, name: 'OAuth bench RP', redirectUris: [REDIRECT], public: false, trusted: false, canGrant: false,
      hashedSecret: createHash('sha256').update(Buffer.from(secret, 'hex')).digest('hex'), allowedScopes: ['profile'], rotateRefreshTokens: false,
    }]));
    if (opts.workloads.includes('token')) {
      results.rsaSignUs = await measureSignature(opts);
      log(`one RS256 signature (2048-bit key, node:crypto) alone: ${fmt(results.rsaSignUs, 1)} µs CPU`);
    }
    const profDir = join(tmp, 'profile');
    const servers = {};
    // --baseline's Tessera: another checkout's server, with the file store's settings, its own data.
    const tesseras = [...opts.tesseras, ...(opts.baseline ? [BASELINE] : [])];
    for (const name of tesseras) {
      const dir = join(tmp, name);
      const server = await startTessera(opts, {
        name, dataDir: dir, cores: opts.serverCpu, ...(name === BASELINE ? { root: opts.baseline } : {}),
        nodeArgs: opts.profile && name === opts.tesseras[0] ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
        env: {
          OAUTH_CLIENTS_FILE: clientsFile,
          ...(name === 'tessera-memory' ? { DATABASE_URL: 'sqlite::memory:' } : {}),
          ...(name === 'tessera-uncached' ? { OAUTH_TOKEN_CACHE_MS: '0' } : {}),
          // Rate limiting stays on (its cost is measured): every autocannon connection comes from
          // 127.0.0.1, so the per-address OAuth limits are raised to never refuse the flood.
          ...(opts.rateLimitOff ? { RATE_LIMIT_ENABLED: 'false' } : {
            RATE_LIMIT_RULES: ['oauthToken', 'oauthIntrospect'].map((a) => `${a} : ip : 1000000000 : 15 minutes : 15 minutes : block`).join('; '),
          }),
        },
      });
      Object.assign(server, { basic: basic(clientId, secret) }, await tesseraTokens(server, dir, clientId, secret));
      servers[name] = server;
      log(`${TESSERAS[name]}${name === BASELINE ? ` (${opts.baseline}, ${results.baselineCommit ?? '?'})` : ''} up at ${server.url} (pid ${server.pid}); refresh token obtained through the code flow`);
    }

    const port = await freePort();
    const child = start(process.execPath, [join(BENCH, 'oidc-provider-server.mjs')], {
      cpus: opts.serverCpu, pin: opts.pin, env: { ...process.env, NODE_ENV: 'production', PORT: String(port), CLIENT_ID: clientId, CLIENT_SECRET: secret },
    });
    await waitForOutput(child, /^ready /m, 30_000, 'oidc-provider');
    const ready = JSON.parse(/^ready (.*)$/m.exec(child.out)[1]);
    const oidc = { kind: 'oidc-provider', child, pid: child.pid, url: ready.url, basic: basic(clientId, secret), refreshToken: ready.refreshToken, accessToken: ready.accessToken };
    log(`oidc-provider ${results.oidcProviderVersion} up at ${oidc.url} (pid ${oidc.pid})`);
    servers[OPPONENT] = oidc;
    const order = [...tesseras, OPPONENT];
    for (const [name, s] of Object.entries(servers)) {
      const c = await checkAnswers(s);
      results.checks[name] = { tokenKeys: Object.keys(c.full).sort(), scope: c.full.scope, narrowScope: c.narrow.scope, introspection: Object.keys(c.active).sort() };
    }
    log(`answers checked: ${JSON.stringify(results.checks)}`);

    const pairs = opts.workloads.flatMap((w) => order.map((s) => [w, s]));
    if (opts.warmup > 0) {
      for (const [w, s] of pairs) {
        log(`warm-up ${w} @ ${s} (${opts.warmup} s)`);
        await measureSpec(w, servers[s], loadSpec(w, servers[s], opts, opts.warmup), opts, opts.warmup);
      }
    }
    for (let i = 1; i <= opts.runs; i++) {
      log(`round ${i}/${opts.runs}`);
      // Alternate which server goes first, so neither always runs right after the other.
      for (const w of opts.workloads) {
        for (const s of i % 2 ? order : [...order].reverse()) {
          const r = await measureSpec(w, servers[s], loadSpec(w, servers[s], opts, opts.duration), opts);
          ((results.runs[w] ??= {})[s] ??= []).push(r);
          log(`  ${w} @ ${s}: ${fmt(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, non-2xx ${r.non2xx}, ${fmt(r.serverCpuUsPerReq, 1)} µs CPU/req, other load ${fmt(r.otherCores, 2)} cores`);
          if (r.non2xx || r.errors || !r.ok) throw new Error(`${w} @ ${s}: ${r.non2xx} non-2xx answers (${JSON.stringify(r.statusCodes)}), ${r.errors} errors: the load is not what it should be`);
        }
      }
    }
    results.loadavgAfter = loadavg().map((x) => Math.round(x * 100) / 100);
    for (const name of tesseras) await stop(servers[name].child, 30_000);
    await stop(oidc.child);
    if (opts.profile) {
      // The main thread's profile (thread 0), cut by each Tessera run's time window.
      const files = existsSync(profDir) ? readdirSync(profDir).filter((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f)) : [];
      if (!files.length) throw new Error(`no main-thread .cpuprofile in ${profDir}`);
      const profile = JSON.parse(readFileSync(join(profDir, files[0]), 'utf8'));
      for (const w of opts.workloads) {
        const run = results.runs[w][opts.tesseras[0]].at(-1);
        process.stdout.write(`\nCPU profile, ${TESSERAS[opts.tesseras[0]]}, ${LABELS[w]} (${fmt(run.rps)} req/s, ${fmt(run.serverCpuUsPerReq, 1)} µs CPU/req while profiling):\n`);
        process.stdout.write(`${formatSummary(summarizeProfile(profile, 25, run.window))}\n`);
      }
    }

    const summary = summarize(results);
    const text = report(results, summary);
    process.stdout.write(`\n${text}\n`);
    if (opts.readme) {
      writeReadme(text);
      log('figures written to bench/README.md');
    } else if (opts.baseline) log('--baseline: bench/README.md left alone (a before/after comparison is not the figures of record)');
    if (opts.json) {
      writeFileSync(opts.json, JSON.stringify({ ...results, summary, targets: targets(summary, opts.tesseras) }, null, 2) + '\n');
      log(`measurements written to ${opts.json}`);
    }
    if (opts.check && targets(summary, opts.tesseras).some((t) => !t.met)) {
      const err = new Error('some targets are not met (--check)');
      err.targetsMissed = true;
      throw err;
    }
    return { results, summary };
  } finally {
    await stopAll();
    if (opts.keep) log(`kept ${tmp}`);
    else rmSync(tmp, { recursive: true, force: true });
  }
}

runIfMain(import.meta.url, 'bench/oauth.mjs', runOAuthBench);
