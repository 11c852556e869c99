// Docusaurus plugin: after the build, the site's one stylesheet is written into each page's <head>
// instead of being linked. A linked stylesheet blocks the first paint until it has been fetched,
// which on a phone's connection is a full round trip after the HTML (Lighthouse's "render-blocking
// resources"); inline, the page paints as soon as its HTML arrives. The stylesheet is ~15 KiB
// gzipped, and every page needs all of it (Docusaurus emits one file for the whole site), so there is
// nothing to split; the file stays in assets/ for anything that links it.
import { readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

async function htmlFiles(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    if (e.isDirectory()) out.push(...(await htmlFiles(join(dir, e.name))));
    else if (e.name.endsWith('.html')) out.push(join(dir, e.name));
  }
  return out;
}

/** Replaces `<link rel="stylesheet" href="{baseUrl}assets/css/…">` with the file's content. */
export function inlineStylesheets(html, baseUrl, readCss) {
  const re = new RegExp(`<link rel="stylesheet" href="${baseUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(assets/css/[\\w.-]+\\.css)">`, 'g');
  // "</style" cannot occur in a stylesheet Docusaurus minified, but would end the element early.
  return html.replace(re, (_, file) => `<style>${readCss(file).replace(/<\/style/gi, '<\\/style')}</style>`);
}

/** @type {import('@docusaurus/types').PluginModule} */
export default function inlineCssPlugin(context) {
  return {
    name: 'tessera-inline-css',
    async postBuild({ outDir }) {
      const css = new Map();
      const files = await htmlFiles(outDir);
      for (const file of files) {
        const html = await readFile(file, 'utf8');
        for (const m of html.matchAll(/href="[^"]*?(assets\/css\/[\w.-]+\.css)"/g)) {
          if (!css.has(m[1])) css.set(m[1], await readFile(join(outDir, m[1]), 'utf8'));
        }
        const inlined = inlineStylesheets(html, context.baseUrl, (f) => css.get(f));
        // Written aside and renamed: other plugins' postBuild (the search index) read these files
        // at the same time and must never see a half-written page.
        if (inlined !== html) {
          await writeFile(`${file}.tmp`, inlined);
          await rename(`${file}.tmp`, file);
        }
      }
    },
  };
}
