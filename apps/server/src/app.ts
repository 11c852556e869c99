import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sql } from 'kysely';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { TSchema } from '@sinclair/typebox';
import { appError } from '@tessera/errors';
import { systemClock, type Clock } from './clock.js';
import type { Config } from './config.js';
import { developmentSecret, serverSecret } from './crypto/dev-secret.js';
import { ScryptPool } from './crypto/scrypt-pool.js';
import { TokenSecrets } from './crypto/token-secrets.js';
import { AccountLifecycle, composeDomains, type Domain } from './domain.js';
import { createAccountRecords, type AccountRecords } from './domains/account-core/index.js';
import { createAccountsDomain, type AccountsService } from './domains/accounts/index.js';
import { createDevicesDomain, type DevicesService } from './domains/devices/index.js';
import { createCustomsDomain, installRateLimits, rulesInForce } from './domains/customs/index.js';
import { createHealthDomain } from './platform/health/index.js';
import { bounceLog, createEmailsDomain, type Confirmations } from './domains/emails/index.js';
import { createKeysDomain, loadSigningKey, type SigningKey } from './platform/keys/index.js';
import { createMfaDomain, type MfaService } from './domains/mfa/index.js';
import { createLinkedAccountsDomain, type LinkedAccountsService } from './domains/linked-accounts/index.js';
import { createMiscDomain } from './platform/misc/index.js';
import { createGeoDomain, type GeoService } from './domains/geo/index.js';
import { createSupportDomain, SUPPORT_TARGET, type SupportService } from './domains/support/index.js';
import { createNewslettersDomain, NEWSLETTERS_TARGET, type NewslettersService } from './domains/newsletters/index.js';
import { WebhookSender, type Scheduler } from './senders/webhook/index.js';
import { createOAuthDomain, readClientsFile, type OAuthService } from './domains/oauth/index.js';
import { createPagesDomain } from './domains/pages/index.js';
import { createPasswordsDomain, type PasswordsService } from './domains/passwords/index.js';
import { createRecoveryKeysDomain, type RecoveryKeysService } from './domains/recovery-keys/index.js';
import { createSecondaryEmailsDomain, type SecondaryEmails } from './domains/secondary-emails/index.js';
import { createSecurityEventsDomain, type SecurityEventsService } from './domains/security-events/index.js';
import { createSessionsDomain, type SessionsService } from './domains/sessions/index.js';
import { createTokensDomain, type TokensService } from './domains/tokens/index.js';
import { createTwoStepDomain, type TwoStepService } from './domains/two-step/index.js';
import { createRecoveryPhoneDomain, type RecoveryPhoneService } from './domains/recovery-phone/index.js';
import { allowedRedirect } from './http/redirect.js';
import { installAuth } from './http/auth.js';
import { installJsonParser } from './http/body.js';
import { installDeclaredErrorCheck, type UndeclaredError } from './http/declared-errors.js';
import { clientErrorResponder, frameworkErrorResponder, installErrorHandling } from './http/errors.js';
import { NonceCache } from './http/hawk.js';
import { connectRedis, RedisNonceStore } from './http/redis-nonces.js';
import { installOpenApi } from './http/openapi.js';
import { installValidators } from './http/validation.js';
import { ErrorBody, withDeclaredErrors } from './http/responses.js';
import { MetricsContextSchema } from './http/schemas.js';
import { installPortal } from './http/portal.js';
import { applySecurityHeaders } from './http/security-headers.js';
import { hookList } from './http/route-hooks.js';
import { LOG_REDACT } from './process/logger.js';
import { Mailer } from './senders/mail/mailer.js';
import { loadVapidKeys, PushQueue } from './senders/push/index.js';
import { OutboxSender, SmtpSender, type MailSender } from './senders/mail/sender.js';
import { smsSenderFrom, type SmsSender } from './senders/sms/index.js';
import type { Storage } from './storage/db.js';

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
  /** Runs the webhook sender's retries and sweeps (tests drive their own); timers by default. */
  webhookScheduler?: Scheduler;
}

export interface AppServices {
  records: AccountRecords;
  oauth: OAuthService;
  sessions: SessionsService;
  tokens: TokensService;
  emails: Confirmations;
  accounts: AccountsService;
  passwords: PasswordsService;
  securityEvents: SecurityEventsService;
  devices: DevicesService;
  mfa: MfaService;
  recoveryKeys: RecoveryKeysService;
  secondaryEmails: SecondaryEmails;
  linkedAccounts: LinkedAccountsService;
  twoStep: TwoStepService;
  geo: GeoService;
  support: SupportService;
  newsletters: NewslettersService;
  recoveryPhone: RecoveryPhoneService;
}

