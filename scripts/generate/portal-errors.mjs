// The portal's API error reference (apps/portal/docs/_generated/errors.md), generated from the auth
// server's error catalogue in @tessera/errors (built by `tsc -b`).
import { AUTH_ERRORS, reasonPhrase } from '@tessera/errors';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-errors';

export function renderErrors(catalogue) {
  const entries = Object.entries(catalogue).sort(([na, a], [nb, b]) => a.errno - b.errno || a.status - b.status || na.localeCompare(nb));
  // Each errno gets an anchor (#errno-106): the server's error bodies link to it in `info`.
  const anchored = new Set();
  const rows = entries.map(([key, def]) => [
    anchored.has(def.errno) ? String(def.errno) : (anchored.add(def.errno), `<span id="errno-${def.errno}">${def.errno}</span>`),
    `${def.status} ${cell(def.error ?? reasonPhrase(def.status))}`,
    code(key),
    cell(def.message),
    (def.extras ?? []).map((x) => code(x)).join(', '),
    cell(def.description),
  ]);
  return (
    HEADER('packages/errors/src/auth.ts') +
    `${entries.length} errors.\n\n` +
    table(['errno', 'HTTP', 'Name', 'Message', 'Extra fields', 'When and what to do'], rows) +
    '\n'
  );
}

export async function outputs() {
  return [{ path: 'apps/portal/docs/_generated/errors.md', content: renderErrors(AUTH_ERRORS) }];
}
