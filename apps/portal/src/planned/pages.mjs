// Which docs pages are "planned": their subject is not built yet, so the page only says, in one
// sentence, what a later issue will write. The page itself is the single source: a page is planned
// when its body (after the front matter) opens with the marker below. Writing the page for real
// means removing the marker, and the sidebar badge, the navbar count and the browser suite's checks
// follow without another list to keep in step. Runs in Node (sidebars.js, the config, the tests).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PLANNED_MARKER = '**Not built yet.**';
export const docsDir = join(dirname(fileURLToPath(import.meta.url)), '../../docs');

/** True when a page's source opens (after its front matter) with the planned marker. */
export function isPlannedSource(source) {
  const body = source.replace(/^---\r?\n[\s\S]*?\r?\n---\r?\n/, '');
  return body.trimStart().startsWith(PLANNED_MARKER);
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : /\.mdx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** The ids (paths under docs/ without the extension) of every planned page, sorted. */
export function plannedDocIds(dir = docsDir) {
  return walk(dir)
    .filter((file) => !relative(dir, file).startsWith('_'))
    .filter((file) => isPlannedSource(readFileSync(file, 'utf8')))
    .map((file) => relative(dir, file).replace(/\.mdx?$/, '').split('\\').join('/'))
    .sort();
}
