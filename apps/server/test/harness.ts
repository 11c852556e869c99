import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { TesseraAccounts, TesseraClient, type TokenPresentation } from '@tessera/client';
import { createApp, migrationsOf, type App } from '../src/app.js';
import type { AnyManifest } from '../src/manifest.js';
import { ManualClock } from '../src/clock.js';
import { loadConfig, type Config } from '../src/config.js';
import { generateSigningKeyPem, signingKeyFromPem, type SigningKey } from '../src/platform/keys/service.js';
import { SmtpSender } from '../src/senders/mail/sender.js';
import type { Scheduler } from '../src/senders/webhook/index.js';
import type { SmsSender } from '../src/senders/sms/index.js';
import { migrateToLatest, openStorage, type DialectName, type Storage } from '../src/storage/db.js';
import { MailCapture } from './mail-capture.js';

// createTestServer(): a real server on 127.0.0.1, its own fresh database (an SQLite file, or a new
// PostgreSQL / MySQL database), a real SMTP server capturing its mail, and the SDK pointed at it.

/** Dialects the HTTP suites run on: SQLite always, PostgreSQL when TEST_POSTGRES_URL is set. */
export function httpDialects(): DialectName[] {
  const list = (process.env.TEST_HTTP_DIALECTS ?? 'sqlite,postgres').split(',').map((s) => s.trim()) as DialectName[];
  return list.filter((d) => d === 'sqlite' || databaseUrlFor(d) !== undefined);
}

/** The admin URL of a dialect's test server; a set URL whose server is down fails the suite. */
export function databaseUrlFor(dialect: DialectName): string | undefined {
  if (dialect === 'postgres') return process.env.TEST_POSTGRES_URL || undefined;
  if (dialect === 'mysql') return process.env.TEST_MYSQL_URL || undefined;
  return 'sqlite:';
}

/** A fresh, empty database of the dialect and how to drop it again. */
export async function freshDatabase(dialect: DialectName): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `tessera_test_${randomBytes(6).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'tessera-'));
    return { url: `sqlite:${join(dir, 'test.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = databaseUrlFor(dialect);
  if (!admin) throw new Error(`no server configured for ${dialect}`);
  if (dialect === 'postgres') {
    const client = new pg.Client({ connectionString: admin });
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      drop: async () => {
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  }
  const conn = await mysql.createConnection(admin);
  await conn.query(`CREATE DATABASE ${name}`);
  await conn.end();
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = await mysql.createConnection(admin);
      await c.query(`DROP DATABASE IF EXISTS ${name}`);
      await c.end();
    },
  };
}

let sharedKey: SigningKey | undefined;
export function testSigningKey(): SigningKey {
  sharedKey ??= signingKeyFromPem(generateSigningKeyPem(), Date.UTC(2026, 0, 1));
  return sharedKey;
}

export interface TestServerOptions {
  dialect?: DialectName;
  /** Extra environment for loadConfig (e.g. SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS). */
  env?: Record<string, string>;
  /** Drive time by hand; the SDK's Hawk clock follows it. */
  manualClock?: boolean;
  presentation?: TokenPresentation;
  /** Collect the server's log lines (JSON, level info and up) here instead of discarding them. */
  logLines?: string[];
  /** Runs the webhook sender's retries (test/webhook-receiver.ts's ManualScheduler); timers by default. */
  webhookScheduler?: Scheduler;
  /** The SMS transport (default: what the environment configures; null: none). */
  smsSender?: SmsSender | null;
  /** Another domain list (a fixture domain added to DOMAINS); DOMAINS by default. */
  domains?: readonly AnyManifest[];
}

export interface TestServer {
  url: string;
  /** The test database (for tools that open it themselves). */
  databaseUrl: string;
  dialect: DialectName;
  client: TesseraClient;
  accounts: TesseraAccounts;
  mail: MailCapture;
  storage: Storage;
  config: Config;
  clock: ManualClock | undefined;
  app: App;
  /** A client with other options (e.g. Hawk instead of Bearer). */
  newClient(presentation: TokenPresentation, options?: { busyRetries?: number }): TesseraClient;
  close(): Promise<void>;
}

