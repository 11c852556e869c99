import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply } from 'fastify';

export const PORTAL_PREFIX = '/ecosystem-platform';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.xml', '.map']);

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the built developer portal (Docusaurus with `trailingSlash: false`) at /ecosystem-platform/:
 *   /ecosystem-platform        → 302 to /ecosystem-platform/
 *   /ecosystem-platform/x      → x.html, else the file x, else x/index.html
 *   /ecosystem-platform/x/     → x/index.html, else x.html
 *   anything else under it     → the portal's 404.html with status 404
 * Text is gzipped once and kept in memory (the build never changes while the server runs); hashed
 * assets are cached for a year, pages revalidate. Until the web app exists, `/` leads here.
 */
export async function installPortal(app: FastifyInstance, dir: string): Promise<boolean> {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) return false;
  const cache = new Map<string, Buffer>();

  const resolveFile = async (rel: string): Promise<string | null> => {
    const clean = normalize(`/${decodeURIComponent(rel)}`).replace(/^\/+/, '');
    const candidates = clean === '' || clean.endsWith('/')
      ? [join(root, clean, 'index.html'), join(root, `${clean.replace(/\/$/, '')}.html`)]
      : [join(root, `${clean}.html`), join(root, clean), join(root, clean, 'index.html')];
    for (const c of candidates) if ((c === root || c.startsWith(root + sep)) && (await isFile(c))) return c;
    return null;
  };

  const send = async (reply: FastifyReply, file: string, status: number, acceptEncoding: string | undefined) => {
    const ext = extname(file);
    const gzip = COMPRESSIBLE.has(ext) && /\bgzip\b/.test(acceptEncoding ?? '');
    const key = `${file}|${gzip}`;
    let body = cache.get(key);
    if (!body) {
      body = await readFile(file);
      if (gzip) body = gzipSync(body, { level: 9 });
      cache.set(key, body);
    }
    reply.code(status).header('content-type', TYPES[ext] ?? 'application/octet-stream');
    reply.header('cache-control', file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache');
    if (gzip) reply.header('content-encoding', 'gzip').header('vary', 'Accept-Encoding');
    return reply.send(body);
  };

  app.get(PORTAL_PREFIX, { schema: { hide: true } }, (_req, reply) => reply.redirect(`${PORTAL_PREFIX}/`));
  app.get(`${PORTAL_PREFIX}/*`, { schema: { hide: true } }, async (req, reply) => {
    let file: string | null = null;
    try {
      file = await resolveFile((req.params as { '*': string })['*'] ?? '');
    } catch {
      // A malformed escape in the path is a missing page.
    }
    return file
      ? send(reply, file, 200, req.headers['accept-encoding'])
      : send(reply, join(root, '404.html'), 404, req.headers['accept-encoding']);
  });
  app.get('/', { schema: { hide: true } }, (_req, reply) => reply.redirect(`${PORTAL_PREFIX}/`));
  return true;
}
