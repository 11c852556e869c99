// Docusaurus plugin: search. Offline by default: after the build, every built page is cut into
// sections (page, h2, h3 with their anchors) and written to `search-index.json`, which the search
// modal (Ctrl/Cmd+K or "/") and the /search page load on first use. When Algolia DocSearch is
// configured (ALGOLIA_* at build time) the hosted service is used instead: the Algolia theme gives the
// modal, and the site's SearchPage queries the same index and reports when it cannot be reached.
import { readFile, writeFile } from 'node:fs/promises';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractSections } from './extract.js';

const here = dirname(fileURLToPath(import.meta.url));
export const INDEX_FILE = 'search-index.json';

/** The HTML file Docusaurus writes for a route path with `trailingSlash: false`. */
function htmlFileFor(outDir, baseUrl, routePath) {
  const rel = routePath.slice(baseUrl.length).replace(/\/$/, '');
  return rel === '' ? join(outDir, 'index.html') : join(outDir, `${rel}.html`);
}

/** @type {import('@docusaurus/types').PluginModule} */
export default function searchPlugin(context, options) {
  const algolia = options.algolia || null;
  const { baseUrl } = context;
  return {
    name: 'tessera-search',
    // Offline mode brings its own SearchBar; with Algolia the DocSearch one from its theme is used.
    ...(algolia ? {} : { getThemePath: () => join(here, 'theme') }),
    async contentLoaded({ actions }) {
      actions.setGlobalData({ algolia, indexFile: INDEX_FILE });
      // The Algolia theme registers /search itself; offline, this plugin does.
      if (!algolia) {
        actions.addRoute({ path: `${baseUrl}search`, component: '@theme/SearchPage', exact: true });
      }
    },
    async postBuild({ outDir, routesPaths }) {
      if (algolia) return;
      const skip = new Set([`${baseUrl}search`, `${baseUrl}404.html`, `${baseUrl}404`]);
      const docs = [];
      for (const routePath of [...new Set(routesPaths)].sort()) {
        if (skip.has(routePath)) continue;
        const html = await readFile(htmlFileFor(outDir, baseUrl, routePath), 'utf8').catch(() => null);
        if (html === null) continue;
        docs.push(...extractSections(html, routePath));
      }
      await writeFile(join(outDir, INDEX_FILE), JSON.stringify({ v: 1, docs }));
    },
  };
}
