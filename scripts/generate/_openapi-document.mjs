// The OpenAPI document, built once per run for the modules that read it (openapi.mjs writes it and
// its types; sdk.mjs writes the SDK's methods from it). Files whose name starts with `_` are helpers
// that scripts/generate.mjs does not run as modules.
import { buildOpenApiDocument } from '@tessera/server/openapi';

let built;

/** A fresh copy each call, so one module cannot change what another reads. */
export async function openApiDocument() {
  built ??= buildOpenApiDocument();
  return structuredClone(await built);
}
