#!/usr/bin/env node
// The long run of the schema-driven fuzzer (issue 9): starts Tessera from apps/server/dist with
// NODE_ENV=test (so a route answering an error it does not declare answers 500, which the fuzzer
// counts), makes one credential of every kind through the SDK (bench/fuzz-lib.mjs, credentialKit;
// made again whenever the fuzz kills one), and sends --requests generated requests (default
// 10,000) built from openapi.json. Exits 1 on any 5xx, non-catalogue body or undeclared error.
// `npx tsc -b` first. Figures in bench/README.md.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { credentialKit, fuzz } from './fuzz-lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    concurrency: { type: 'string', default: '8' },
    'time-limit': { type: 'string', default: '900' },
    'client-addresses': { type: 'string', default: '64' },
    'no-renew': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    quick: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write(`node bench/fuzz.mjs [--requests N (10000)] [--seed S] [--concurrency C (8)] [--time-limit seconds (900)] [--quick (1000 requests)]
  [--client-addresses N (64): the fuzz comes from N client addresses (X-Forwarded-For), so rate limiting
   meets it as it would N clients; 1: all from one]
  [--no-renew: never make credentials again (every credential the fuzz kills stays dead)]
  [--verbose: the reasons of the 401s to requests sent with a real credential]
`);
  process.exit(0);
}
const requests = values.quick ? 1000 : Number(values.requests);
const seed = Number(values.seed);
for (const f of ['apps/server/dist/main.js', 'packages/client/dist/index.js', 'packages/protocol/dist/index.js']) {
  if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run \`npx tsc -b\` first`);
}
const { TesseraClient } = await import(pathToFileURL(join(ROOT, 'packages/client/dist/index.js')).href);
const { bearerHeader, deriveTokenKeys } = await import(pathToFileURL(join(ROOT, 'packages/protocol/dist/index.js')).href);

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'tessera-fuzz-'));
const url = `http://127.0.0.1:${port}`;
// The fuzz comes from TEST-NET-2 addresses; the credential kit's own requests from one TEST-NET-1
// address that rate limiting ignores (making credentials is the harness, not the fuzz).
const KIT_ADDRESS = '192.0.2.1';
const clientAddresses = Array.from({ length: Math.max(1, Number(values['client-addresses'])) }, (_, i) => `198.51.100.${1 + (i % 254)}`);
const env = {
  ...process.env, NODE_ENV: 'test', PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, DATA_DIR: dir,
  DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, PORTAL_DIR: '/nonexistent', SMTP_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn',
  SIGNIN_CONFIRMATION_ENABLED: 'false', SCRYPT_MAX_PENDING: '1000', TRUST_PROXY: 'true', RATE_LIMIT_IGNORE_IPS: KIT_ADDRESS,
  // Support tickets on (off answers 503/202 by design); deliveries to this address fail and are retried.
  SUPPORT_WEBHOOK_URL: 'http://127.0.0.1:9/tickets', SUPPORT_WEBHOOK_SECRET: 'f'.repeat(32),
};
// A confidential client allowed to create stub accounts, for OAuth access tokens.
const registered = execFileSync(process.execPath, [join(ROOT, 'apps/server/dist/cli/admin.js'), 'clients', 'add', '--name', 'fuzz', '--redirect-uri', 'https://fuzz.example/'], { env, encoding: 'utf8' });
const stub = { clientId: /client_id (\w+)/.exec(registered)[1], clientSecret: /client_secret (\w+)/.exec(registered)[1] };
const server = spawn(process.execPath, [join(ROOT, 'apps/server/dist/main.js')], {
  env: { ...env, ACCOUNT_STUB_CLIENT_IDS: stub.clientId },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let errorLines = 0;
server.stdout.on('data', (c) => {
  for (const line of String(c).split('\n')) if (line.includes('"level":50') || line.includes('"level":60')) errorLines++;
});
const stop = () => {
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stop();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}
const timer = setTimeout(() => {
  process.stderr.write('fuzz: time limit reached\n');
  stop();
  process.exit(1);
}, (Number(values['time-limit']) + 120) * 1000);

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/v1/openapi.json`)).ok) break;
    } catch {
      // not up yet
    }
    if (i > 300) throw new Error('the server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  // Credentials of every kind, made the way a client makes them, and made again as they die.
  const kitFetch = (input, init = {}) => fetch(input, { ...init, headers: { ...init.headers, 'x-forwarded-for': KIT_ADDRESS } });
  const client = new TesseraClient({ baseUrl: url, fetch: kitFetch });
  const outbox = join(dir, 'outbox');
  const messages = () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.json')).sort() : []);
  const mail = {
    mark: () => new Set(messages()),
    async code(email, template, seen) {
      for (let i = 0; i < 200; i++) {
        for (const f of messages()) {
          if (seen.has(f)) continue;
          const m = JSON.parse(readFileSync(join(outbox, f), 'utf8'));
          if (m.to === email && m.template === template && m.headers?.['X-Tessera-Code']) return m.headers['X-Tessera-Code'];
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no ${template} message to ${email}`);
    },
  };
  const kit = credentialKit({
    client, mail, stub,
    bearer: (type, data) => bearerHeader(type, deriveTokenKeys(type, data).tokenId),
  });
  await kit.init();
  const credentials = kit.credentials;
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
  const started = Date.now();
  const report = await fuzz({
    doc, baseUrl: url, credentials, requests, seed, timeLimitMs: Number(values['time-limit']) * 1000, concurrency: Number(values.concurrency),
    renew: !values['no-renew'], clientAddresses,
  });
  const seconds = (Date.now() - started) / 1000;
  const ops = Object.entries(report.byOperation).sort();
  process.stdout.write(`fuzz: ${report.sent} requests in ${seconds.toFixed(0)} s (${(report.sent / seconds).toFixed(0)}/s), seed ${seed}, ${ops.length} operations\n`);
  process.stdout.write(`by status: ${Object.entries(report.byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')}\n`);
  const { authenticated } = report;
  const share = (a) => `${a.unauthorized}/${a.sent} (${((100 * a.unauthorized) / Math.max(1, a.sent)).toFixed(1)}%)`;
  process.stdout.write(`authenticated requests answered 401: ${share(authenticated)}; by kind: ${Object.entries(authenticated.byKind).map(([k, a]) => `${k} ${share(a)}`).join(', ')}\n`);
  process.stdout.write(`  of which refused by authentication (a dead token): ${share({ unauthorized: authenticated.refusedAtAuth, sent: authenticated.sent })}; the rest are routes' 401s about the body (another session's id, another address)\n`);
  if (values.verbose) {
    for (const [kind, a] of Object.entries(authenticated.byKind)) {
      for (const [why, n] of Object.entries(a.reasons ?? {}).sort((x, y) => y[1] - x[1])) process.stdout.write(`  401 ${kind} ${n}× ${why}\n`);
    }
  }
  process.stdout.write(`credentials made again: ${Object.entries(kit.renewals).map(([k, n]) => `${k} ${n.ok - 1}${n.failed ? ` (${n.failed} failed: ${n.lastError})` : ''}`).join(', ')}${values['no-renew'] ? ' (renewal off)' : ''}\n`);
  process.stdout.write(`operations never answered 2xx: ${ops.filter(([, o]) => o.ok === 0).map(([id]) => id).join(', ') || 'none'}\n`);
  process.stdout.write(`5xx: ${report.fiveXX.length}; non-catalogue error bodies: ${report.notCatalogue.length}; undeclared errors: ${report.undeclared.length}; error-level log lines: ${errorLines}\n`);
  for (const f of [...report.fiveXX, ...report.notCatalogue, ...report.undeclared].slice(0, 20)) process.stdout.write(`  ${JSON.stringify(f)}\n`);
  const bad = report.fiveXX.length + report.notCatalogue.length + report.undeclared.length + errorLines;
  clearTimeout(timer);
  stop();
  process.exit(bad ? 1 : 0);
} catch (err) {
  process.stderr.write(`fuzz: ${err.stack ?? err}\n`);
  clearTimeout(timer);
  stop();
  process.exit(1);
}
