import { existsSync, statSync } from 'node:fs';
import { join, normalize, resolve, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';

export const PORTAL_PREFIX = '/ecosystem-platform';

/**
 * Serves the built developer portal (Docusaurus, `trailingSlash: false`) at /ecosystem-platform/.
 * A path maps to the first file that exists of: itself, `<path>.html`, `<path>/index.html`;
 * anything else gets the portal's 404 page with status 404. Until the web app exists, `/` leads
 * to the portal.
 */
export async function installPortal(app: FastifyInstance, dir: string): Promise<boolean> {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) return false;
  await app.register(fastifyStatic, { root, serve: false, decorateReply: true });

  const isFile = (p: string) => existsSync(p) && statSync(p).isFile();
  const resolveFile = (urlPath: string): string | null => {
    const rel = normalize(decodeURIComponent(urlPath)).replace(/^([/\\])+/, '');
    const base = join(root, rel);
    if (base !== root && !base.startsWith(root + sep)) return null;
    for (const candidate of [base, `${base}.html`, join(base, 'index.html')]) {
      if (isFile(candidate)) return candidate.slice(root.length + 1);
    }
    return null;
  };

  app.get(`${PORTAL_PREFIX}`, { schema: { hide: true } }, (_req, reply) => reply.type('text/html').sendFile('index.html'));
  app.get(`${PORTAL_PREFIX}/*`, { schema: { hide: true } }, (req, reply) => {
    let path: string;
    try {
      path = (req.params as { '*': string })['*'] ?? '';
      const file = resolveFile(path);
      if (file) {
        // Hashed assets never change; pages revalidate.
        reply.header('cache-control', /^assets\//.test(file) ? 'public, max-age=31536000, immutable' : 'public, max-age=0, must-revalidate');
        return reply.sendFile(file);
      }
    } catch {
      // A malformed escape in the path is a missing page.
    }
    return reply.code(404).type('text/html').sendFile('404.html');
  });
  app.get('/', { schema: { hide: true } }, (_req, reply) => reply.redirect(`${PORTAL_PREFIX}/`));
  return true;
}
