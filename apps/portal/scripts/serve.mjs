#!/usr/bin/env node
// A small static server for the built portal, used by `npm run serve`, the browser suite and the
// bench. It maps URLs the way the Tessera server does (see README: "Serving the built portal"):
//   /ecosystem-platform/x        → build/x.html, else build/x (a file), else build/x/index.html
//   /ecosystem-platform/x/       → build/x/index.html, else build/x.html
//   anything else under the base → build/404.html with status 404
// and compresses text responses with gzip, as a production server would.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, dirname } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const BASE = '/ecosystem-platform/';
const TYPES = {
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
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.xml']);

async function isFile(path) {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/** The build file for a request path under BASE (without the base), or null. */
export async function resolveFile(root, rel) {
  const clean = normalize(`/${decodeURIComponent(rel)}`).replace(/^\/+/, '');
  if (clean.split('/').includes('..')) return null;
  const candidates = clean === '' || clean.endsWith('/')
    ? [join(root, clean, 'index.html'), join(root, `${clean.replace(/\/$/, '')}.html`)]
    : [join(root, `${clean}.html`), join(root, clean), join(root, clean, 'index.html')];
  for (const c of candidates) {
    if (c.startsWith(root) && (await isFile(c))) return c;
  }
  return null;
}

export function startServer({ root, port = 0, host = '127.0.0.1', compress = true } = {}) {
  const buildDir = resolve(root);
  const cache = new Map();
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url, 'http://local');
      if (url.pathname === '/' || url.pathname === BASE.slice(0, -1)) {
        res.writeHead(302, { Location: BASE });
        return res.end();
      }
      let file = null;
      let status = 200;
      if (url.pathname.startsWith(BASE)) file = await resolveFile(buildDir, url.pathname.slice(BASE.length));
      if (!file) {
        file = join(buildDir, '404.html');
        status = 404;
      }
      const ext = extname(file);
      const gzip = compress && COMPRESSIBLE.has(ext) && /\bgzip\b/.test(req.headers['accept-encoding'] || '');
      const key = `${file}|${gzip}`;
      let body = cache.get(key);
      if (!body) {
        body = await readFile(file);
        if (gzip) body = gzipSync(body, { level: 9 });
        cache.set(key, body);
      }
      res.writeHead(status, {
        'Content-Type': TYPES[ext] || 'application/octet-stream',
        'Content-Length': body.length,
        'Cache-Control': url.pathname.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
        ...(gzip ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (error) {
      res.writeHead(500, { 'Content-Type': 'text/plain' });
      res.end(String(error));
    }
  });
  return new Promise((resolvePromise) => {
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolvePromise({ server, url: `http://${host}:${actual}${BASE}`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const here = dirname(fileURLToPath(import.meta.url));
  const root = resolve(here, '..', 'build');
  if (!(await isFile(join(root, 'index.html')))) {
    console.error('apps/portal/build is missing: run `npm run build -w apps/portal` first.');
    process.exit(1);
  }
  const { url } = await startServer({ root, port: Number(process.env.PORT || 3100) });
  console.log(`Tessera portal (built) at ${url}`);
}
