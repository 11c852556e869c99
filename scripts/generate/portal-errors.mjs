// The portal's API error reference (apps/portal/docs/_generated/errors.md and errors-oauth.md),
// generated from the two catalogues in @tessera/errors (built by `tsc -b`): the auth server's, and
// the OAuth server's own (anchors `oauth-errno-…`, since its numbers overlap the auth ones).
import { AUTH_ERRORS, OAUTH_ERRORS, reasonPhrase } from '@tessera/errors';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-errors';

export function renderErrors(catalogue, { anchor = 'errno', source = 'packages/errors/src/auth.ts' } = {}) {
  const entries = Object.entries(catalogue).sort(([na, a], [nb, b]) => a.errno - b.errno || a.status - b.status || na.localeCompare(nb));
  // Each errno gets an anchor (#errno-106): the server's error bodies link to it in `info`.
  const anchored = new Set();
  const rows = entries.map(([key, def]) => [
    anchored.has(def.errno) ? String(def.errno) : (anchored.add(def.errno), `<span id="${anchor}-${def.errno}">${def.errno}</span>`),
    `${def.status} ${cell(def.error ?? reasonPhrase(def.status))}`,
    code(key),
    cell(def.message),
    (def.extras ?? []).map((x) => code(x)).join(', '),
    cell(def.description),
  ]);
  return (
    HEADER(source) +
    `${entries.length} errors.\n\n` +
    table(['errno', 'HTTP', 'Name', 'Message', 'Extra fields', 'When and what to do'], rows) +
    '\n'
  );
}

export async function outputs() {
  return [
    { path: 'apps/portal/docs/_generated/errors.md', content: renderErrors(AUTH_ERRORS) },
    { path: 'apps/portal/docs/_generated/errors-oauth.md', content: renderErrors(OAUTH_ERRORS, { anchor: 'oauth-errno', source: 'packages/errors/src/oauth.ts' }) },
  ];
}