export interface App {
  server: FastifyInstance;
  /** Every domain's account lifecycle hooks (the account core runs them). */
  lifecycle: AccountLifecycle;
  /** The domains' services, for tools and tests that work below HTTP. */
  services: AppServices;
  /** Web Push's outgoing queue (`idle()` resolves once every queued push has been sent). */
  push: PushQueue;
  /** The signed, retrying webhook sender (support tickets, newsletters). */
  webhooks: WebhookSender;
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

/** How long a client turned away during shutdown should wait: another instance (or the restarted one) takes over. */
const CLOSING_RETRY_AFTER_SECONDS = 5;

/** The composition root: every dependency is built here, once, and handed down explicitly. */
export async function createApp(options: AppOptions): Promise<App> {
  const { config, storage } = options;
  const clock = options.clock ?? systemClock;
  const { db } = storage;
  const errorDeps = { infoUrl: new URL('/ecosystem-platform/reference/errors', config.server.publicUrl).toString() };
  const server = Fastify({
    // A logger instance (tests collect lines) goes in loggerInstance; otherwise options or false.
    ...(typeof options.logger === 'object'
      ? { loggerInstance: options.logger }
      : {
          logger: options.logger === undefined
            // Database errors can quote the values of a failed statement (token ids are credentials).
            ? { level: config.server.logLevel, redact: LOG_REDACT }
            : options.logger,
        }),
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.server.bodyLimit,
    trustProxy: config.server.trustProxy,
    genReqId: () => randomUUID(),
    // No child logger per request (making one serializes its bindings every time): lines that need
    // the request id carry it themselves.
    childLoggerFactory: (logger) => logger,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
    // Faults before routing answer in the catalogue's shape too (issue 9, hole 5).
    clientErrorHandler: clientErrorResponder(errorDeps),
    frameworkErrors: frameworkErrorResponder(errorDeps),
    ajv: { customOptions: { strict: false } },
    // While closing, requests get the catalogue's 503/201 (the hook below), not Fastify's own body.
    return503OnClosing: false,
  }).withTypeProvider<TypeBoxTypeProvider>();

  const publicUrl = new URL(config.server.publicUrl);
  const production = config.server.nodeEnv === 'production';
  const signingKey = options.signingKey ?? loadSigningKey({
    file: config.server.signingKeyFile, devFile: join(config.server.dataDir, 'signing-key.pem'), production,
  });
  const authSecret = serverSecret(config.server);
  // Token rows are keyed under keys derived from it (issue 9, hole 4): changing it ends every token.
  const tokenSecrets = new TokenSecrets(authSecret);
  const redis = config.server.redisUrl ? connectRedis(config.server.redisUrl) : null;
  const scrypt = new ScryptPool({ workers: config.server.scryptWorkers, maxPending: config.server.scryptMaxPending, nice: config.server.scryptNice });
  const sender = options.mailSender ?? (config.mail.smtpUrl
    ? new SmtpSender(config.mail.smtpUrl, config.mail.from)
    : new OutboxSender(join(config.server.dataDir, 'outbox'), config.mail.from, server.log, !production));
  const mailer = new Mailer({ sender, bounces: bounceLog(db), clock, log: server.log, softBounceMs: 5 * 60_000, revealCodes: !production });
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

  // The domains, each built from what it declares, in dependency order: a domain is given only the
  // services of domains built before it. Adding a domain is adding its factory call to this list.
  const lifecycle = new AccountLifecycle();
  const records = createAccountRecords({
    db, lifecycle, codeBudget: {
      maxFailures: config.accounts.codeFailuresMax, resetMaxFailures: config.accounts.resetCodeFailuresMax, windowMs: config.accounts.codeFailureWindowSeconds * 1000,
    },
  });
  const customs = createCustomsDomain({
    enabled: config.rateLimit.enabled, rules: rulesInForce(config.rateLimit), redis, redisPrefix: config.rateLimit.redisPrefix,
    failClosed: config.rateLimit.storeFailure === 'closed',
    ignore: { ips: config.rateLimit.ignoreIps, emails: config.rateLimit.ignoreEmails, uids: config.rateLimit.ignoreUids },
    log: server.log, now: () => clock.now(),
  });
  // Built before the domains that keep where requests came from (security events, sessions).
  const geo = createGeoDomain({ config: config.geo });
  // Built before every domain that records security events (sessions, emails, accounts, passwords).
  const securityEvents = createSecurityEventsDomain({
    db, clock, locate: geo.service.locate, retentionMs: config.securityEvents.retentionDays * 86_400_000, maxPerName: config.securityEvents.maxPerName,
    warn: (message, err) => server.log.warn({ reason: (err as Error).message }, message),
  });
  const keys = createKeysDomain({ key: signingKey });
  const oauth = createOAuthDomain({
    db, clock, signingKey, issuer: config.server.publicUrl.replace(/\/+$/, ''), records, config: config.oauth,
    // Development: a secret generated once into the data folder; production refuses to start without OAUTH_PPID_SECRET.
    ppidSecret: config.oauth.ppidSecret || developmentSecret(join(config.server.dataDir, 'oauth-ppid-secret')),
    securityEvents: securityEvents.service, writeEpoch: storage.writeEpoch,
    // Read at request time only: the two-step domain is built below.
    secondFactor: { required: (db, uid) => twoStep.service.isEnabled(uid, db) },
  });
  // OAUTH_CLIENTS_FILE registers (or updates) its clients at every start; a bad entry stops the start.
  if (config.oauth.clientsFile) await oauth.service.seedClients(db, readClientsFile(config.oauth.clientsFile, clock.now()));
  const sessions = createSessionsDomain({
    db, clock, writeEpoch: storage.writeEpoch, secrets: tokenSecrets,
    idleLifetimeMs: config.tokens.sessionWithoutDeviceLifetime * 1000, cacheMs: config.server.sessionCacheMs,
    securityEvents: securityEvents.service, locate: geo.service.locate,
  });
  const tokens = createTokensDomain({ db, secrets: tokenSecrets, config: config.tokens });
  const emails = createEmailsDomain({
    db, clock, mailer, records, sessions: sessions.service, secret: authSecret,
    codeLifetimeMs: config.signin.codeLifetimeSeconds * 1000, codeTries: config.signin.codeTries,
    codeFailuresPerSession: config.signin.codeFailuresPerSession,
    verifyLink: link('/verify_email'), securityEvents: securityEvents.service,
  });
  const twoStep = createTwoStepDomain({
    db, clock, mailer, records, sessions: sessions.service, tokens: tokens.service, securityEvents: securityEvents.service,
    // Development: a key generated once into the data folder; production refuses to start without TOTP_ENCRYPTION_KEY.
    encryptionKey: config.twoStep.totpEncryptionKey || developmentSecret(join(config.server.dataDir, 'totp-encryption-key')),
    serviceName: config.twoStep.serviceName,
    recoveryCodeCount: config.twoStep.recoveryCodeCount, recoveryCodeNotifyLow: config.twoStep.recoveryCodeNotifyLow,
  });
  const recoveryPhone = createRecoveryPhoneDomain({
    db, clock, mailer, records, securityEvents: securityEvents.service, twoStep: twoStep.service, secret: authSecret,
    sms: options.smsSender !== undefined ? options.smsSender : smsSenderFrom(config.sms, { dataDir: config.server.dataDir, production, log: server.log }),
    ...config.recoveryPhone,
  });
  const linkedAccounts = createLinkedAccountsDomain({
    db, clock, records, sessions: sessions.service, securityEvents: securityEvents.service, config: config.linkedAccounts,
    // Linked sign-ins to accounts with two-step wait for the second factor.
    secondFactor: { required: (db, uid) => twoStep.service.isEnabled(uid, db) },
    // A provider-verified address takes the place of another account's unconfirmed claim (read at request time: built below).
    claims: { releaseUnconfirmedClaim: (email, ctx, reason) => secondaryEmails.service.releaseUnconfirmedClaim(email, ctx, reason) },
  });
  const accounts = createAccountsDomain({
    db, clock, scrypt, records, sessions: sessions.service, tokens: tokens.service, oauth: oauth.service,
    confirmations: emails.service, secret: authSecret, issuer: config.server.publicUrl, mailer,
    blocks: customs.service, unblockCodeLifetimeMs: config.accounts.unblockCodeLifetimeSeconds * 1000,
    stubClientIds: config.accounts.stubClientIds.split(',').map((c) => c.trim().toLowerCase()).filter(Boolean),
    setupLink: link('/finish_setup'), securityEvents: securityEvents.service, linkedAccounts: linkedAccounts.service, twoStep: twoStep.service,
    redirectOrigins: allowedOrigins,
    secondaryClaimMs: config.secondaryEmails.pendingSeconds * 1000,
    warn: (message, err) => server.log.warn({ reason: (err as Error).message }, message),
    signin: {
      confirmationEnabled: config.signin.confirmationEnabled,
      skipForNewAccountsMs: config.signin.skipForNewAccountsSeconds * 1000,
      forcedEmail: config.signin.forcedEmailPattern ? new RegExp(config.signin.forcedEmailPattern, 'i') : null,
    },
  });
  const mfa = createMfaDomain({
    db, clock, mailer, records, sessions: sessions.service, secret: authSecret, twoStep: twoStep.service,
    jwt: {
      // Development: a key generated once into the data folder; production refuses to start without MFA_JWT_SECRET.
      secret: config.mfa.jwtSecret || developmentSecret(join(config.server.dataDir, 'mfa-jwt-secret')),
      issuer: config.mfa.jwtIssuer || publicUrl.host,
      audience: config.mfa.jwtAudience,
      lifetimeSeconds: config.mfa.jwtLifetimeSeconds,
    },
    otp: { lifetimeMs: config.mfa.otpLifetimeSeconds * 1000, tries: config.mfa.otpTries, failuresPerSession: config.mfa.otpFailuresPerSession },
  });
  const recoveryKeys = createRecoveryKeysDomain({
    db, clock, mailer, records, securityEvents: securityEvents.service, accountResetToken: tokens.strategies!.accountResetToken!,
  });
  const passwords = createPasswordsDomain({
    db, clock, scrypt, mailer, records, accounts: accounts.service, sessions: sessions.service, tokens: tokens.service, recoveryKeys: recoveryKeys.service, twoStep: twoStep.service,
    config: config.tokens, secret: authSecret, resetLink: link('/complete_reset_password'), securityEvents: securityEvents.service, redirectOrigins: allowedOrigins,
  });
  const secondaryEmails = createSecondaryEmailsDomain({
    db, clock, mailer, records, securityEvents: securityEvents.service, secret: authSecret,
    pendingMs: config.secondaryEmails.pendingSeconds * 1000, codeTries: config.secondaryEmails.codeTries, maxFailures: config.secondaryEmails.maxFailures,
    warn: (message, err) => server.log.warn({ reason: (err as Error).message }, message),
  });
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
  const devices = createDevicesDomain({
    db, clock, sessions: sessions.service, pushAllowedHosts: config.devices.pushAllowedHosts, push, commandsPendingMax: config.devices.commandsPendingMax,
    commandsUrl: new URL('/v1/account/device/commands', config.server.publicUrl).toString(),
    confirmations: emails.service, codeLifetimeSeconds: config.signin.codeLifetimeSeconds,
    sessionProviders: (uid) => linkedAccounts.service.sessionProviders(db, uid),
    refreshTokens: {
      list: (uid) => oauth.service.refreshTokensOf(db, uid),
      revoke: (uid, id, clientId) => oauth.service.revokeRefreshToken(db, uid, id, clientId),
      revokeClient: (uid, clientId) => oauth.service.revokeClientGrants(db, uid, clientId),
    },
  });
  const pages = createPagesDomain({ confirmations: emails.service, resetLinks: passwords.service, setupLinks: accounts.setupLinks, allowedOrigins, publicUrl: publicUrl.origin });
  const misc = createMiscDomain();
  const webhooks = new WebhookSender({
    db, clock, scheduler: options.webhookScheduler, log: server.log,
    targets: {
      [SUPPORT_TARGET]: config.support.webhookUrl ? { url: config.support.webhookUrl, secret: config.support.webhookSecret } : null,
      [NEWSLETTERS_TARGET]: config.newsletters.webhookUrl ? { url: config.newsletters.webhookUrl, secret: config.newsletters.webhookSecret } : null,
    },
    timeoutMs: config.webhooks.timeoutMs, retryBaseMs: config.webhooks.retryBaseSeconds * 1000, retryMaxMs: config.webhooks.retryMaxSeconds * 1000,
  });
  const support = createSupportDomain({ db, clock, webhooks, secret: config.support.secret });
  const newsletters = createNewslettersDomain({ db, clock, webhooks });
  const health = createHealthDomain({
    publicUrl: config.server.publicUrl,
    portal: existsSync(join(resolve(config.server.portalDir), 'index.html')),
    checks: [
      { name: 'database', run: () => sql`select 1`.execute(db) },
      ...(redis ? [{ name: 'redis', run: () => redis.ping() }] : []),
    ],
    warn: (message, err) => server.log.warn({ reason: (err as Error).message }, message),
  });
  const domains: Domain[] = [customs, securityEvents, keys, oauth, sessions, tokens, emails, twoStep, recoveryPhone, linkedAccounts, accounts, mfa, recoveryKeys, passwords, secondaryEmails, devices, geo, support, newsletters, pages, misc, health];
  const { strategies } = composeDomains(domains, lifecycle);

  installJsonParser(server);
  installValidators(server, [ErrorBody, MetricsContextSchema]);
  installErrorHandling(server, errorDeps);
  // Shutting down: requests that arrive on connections still open are turned away with the
  // catalogue's 503/201, so every API route declares it.
  let closing = false;
  server.addHook('onRequest', (_request, reply, done) => {
    if (!closing) return done();
    reply.header('connection', 'close');
    done(appError('SERVER_BUSY', { retryAfter: CLOSING_RETRY_AFTER_SECONDS }, 'Service unavailable: this server is shutting down; retry after retryAfter seconds'));
  });
  server.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, TSchema> | undefined;
    if (response && !route.schema?.hide) route.schema = { ...route.schema, response: withDeclaredErrors(response, ['SERVER_BUSY']) };
  });
  // Issue 12: a confirmed session below its account's AAL (two-step on, not confirmed by a second
  // factor) is refused 400/222 by the sessionTokenVerified strategy, so every route using it declares it.
  server.addHook('onRoute', (route) => {
    const response = route.schema?.response as Record<number, TSchema> | undefined;
    const auth = route.config?.auth;
    const names: string[] = typeof auth === 'string' ? [auth] : Array.isArray(auth) ? auth : auth?.strategies ?? [];
    if (response && !route.schema?.hide && names.includes('sessionTokenVerified')) {
      route.schema = { ...route.schema, response: withDeclaredErrors(response, ['INSUFFICIENT_AAL']) };
    }
  });
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
  installRateLimits(server, customs.service);
  await installOpenApi(server, strategies);
  const undeclaredErrors: UndeclaredError[] = [];
  if (config.server.nodeEnv === 'test') installDeclaredErrorCheck(server, undeclaredErrors);

  const logRequests = ['trace', 'debug', 'info'].includes(server.log.level);
  const securityHeaders = { https: publicUrl.protocol === 'https:' };
  // Callback-style hooks: they run on every request, and an async hook costs a promise each time.
  server.addHook('onSend', (request, reply, payload, done) => {
    // protocol.md §0: successful responses carry the server time so clients can correct skew.
    reply.header('timestamp', String(Math.floor(clock.now() / 1000)));
    if (request.url.startsWith('/v1/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    applySecurityHeaders(reply, securityHeaders);
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
  // pool is full, each extra request costs as little as possible of the CPU the pool needs. A
  // route-level hook, so other routes do not pay for it.
  const capacityCheck = (_request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void): void => {
    try {
      scrypt.checkCapacity();
    } catch (err) {
      return done(err as Error);
    }
    done();
  };
  server.addHook('onRoute', (route) => {
    if (!route.config?.stretches) return;
    route.onRequest = [...hookList(route.onRequest), capacityCheck];
  });

  await server.register(async (v1) => {
    for (const domain of domains) if (domain.routes) await domain.routes(v1);
  }, { prefix: '/v1' });
  for (const domain of domains) if (domain.rootRoutes) await domain.rootRoutes(server);
  await installPortal(server, config.server.portalDir);

  server.get('/v1/openapi.json', { schema: { hide: true } }, async () => server.swagger());

  await server.ready();
  // Deliveries a previous process left pending go out now (issue 13: also after a restart).
  webhooks.start();
  return {
    server,
    lifecycle,
    push,
    webhooks,
    scrypt,
    undeclaredErrors,
    get closing() {
      return closing;
    },
    services: {
      records, oauth: oauth.service, sessions: sessions.service, tokens: tokens.service, emails: emails.service,
      accounts: accounts.service, passwords: passwords.service, securityEvents: securityEvents.service,
      devices: devices.service, mfa: mfa.service, recoveryKeys: recoveryKeys.service, secondaryEmails: secondaryEmails.service, linkedAccounts: linkedAccounts.service,
      twoStep: twoStep.service, recoveryPhone: recoveryPhone.service,
      geo: geo.service, support: support.service, newsletters: newsletters.service,
    },
    async close() {
      closing = true;
      await server.close();
      webhooks.close();
      await webhooks.idle();
      await push.close();
      await scrypt.close();
      await securityEvents.close();
      customs.close();
      await sender.close();
      if (redis) await redis.quit();
    },
  };
}
