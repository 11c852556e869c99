import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { systemClock, type Clock } from './clock.js';
import { buildDomains, composeDeclarations } from './composition.js';
import type { Config } from './config.js';
import { developmentSecret, serverSecret } from './crypto/dev-secret.js';
import { ScryptPool } from './crypto/scrypt-pool.js';
import { TokenSecrets } from './crypto/token-secrets.js';
import { AccountLifecycle, composeDomains, type Domain } from './domain.js';
import type { AnyManifest, DomainServices, Platform } from './manifest.js';
import { accountCoreDomain } from './domains/account-core/index.js';
import { accountsDomain } from './domains/accounts/index.js';
import { customsDomain } from './domains/customs/index.js';
import { devicesDomain } from './domains/devices/index.js';
import { bounceLog, emailsDomain } from './domains/emails/index.js';
import { geoDomain } from './domains/geo/index.js';
import { linkedAccountsDomain } from './domains/linked-accounts/index.js';
import { mfaDomain } from './domains/mfa/index.js';
import { newslettersDomain } from './domains/newsletters/index.js';
import { oauthDomain } from './domains/oauth/index.js';
import { pagesDomain } from './domains/pages/index.js';
import { passwordsDomain } from './domains/passwords/index.js';
import { recoveryKeysDomain } from './domains/recovery-keys/index.js';
import { recoveryPhoneDomain } from './domains/recovery-phone/index.js';
import { secondaryEmailsDomain } from './domains/secondary-emails/index.js';
import { securityEventsDomain } from './domains/security-events/index.js';
import { sessionsDomain } from './domains/sessions/index.js';
import { supportDomain } from './domains/support/index.js';
import { tokensDomain } from './domains/tokens/index.js';
import { twoStepDomain } from './domains/two-step/index.js';
import { installAuth } from './http/auth.js';
import { installDeclaredErrorCheck, type UndeclaredError } from './http/declared-errors.js';
import { NonceCache } from './http/hawk.js';
import { installOpenApi } from './http/openapi.js';
import { installPortal } from './http/portal.js';
import { allowedRedirect } from './platform/redirect.js';
import { connectRedis, RedisNonceStore } from './http/redis-nonces.js';
import { JobQueue, JobRunner } from './jobs/index.js';
import { createHealthDomain } from './platform/health/index.js';
import { createHttpServer, installCapacityCheck, installResponseHooks, installRouteHooks } from './platform/http-server.js';
import { createKeysDomain, loadSigningKey, type SigningKey } from './platform/keys/index.js';
import { createMiscDomain } from './platform/misc/index.js';
import { Mailer } from './senders/mail/mailer.js';
import { OutboxSender, SmtpSender, type MailSender } from './senders/mail/sender.js';
import { loadVapidKeys, PushQueue } from './senders/push/index.js';
import { smsSenderFrom, type SmsSender } from './senders/sms/index.js';
import { WebhookSender, type Scheduler } from './senders/webhook/index.js';
import type { Storage } from './storage/db.js';

/**
 * The domains, in the order they are built: by floor (floors.json: core, sign-in methods, relying
 * parties, services), each after the domains whose services it needs while it is built. Everything
 * a domain contributes (routes, config, rate-limit rules, security events, emails, tables and
 * migrations, strategies, hooks) comes from its manifest: adding a domain is adding its line here.
 */
export const DOMAINS = [
  customsDomain, geoDomain, securityEventsDomain, accountCoreDomain, tokensDomain, sessionsDomain,
  emailsDomain, twoStepDomain, recoveryPhoneDomain, secondaryEmailsDomain, linkedAccountsDomain, accountsDomain, mfaDomain, recoveryKeysDomain, passwordsDomain,
  oauthDomain, devicesDomain,
  supportDomain, newslettersDomain, pagesDomain,
] as const satisfies readonly AnyManifest[];

/** Every migration of a composition, in their one order (storage's migrateToLatest runs them). */
export const migrationsOf = (domains: readonly AnyManifest[] = DOMAINS) => composeDeclarations(domains).migrations;

export interface AppOptions {
  config: Config;
  /** Opened and migrated. */
  storage: Storage;
  clock?: Clock;
  /** Overrides the sender chosen from SMTP_URL (tests pass an SMTP sender for their own server). */
  mailSender?: MailSender;
  /** Replaces the SMS transport the configuration picks (null: none, as in production without Twilio). */
  smsSender?: SmsSender | null;
  signingKey?: SigningKey;
  logger?: FastifyBaseLogger | boolean;
  /** Runs the job queue's retries and sweeps, webhook deliveries among them (tests drive their own); timers by default. */
  webhookScheduler?: Scheduler;
  /** Another domain list (tests compose one with a fixture domain); DOMAINS by default. */
  domains?: readonly AnyManifest[];
}

