import { randomBytes } from 'node:crypto';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { generateSigningKeyPem, signingKeyFromPem } from './platform/keys/index.js';
import { migrateToLatest, openStorage } from './storage/db.js';

/**
 * The OpenAPI document exactly as the server serves it at /v1/openapi.json, built from the route
 * schemas without listening or touching real data (an in-memory database, a throwaway key).
 * `npm run generate` writes it to openapi.json; CI fails when that file is stale.
 */
export async function buildOpenApiDocument(): Promise<Record<string, unknown>> {
  const storage = openStorage('sqlite::memory:');
  await migrateToLatest(storage.db);
  const config = loadConfig({ PORTAL_DIR: '/nonexistent', LOG_LEVEL: 'silent', NODE_ENV: 'test', AUTH_SECRET: randomBytes(32).toString('hex') });
  const app = await createApp({ config, storage, logger: false, signingKey: signingKeyFromPem(generateSigningKeyPem(), 0) });
  try {
    return app.server.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await storage.destroy();
  }
}
