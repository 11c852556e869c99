// Declaring configuration: each domain's config.ts declares the keys it reads, with the environment
// variable, a default and one sentence of description. README's table and the portal's
// configuration page are generated from these declarations.

export type Env = Record<string, string | undefined>;

export interface ConfigKey<T> {
  env: string;
  description: string;
  parse: (raw: string) => T;
  /** Used when the variable is unset (or empty). A function may derive it from other variables. */
  default: T | ((env: Env) => T);
  /** How the default reads in documentation when it is computed. */
  defaultText?: string;
  /** Secrets are never printed; in production they must be set explicitly (unless `optional`). */
  secret?: boolean;
  /** A secret of an optional feature: production may leave it unset (the feature is then off). */
  optional?: boolean;
}

export type ConfigSlice = Record<string, ConfigKey<unknown>>;
export type ConfigValues<S extends ConfigSlice> = { [K in keyof S]: S[K] extends ConfigKey<infer T> ? T : never };

export function defineConfig<S extends ConfigSlice>(slice: S): S {
  return slice;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function readConfig<S extends ConfigSlice>(slice: S, env: Env): ConfigValues<S> {
  const out: Record<string, unknown> = {};
  const production = env.NODE_ENV === 'production';
  for (const [key, def] of Object.entries(slice)) {
    const raw = env[def.env];
    if (raw === undefined || raw === '') {
      if (def.secret && !def.optional && production) throw new ConfigError(`${def.env} must be set when NODE_ENV=production (${def.description})`);
      out[key] = typeof def.default === 'function' ? (def.default as (e: Env) => unknown)(env) : def.default;
      continue;
    }
    try {
      out[key] = def.parse(raw);
    } catch (err) {
      throw new ConfigError(`${def.env}: ${(err as Error).message}`);
    }
  }
  return out as ConfigValues<S>;
}

// Parsers.
export const str = (raw: string): string => raw;

export function int(min = -Infinity, max = Infinity) {
  return (raw: string): number => {
    if (!/^-?\d+$/.test(raw.trim())) throw new Error(`expected an integer, got "${raw}"`);
    const n = Number(raw);
    if (n < min || n > max) throw new Error(`expected ${min}..${max}, got ${n}`);
    return n;
  };
}

export function bool(raw: string): boolean {
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new Error(`expected true or false, got "${raw}"`);
}

export function oneOf<T extends string>(...values: T[]) {
  return (raw: string): T => {
    if (!values.includes(raw as T)) throw new Error(`expected one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
}

export function url(raw: string): string {
  const u = new URL(raw);
  return u.origin + u.pathname.replace(/\/$/, '');
}
