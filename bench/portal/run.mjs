#!/usr/bin/env node
// Page weight and paint timings of the built portal in Chromium (Debian's), plus build time and peak
// memory. `node bench/portal/run.mjs [--no-build]`; writes results.json and the figures section of
// README.md. Bytes are as transferred: the bench serves the build with gzip (level 9), as the
// portal's static server does, and counts each response's encoded body plus its headers.
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, rmSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { startServer } from '../../apps/portal/scripts/serve.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const portal = join(root, 'apps/portal');
const RUNS = Number(process.env.BENCH_RUNS || 5);
const PAGES = [
  ['landing', ''],
  ['doc page', 'explanation/onepw-protocol'],
  ['/api', 'api'],
];
const TARGETS = { landingJsKiB: 150, apiTransferredKiB: 420, buildSeconds: 180, buildPeakGiB: 2.5 };
const REFERENCE = { landingJsKiB: 301, landingLcpMs: 452, apiTransferredKiB: 1410 };

const kib = (b) => Math.round((b / 1024) * 10) / 10;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function coldBuild() {
  // Cold: no webpack cache, no previous output (the CI situation on a fresh clone).
  for (const p of ['build', '.docusaurus', 'node_modules/.cache']) rmSync(join(portal, p), { recursive: true, force: true });
  rmSync(join(root, 'node_modules/.cache/webpack'), { recursive: true, force: true });
  const spec = existsSync(join(root, 'openapi.json')) ? join(root, 'openapi.json') : join(portal, 'test/fixtures/openapi.sample.json');
  const t0 = Date.now();
  const res = spawnSync('/usr/bin/time', ['-f', 'maxrss_kb=%M', 'npx', 'docusaurus', 'build'], {
    cwd: portal,
    encoding: 'utf8',
    env: { ...process.env, NO_UPDATE_NOTIFIER: '1', TESSERA_OPENAPI: spec },
  });
  const seconds = (Date.now() - t0) / 1000;
  if (res.status !== 0) throw new Error(`build failed:\n${res.stdout}\n${res.stderr}`);
  const rss = Number(/maxrss_kb=(\d+)/.exec(res.stderr)[1]);
  return { seconds: Math.round(seconds * 10) / 10, peakGiB: Math.round((rss / 1024 / 1024) * 100) / 100, spec: spec.replace(`${root}/`, '') };
}

async function measure(browser, url) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort('internetdisconnected'));
  const page = await context.newPage();
  const responses = [];
  page.on('requestfinished', (req) => responses.push(req));
  await page.addInitScript(() => {
    window.__lcp = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__lcp = e.startTime;
    }).observe({ type: 'largest-contentful-paint', buffered: true });
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForLoadState('networkidle');
  const paint = await page.evaluate(() => ({
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
    lcp: window.__lcp,
    nodes: document.getElementsByTagName('*').length,
  }));
  const sums = { js: 0, css: 0, html: 0, other: 0 };
  for (const req of responses) {
    const sizes = await req.sizes();
    const bytes = sizes.responseBodySize + sizes.responseHeadersSize;
    const type = req.resourceType();
    const key = type === 'script' ? 'js' : type === 'stylesheet' ? 'css' : type === 'document' ? 'html' : 'other';
    sums[key] += bytes;
  }
  await context.close();
  return { ...sums, total: sums.js + sums.css + sums.html + sums.other, requests: responses.length, ...paint };
}

const noBuild = process.argv.includes('--no-build');
const build = noBuild ? null : coldBuild();
const server = await startServer({ root: join(portal, 'build') });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const pages = {};
try {
  for (const [name, path] of PAGES) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await measure(browser, new URL(path, server.url).href));
    const pick = (k) => median(runs.map((r) => r[k]));
    pages[name] = {
      jsKiB: kib(pick('js')), cssKiB: kib(pick('css')), htmlKiB: kib(pick('html')), totalKiB: kib(pick('total')),
      requests: pick('requests'), fcpMs: Math.round(pick('fcp')), lcpMs: Math.round(pick('lcp')), domNodes: pick('nodes'),
    };
  }
} finally {
  await browser.close();
  await server.close();
}

const landing = pages.landing;
const api = pages['/api'];
const checks = [
  ['landing JS ≤ 150 KiB gzip (≤ 50% of the reference 301 KiB)', landing.jsKiB <= TARGETS.landingJsKiB],
  ['landing LCP no worse than the reference (452 ms)', landing.lcpMs <= REFERENCE.landingLcpMs],
  ['/api transferred ≤ 420 KiB (≤ 30% of the reference 1,410 KiB)', api.totalKiB <= TARGETS.apiTransferredKiB],
  ...(build
    ? [
        ['cold build ≤ 3 min', build.seconds <= TARGETS.buildSeconds],
        ['build peak memory ≤ 2.5 GiB', build.peakGiB <= TARGETS.buildPeakGiB],
      ]
    : []),
];
const result = { date: new Date().toISOString(), runs: RUNS, chromium: browser.version?.() ?? null, build, pages, checks };
writeFileSync(join(here, 'results.json'), `${JSON.stringify(result, null, 2)}\n`);

const rows = Object.entries(pages).map(([n, p]) => `| ${n} | ${p.jsKiB} | ${p.cssKiB} | ${p.htmlKiB} | ${p.totalKiB} | ${p.requests} | ${p.fcpMs} | ${p.lcpMs} | ${p.domNodes} |`);
const section = [
  `Measured ${result.date.slice(0, 10)}, median of ${RUNS} cold loads per page (Chromium, 1280×800, no throttling, gzip level 9, loopback).`,
  '',
  '| page | JS KiB | CSS KiB | HTML KiB | transferred KiB | requests | FCP ms | LCP ms | DOM nodes |',
  '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ...rows,
  '',
  build ? `Cold build (no webpack cache): **${build.seconds} s**, peak RSS **${build.peakGiB} GiB** (OpenAPI: \`${build.spec}\`).` : 'Build not measured (--no-build).',
  '',
  ...checks.map(([label, ok]) => `- ${ok ? '✅' : '❌'} ${label}`),
].join('\n');
const readmePath = join(here, 'README.md');
const readme = readFileSync(readmePath, 'utf8');
writeFileSync(readmePath, readme.replace(/<!-- results:start -->[\s\S]*<!-- results:end -->/, `<!-- results:start -->\n${section}\n<!-- results:end -->`));
console.log(section);
process.exit(checks.every(([, ok]) => ok) ? 0 : 1);
