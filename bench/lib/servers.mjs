import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freePort, sleep, start, waitForOutput } from './processes.mjs';

// The servers under test (the bare ceiling, Tessera with the lag probe) and the benchmark account.

const BENCH = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT = dirname(BENCH);
export const SERVER_MAIN = join(ROOT, 'apps/server/dist/main.js');
export const CLIENT_DIST = join(ROOT, 'packages/client/dist/index.js');
export const PROTOCOL_DIST = join(ROOT, 'packages/protocol/dist/index.js');
/** Devices the benchmark account registers, each on its own session (issue 11). */
export const BENCH_DEVICES = 10;

export async function startBare(opts) {
  const port = await freePort();
  const child = start(process.execPath, [join(BENCH, 'bare-server.mjs')], {
    cpus: opts.serverCpu, pin: opts.pin, env: { ...process.env, PORT: String(port), HOST: '127.0.0.1' },
  });
  await waitForOutput(child, /listening/, 10_000, 'bare server');
  return { kind: 'bare', child, pid: child.pid, url: `http://127.0.0.1:${port}` };
}

/** The most Hawk requests a second the hawk workloads can send (hawk-pre precomputes 40,000 a second). */
const HAWK_BENCH_MAX_RPS = 60_000;

/** Tessera from apps/server/dist, with the lag probe, on its own temporary data folder. */
export async function startTessera(opts, { name, dataDir, cores, nodeArgs = [], env = {}, root = ROOT }) {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const lagFile = join(dataDir, `lag-${name}.jsonl`);
  const main = root === ROOT ? SERVER_MAIN : join(root, 'apps/server/dist/main.js');
  const child = start(process.execPath, ['--import', pathToFileURL(join(BENCH, 'lag-probe.mjs')).href, ...nodeArgs, main], {
    cpus: cores, pin: opts.pin, cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: url,
      DATABASE_URL: `sqlite:${join(dataDir, 'db.sqlite')}`,
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PORTAL_DIR: '/nonexistent',
      SMTP_URL: '',
      REDIS_URL: '',
      SIGNIN_CONFIRMATION_ENABLED: 'false',
      // Rate limiting stays on, so its cost is measured, with the sign-in limits raised so the
      // flood (one account, one address, the right password) is counted but never blocked.
      RATE_LIMIT_RULES: ['ip_email', 'ip', 'email']
        .map((p) => `accountLogin : ${p} : 1000000000 : 15 minutes : 15 minutes : block`)
        .concat('getCredentialsStatus : ip : 1000000000 : 15 minutes : 15 minutes : block')
        .join('; '),
      // The hawk workloads sign every request with one session, at up to HAWK_BENCH_MAX_RPS. The
      // nonce cache refuses (503/201) rather than forget a nonce inside its window, so it must hold
      // that rate × (skew 60 s + 1 s + a 9 s slice), and the one token must be allowed that rate
      // × 9 s per slice (defaults: 2,000,000 entries, 200 per token; bench/README.md).
      HAWK_NONCE_CACHE_SIZE: String(HAWK_BENCH_MAX_RPS * 70),
      HAWK_NONCES_PER_TOKEN: String(HAWK_BENCH_MAX_RPS * 9),
      LAG_PROBE_FILE: lagFile,
      ...env,
    },
  });
  await waitForOutput(child, /Tessera is running/, 60_000, `Tessera server ${name}`);
  return { kind: 'tessera', name, child, pid: child.pid, url, lagFile };
}

function lagLines(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
}

/** SIGUSR2 to the probe: it writes the histogram since the last mark and starts a new one. */
export async function lagMark(server) {
  const before = lagLines(server.lagFile).length;
  server.child.kill('SIGUSR2');
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = lagLines(server.lagFile);
    if (lines.length > before) return lines.at(-1);
    if (Date.now() > deadline) return null;
    await sleep(20);
  }
}

// ---- account ------------------------------------------------------------------------------

export async function outboxCode(outbox, email, template, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (existsSync(outbox)) {
      for (const f of readdirSync(outbox).filter((n) => n.endsWith('.json')).sort().reverse()) {
        const m = JSON.parse(readFileSync(join(outbox, f), 'utf8'));
        if (m.to === email && m.template === template && m.headers?.['X-Tessera-Code']) return m.headers['X-Tessera-Code'];
      }
    }
    if (Date.now() > deadline) throw new Error(`no ${template} message to ${email} in ${outbox}`);
    await sleep(100);
  }
}

/** Signs up through the SDK, confirms the address with the emailed link code, signs in. */
export async function prepareAccount(server, dataDir) {
  const { TesseraClient, TesseraAccounts } = await import(pathToFileURL(CLIENT_DIST).href);
  const { bearerHeader, deriveTokenKeys } = await import(pathToFileURL(PROTOCOL_DIST).href);
  const client = new TesseraClient({ baseUrl: server.url });
  const accounts = new TesseraAccounts(client);
  const email = `bench-${Date.now()}@example.com`;
  const password = 'tessera bench correct horse battery staple';
  const signedUp = await accounts.signUp(email, password);
  const code = await outboxCode(join(dataDir, 'outbox'), email, 'verify');
  await client.recoveryEmailVerifyCode({ uid: signedUp.uid, code });
  // Hawk and Bearer get a session each: a token once used with Hawk refuses Bearer.
  const session = await accounts.signIn(email, password);
  const hawkSession = await accounts.signIn(email, password);
  // The same checks the load runs rely on: Hawk (as the SDK signs it) and Bearer both pass.
  const hawkClient = new TesseraClient({ baseUrl: server.url, presentation: 'hawk' });
  const status = await hawkClient.sessionStatus(hawkSession.sessionToken);
  if (status.state !== 'verified') throw new Error(`the benchmark session is ${status.state}`);
  await client.sessionStatus(session.sessionToken);
  // Ten more sessions, a device on each: what the devices and attached-clients workloads list.
  for (let i = 0; i < BENCH_DEVICES; i++) {
    const signedIn = await accounts.signIn(email, password);
    await client.accountDevice(signedIn.sessionToken, { name: `Bench device ${i + 1}`, type: i % 2 ? 'mobile' : 'desktop', availableCommands: { 'https://identity.mozilla.com/cmd/open-uri': 'bench' } });
  }
  const devices = await client.accountDevices(session.sessionToken);
  if (devices.length !== BENCH_DEVICES) throw new Error(`the benchmark account lists ${devices.length} devices, not ${BENCH_DEVICES}`);
  const { authPW } = await accounts.credentialsFor(email, password);
  const tokenId = deriveTokenKeys('sessionToken', session.sessionToken).tokenId;
  return { email, uid: signedUp.uid, sessionToken: hawkSession.sessionToken, authPW, bearer: bearerHeader('sessionToken', tokenId) };
}