/** The domains' services, for tools and tests that work below HTTP. */
export type AppServices = DomainServices;

export interface App {
  server: FastifyInstance;
  /** Every domain's account lifecycle hooks (the account core runs them). */
  lifecycle: AccountLifecycle;
  /** The domains' services, for tools and tests that work below HTTP. */
  services: AppServices;
  /** Web Push's outgoing queue (`idle()` resolves once every queued push has been sent). */
  push: PushQueue;
  /** The signed, retrying webhook sender (support tickets, newsletters); its deliveries are jobs. */
  webhooks: WebhookSender;
  /** The storage-backed job queue (jobs/) and its runner. */
  jobs: JobQueue;
  /** The password-stretching pool (its `accepted` count shows which paths pay a stretch). */
  scrypt: ScryptPool;
  /** With NODE_ENV=test: errors routes answered without declaring them (the test harness fails on any). */
  undeclaredErrors: UndeclaredError[];
  /**
   * Stops the server and releases workers and connections it opened (not the storage). From the
   * call on, new requests get 503/201 with retryAfter; requests in progress run to their end.
   */
  close(): Promise<void>;
  /** True once close() was called. */
  readonly closing: boolean;
}

/** The composition root: the platform is built here, once, and the domains from their manifests. */
export async function createApp(options: AppOptions): Promise<App> {
  const { config, storage } = options;
  const manifests = options.domains ?? DOMAINS;
  const clock = options.clock ?? systemClock;
  const { db } = storage;
  const server = createHttpServer({
    logger: options.logger, logLevel: config.server.logLevel, bodyLimit: config.server.bodyLimit, trustProxy: config.server.trustProxy, publicUrl: config.server.publicUrl,
  });

  const publicUrl = new URL(config.server.publicUrl);
  const production = config.server.nodeEnv === 'production';
  const secretOr = (value: string, file: string) => value || developmentSecret(join(config.server.dataDir, file));
  const signingKey = options.signingKey ?? loadSigningKey({
    file: config.server.signingKeyFile, devFile: join(config.server.dataDir, 'signing-key.pem'), production,
  });
  const authSecret = serverSecret(config.server);
  const redis = config.server.redisUrl ? connectRedis(config.server.redisUrl) : null;
  const scrypt = new ScryptPool({ workers: config.server.scryptWorkers, maxPending: config.server.scryptMaxPending, nice: config.server.scryptNice });
  const declarations = composeDeclarations(manifests);
  const sender = options.mailSender ?? (config.mail.smtpUrl
    ? new SmtpSender(config.mail.smtpUrl, config.mail.from)
    : new OutboxSender(join(config.server.dataDir, 'outbox'), config.mail.from, server.log, !production));
  const mailer = new Mailer({
    sender, bounces: bounceLog(db), clock, log: server.log, softBounceMs: 5 * 60_000, revealCodes: !production, templates: declarations.emails,
  });
  const contentUrl = config.mail.contentUrl || config.server.publicUrl;
  // Where emailed links may send the user back to (redirectTo): anything else is refused at the door.
  const allowedOrigins = [config.server.publicUrl, contentUrl, ...config.server.redirectAllowedOrigins.split(',')]
    .map((o) => o.trim()).filter(Boolean).map((o) => new URL(o).origin);
  const link = (path: string) => (params: Record<string, string | undefined>) => {
    const url = new URL(path, contentUrl);
    for (const [k, v] of Object.entries(params)) {
      // Routes refuse another redirectTo at the door; a link never carries one either.
      if (v !== undefined && (k !== 'redirectTo' || allowedRedirect(v, allowedOrigins) !== null)) url.searchParams.set(k, v);
    }
    return url.toString();
  };
  // RFC 8292 §2.1: the VAPID subject says how to reach the operator (an https URL or a mailto: address).
  const vapidSubject = config.push.vapidSubject
    || (publicUrl.protocol === 'https:' ? publicUrl.origin : `mailto:${/<([^>]+)>/.exec(config.mail.from)?.[1] ?? config.mail.from}`);
  const push = new PushQueue({
    vapid: loadVapidKeys({ privateKey: config.push.vapidPrivateKey, devFile: join(config.server.dataDir, 'vapid-private-key'), production }),
    subject: vapidSubject,
    ca: config.push.caFile ? readFileSync(config.push.caFile, 'utf8') : null,
    maxQueued: config.push.queueSize, concurrency: config.push.concurrency, timeoutMs: config.push.timeoutMs,
    log: server.log,
  });
  const jobs = new JobQueue(clock, new JobRunner({
    db, clock, scheduler: options.webhookScheduler, log: server.log,
    retry: { baseMs: config.jobs.retryBaseSeconds * 1000, maxMs: config.jobs.retryMaxSeconds * 1000, maxAttempts: config.jobs.maxAttempts, leaseMs: config.jobs.leaseSeconds * 1000 },
  }));
  // A push the push service failed to take is retried through the job queue until its TTL ends.
  push.retryOn(jobs, db, clock);
  const webhooks = new WebhookSender({
    db, clock, jobs, log: server.log,
    timeoutMs: config.webhooks.timeoutMs, retryBaseMs: config.webhooks.retryBaseSeconds * 1000, retryMaxMs: config.webhooks.retryMaxSeconds * 1000,
  });
  const lifecycle = new AccountLifecycle();
  const warn = (message: string, err: unknown) => server.log.warn({ reason: (err as Error).message }, message);
  const platform: Platform = {
    db, writeEpoch: storage.writeEpoch, clock, log: server.log, warn, server: config.server, publicUrl,
    redis, signingKey, webhooks, jobs, mailer, scrypt, secrets: new TokenSecrets(authSecret), authSecret, push,
    sms: options.smsSender !== undefined ? options.smsSender : smsSenderFrom(config.sms, { dataDir: config.server.dataDir, production, log: server.log }),
    allowedOrigins, link, secretOr, lifecycle, composition: declarations,
  };
  const built = await buildDomains(manifests, platform, config as unknown as Record<string, Record<string, unknown>>);
  // Platform routes beside the domains: the signing keys, health and the server's small documents.
  const health = createHealthDomain({
    publicUrl: config.server.publicUrl,
    portal: existsSync(join(resolve(config.server.portalDir), 'index.html')),
    checks: [
      { name: 'database', run: () => sql`select 1`.execute(db) },
      ...(redis ? [{ name: 'redis', run: () => redis.ping() }] : []),
    ],
    warn,
  });
  const domains: Domain[] = [createKeysDomain({ key: signingKey }), ...built.domains, createMiscDomain(), health];
  const { strategies } = composeDomains(domains, lifecycle);

  let closing = false;
  installRouteHooks(server, { closing: () => closing });
  installAuth(server, {
    strategies,
    hawk: { host: publicUrl.hostname, port: Number(publicUrl.port || (publicUrl.protocol === 'https:' ? 443 : 80)), skewSeconds: config.server.hawkSkewSeconds },
    nonces: redis
      ? new RedisNonceStore(redis, {
        perToken: config.server.hawkNoncesPerToken, skewSeconds: config.server.hawkSkewSeconds,
        onError: (err) => server.log.warn({ reason: (err as Error).message }, 'Redis failed a Hawk nonce check: answered 503'),
      })
      : new NonceCache({ size: config.server.hawkNonceCacheSize, perToken: config.server.hawkNoncesPerToken, skewSeconds: config.server.hawkSkewSeconds }),
    clock,
  });
  for (const domain of domains) await domain.install?.(server);
  await installOpenApi(server, strategies);
  const undeclaredErrors: UndeclaredError[] = [];
  if (config.server.nodeEnv === 'test') installDeclaredErrorCheck(server, undeclaredErrors);
  installResponseHooks(server, { clock, https: publicUrl.protocol === 'https:' });
  installCapacityCheck(server, scrypt);

  await server.register(async (v1) => {
    for (const domain of domains) if (domain.routes) await domain.routes(v1);
  }, { prefix: '/v1' });
  for (const domain of domains) if (domain.rootRoutes) await domain.rootRoutes(server);
  await installPortal(server, config.server.portalDir);

  server.get('/v1/openapi.json', { schema: { hide: true } }, async () => server.swagger());

  await server.ready();
  // Jobs a previous process left pending (webhook deliveries among them) run now, then every sweep.
  jobs.runner.start(config.jobs.sweepSeconds * 1000);
  return {
    server,
    lifecycle,
    push,
    webhooks,
    jobs,
    scrypt,
    undeclaredErrors,
    get closing() {
      return closing;
    },
    services: built.services as unknown as AppServices,
    async close() {
      closing = true;
      await server.close();
      webhooks.close();
      await webhooks.idle();
      await push.close();
      await scrypt.close();
      for (const domain of domains) await domain.close?.();
      await sender.close();
      if (redis) await redis.quit();
    },
  };
}
