// What the domain-boundaries rule knows of a server source tree beyond the file it lints: the floors
// table (apps/server/src/floors.json) and the import graph between domains, read from the files
// under domains/. Both are read once per source root and lint run (ESLint lints many files in one
// process; the graph of the files on disk is what a cycle runs through).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';

const SRC = /^(.*\/apps\/server\/src)\/(.*)$/;

/** Where a file sits in the server's source tree: its top folder and, under domains/, its domain. */
export function place(file) {
  const m = SRC.exec(file.split(sep).join('/'));
  if (!m) return null;
  const segments = m[2].split('/');
  const [top, second, ...rest] = segments;
  return { root: m[1], top, domain: top === 'domains' && rest.length ? second : null, rest, segments };
}

/**
 * floors.json of a source root: each domain's floor (0 the lowest) and tables, and which domain
 * owns each table. Null when the root has none (the floor checks are then off).
 */
function readFloors(root) {
  const file = join(root, 'floors.json');
  if (!existsSync(file)) return null;
  const json = JSON.parse(readFileSync(file, 'utf8'));
  const domains = new Map();
  const owner = new Map();
  json.floors.forEach((floor, level) => {
    for (const [name, tables] of Object.entries(floor.domains)) {
      domains.set(name, { floor: level, floorName: floor.name, tables: new Set(tables) });
      for (const t of tables) owner.set(t, name);
    }
  });
  for (const t of json.platformTables ?? []) owner.set(t, 'platform');
  return { domains, owner };
}

/** Every relative module specifier a source text imports or re-exports (type-only ones too). */
export function specifiersOf(text) {
  const out = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.[^'"]*)\1/g)) out.push(m[2]);
  return out;
}

function tsFilesUnder(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFilesUnder(path));
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * domain → the domains its files import, each with one file that does (for the message), from
 * the files on disk under `root`/domains.
 */
function readGraph(root) {
  const graph = new Map();
  const domainsDir = join(root, 'domains');
  if (!existsSync(domainsDir)) return graph;
  for (const file of tsFilesUnder(domainsDir)) {
    const from = place(file);
    if (!from?.domain) continue;
    for (const spec of specifiersOf(readFileSync(file, 'utf8'))) {
      const target = place(resolve(dirname(file), spec));
      if (!target?.domain || target.domain === from.domain) continue;
      if (!graph.has(from.domain)) graph.set(from.domain, new Map());
      const edges = graph.get(from.domain);
      if (!edges.has(target.domain)) edges.set(target.domain, file.slice(root.length + 1));
    }
  }
  return graph;
}

/** A path of domains from `start` to `goal` along the graph's edges, or null. */
export function pathBetween(graph, start, goal) {
  const previous = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const at = queue.shift();
    if (at === goal) {
      const path = [];
      for (let d = goal; d !== null; d = previous.get(d)) path.unshift(d);
      return path;
    }
    for (const next of graph.get(at)?.keys() ?? []) {
      if (!previous.has(next)) {
        previous.set(next, at);
        queue.push(next);
      }
    }
  }
  return null;
}

const cache = new Map();

/** The floors table and the domain graph of a source root (read once per run). */
export function treeOf(root) {
  let tree = cache.get(root);
  if (!tree) {
    tree = { floors: readFloors(root), graph: readGraph(root) };
    cache.set(root, tree);
  }
  return tree;
}
