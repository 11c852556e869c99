import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';

// The pages' scripts run the onepw client side with @tessera/protocol itself, not a copy: its
// compiled ES modules (packages/protocol/dist, built by `tsc -b`) and the @noble/hashes modules
// they import are served here, and the page's import map points the bare specifier at them. The
// page's module script carries the CSP nonce, and the modules it imports inherit it, so the pages'
// `script-src 'nonce-…'` stays as strict as it was.

/** Where the browser finds the modules (the import map and the page scripts name these paths). */
export const MODULES_PATH = '/pages/js';

/** The import map of a page: @noble/hashes, which protocol's modules import by name. */
export const IMPORT_MAP = JSON.stringify({ imports: { '@noble/hashes/': `${MODULES_PATH}/noble-hashes/` } });

const MODULE_FILE = /^[\w-]+\.js$/;

function packageRoot(entry: string): string {
  let dir = dirname(entry);
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return dir;
}

/**
 * The folders served, looked up on first use: a server started from sources whose packages were
 * never built answers 404 for the modules instead of refusing to start.
 */
function moduleFolders(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const protocolEntry = require.resolve('@tessera/protocol');
  const noble = require.resolve('@noble/hashes/sha2.js', { paths: [packageRoot(protocolEntry)] });
  return { protocol: join(packageRoot(protocolEntry), 'dist'), 'noble-hashes': dirname(noble) };
}

let folders: Record<string, string> | undefined;
/** Each module read once: the built packages do not change while the server runs. */
const sources = new Map<string, string>();

function moduleSource(pkg: string, file: string): string | undefined {
  if (!MODULE_FILE.test(file)) return undefined;
  const cached = sources.get(`${pkg}/${file}`);
  if (cached !== undefined) return cached;
  try {
    folders ??= moduleFolders();
  } catch {
    return undefined;
  }
  const folder = Object.hasOwn(folders, pkg) ? folders[pkg] : undefined;
  const path = folder && join(folder, file);
  if (!path || !existsSync(path)) return undefined;
  const source = readFileSync(path, 'utf8');
  sources.set(`${pkg}/${file}`, source);
  return source;
}

export const moduleRoutes: FastifyPluginAsync = async (app) => {
  app.get(`${MODULES_PATH}/:pkg/:file`, { schema: { hide: true } }, async (req, reply) => {
    const { pkg, file } = req.params as { pkg: string; file: string };
    const source = moduleSource(pkg, file);
    if (source === undefined) return reply.callNotFound();
    return reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(source);
  });
};
