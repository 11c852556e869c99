import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

// Serving a static site built by Docusaurus with `trailingSlash: false`, framework-free so that the
// server (http/portal.ts) and the portal's own preview server (apps/portal/scripts/serve.mjs) map
// URLs to files the same way:
//   x   → x.html, else the file x, else x/index.html
//   x/  → x/index.html, else x.html
// and anything else is the site's 404.html with status 404.

export const CONTENT_TYPES: Record<string, string> = {
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

/** The file a path below the site's base maps to, or null (never outside `root`). */
export async function resolveSiteFile(root: string, rel: string): Promise<string | null> {
  const clean = normalize(`/${decodeURIComponent(rel)}`).replace(/^\/+/, '');
  const candidates = clean === '' || clean.endsWith('/')
    ? [join(root, clean, 'index.html'), join(root, `${clean.replace(/\/$/, '')}.html`)]
    : [join(root, `${clean}.html`), join(root, clean), join(root, clean, 'index.html')];
  for (const c of candidates) if ((c === root || c.startsWith(root + sep)) && (await isFile(c))) return c;
  return null;
}

export interface SiteResponse {
  body: Buffer;
  headers: Record<string, string>;
}

/**
 * Reads a site file as it is sent: gzipped (level 9) when the client accepts it and the type is
 * text, with its content type and caching (hashed assets a year, pages revalidate). Kept in `cache`:
 * a built site does not change while it is served.
 */
export async function siteResponse(file: string, acceptEncoding: string | undefined, cache: Map<string, Buffer>): Promise<SiteResponse> {
  const ext = extname(file);
  const gzip = COMPRESSIBLE.has(ext) && /\bgzip\b/.test(acceptEncoding ?? '');
  const key = `${file}|${gzip}`;
  let body = cache.get(key);
  if (!body) {
    body = await readFile(file);
    if (gzip) body = gzipSync(body, { level: 9 });
    cache.set(key, body);
  }
  return {
    body,
    headers: {
      'content-type': CONTENT_TYPES[ext] ?? 'application/octet-stream',
      'cache-control': file.includes(`${sep}assets${sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...(gzip ? { 'content-encoding': 'gzip', vary: 'Accept-Encoding' } : {}),
    },
  };
}
