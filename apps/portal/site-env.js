// Build-time settings read from the environment, kept apart from docusaurus.config.js so the tests
// can check them without building.
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * What a build does with broken content: links only warn (a page may link ahead to one a later issue
 * writes), images in markdown fail the build. Shared with the build-behaviour test's fixture site so
 * the test proves the portal's own policy.
 */
export const brokenContentPolicy = {
  onBrokenLinks: 'warn',
  onBrokenAnchors: 'warn',
  markdownHooks: { onBrokenMarkdownLinks: 'warn', onBrokenMarkdownImages: 'throw' },
};

/** Algolia DocSearch when all three variables are set; otherwise null (the offline index is used). */
export function algoliaFromEnv(env) {
  const appId = env.ALGOLIA_APP_ID?.trim();
  const apiKey = env.ALGOLIA_API_KEY?.trim();
  const indexName = env.ALGOLIA_INDEX_NAME?.trim();
  if (!appId && !apiKey && !indexName) return null;
  if (!appId || !apiKey || !indexName) {
    throw new Error('Algolia search needs all of ALGOLIA_APP_ID, ALGOLIA_API_KEY and ALGOLIA_INDEX_NAME (or none of them).');
  }
  return { appId, apiKey, indexName };
}

/**
 * The OpenAPI document the /api page renders: the server's committed `openapi.json` at the repository
 * root. TESSERA_OPENAPI overrides it (the portal's own tests point it at a fixture). A missing file
 * fails the build: the portal never falls back to a sample silently.
 */
export function openApiPathFromEnv(env) {
  const path = env.TESSERA_OPENAPI ? resolve(env.TESSERA_OPENAPI) : resolve(here, '../../openapi.json');
  if (!existsSync(path)) {
    throw new Error(
      `The API reference needs ${path}, which does not exist. Generate it with \`npm run generate\` ` +
        'at the repository root (or set TESSERA_OPENAPI to another OpenAPI 3.1 file).',
    );
  }
  return path;
}

/** The site's origin (Docusaurus `url`): PUBLIC_URL's origin, as the server is configured. */
export function siteUrlFromEnv(env) {
  return new URL(env.PUBLIC_URL || 'http://localhost:9000').origin;
}

export function repoUrlFromEnv(env) {
  return (env.TESSERA_REPO_URL || 'https://github.com/tessera-platform/tessera').replace(/\/$/, '');
}
