// Docusaurus plugin: the /api page, rendered from the server's OpenAPI 3.1 document at build time.
// The document is reduced here, in Node, to the few fields the page shows (refs resolved, schemas
// flattened to property trees, a curl sample per operation), so the browser receives one compact
// JSON module instead of the raw spec plus a generic renderer.
import { readFile } from 'node:fs/promises';
import { normalizeApi } from './normalize.js';

/** @type {import('@docusaurus/types').PluginModule} */
export default function openApiPlugin(context, options) {
  const { specPath, routePath = 'api' } = options;
  return {
    name: 'tessera-openapi',
    getPathsToWatch() {
      return [specPath];
    },
    async loadContent() {
      let raw;
      try {
        raw = await readFile(specPath, 'utf8');
      } catch (error) {
        throw new Error(`tessera-openapi: cannot read ${specPath}: ${error.message}`);
      }
      let doc;
      try {
        doc = JSON.parse(raw);
      } catch (error) {
        throw new Error(`tessera-openapi: ${specPath} is not valid JSON: ${error.message}`);
      }
      return normalizeApi(doc);
    },
    async contentLoaded({ content, actions }) {
      const { createData, addRoute } = actions;
      const api = await createData('api.json', JSON.stringify(content));
      addRoute({
        path: `${context.baseUrl}${routePath}`,
        component: '@site/src/components/ApiReference/index.js',
        exact: true,
        modules: { api },
      });
    },
  };
}
