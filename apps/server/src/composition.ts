import { ConfigError, readConfig, type ConfigKey, type ConfigSlice, type Env } from './config-schema.js';
import type { Domain } from './domain.js';
import type { AnyManifest, ComposedDeclarations, DomainContext, DomainServices, DomainSettings, Platform } from './manifest.js';
import floorsTable from './floors.json' with { type: 'json' };
import type { AnyTemplate } from './senders/mail/templates.js';
import { MIGRATIONS, type TesseraMigration } from './storage/migrations/index.js';

// The compositions of the domain list (manifest.ts): each is a pure function of the manifests, so
// the server, the config loader, the admin CLI and every documentation generator read the same
// list, and a test can compose a list with one more domain and see it everywhere.

/** A config slice and the heading it has on the configuration page. */
export interface TitledSlice {
  title: string;
  slice: ConfigSlice;
}

/** Every config slice: the platform's (server, mail, …) first, then each domain's in list order. */
export function composeConfigSlices(platform: Record<string, TitledSlice>, domains: readonly AnyManifest[]): Record<string, TitledSlice> {
  const slices: Record<string, TitledSlice> = { ...platform };
  const envs = new Map<string, string>();
  for (const [key, { slice }] of Object.entries(platform)) for (const k of Object.values(slice)) envs.set((k as ConfigKey<unknown>).env, key);
  for (const d of domains) {
    if (!d.config) continue;
    const { key, title, slice } = d.config;
    if (slices[key]) throw new Error(`config slice ${key} (domain ${d.name}) is declared twice`);
    for (const k of Object.values(slice) as ConfigKey<unknown>[]) {
      if (envs.has(k.env)) throw new Error(`${k.env} is declared by the ${envs.get(k.env)} slice and by domain ${d.name}`);
      envs.set(k.env, key);
    }
    slices[key] = { title, slice };
  }
  return slices;
}

/** Reads every slice from the environment, then runs each domain's own cross-key check. */
export function readComposedConfig(slices: Record<string, TitledSlice>, domains: readonly AnyManifest[], env: Env): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [key, { slice }] of Object.entries(slices)) out[key] = readConfig(slice, env) as Record<string, unknown>;
  const production = env.NODE_ENV === 'production';
  for (const d of domains) if (d.config?.check) d.config.check(out[d.config.key] as never, production);
  return out;
}

/** What the domains declare beside their services: rules, events, templates, migrations, tables. */
export interface Declarations extends ComposedDeclarations {
  migrations: Record<string, TesseraMigration>;
  /** Module URLs of the domains' tables.ts files, for the database page. */
  tables: string[];
}

function mergeNamed<V>(into: Record<string, V>, from: Record<string, V> | undefined, what: string, domain: string): void {
  for (const [name, value] of Object.entries(from ?? {})) {
    if (name in into) throw new Error(`${what} ${name} (domain ${domain}) is declared twice`);
    into[name] = value;
  }
}

/**
 * Composes the declarations. Beside the domains', the platform's own migrations (storage/migrations:
 * those written before domains carried their own) come first in the one order.
 */
export function composeDeclarations(domains: readonly AnyManifest[]): Declarations {
  const securityEvents: Record<string, string> = {};
  const emails: Record<string, AnyTemplate> = {};
  const migrations: Record<string, TesseraMigration> = { ...MIGRATIONS };
  const rules: string[] = [];
  const tables: string[] = [];
  for (const d of domains) {
    mergeNamed(securityEvents, d.securityEvents, 'security event', d.name);
    mergeNamed(emails, d.emails, 'email template', d.name);
    mergeNamed(migrations, d.migrations, 'migration', d.name);
    if (d.rateLimits) rules.push(`# ${d.name}\n${d.rateLimits}`);
    if (d.tables) tables.push(d.tables);
  }
  // One global order: a domain's migration sorts by its number among everyone's.
  const ordered = Object.fromEntries(Object.entries(migrations).sort(([a], [b]) => a.localeCompare(b)));
  return { securityEvents, emails, migrations: ordered, rateLimitRules: rules.join('\n'), tables };
}

