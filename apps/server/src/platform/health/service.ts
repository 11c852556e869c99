import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

// What load balancers and operators ask a running server: is it alive (/__lbheartbeat__), can it
// reach what it depends on (/__heartbeat__), and which code is it (/__version__). The names and
// shapes follow the Dockerflow convention that FxA's operators know.

export interface HealthCheck {
  name: string;
  /** Resolves when the dependency answers; rejects with the reason otherwise. */
  run(): Promise<unknown>;
}

export interface CheckResult {
  status: 'ok' | 'error';
  ms: number;
}

export interface Heartbeat {
  status: 'ok' | 'error';
  checks: Record<string, CheckResult>;
}

export interface VersionInfo {
  name: string;
  version: string;
  /** The git commit the code was built from, when known. */
  commit?: string;
  /** The repository the code came from, when known. */
  source?: string;
  /** Where these facts were read: a deployment's version.json, or the package and git. */
  from: 'version.json' | 'package.json';
}

/** A check slower than this fails: a load balancer must not wait on a hung connection. */
export const CHECK_TIMEOUT_MS = 3000;

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Runs every check at once; the heartbeat fails when one does. */
export async function heartbeat(checks: HealthCheck[], onFailure: (name: string, err: unknown) => void, timeoutMs = CHECK_TIMEOUT_MS): Promise<Heartbeat> {
  const results = await Promise.all(checks.map(async (check): Promise<[string, CheckResult]> => {
    const started = performance.now();
    try {
      await withTimeout(check.run(), timeoutMs);
      return [check.name, { status: 'ok', ms: Math.round(performance.now() - started) }];
    } catch (err) {
      onFailure(check.name, err);
      return [check.name, { status: 'error', ms: Math.round(performance.now() - started) }];
    }
  }));
  return { status: results.every(([, r]) => r.status === 'ok') ? 'ok' : 'error', checks: Object.fromEntries(results) };
}

// apps/server/{src,dist}/platform/health/ → the repository root.
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../../..');
const run = promisify(execFile);

async function git(args: string[]): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', args, { cwd: ROOT, timeout: 2000 });
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The running code's identity. A deployment may place version.json (Dockerflow: source, version,
 * commit, build) at the repository root; without it, the version is the server package's and the
 * commit and source come from git when the code runs from a clone.
 */
export async function readVersion(root = ROOT): Promise<VersionInfo> {
  const deployed = join(root, 'version.json');
  if (existsSync(deployed)) {
    const v = JSON.parse(readFileSync(deployed, 'utf8')) as Partial<Record<'version' | 'commit' | 'source', unknown>>;
    return {
      name: 'tessera', version: String(v.version ?? ''), from: 'version.json',
      ...(typeof v.commit === 'string' ? { commit: v.commit } : {}), ...(typeof v.source === 'string' ? { source: v.source } : {}),
    };
  }
  const pkg = JSON.parse(readFileSync(join(root, 'apps/server/package.json'), 'utf8')) as { version: string };
  const [commit, remote] = await Promise.all([git(['rev-parse', 'HEAD']), git(['config', '--get', 'remote.origin.url'])]);
  // A remote URL can carry credentials (https://user:token@host/…): never published.
  const source = remote?.replace(/^([a-z+]+:\/\/)[^@/]*@/i, '$1');
  return { name: 'tessera', version: pkg.version, from: 'package.json', ...(commit ? { commit } : {}), ...(source ? { source } : {}) };
}

/**
 * GET /v1: what this API is and where to read about it. `at` makes a path absolute on the public
 * URL; the developer portal's links are there only when it is served (PORTAL_DIR built).
 */
export async function apiIndex(at: (path: string) => string, portal: boolean): Promise<object> {
  const v = await readVersion();
  return {
    name: 'Tessera account API',
    version: v.version,
    links: {
      openapi: at('/v1/openapi.json'),
      ...(portal ? { portal: at('/ecosystem-platform/'), apiReference: at('/ecosystem-platform/api') } : {}),
      heartbeat: at('/__heartbeat__'),
      version: at('/__version__'),
    },
  };
}
