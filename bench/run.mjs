#!/usr/bin/env node
// `npm run bench` — runs the benchmark suites one after the other (they would disturb each other
// if run together). Assumes `npx tsc -b` was run; builds nothing.
//
//   npm run bench                                 # every suite, full length
//   npm run bench -- --quick                      # every suite, short runs
//   npm run bench -- --only server --runs 5       # one suite; the other options go to it
//   npm run bench -- --list
//
// Adding a suite: one entry in SUITES whose `run(args)` resolves when the suite is done (it prints
// its own report) and rejects on failure. `args` are the command-line options that run.mjs does
// not consume itself; every suite should accept `--quick`. A suite that is a standalone script
// can be run as a child process with `script('path/in/bench.mjs')`.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = dirname(fileURLToPath(import.meta.url));

/** A suite that is a script of its own: `node bench/<file> <args>`, output shown as it comes. */
export function script(file, fixedArgs = []) {
  return (args) => new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(BENCH, file), ...fixedArgs, ...args], { stdio: 'inherit', cwd: dirname(BENCH) });
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${signal ?? code}`))));
  });
}

/** @type {Record<string, { description: string, run: (args: string[]) => Promise<unknown> }>} */
const SUITES = {
  server: {
    description: 'Tessera server under autocannon: bare node:http ceiling, Hawk and Bearer GET /v1/session/status, login flood vs raw scrypt, event-loop lag, RSS (bench/server.mjs)',
    run: async (args) => (await import('./server.mjs')).runServerBench(args),
  },
  oauth: {
    description: 'OAuth server beside node-oidc-provider in one run: refresh-grant token issuance and introspection req/s, ratios against the issue 14 targets (bench/oauth.mjs)',
    run: async (args) => (await import('./oauth.mjs')).runOAuthBench(args),
  },
  fuzz: {
    description: 'Schema-driven fuzzing from openapi.json: 10,000 generated requests (valid, broken, with and without each credential); fails on any 5xx or undeclared error (bench/fuzz.mjs)',
    run: script('fuzz.mjs'),
  },
  nonces: {
    description: 'The in-process Hawk nonce cache alone at steady rates from one token: time per add, entries held, table memory, refusals when full (bench/nonce-cache.mjs)',
    run: script('nonce-cache.mjs'),
  },
  portal: {
    description: 'The built developer portal in Chromium: JS+CSS bytes, requests, FCP/LCP of landing, a doc page and /api; cold build time and memory (bench/portal/run.mjs)',
    run: script('portal/run.mjs'),
  },
};

function parse(argv) {
  const rest = [];
  let only = null;
  let list = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--list') list = true;
    else if (a === '--only') only = argv[++i]?.split(',').filter(Boolean) ?? [];
    else if (a.startsWith('--only=')) only = a.slice('--only='.length).split(',').filter(Boolean);
    else rest.push(a);
  }
  return { only, list, rest };
}

const { only, list, rest } = parse(process.argv.slice(2));

if (list) {
  for (const [name, s] of Object.entries(SUITES)) process.stdout.write(`${name.padEnd(10)} ${s.description}\n`);
  process.exit(0);
}

const names = only ?? Object.keys(SUITES);
for (const n of names) {
  if (!SUITES[n]) {
    process.stderr.write(`unknown suite "${n}" (known: ${Object.keys(SUITES).join(', ')})\n`);
    process.exit(2);
  }
}
// Options other than --quick are suite-specific: with several suites, only --quick is passed on.
const forward = names.length > 1 ? rest.filter((a) => a === '--quick') : rest;
if (names.length > 1 && forward.length !== rest.length) {
  process.stderr.write(`note: with several suites only --quick is passed on; use --only <suite> for ${rest.filter((a) => a !== '--quick').join(' ')}\n`);
}

let failed = 0;
for (const name of names) {
  process.stdout.write(`\n=== bench: ${name} ===\n`);
  try {
    await SUITES[name].run(forward);
  } catch (err) {
    failed++;
    process.stderr.write(`suite ${name} failed: ${err?.stack ?? err}\n`);
  }
}
process.exit(failed ? 1 : 0);
