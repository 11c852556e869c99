// Docusaurus plugin: the API reference, rendered from the server's OpenAPI 3.1 document at build time.
// The document is reduced here, in Node, to the few fields the pages show (refs resolved, schemas
// flattened to property trees, a curl sample per operation). It is cut into an overview at /api
// and one page per tag at /api/<tag>: one page holding every operation was ~20,000 elements, which a
// phone spends seconds laying out. Each page's data module carries only its own operations.
import { readFile } from 'node:fs/promises';
import { normalizeApi, splitApi } from './normalize.js';

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
      return splitApi(normalizeApi(doc));
    },
    async contentLoaded({ content, actions }) {
      const { createData, addRoute } = actions;
      const base = `${context.baseUrl}${routePath}`;
      const index = await createData('api-index.json', JSON.stringify(content.index));
      addRoute({ path: base, component: '@site/src/components/ApiReference/index.js', exact: true, modules: { api: index } });
      for (const page of content.pages) {
        const data = await createData(`api-tag-${page.slug}.json`, JSON.stringify(page));
        addRoute({ path: `${base}/${page.slug}`, component: '@site/src/components/ApiReference/TagPage.js', exact: true, modules: { api: index, page: data } });
      }
    },
  };
}
