import { randomBytes } from 'node:crypto';
import { createApp, DOMAINS, migrationsOf } from './app.js';
import type { AnyManifest } from './manifest.js';
import { loadConfig } from './config.js';
import { generateSigningKeyPem, signingKeyFromPem } from './platform/keys/index.js';
import { migrateToLatest, openStorage } from './storage/db.js';

/**
 * The OpenAPI document exactly as the server serves it at /v1/openapi.json, built from the route
 * schemas without listening or touching real data (an in-memory database, a throwaway key).
 * `npm run generate` writes it to openapi.json; CI fails when that file is stale.
 */
export async function buildOpenApiDocument(domains: readonly AnyManifest[] = DOMAINS): Promise<Record<string, unknown>> {
  const storage = openStorage('sqlite::memory:');
  await migrateToLatest(storage.db, {}, migrationsOf(domains));
  const config = loadConfig({ PORTAL_DIR: '/nonexistent', LOG_LEVEL: 'silent', NODE_ENV: 'test', AUTH_SECRET: randomBytes(32).toString('hex') }, domains);
  const app = await createApp({ config, storage, logger: false, signingKey: signingKeyFromPem(generateSigningKeyPem(), 0), domains });
  try {
    return app.server.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
    await storage.destroy();
  }
}
