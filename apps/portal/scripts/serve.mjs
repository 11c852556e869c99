#!/usr/bin/env node
// A small static server for the built portal, used by `npm run serve`, the browser suite and the
// bench. It maps URLs the way the Tessera server does (see README: "Serving the built portal"):
//   /ecosystem-platform/x        → build/x.html, else build/x (a file), else build/x/index.html
//   /ecosystem-platform/x/       → build/x/index.html, else build/x.html
//   anything else under the base → build/404.html with status 404
// and compresses text responses with gzip, as a production server would.
import { createServer } from 'node:http';
import { stat } from 'node:fs/promises';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
// The same URL-to-file mapping and headers as the Tessera server (apps/server/src/http/static-site.ts,
// built by `npx tsc -b`), so the browser suite and the bench see what `npm start` serves.
import { resolveSiteFile as resolveFile, siteResponse } from '@tessera/server/static-site';

const BASE = '/ecosystem-platform/';

async function isFile(path) {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
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
      const { body, headers } = await siteResponse(file, compress ? req.headers['accept-encoding'] : undefined, cache);
      res.writeHead(status, { ...headers, 'content-length': body.length });
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
