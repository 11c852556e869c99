import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { DOMAINS } from './app.js';
import { composeConfigSlices, readComposedConfig, type TitledSlice } from './composition.js';
import { bool, ConfigError, defineConfig, int, oneOf, str, url, type ConfigValues, type Env } from './config-schema.js';
import type { DomainSettings, AnyManifest } from './manifest.js';
import { mailConfig } from './senders/mail/config.js';
import { smsConfig } from './senders/sms/config.js';
import { pushConfig } from './senders/push/config.js';
import { webhookConfig } from './senders/webhook/index.js';
import { jobsConfig } from './jobs/index.js';
import { DATABASE_URL_FORMS, parseDatabaseUrl } from './storage/database-url.js';

/** Process-wide settings: where to listen, what to store in, how to log. */
export const serverConfig = defineConfig({
  nodeEnv: {
    env: 'NODE_ENV', default: 'development', parse: oneOf('development', 'production', 'test'),
    description: '`production` refuses to start without real secrets and hides development conveniences (codes in logs).',
  },
  port: { env: 'PORT', default: 9000, parse: int(0, 65535), description: 'TCP port the server listens on.' },
  host: { env: 'HOST', default: '127.0.0.1', parse: str, description: 'Interface to bind; `0.0.0.0` to accept connections from other hosts.' },
  publicUrl: {
    env: 'PUBLIC_URL', parse: url, defaultText: 'http://localhost:$PORT',
    default: (env: Env) => `http://localhost:${env.PORT || 9000}`,
    description: 'The origin clients see. Hawk MACs are checked against its host and port; links in emails start with it.',
  },
  databaseUrl: {
    env: 'DATABASE_URL', parse: parseDatabaseUrl,
    default: (env: Env) => `sqlite:${join(env.DATA_DIR || 'data', 'tessera.sqlite')}`, defaultText: 'sqlite:$DATA_DIR/tessera.sqlite',
    description: `${DATABASE_URL_FORMS}; the first is the embedded default. The URL must name a database (\`sqlite:\` alone and a server URL without a database name are refused). Migrations run on start.`,
  },
  databasePoolSize: { env: 'DATABASE_POOL_SIZE', default: 10, parse: int(1, 1000), description: 'Connections per instance for PostgreSQL and MySQL.' },
  redisUrl: {
    env: 'REDIS_URL', default: '', parse: str,
    description: 'Redis for state that instances must share: the Hawk nonce cache (a replay to another instance is refused too) and rate-limit counters, blocks and bans. Empty: kept in process.',
  },
  logFormat: {
    env: 'LOG_FORMAT', parse: oneOf('json', 'pretty'), defaultText: 'pretty on a terminal outside production, else json',
    default: (env: Env) => (env.NODE_ENV !== 'production' && process.stdout.isTTY ? 'pretty' : 'json') as 'json' | 'pretty',
    description: '`json`: one JSON object per line, for log collectors (what production should use). `pretty`: readable coloured lines (pino-pretty) for a person at a terminal.',
  },
  shutdownTimeoutSeconds: {
    env: 'SHUTDOWN_TIMEOUT_SECONDS', default: 10, parse: int(0, 3600),
    description: 'On SIGTERM or SIGINT, how long the server waits for requests in progress before it exits anyway (status 1). A second signal exits at once.',
  },
  logLevel: {
    env: 'LOG_LEVEL', default: 'info', parse: oneOf('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'),
    description: 'pino log level. Secrets, tokens and passwords are never logged at any level.',
  },
  dataDir: {
    env: 'DATA_DIR', default: 'data', parse: str,
    description: 'Where the embedded default keeps its files: the SQLite database (unless DATABASE_URL says otherwise), the outbox and the development keys. It must be writable; the server checks at start.',
  },
  bodyLimit: { env: 'BODY_LIMIT_BYTES', default: 65536, parse: int(1024, 10_485_760), description: 'Largest accepted request body; larger ones get 413/113.' },
  trustProxy: { env: 'TRUST_PROXY', default: false, parse: bool, description: 'Read the client address from X-Forwarded-For (set when behind a load balancer).' },
  portalDir: {
    env: 'PORTAL_DIR', default: 'apps/portal/build', parse: str,
    description: 'The built developer portal, served at /ecosystem-platform/ when the folder exists.',
  },
  redirectAllowedOrigins: {
    env: 'REDIRECT_ALLOWED_ORIGINS', default: '', parse: str,
    description: 'Comma-separated origins (besides PUBLIC_URL and CONTENT_URL) that emailed links may send the user back to with redirectTo.',
  },
  authSecret: {
    env: 'AUTH_SECRET', secret: true, parse: str, default: '', defaultText: '$DATA_DIR/auth-secret (generated in development)',
    description: 'Key for the server\'s own HMACs and JWTs (codes, account setup tokens; MFA tokens have MFA_JWT_SECRET) and for the keys stored tokens are found and sealed under: changing it ends every session and token. At least 32 random characters; required in production. Unset outside production: a random one is generated once into the data folder.',
  },
  signingKeyFile: {
    env: 'SIGNING_KEY_FILE', parse: str, default: '', defaultText: '$DATA_DIR/signing-key.pem (generated in development)',
    description: 'PEM RSA private key (2048+ bits) that signs JWTs and is published at /.well-known/public-keys. Required in production.',
  },
  scryptNice: {
    env: 'SCRYPT_NICE', default: 0, parse: int(-20, 19),
    description: 'Nice value of the scrypt threads. Negative (needs CAP_SYS_NICE) favours sign-in throughput during a flood over the latency of other requests; see bench/README.md.',
  },
  sessionCacheMs: {
    env: 'SESSION_CACHE_MS', default: 1000, parse: int(0, 60_000),
    description: 'How long a session lookup is reused in process (writes made here invalidate it at once; another instance may accept a session ended elsewhere for at most this long). 0 disables.',
  },
  hawkSkewSeconds: {
    env: 'HAWK_TIMESTAMP_SKEW_SECONDS', default: 60, parse: int(1, 86400),
    description: 'How far a Hawk `ts` may be from the server clock; outside it the answer is 401/111 with serverTime.',
  },
  hawkNonceCacheSize: {
    env: 'HAWK_NONCE_CACHE_SIZE', default: 2_000_000, parse: int(1000, 100_000_000),
    description: 'Entries of the in-process Hawk nonce cache (without REDIS_URL): one per nonce plus one per token and slice, each kept until its request\'s `ts` leaves the skew window, so that a replay gets 401/115; about 25–50 bytes each while in use (memory follows use). The cache never forgets a live nonce: when it is full, Hawk requests get 503/201 with retryAfter (fail closed). That caps Hawk throughput at about this / (HAWK_TIMESTAMP_SKEW_SECONDS + 1 + a slice) requests per second, 2,000,000 / 70 s ≈ 28,000/s with the defaults. Bearer requests are not affected.',
  },
  hawkNoncesPerToken: {
    env: 'HAWK_NONCES_PER_TOKEN', default: 200, parse: int(1, 100_000_000),
    description: 'Hawk nonces one token may use per slice of request timestamps (the window of 2 × skew + 1 s cut in 15: 9 s by default), in process and in Redis alike; beyond it the token\'s Hawk requests get 429/114 with retryAfter. One token then holds at most 16 times this in the nonce cache, so a token holder cannot fill it alone. Nonces longer than 64 characters get 401/115.',
  },
  scryptWorkers: {
    env: 'SCRYPT_WORKERS', parse: int(1, 64), default: () => availableParallelism(), defaultText: 'number of CPUs',
    description: 'Worker threads that run the password scrypt (64 MiB and ~135 ms each), off the event loop and off libuv\'s pool.',
  },
  scryptMaxPending: {
    env: 'SCRYPT_MAX_PENDING', default: 32, parse: int(1, 100_000),
    description: 'Password stretches allowed to wait for a worker; beyond it requests get 503/201 with retryAfter at once.',
  },
});

