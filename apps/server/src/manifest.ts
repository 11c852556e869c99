import type { FastifyBaseLogger } from 'fastify';

import type { Clock } from './clock.js';
import type { ConfigSlice, ConfigValues } from './config-schema.js';
import type { Redis } from 'ioredis';
import type { ConfigValues as Values } from './config-schema.js';
import type { serverConfig } from './config.js';
import type { ScryptPool } from './crypto/scrypt-pool.js';
import type { TokenSecrets } from './crypto/token-secrets.js';
import type { AccountLifecycle, Domain } from './domain.js';
import type { AnyTemplate } from './senders/mail/templates.js';
import type { Mailer } from './senders/mail/mailer.js';
import type { SigningKey } from './platform/keys/index.js';
import type { WebhookSender } from './senders/webhook/index.js';
import type { JobQueue } from './jobs/index.js';
import type { PushQueue } from './senders/push/index.js';
import type { SmsSender } from './senders/sms/index.js';
import type { TesseraMigration } from './storage/migrations/index.js';
import type { Storage } from './storage/db.js';
import type { WriteEpoch } from './storage/write-epoch.js';

// The domain manifest (issue 23): everything a domain contributes, declared from its own folder.
// A domain's index.ts exports one `defineDomain({...})`; app.ts lists the manifests in DOMAINS, and
// the config loader, the rate-limit rules, the security-event list, the email templates, the
// migrations, the routes and every generated reference page are compositions of that one list
// (composition.ts). Adding a domain is adding its line to DOMAINS, nothing else outside its folder.
//
//   export const recoveryPhoneDomain = defineDomain({
//     name: 'recovery-phone', needs: ['twoStep', 'securityEvents'],
//     config: { key: 'recoveryPhone', title: 'Recovery phone', slice: recoveryPhoneConfig },
//     securityEvents: { 'account.recovery_phone_added': 'A recovery phone was confirmed …' },
//     rateLimits: 'recoveryPhoneSendCode : uid : 9 : 24 hours : 24 hours : block',
//     create: (ctx) => {
//       const service = new RecoveryPhoneService({ ...ctx.config, db: ctx.platform.db, twoStep: ctx.services.twoStep });
//       return { service, routes: routesOf(recoveryPhoneRoutes, { service }) };
//     },
//   });
//
// Services of other domains arrive through `ctx.services`, typed by declaration merging: each
// domain's index.ts adds its service to `DomainServices` (`declare module '../../manifest.js'`).
// A domain reaches only the services it names in `needs`, and only domains composed before it
// (composition checks both at start, and the floors lint rule checks the imports behind them).
// Reading a service at request time (not inside `create`) may name a domain composed later on
// the same floor: that is how two sign-in methods that know each other are wired.

/** The services of the composed domains, by key; each domain adds its own (declaration merging). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainServices {}

/** The config values of the composed domains, by slice key; each domain adds its own. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DomainSettings {}

export type ServiceKey = keyof DomainServices & string;

/** What every domain may use: the process-wide pieces app.ts builds once. */
export interface Platform {
  db: Storage['db'];
  writeEpoch: WriteEpoch;
  clock: Clock;
  log: FastifyBaseLogger;
  /** Logs a recovered failure (its message only: never a value that may hold a secret). */
  warn(message: string, err: unknown): void;
  /** The server slice (PUBLIC_URL, caches, …): every domain may read it. */
  server: Values<typeof serverConfig>;
  publicUrl: URL;
  /** REDIS_URL's connection, for state instances share (null: kept in process). */
  redis: Redis | null;
  /** The RSA key that signs JWTs (published at /.well-known/public-keys). */
  signingKey: SigningKey;
  /** The signed, retried outgoing webhooks. */
  webhooks: WebhookSender;
  /**
   * The storage-backed job queue: a domain registers the handlers of its job kinds and enqueues in
   * the transaction of the change that calls for the job (it runs once, after the commit).
   */
  jobs: JobQueue;
  mailer: Mailer;
  scrypt: ScryptPool;
  secrets: TokenSecrets;
  /** AUTH_SECRET (or the development one): the server's own HMAC and JWT key. */
  authSecret: string;
  push: PushQueue;
  sms: SmsSender | null;
  /** Origins emailed links may send the user back to (redirectTo). */
  allowedOrigins: string[];
  /** A link to `path` on the content origin with the given query (redirectTo only when allowed). */
  link(path: string): (params: Record<string, string | undefined>) => string;
  /**
   * The value of a secret setting, or outside production one generated once into the data folder
   * under `file` (production refuses to start without the setting).
   */
  secretOr(value: string, file: string): string;
  lifecycle: AccountLifecycle;
  /** What every composed domain declared (the security-events domain lists the names, customs reads the rules). */
  composition: ComposedDeclarations;
}

export interface ComposedDeclarations {
  /** Default rate-limit rules, in the protocol's grammar (customs' own first, then each domain's). */
  rateLimitRules: string;
  securityEvents: Record<string, string>;
  emails: Record<string, AnyTemplate>;
}

export interface DomainContext<C> {
  platform: Platform;
  /** The domain's own config slice (undefined when it declares none). */
  config: C;
  /** The services of the domains it `needs`. */
  services: DomainServices;
  /** Another domain's config slice, for a domain it `needs`. */
  settings<K extends keyof DomainSettings>(key: K): DomainSettings[K];
}

export interface DomainConfig<C extends ConfigSlice> {
  /** The key of the slice in the composed Config (camelCase). */
  key: string;
  /** Its heading on the configuration page and in README. */
  title: string;
  slice: C;
  /** Checks across the slice's keys once it is read (throw ConfigError). */
  check?(values: ConfigValues<C>, production: boolean): void;
}

export interface DomainManifest<C extends ConfigSlice = ConfigSlice, S = unknown> {
  /** The folder name under domains/. */
  name: string;
  /** Its service in `ctx.services` of the domains built after it (camelCase); none when absent. */
  key?: string;
  /** Keys of the services it uses (checked at composition). */
  needs?: readonly string[];
  config?: DomainConfig<C>;
  /** Its migrations, named `NNNN_verb_noun` in the one global order. */
  migrations?: Record<string, TesseraMigration>;
  /** The module URL of its tables.ts (`import.meta.url` of a file beside it): its table types and notes, for the database page. */
  tables?: string;
  /** Default rate-limit rules for its actions, in the protocol's grammar. */
  rateLimits?: string;
  /** The security events it records, with what each means. */
  securityEvents?: Record<string, string>;
  /** The emails it sends. */
  emails?: Record<string, AnyTemplate>;
  create(ctx: DomainContext<ConfigValues<C>>): Domain<S> | Promise<Domain<S>>;
}

/** Declares a domain (identity: the types are the point). */
export function defineDomain<C extends ConfigSlice = ConfigSlice, S = unknown>(manifest: DomainManifest<C, S>): DomainManifest<C, S> {
  return manifest;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyManifest = DomainManifest<any, any>;
