import type { FastifyInstance } from 'fastify';

// CORS for what a browser relying party on another origin calls (token, introspection,
// revocation, userinfo, profile, jwks, discovery): only origins listed in OAUTH_CORS_ORIGINS, never
// with credentials (these routes take Bearer tokens or client credentials, not cookies).

const ALLOWED_HEADERS = 'authorization, content-type';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

/** Adds CORS answers to the routes of `app` and preflight routes for `paths` (each answered only for listed origins). */
export function installCors(app: FastifyInstance, origins: readonly string[], paths: readonly string[]): void {
  const allowed = new Set(origins);
  if (!allowed.size) return;
  app.addHook('onSend', (request, reply, payload, done) => {
    const origin = request.headers.origin;
    if (origin && allowed.has(origin)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', 'retry-after, timestamp');
    }
    reply.header('vary', 'Origin');
    done(null, payload);
  });
  for (const path of paths) {
    app.options(path, { config: { auth: 'none' }, schema: { hide: true } }, async (request, reply) => {
      const origin = request.headers.origin;
      if (!origin || !allowed.has(origin)) return reply.code(403).send();
      reply.header('access-control-allow-methods', 'GET, POST');
      reply.header('access-control-allow-headers', ALLOWED_HEADERS);
      reply.header('access-control-max-age', String(PREFLIGHT_MAX_AGE_SECONDS));
      return reply.code(204).send();
    });
  }
}