/** The platform's slices (not a domain's): where to listen and store, how mail, SMS, push and webhooks leave. */
export const PLATFORM_SLICES = {
  server: { title: 'Server', slice: serverConfig },
  push: { title: 'Web Push', slice: pushConfig },
  mail: { title: 'Mail', slice: mailConfig },
  webhooks: { title: 'Webhooks (support, newsletters)', slice: webhookConfig },
  sms: { title: 'SMS', slice: smsConfig },
  jobs: { title: 'Job queue', slice: jobsConfig },
} satisfies Record<string, TitledSlice>;

type PlatformConfig = { [K in keyof typeof PLATFORM_SLICES]: ConfigValues<(typeof PLATFORM_SLICES)[K]['slice']> };

/** Every setting: the platform's slices and each composed domain's (its manifest's `config`). */
export type Config = PlatformConfig & DomainSettings;

/** Every config slice of a composition, with its heading (the configuration page and README). */
export function configSlices(domains: readonly AnyManifest[] = DOMAINS): Record<string, TitledSlice> {
  return composeConfigSlices(PLATFORM_SLICES, domains);
}

/** Secrets that have appeared in Tessera's code or docs: never acceptable in production. */
const PUBLISHED_SECRETS = ['development-only-secret-do-not-use-in-production'];

export function loadConfig(env: Env = process.env, domains: readonly AnyManifest[] = DOMAINS): Config {
  const config = readComposedConfig(configSlices(domains), domains, env) as unknown as Config;
  const production = config.server.nodeEnv === 'production';
  if (config.server.authSecret && config.server.authSecret.length < 32) {
    throw new ConfigError('AUTH_SECRET must be at least 32 characters (use e.g. `openssl rand -hex 32`)');
  }
  if (production && PUBLISHED_SECRETS.includes(config.server.authSecret)) {
    throw new ConfigError('AUTH_SECRET is a value published in Tessera\'s own code and docs: set a random one (e.g. `openssl rand -hex 32`)');
  }
  if (production && !config.mail.smtpUrl) {
    throw new ConfigError('SMTP_URL must be set when NODE_ENV=production: without it every email, codes included, would be written to the outbox on disk');
  }
  const twilio = [config.sms.twilioAccountSid, config.sms.twilioAuthToken].filter(Boolean).length;
  if (twilio === 1 || (twilio === 2 && !config.sms.twilioFrom && !config.sms.twilioMessagingServiceSid)) {
    throw new ConfigError('Twilio needs TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM or TWILIO_MESSAGING_SERVICE_SID together');
  }
  return config;
}
