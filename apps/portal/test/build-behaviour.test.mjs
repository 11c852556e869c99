// Build behaviours of the portal: broken links only warn, broken images in markdown fail the build,
// and a missing OpenAPI document fails it loudly. Real `docusaurus build` runs of a fixture site that
// uses the portal's own policy (site-env.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { portalDir } from './build-site.mjs';

const fixture = join(portalDir, 'test/fixtures/build-site');

function build(siteDir, env) {
  const out = mkdtempSync(join(tmpdir(), 'tessera-portal-fixture-'));
  const res = spawnSync('npx', ['docusaurus', 'build', siteDir, '--out-dir', out, '--no-minify'], {
    cwd: portalDir,
    encoding: 'utf8',
    env: { ...process.env, NO_UPDATE_NOTIFIER: '1', ...env },
  });
  const built = existsSync(join(out, 'index.html'));
  rmSync(out, { recursive: true, force: true });
  if (siteDir === fixture) rmSync(join(siteDir, '.docusaurus'), { recursive: true, force: true });
  return { status: res.status, output: `${res.stdout}\n${res.stderr}`, built };
}

test('a broken link only warns: the build succeeds and reports it', { timeout: 180_000 }, () => {
  const { status, output, built } = build(fixture, { FIXTURE_DOCS: join(fixture, 'docs-broken-link') });
  assert.equal(status, 0, output);
  assert.ok(built, 'index.html was written');
  assert.match(output, /broken link/i);
  assert.match(output, /\/nowhere/);
});

test('a broken image in markdown fails the build', { timeout: 180_000 }, () => {
  const { status, output, built } = build(fixture, { FIXTURE_DOCS: join(fixture, 'docs-broken-image') });
  assert.notEqual(status, 0, 'the build must fail');
  assert.ok(!built, 'no site was written');
  assert.match(output, /missing-diagram\.png/);
});

test('a missing OpenAPI document fails the portal build with a message naming it', { timeout: 120_000 }, () => {
  const missing = join(tmpdir(), 'tessera-no-such-openapi.json');
  const { status, output } = build(portalDir, { TESSERA_OPENAPI: missing });
  assert.notEqual(status, 0);
  assert.match(output, /tessera-no-such-openapi\.json, which does not exist/);
});
