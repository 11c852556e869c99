// ESLint rule `tessera/domain-boundaries`: the domain contract of apps/server (README "Layout").
//   - A domain imports another domain only through that domain's index.ts, never its store,
//     service, routes or any other file.
//   - http/ and storage/ import no domain at all.
// Relative imports are resolved against the importing file; package imports are not checked.
import { dirname, posix, resolve, sep } from 'node:path';

const SRC = /^(.*\/apps\/server\/src)\/(.*)$/;

/** Where a file sits in the server's source tree: its top folder and, under domains/, its domain. */
function place(file) {
  const m = SRC.exec(file.split(sep).join('/'));
  if (!m) return null;
  const [top, second, ...rest] = m[2].split('/');
  return { root: m[1], top, domain: top === 'domains' && rest.length ? second : null, rest };
}

export const domainBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Domains import each other only through index.ts; http/ and storage/ import no domain.' },
    messages: {
      notIndex: "'{{source}}' reaches into the {{target}} domain: import it through '{{target}}/index.js' (its service, types and hooks).",
      layer: "'{{source}}' imports the {{target}} domain from {{top}}/: {{top}}/ must not depend on any domain (move the shared piece to {{top}}/ or a shared module).",
    },
    schema: [],
  },
  create(context) {
    const from = place(context.filename);
    if (!from) return {};
    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = place(resolve(dirname(context.filename), source));
      if (!target?.domain) return;
      if (from.top === 'http' || from.top === 'storage') {
        context.report({ node, messageId: 'layer', data: { source, target: target.domain, top: from.top } });
        return;
      }
      if (from.domain === target.domain) return;
      const file = posix.join(...target.rest);
      if (file !== 'index.js' && file !== 'index.ts') {
        context.report({ node, messageId: 'notIndex', data: { source, target: target.domain } });
      }
    };
    const fromSource = (node) => check(node.source, node.source?.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node.source, node.source.type === 'Literal' ? node.source.value : undefined),
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value),
    };
  },
};

export const plugin = { rules: { 'domain-boundaries': domainBoundaries } };
