// The portal's npm-scripts reference (apps/portal/docs/_generated/npm-scripts.md), generated from the
// root package.json and every workspace's package.json.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cell, code, table, HEADER } from '../../apps/portal/scripts/markdown.mjs';

export const name = 'portal-npm-scripts';

async function readJson(path) {
  return JSON.parse(await readFile(path, 'utf8'));
}

export async function renderNpmScripts(root) {
  const rootPkg = await readJson(join(root, 'package.json'));
  const sections = [];
  const section = (title, how, pkg) => {
    const scripts = Object.entries(pkg.scripts ?? {});
    const body = scripts.length
      ? table(['Script', 'Run with', 'Command'], scripts.map(([n, cmd]) => [code(n), code(how(n)), code(cmd)]))
      : '_No scripts._';
    sections.push(`### ${title}\n\n${pkg.description ? `${cell(pkg.description)}\n\n` : ''}${body}\n`);
  };
  section('Repository root', (n) => (n === 'start' || n === 'test' ? `npm ${n}` : `npm run ${n}`), rootPkg);
  for (const ws of rootPkg.workspaces ?? []) {
    const pkg = await readJson(join(root, ws, 'package.json')).catch(() => null);
    if (!pkg) continue;
    section(`${pkg.name} (${ws})`, (n) => `npm run ${n} -w ${ws}`, pkg);
  }
  return HEADER('package.json and the workspaces\' package.json files') + sections.join('\n');
}

export async function outputs({ root }) {
  return [{ path: 'apps/portal/docs/_generated/npm-scripts.md', content: await renderNpmScripts(root) }];
}
