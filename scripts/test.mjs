#!/usr/bin/env node
// `npm test`: everything CI checks, in order — lint, typecheck, generated files fresh, the unit,
// HTTP and storage suites (vitest), then the portal (build, browser suite). It stops at the first
// failing step. PostgreSQL and MySQL suites run when TEST_POSTGRES_URL / TEST_MYSQL_URL are set
// (.ci/run sets them); without them those suites are skipped and this script says so.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const steps = [
  ['lint', 'npx', ['eslint', '.']],
  ['typecheck', 'npm', ['run', 'typecheck']],
  ['generated files are fresh', 'node', ['scripts/generate.mjs', '--check']],
  ['unit, HTTP and storage tests', 'npx', ['vitest', 'run']],
  ['portal (build, browser suite)', 'npm', ['run', 'test', '-w', 'apps/portal']],
];

for (const name of ['TEST_POSTGRES_URL', 'TEST_MYSQL_URL']) {
  if (!process.env[name]) process.stdout.write(`note: ${name} is not set; its database suites are skipped (CI sets it)\n`);
}
const started = Date.now();
for (const [label, cmd, args] of steps) {
  if (only.length && !only.some((o) => label.startsWith(o))) continue;
  const t0 = Date.now();
  process.stdout.write(`\n━━ ${label} ━━\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } });
  if (r.status !== 0) {
    process.stdout.write(`\n✗ ${label} failed (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
    process.exit(r.status ?? 1);
  }
  process.stdout.write(`✓ ${label} (${((Date.now() - t0) / 1000).toFixed(0)} s)\n`);
}
process.stdout.write(`\nall checks passed in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
