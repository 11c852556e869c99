#!/usr/bin/env node
// The long run of the schema-driven fuzzer (issue 9): starts Tessera from apps/server/dist with
// NODE_ENV=test (so a route answering an error it does not declare answers 500, which the fuzzer
// counts), makes one credential of every kind through the SDK, and sends --requests generated
// requests (default 10,000) built from openapi.json. Exits 1 on any 5xx, non-catalogue body or
// undeclared error. `npx tsc -b` first. Figures in bench/README.md.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { fuzz } from './fuzz-lib.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    concurrency: { type: 'string', default: '8' },
    'time-limit': { type: 'string', default: '900' },
    quick: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  process.stdout.write('node bench/fuzz.mjs [--requests N (10000)] [--seed S] [--concurrency C (8)] [--time-limit seconds (900)] [--quick (1000 requests)]\n');
  process.exit(0);
}
const requests = values.quick ? 1000 : Number(values.requests);
const seed = Number(values.seed);
for (const f of ['apps/server/dist/main.js', 'packages/client/dist/index.js', 'packages/protocol/dist/index.js']) {
  if (!existsSync(join(ROOT, f))) throw new Error(`${f} is missing: run \`npx tsc -b\` first`);
}
const { TesseraClient, TesseraAccounts } = await import(pathToFileURL(join(ROOT, 'packages/client/dist/index.js')).href);
const { bearerHeader, deriveTokenKeys, randomHex } = await import(pathToFileURL(join(ROOT, 'packages/protocol/dist/index.js')).href);

const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const dir = mkdtempSync(join(tmpdir(), 'tessera-fuzz-'));
const url = `http://127.0.0.1:${port}`;
const stubClient = '7c7c7c7c7c7c7c7c';
const server = spawn(process.execPath, [join(ROOT, 'apps/server/dist/main.js')], {
  env: {
    ...process.env, NODE_ENV: 'test', PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: url, DATA_DIR: dir,
    DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`, PORTAL_DIR: '/nonexistent', SMTP_URL: '', REDIS_URL: '', LOG_LEVEL: 'warn',
    SIGNIN_CONFIRMATION_ENABLED: 'false', SCRYPT_MAX_PENDING: '1000', ACCOUNT_STUB_CLIENT_IDS: stubClient,
  },
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
process.on('SIGINT', () => {
  stop();
  process.exit(130);
});
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
  // One credential of every kind, made the way a client makes them.
  const client = new TesseraClient({ baseUrl: url });
  const accounts = new TesseraAccounts(client);
  const bearer = (type, data) => bearerHeader(type, deriveTokenKeys(type, data).tokenId);
  const email = `fuzz.${randomHex(4)}@example.com`;
  const signedUp = await accounts.signUp(email, 'fuzzing password');
  const outbox = join(dir, 'outbox');
  const mailFile = readdirSync(outbox).find((f) => f.endsWith('.json'));
  const { headers } = JSON.parse(readFileSync(join(outbox, mailFile), 'utf8'));
  await client.recoveryEmailVerifyCode({ uid: signedUp.uid, code: headers['X-Tessera-Code'] });
  const session = await accounts.signIn(email, 'fuzzing password', { keys: true });
  const forgot = await client.passwordForgotSendCode({ email });
  const creds = await accounts.credentialsFor(email, 'fuzzing password');
  const change = await client.passwordChangeStart(session.sessionToken, { email, oldAuthPW: creds.authPW });
  const credentials = {
    sessionToken: () => bearer('sessionToken', session.sessionToken),
    keyFetchToken: () => bearer('keyFetchToken', session.keyFetchToken),
    passwordForgotToken: () => bearer('passwordForgotToken', forgot.passwordForgotToken),
    passwordChangeToken: () => bearer('passwordChangeToken', change.passwordChangeToken),
  };
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
  const started = Date.now();
  const report = await fuzz({ doc, baseUrl: url, credentials, requests, seed, timeLimitMs: Number(values['time-limit']) * 1000, concurrency: Number(values.concurrency) });
  const seconds = (Date.now() - started) / 1000;
  const ops = Object.entries(report.byOperation).sort();
  process.stdout.write(`fuzz: ${report.sent} requests in ${seconds.toFixed(0)} s (${(report.sent / seconds).toFixed(0)}/s), seed ${seed}, ${ops.length} operations\n`);
  process.stdout.write(`by status: ${Object.entries(report.byStatus).map(([s, n]) => `${s}: ${n}`).join(', ')}\n`);
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
