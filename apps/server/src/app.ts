import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { ScryptPool } from './crypto/scrypt-pool.js';
import { AccountsService } from './domains/accounts/service.js';
import { accountRoutes } from './domains/accounts/routes.js';
import { AccountSetupService } from './domains/accounts/setup.js';
import { Confirmations } from './domains/emails/service.js';
import { emailRoutes } from './domains/emails/routes.js';
import { bounceLog } from './domains/emails/store.js';
import { keyRoutes } from './domains/keys/routes.js';
import { loadSigningKey, type SigningKey } from './domains/keys/service.js';
import { miscRoutes } from './domains/misc/routes.js';
import { passwordRoutes } from './domains/passwords/routes.js';
import { PasswordsService } from './domains/passwords/service.js';
import { pageRoutes } from './domains/pages/routes.js';
import { SessionsService } from './domains/sessions/service.js';
import { SessionCache } from './domains/sessions/cache.js';
import { sessionRoutes } from './domains/sessions/routes.js';
import { buildStrategies } from './http/strategies.js';
import { installAuth } from './http/auth.js';
import { installJsonParser } from './http/body.js';
import { installErrorHandling } from './http/errors.js';
import { NonceCache } from './http/hawk.js';
import { connectRedis, RedisNonceStore } from './http/redis-nonces.js';
import { installOpenApi } from './http/openapi.js';
import { installValidators } from './http/validation.js';
import { ErrorBody } from './http/responses.js';
import { MetricsContextSchema } from './http/schemas.js';
import { installPortal } from './http/portal.js';
import { Mailer } from './senders/mail/mailer.js';
import { OutboxSender, SmtpSender, type MailSender } from './senders/mail/sender.js';
import type { Storage } from './storage/db.js';

export interface AppOptions {
  config: Config;
  /** Opened and migrated. */
  storage: Storage;
  clock?: Clock;
  /** Overrides the sender chosen from SMTP_URL (tests pass an SMTP sender for their own server). */
  mailSender?: MailSender;
  signingKey?: SigningKey;
  logger?: FastifyBaseLogger | boolean;
}

export interface App {
  server: FastifyInstance;
  /** Stops the server and releases workers and connections it opened (not the storage). */
  close(): Promise<void>;
}

