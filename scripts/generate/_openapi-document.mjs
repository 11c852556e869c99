// The OpenAPI document, built once per run for the modules that read it (openapi.mjs writes it and
// its types; sdk.mjs writes the SDK's methods from it). Files whose name starts with `_` are helpers
// that scripts/generate.mjs does not run as modules.
import { buildOpenApiDocument } from '@tessera/server/openapi';

const built = new Map();

/**
 * A fresh copy each call, so one module cannot change what another reads. `domains`: another
 * domain list than the server's DOMAINS (a test composes one with a fixture domain).
 */
export async function openApiDocument(domains) {
  if (!built.has(domains)) built.set(domains, buildOpenApiDocument(domains));
  return structuredClone(await built.get(domains));
}
