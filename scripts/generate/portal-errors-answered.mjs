// Which errnos of the catalogue the server answers today (apps/portal/docs/_generated/errors-answered.md):
// those that at least one route declares in its responses(…), as the OpenAPI document's per-operation
// `x-errors` states them. A route cannot answer an error it does not declare (http/declared-errors.ts
// turns that into a 500 in tests), so this is the list a client can meet.
import { AUTH_ERRORS, OAUTH_ERRORS } from '@tessera/errors';
import { openApiDocument } from './_openapi-document.mjs';
import { HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-errors-answered';

/**
 * Sorted numbers as linked runs: `<a href="#errno-101">101</a>–<a href="#errno-111">111</a>, …`. Plain
 * JSX anchors, not markdown links: the rows' `errno-…` ids are spans, which Docusaurus' anchor check
 * does not know, and it checks only markdown links.
 */
export function errnoRuns(errnos, anchor = 'errno') {
  const sorted = [...new Set(errnos)].sort((a, b) => a - b);
  const link = (n) => `<a href="#${anchor}-${n}">${n}</a>`;
  const runs = [];
  for (const n of sorted) {
    const last = runs.at(-1);
    if (last && n === last[1] + 1) last[1] = n;
    else runs.push([n, n]);
  }
  return runs.map(([a, b]) => (a === b ? link(a) : b === a + 1 ? `${link(a)}, ${link(b)}` : `${link(a)}–${link(b)}`)).join(', ');
}

/**
 * The paragraph, from the catalogue and the operations' declared errors. `oauth`: the OAuth server's
 * catalogue, whose declarations carry `catalogue: 'oauth'` (the others are the auth server's).
 */
export function renderAnswered(catalogue, doc, { oauth = false } = {}) {
  const anchor = oauth ? 'oauth-errno' : 'errno';
  const declared = new Set();
  let operations = 0;
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item)) {
      if (!op || typeof op !== 'object' || !op.operationId) continue;
      operations++;
      for (const e of op['x-errors'] ?? []) if ((e.catalogue === 'oauth') === oauth) declared.add(e.errno);
    }
  }
  const all = new Set(Object.values(catalogue).map((d) => d.errno));
  const unknown = [...declared].filter((n) => !all.has(n));
  if (unknown.length) throw new Error(`portal-errors-answered: routes declare errnos missing from the catalogue: ${unknown.join(', ')}`);
  const answered = [...all].filter((n) => declared.has(n));
  const waiting = [...all].filter((n) => !declared.has(n));
  return (
    HEADER(`the routes' declared errors (openapi.json \`x-errors\`) and packages/errors/src/${oauth ? 'oauth' : 'auth'}.ts`) +
    `**Answered today** (${answered.length} of ${all.size} errnos, declared by at least one of the ${operations} operations ` +
    `in the [API reference](/api)): ${errnoRuns(answered, anchor)}.\n\n` +
    (waiting.length
      ? `**Not answered by any route yet** (${waiting.length}; most belong to features not built yet): ${errnoRuns(waiting, anchor)}.\n`
      : 'Every errno of the catalogue is answered by at least one route.\n')
  );
}

export async function outputs() {
  const doc = await openApiDocument();
  return [
    { path: 'apps/portal/docs/_generated/errors-answered.md', content: renderAnswered(AUTH_ERRORS, doc) },
    { path: 'apps/portal/docs/_generated/errors-oauth-answered.md', content: renderAnswered(OAUTH_ERRORS, doc, { oauth: true }) },
  ];
}
