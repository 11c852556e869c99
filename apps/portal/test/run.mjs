#!/usr/bin/env node
// `npm run test -w apps/portal`: unit and build-behaviour tests (node:test), then the browser suite
// (Playwright with Debian's Chromium) on the built site, building it first when needed.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildIfNeeded, portalDir, algoliaBuild, FAKE_ALGOLIA } from './build-site.mjs';

function run(cmd, args, env = {}) {
  const res = spawnSync(cmd, args, { cwd: portalDir, stdio: 'inherit', env: { ...process.env, NO_UPDATE_NOTIFIER: '1', ...env } });
  return res.status ?? 1;
}

const chromium = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (!existsSync(chromium)) {
  console.error(`Chromium not found at ${chromium}: install it with \`apt-get install -y chromium\` (Debian).`);
  process.exit(1);
}

let failed = 0;
failed += run('node', ['--test', 'test/unit/', 'test/build-behaviour.test.mjs']) ? 1 : 0;

buildIfNeeded();
buildIfNeeded({ outDir: algoliaBuild, env: FAKE_ALGOLIA });
failed += run('npx', ['playwright', 'test', '-c', join('test', 'playwright.config.mjs'), ...process.argv.slice(2)]) ? 1 : 0;

process.exit(failed ? 1 : 0);
