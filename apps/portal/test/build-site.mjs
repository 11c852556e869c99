// Builds the portal for the tests when its output is missing or older than its sources, and the
// Algolia-configured variant used by the hosted-search failure test.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const portalDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const repoRoot = resolve(portalDir, '../..');
export const fixtureSpec = join(portalDir, 'test/fixtures/openapi.sample.json');
export const mainBuild = join(portalDir, 'build');
export const algoliaBuild = join(portalDir, 'test-results/build-algolia');

/** Fake Algolia settings: an app id that resolves nowhere; the browser suite also blocks the host. */
export const FAKE_ALGOLIA = { ALGOLIA_APP_ID: 'TESSERAOFFLINE', ALGOLIA_API_KEY: 'not-a-real-key', ALGOLIA_INDEX_NAME: 'tessera-docs' };

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** The spec the suite builds with: the server's committed file, or the fixture when it has none yet. */
export function specForTests() {
  const real = join(repoRoot, 'openapi.json');
  return existsSync(real) ? real : fixtureSpec;
}

export function sourcesMtime(spec) {
  return Math.max(
    ...['docs', 'src', 'static', 'docusaurus.config.js', 'sidebars.js', 'site-env.js', 'package.json'].map((p) => newestMtime(join(portalDir, p))),
    newestMtime(spec),
  );
}

export function buildIfNeeded({ outDir = mainBuild, env = {}, force = false } = {}) {
  const spec = specForTests();
  const marker = join(outDir, 'index.html');
  if (!force && existsSync(marker) && statSync(marker).mtimeMs >= sourcesMtime(spec)) return false;
  console.log(`building the portal into ${outDir} (OpenAPI: ${spec})`);
  const res = spawnSync('npx', ['docusaurus', 'build', '--out-dir', outDir], {
    cwd: portalDir,
    stdio: 'inherit',
    env: { ...process.env, NO_UPDATE_NOTIFIER: '1', TESSERA_OPENAPI: spec, ...env },
  });
  if (res.status !== 0) throw new Error(`portal build failed (exit ${res.status})`);
  return true;
}