/** camelCase of a folder name: `recovery-phone` → `recoveryPhone`. */
export function serviceKeyOf(manifest: AnyManifest): string {
  return manifest.key ?? manifest.name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Builds the domains in list order. A domain sees only the services it `needs`; reading one that
 * is not built yet while `create` runs is a composition error (reading it later, at request time,
 * is how two domains of one floor that know each other are wired).
 */
export async function buildDomains(
  manifests: readonly AnyManifest[], platform: Platform, config: Record<string, Record<string, unknown>>,
): Promise<{ domains: Domain[]; services: Record<string, unknown> }> {
  checkFloorOrder(manifests);
  const services: Record<string, unknown> = {};
  /** Which domain offers each service key (its own, or one it provides). */
  const providers = new Map<string, string>();
  // What `needs` may name: every domain's key, and what domains declare they provide (checked once built).
  const known = new Set(manifests.map(serviceKeyOf));
  // Settings of another domain's slice need that domain in `needs`; platform slices are everyone's.
  const sliceOwner = new Map(manifests.filter((m) => m.config).map((m) => [m.config!.key, serviceKeyOf(m)]));
  const domains: Domain[] = [];
  for (const manifest of manifests) {
    const needs = new Set(manifest.needs ?? []);
    for (const need of needs) if (!known.has(need) && !(need in services)) throw new Error(`domain ${manifest.name} needs ${need}, which is not composed`);
    let creating = true;
    const view = new Proxy({}, {
      get(_target, key) {
        if (typeof key !== 'string') return undefined;
        if (!needs.has(key)) throw new Error(`domain ${manifest.name} reads the ${key} service without naming it in needs`);
        if (!(key in services)) {
          if (creating) throw new Error(`domain ${manifest.name} reads the ${key} service while it is created, but ${key} is composed after it`);
          throw new Error(`the ${key} service is not built`);
        }
        return services[key];
      },
    }) as DomainServices;
    const ctx: DomainContext<unknown> = {
      platform,
      config: manifest.config ? config[manifest.config.key] : undefined,
      services: view,
      settings: <K extends keyof DomainSettings>(key: K) => {
        const owner = sliceOwner.get(key as string);
        if (owner && owner !== serviceKeyOf(manifest) && !needs.has(owner)) throw new ConfigError(`domain ${manifest.name} reads the ${String(key)} settings without naming ${owner} in needs`);
        return config[key as string] as DomainSettings[K];
      },
    };
    const domain = await manifest.create(ctx as never);
    creating = false;
    if (domain.name !== manifest.name) throw new Error(`domain ${manifest.name} returned the name ${domain.name}`);
    services[serviceKeyOf(manifest)] = domain.service;
    providers.set(serviceKeyOf(manifest), manifest.name);
    for (const [key, provided] of Object.entries(domain.provides ?? {})) {
      if (key in services) throw new Error(`domain ${manifest.name} provides ${key}, which another domain provides`);
      services[key] = provided;
      providers.set(key, manifest.name);
    }
    domains.push(domain);
  }
  checkNeeds(manifests, providers);
  return { domains, services };
}

/** Each domain's floor (floors.json, which the lint rule reads too); a domain it does not list (a test's fixture) stands above them all. */
const FLOOR = new Map(floorsTable.floors.flatMap((floor, i) => Object.keys(floor.domains).map((name) => [name, i] as const)));
const floorOf = (name: string): number => FLOOR.get(name) ?? floorsTable.floors.length;
const floorName = (name: string): string => floorsTable.floors[floorOf(name)]?.name ?? 'above the floors';

/** The list goes up the floors, never down (a domain is built after those it stands on). */
export function checkFloorOrder(manifests: readonly AnyManifest[]): void {
  for (let i = 1; i < manifests.length; i++) {
    const [before, after] = [manifests[i - 1]!, manifests[i]!];
    if (floorOf(after.name) < floorOf(before.name)) {
      throw new Error(`domain ${after.name} (${floorName(after.name)}) is composed after ${before.name} (${floorName(before.name)}): list the domains floor by floor`);
    }
  }
}

/**
 * What the lint rule cannot see in imports: a domain `needs` only services of its own floor or
 * below. A lower floor that needs something of a higher one declares a port the higher domain
 * fills (accounts' relyingPartiesPort, which OAuth fills).
 */
function checkNeeds(manifests: readonly AnyManifest[], providers: Map<string, string>): void {
  for (const manifest of manifests) {
    for (const need of manifest.needs ?? []) {
      const provider = providers.get(need)!;
      if (floorOf(provider) > floorOf(manifest.name)) {
        throw new Error(`domain ${manifest.name} (${floorName(manifest.name)}) needs ${need} of ${provider} (${floorName(provider)}), a floor above: declare a port in ${manifest.name} that ${provider} fills`);
      }
    }
  }
}
