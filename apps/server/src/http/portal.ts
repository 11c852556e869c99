import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { resolveSiteFile, siteResponse } from './static-site.js';

export const PORTAL_PREFIX = '/ecosystem-platform';

/**
 * Serves the built developer portal at /ecosystem-platform/ (the URL mapping is in
 * static-site.ts); `/ecosystem-platform` and, until the web app exists, `/` redirect there.
 */
export async function installPortal(app: FastifyInstance, dir: string): Promise<boolean> {
  const root = resolve(dir);
  if (!existsSync(join(root, 'index.html'))) return false;
  const cache = new Map<string, Buffer>();

  const send = async (reply: FastifyReply, file: string, status: number, acceptEncoding: string | undefined) => {
    const { body, headers } = await siteResponse(file, acceptEncoding, cache);
    return reply.code(status).headers(headers).send(body);
  };

  app.get(PORTAL_PREFIX, { schema: { hide: true } }, (_req, reply) => reply.redirect(`${PORTAL_PREFIX}/`));
  app.get(`${PORTAL_PREFIX}/*`, { schema: { hide: true } }, async (req, reply) => {
    let file: string | null = null;
    try {
      file = await resolveSiteFile(root, (req.params as { '*': string })['*'] ?? '');
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
