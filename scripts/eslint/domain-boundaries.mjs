// ESLint rule `tessera/domain-boundaries`: the domain contract of apps/server (README "Layout").
//   - A domain imports another domain only through that domain's index.ts, never its store,
//     service, routes or any other file.
//   - http/, storage/ and platform/ import no domain at all (a domain adds its tables to storage's
//     Database type from its own tables.ts, by declaration merging).
//   - Floors (apps/server/src/floors.json): a domain imports only domains of a lower floor, or of
//     its own floor when the import closes no cycle between domains (the cycle is looked for in
//     the imports of every file under domains/, type-only ones included); every domain is listed.
//   - A store (`store.ts`, `*-store.ts`, a file under `store/`) names only the tables its domain
//     owns in floors.json: another domain's rows go through that domain's index.ts (a read port
//     for a hot join).
//   - A routes file (`routes.ts`, `*-routes.ts`) imports no store: handlers call services.
// Relative imports are resolved against the importing file; package imports are not checked.
import { dirname, posix, resolve } from 'node:path';
import { pathBetween, place, treeOf } from './floors.mjs';

/** Kysely's query-builder methods whose first argument names a table (`'accounts as a'` too). */
const TABLE_METHODS = new Set([
  'selectFrom', 'insertInto', 'replaceInto', 'updateTable', 'deleteFrom', 'mergeInto',
  'innerJoin', 'leftJoin', 'rightJoin', 'fullJoin', 'crossJoin', 'innerJoinLateral', 'leftJoinLateral', 'crossJoinLateral',
]);
const LAYERS = new Set(['http', 'storage', 'platform']);

const isStore = (segments) => {
  const file = segments.at(-1).replace(/\.(js|ts)$/, '');
  return file === 'store' || file.endsWith('-store') || segments.slice(0, -1).includes('store');
};
const isRoutes = (segments) => /^(.*-)?routes\.ts$/.test(segments.at(-1));

/** The table names a call's first argument spells out: `'accounts as a'` → accounts; an array of them. */
function tablesNamed(arg) {
  if (!arg) return [];
  if (arg.type === 'ArrayExpression') return arg.elements.flatMap(tablesNamed);
  const text = arg.type === 'Literal' && typeof arg.value === 'string' ? arg.value
    : arg.type === 'TemplateLiteral' && arg.expressions.length === 0 ? arg.quasis[0].value.cooked : null;
  return text === null ? [] : [{ node: arg, table: text.trim().split(/\s+as\s+/i)[0] }];
}

export const domainBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: 'Domains import each other only through index.ts, downwards or without a cycle; stores name only their own tables; routes import no store; http/, storage/ and platform/ import no domain.' },
    messages: {
      notIndex: "'{{source}}' reaches into the {{target}} domain: import it through '{{target}}/index.js' (its service, types and hooks).",
      layer: "'{{source}}' imports the {{target}} domain from {{top}}/: {{top}}/ must not depend on any domain (move the shared piece to {{top}}/ or a shared module).",
      unlisted: "The {{domain}} domain is not in floors.json: give it a floor (and its tables) there.",
      upward: "'{{source}}' imports the {{target}} domain (floor {{targetFloor}}, {{targetFloorName}}) from the {{domain}} domain (floor {{floor}}, {{floorName}}): a domain imports only lower floors. Invert it (the lower domain declares a port, the higher one provides it) or move the piece down.",
      cycle: "'{{source}}' closes a cycle between domains: {{path}}. Same-floor imports may not go round; move the shared piece down a floor or invert one arrow.",
      foreignTable: "This store names the table '{{table}}', which {{owner}} owns (floors.json), not the {{domain}} domain: reach those rows through {{owner}}'s index.ts (a read port for a hot join).",
      routesStore: "'{{source}}' is a store: a routes file calls services, never a store.",
    },
    schema: [],
  },
  create(context) {
    const from = place(context.filename);
    if (!from) return {};
    const tree = from.domain ? treeOf(from.root) : null;
    const floors = tree?.floors;
    const fromFloor = floors?.domains.get(from.domain);
    const fromRoutes = isRoutes(from.segments);

    const checkDomainImport = (node, source, target) => {
      if (!floors || !fromFloor) return;
      const targetFloor = floors.domains.get(target.domain);
      if (!targetFloor) {
        context.report({ node, messageId: 'unlisted', data: { domain: target.domain } });
        return;
      }
      if (targetFloor.floor > fromFloor.floor) {
        context.report({
          node, messageId: 'upward',
          data: { source, target: target.domain, domain: from.domain, floor: fromFloor.floor, floorName: fromFloor.floorName, targetFloor: targetFloor.floor, targetFloorName: targetFloor.floorName },
        });
        return;
      }
      const back = pathBetween(tree.graph, target.domain, from.domain);
      if (back) {
        const via = back.slice(0, -1).map((d, i) => `${d} (${tree.graph.get(d).get(back[i + 1])})`);
        context.report({ node, messageId: 'cycle', data: { source, path: [from.domain, ...via, from.domain].join(' → ') } });
      }
    };

    const check = (node, source) => {
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = place(resolve(dirname(context.filename), source));
      if (fromRoutes && target && isStore(target.segments)) {
        context.report({ node, messageId: 'routesStore', data: { source } });
      }
      if (!target?.domain) return;
      if (LAYERS.has(from.top)) {
        context.report({ node, messageId: 'layer', data: { source, target: target.domain, top: from.top } });
        return;
      }
      if (from.domain === target.domain) return;
      const file = posix.join(...target.rest);
      if (file !== 'index.js' && file !== 'index.ts') {
        context.report({ node, messageId: 'notIndex', data: { source, target: target.domain } });
      }
      if (from.domain) checkDomainImport(node, source, target);
    };
    const fromSource = (node) => check(node.source, node.source?.value);
    const visitors = {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression: (node) => check(node.source, node.source.type === 'Literal' ? node.source.value : undefined),
      TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value),
    };
    if (floors && from.domain) {
      visitors.Program = (node) => {
        if (!fromFloor) context.report({ node, loc: { line: 1, column: 0 }, messageId: 'unlisted', data: { domain: from.domain } });
      };
    }
    if (floors && fromFloor && isStore(from.rest)) {
      visitors.CallExpression = (node) => {
        const callee = node.callee;
        if (callee.type !== 'MemberExpression' || callee.property.type !== 'Identifier' || !TABLE_METHODS.has(callee.property.name)) return;
        for (const { node: arg, table } of tablesNamed(node.arguments[0])) {
          if (fromFloor.tables.has(table)) continue;
          context.report({ node: arg, messageId: 'foreignTable', data: { table, domain: from.domain, owner: floors.owner.get(table) ?? 'no domain' } });
        }
      };
    }
    return visitors;
  },
};

export const plugin = { rules: { 'domain-boundaries': domainBoundaries } };