/** The composition root: every dependency is built here, once, and handed down explicitly. */
export async function createApp(options: AppOptions): Promise<App> {
  const { config, storage } = options;
  const clock = options.clock ?? systemClock;
  const { db } = storage;
  const server = Fastify({
    logger: options.logger === undefined
      // Database errors can quote the values of a failed statement (token ids are credentials).
      ? { level: config.server.logLevel, redact: ['req.headers.authorization', 'req.headers.cookie', 'err.detail', 'err.parameters', 'err.sql'] }
      : (options.logger as never),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimit,
    trustProxy: config.server.trustProxy,
    genReqId: () => randomUUID(),
    // No child logger per request (making one serializes its bindings every time): lines that need
    // the request id carry it themselves.
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    ajv: { customOptions: { strict: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const publicUrl = new URL(config.server.publicUrl);
  const production = config.server.nodeEnv === 'production';
  const signingKey = options.signingKey ?? loadSigningKey({
    file: config.server.signingKeyFile, devFile: join(config.server.dataDir, 'signing-key.pem'), production,
  });
  const redis = config.server.redisUrl ? connectRedis(config.server.redisUrl) : null;
  const scrypt = new ScryptPool({ workers: config.server.scryptWorkers, maxPending: config.server.scryptMaxPending, nice: config.server.scryptNice });
  const sender = options.mailSender ?? (config.mail.smtpUrl
    ? new SmtpSender(config.mail.smtpUrl, config.mail.from)
    : new OutboxSender(join(config.server.dataDir, 'outbox'), config.mail.from, server.log, !production));
  const mailer = new Mailer({ sender, bounces: bounceLog(db), clock, log: server.log, softBounceMs: 5 * 60_000 });
  const contentUrl = config.mail.contentUrl || config.server.publicUrl;
  const link = (path: string) => (params: Record<string, string | undefined>) => {
    const url = new URL(path, contentUrl);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    return url.toString();
  };

  const confirmations = new Confirmations({
    db, clock, mailer, secret: config.server.authSecret,
    codeLifetimeMs: config.signin.codeLifetimeSeconds * 1000, codeTries: config.signin.codeTries,
    verifyLink: link('/verify_email'),
  });
  const sessions = new SessionsService({ db, clock, idleLifetimeMs: config.tokens.sessionWithoutDeviceLifetime * 1000 });
  const accounts = new AccountsService({
    db, clock, scrypt, confirmations,
    warn: (message, err) => server.log.warn({ reason: (err as Error).message }, message),
    signin: {
      confirmationEnabled: config.signin.confirmationEnabled,
      skipForNewAccountsMs: config.signin.skipForNewAccountsSeconds * 1000,
      forcedEmail: config.signin.forcedEmailPattern ? new RegExp(config.signin.forcedEmailPattern, 'i') : null,
    },
  });
  const setup = new AccountSetupService({
    db, clock, scrypt, confirmations, secret: config.server.authSecret, issuer: config.server.publicUrl,
    accessTokenTtlMs: 86_400_000, setupTokenTtlMs: 30 * 86_400_000,
  });
  const passwords = new PasswordsService({
    db, clock, scrypt, mailer, accounts,
    tokens: config.tokens, secret: config.server.authSecret,
    resetLink: link('/complete_reset_password'),
  });

  installJsonParser(server);
  installValidators(server, [ErrorBody, MetricsContextSchema]);
  installErrorHandling(server, { infoUrl: new URL('/ecosystem-platform/reference/errors', config.server.publicUrl).toString() });
  installAuth(server, {
    strategies: buildStrategies({
      db, sessions, tokens: config.tokens, writeEpoch: storage.writeEpoch,
      sessionCache: new SessionCache(storage.writeEpoch, config.server.sessionCacheMs),
    }),
    hawk: { host: publicUrl.hostname, port: Number(publicUrl.port || (publicUrl.protocol === 'https:' ? 443 : 80)), skewSeconds: config.server.hawkSkewSeconds },
    nonces: redis ? new RedisNonceStore(redis) : new NonceCache(config.server.hawkNonceCacheSize),
    clock,
  });
  await installOpenApi(server);

  const logRequests = ['trace', 'debug', 'info'].includes(server.log.level);
  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  server.addHook('onSend', (request, reply, payload, done) => {
    // protocol.md §0: successful responses carry the server time so clients can correct skew.
    reply.header('timestamp', String(Math.floor(clock.now() / 1000)));
    if (request.url.startsWith('/v1/')) {
      if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      reply.header('x-content-type-options', 'nosniff');
    }
    done(null, payload);
  });
  server.addHook('onResponse', (request, reply, done) => {
    // One line per request, without query strings: they can hold codes and tokens.
    if (logRequests) {
      request.log.info({ reqId: request.id, method: request.method, path: request.url.split('?')[0], status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
    }
    done();
  });

  // Routes that stretch a password turn a flood away before reading the body: while the scrypt
  // pool is full, each extra request costs as little as possible of the CPU the pool needs.
  server.addHook('onRequest', (request, _reply, done) => {
    if (request.routeOptions.config.stretches) {
      try {
        scrypt.checkCapacity();
      } catch (err) {
        return done(err as Error);
      }
    }
    done();
  });

  await server.register(async (v1) => {
    await v1.register(accountRoutes, { accounts, setup });
    await v1.register(sessionRoutes, { sessions, accounts, confirmations });
    await v1.register(emailRoutes, { confirmations });
    await v1.register(passwordRoutes, { passwords });
    await v1.register(miscRoutes);
  }, { prefix: '/v1' });
  await server.register(keyRoutes, { key: signingKey });
  const allowedOrigins = [config.server.publicUrl, contentUrl, ...config.server.redirectAllowedOrigins.split(',')]
    .map((o) => o.trim()).filter(Boolean).map((o) => new URL(o).origin);
  await server.register(pageRoutes, { confirmations, allowedOrigins });
  await installPortal(server, config.server.portalDir);

  server.get('/v1/openapi.json', { schema: { hide: true } }, async () => server.swagger());

  await server.ready();
  return {
    server,
    async close() {
      await server.close();
      await scrypt.close();
      await sender.close();
      if (redis) await redis.quit();
    },
  };
}