let counter = 0;
/** A unique address for one test. */
export function newEmail(tag = 'user'): string {
  return `${tag}.${Date.now().toString(36)}.${++counter}.${randomBytes(3).toString('hex')}@example.com`;
}

export async function createTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dialect = options.dialect ?? 'sqlite';
  const database = await freshDatabase(dialect);
  const storage = openStorage(database.url, { poolSize: 4 });
  await migrateToLatest(storage.db, {}, migrationsOf(options.domains));
  const mail = new MailCapture();
  const smtpUrl = await mail.start();
  const clock = options.manualClock ? new ManualClock(Date.now()) : undefined;

  // PUBLIC_URL must name the port before listening; take a free one first.
  const probe = await import('node:net').then((net) => new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  }));
  const url = `http://127.0.0.1:${probe}`;
  const config = loadConfig({
    NODE_ENV: 'test', LOG_LEVEL: 'silent', PUBLIC_URL: url, PORTAL_DIR: '/nonexistent', SCRYPT_WORKERS: '2',
    DATA_DIR: join(tmpdir(), 'tessera-test-data'), SMTP_URL: smtpUrl,
    ...options.env,
  }, options.domains);
  const lines = options.logLines;
  const logger = lines ? pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) : false;
  const app = await createApp({
    config, storage, logger, signingKey: testSigningKey(),
    mailSender: new SmtpSender(smtpUrl, config.mail.from),
    ...(options.smsSender !== undefined ? { smsSender: options.smsSender } : {}),
    ...(clock ? { clock } : {}),
    ...(options.webhookScheduler ? { webhookScheduler: options.webhookScheduler } : {}),
    ...(options.domains ? { domains: options.domains } : {}),
  });
  await app.server.listen({ port: probe, host: '127.0.0.1' });

  const now = clock ? () => clock.now() / 1000 : undefined;
  const newClient = (presentation: TokenPresentation, extra: { busyRetries?: number } = {}) =>
    new TesseraClient({ baseUrl: url, presentation, ...(now ? { now } : {}), ...extra });
  const client = newClient(options.presentation ?? 'bearer');
  return {
    url, databaseUrl: database.url, dialect, client, accounts: new TesseraAccounts(client), mail, storage, config, clock, app, newClient,
    async close() {
      const undeclared = app.undeclaredErrors;
      await app.close();
      await mail.stop();
      await storage.destroy();
      await database.drop();
      if (undeclared.length) {
        throw new Error(`routes answered errors they do not declare:\n${undeclared.map((u) => `  ${u.route}: ${u.status} errno ${u.errno} (${u.message})`).join('\n')}`);
      }
    },
  };
}

/** Signs up with an emailed 6-digit code and confirms it: a verified account and session. */
export async function verifiedAccount(t: TestServer, password = 'correct horse battery staple', options: { keys?: boolean } = {}) {
  const email = newEmail();
  const since = t.mail.messages.length;
  const signedUp = await t.accounts.signUp(email, password, { verificationMethod: 'email-otp', keys: options.keys ?? false });
  const mail = await t.mail.waitFor(email, 'verifyShortCode', since);
  await t.client.sessionVerifyCode(signedUp.sessionToken, { code: mail.code! });
  return { ...signedUp, email, password };
}

/** A local stand-in for a third-party service (the push service, Twilio): its settings go to the server. */
export interface LocalService {
  start(): Promise<unknown>;
  stop(): Promise<void>;
  /** The server settings that point it at this service. */
  env(): Record<string, string>;
}

/**
 * The suite's server beside local services: before the suite the services start, then a test server
 * with their settings (then `options.env`); after it the server closes, then the services stop.
 * `use` receives the server once it runs.
 */
export function serverBeside(services: LocalService[], options: TestServerOptions, use: (t: TestServer) => void): void {
  let t: TestServer | undefined;
  beforeAll(async () => {
    for (const service of services) await service.start();
    const env = Object.assign({}, ...services.map((service) => service.env()), options.env);
    t = await createTestServer({ ...options, env });
    use(t);
  });
  afterAll(async () => {
    await t?.close();
    for (const service of services) await service.stop();
  });
}
