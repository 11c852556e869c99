import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { HealthDeps } from './index.js';
import { apiIndex, heartbeat, readVersion, type VersionInfo } from './service.js';

// Operational endpoints, kept out of the OpenAPI document (they are not part of the account API
// that the SDK wraps); the portal's production page documents them.

export const healthRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, deps) => {
  app.get('/__lbheartbeat__', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) => {
    // Alive and serving: no dependency is consulted, so a database outage does not make a load
    // balancer kill every instance at once.
    reply.header('cache-control', 'no-store');
    return {};
  });

  app.get('/__heartbeat__', { schema: { hide: true }, config: { auth: 'none' } }, async (_request, reply) => {
    const result = await heartbeat(deps.checks, (name, err) => deps.warn(`heartbeat: the ${name} check failed`, err));
    reply.header('cache-control', 'no-store');
    return reply.status(result.status === 'ok' ? 200 : 503).send(result);
  });

  let version: Promise<VersionInfo> | undefined;
  app.get('/__version__', { schema: { hide: true }, config: { auth: 'none' } }, async () => {
    version ??= readVersion();
    return version;
  });
};

/** GET /v1 and /v1/: what this API is and where to read about it. */
export const apiIndexRoutes: FastifyPluginAsyncTypebox<HealthDeps> = async (app, deps) => {
  const at = (path: string) => new URL(path, deps.publicUrl).toString();
  let body: Promise<object> | undefined;
  app.get('/', { schema: { hide: true }, config: { auth: 'none' } }, async () => {
    body ??= apiIndex(at, deps.portal);
    return body;
  });
};
