#!/usr/bin/env node
// Writes every generated artifact (openapi.json, SDK types, the portal's generated reference pages)
// from its single source in code. `--check` writes nothing and fails when a committed file is stale,
// which is how CI catches a schema changed without regenerating.
//
// Each module in scripts/generate/*.mjs exports `name` and `outputs()`, which resolves to
// [{ path (relative to the repository root), content }]. Generators import built workspace
// packages (`npm run build` first; `npm run generate` does it).
import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

const dir = join(root, 'scripts/generate');
const modules = (await readdir(dir)).filter((f) => f.endsWith('.mjs') && !f.startsWith('_')).sort();
let stale = 0;
for (const file of modules) {
  const mod = await import(pathToFileURL(join(dir, file)).href);
  if (only.length && !only.includes(mod.name)) continue;
  for (const { path, content } of await mod.outputs({ root })) {
    const target = join(root, path);
    const current = await readFile(target, 'utf8').catch(() => null);
    if (current === content) continue;
    if (check) {
      stale++;
      console.error(`stale: ${path} (from ${mod.name}); run \`npm run generate\` and commit the result`);
    } else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
      console.log(`wrote ${path}`);
    }
  }
}
if (stale) process.exit(1);
if (check) console.log('generated files are fresh');
