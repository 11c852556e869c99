// The built portal in Chromium: one test per behaviour of issue 3 (content, search, colour modes,
// layout, navbar); route changes, error pages, diagrams and the API reference are in
// portal-routes.spec.mjs. Runs against the static server started by global-setup.mjs; the browser
// has no network beyond 127.0.0.1.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mainBuild } from '../build-site.mjs';
import { at, hydrated, offline } from './portal-page.mjs';

const REPO_URL = 'https://github.com/tessera-platform/tessera';

offline();

test('the base path serves the intro doc with the site title and tagline', async ({ page }) => {
  await page.goto(at(''));
  await expect(page.locator('article h1')).toHaveText('Tessera Ecosystem Platform');
  await expect(page.locator('.navbar__title')).toHaveText('Tessera Ecosystem Platform');
  await expect(page.locator('footer.footer')).toContainText('Documentation for accounts, Sync and more');
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
});

// Spec 1 §2: every group and page id of the `docs` sidebar.
const SPEC_IDS = {
  '': ['additional-docs'],
  explanation: ['architectural-decision-records', 'cms-strapi-l10n', 'content-server-architecture', 'onepw-protocol', 'pairing-flow-architecture', 'scoped-keys'],
  'how-tos': ['ci-guidelines', 'connecting-to-a-local-mysql-db', 'creating-an-account-locally', 'local-emails-with-maildev', 'node-debugging', 'serve-settings-production-build-locally', 'using-a-custom-profile-with-firefox', 'using-sentry-locally', 'using-swagger-for-api-documentation', 'using-tracing-in-gcp', 'using-tracing-locally', 'using-twilio-locally', 'using-vscode-with-fxa', 'working-with-metrics', 'working-with-strapi-cms'],
  reference: ['admin-panel', 'application-logging', 'application-tracing', 'automation-testplan', 'browser-support', 'canceling-subscriptions-to-plan', 'continuous-integration-for-monorepos', 'database-structure', 'emails', 'functional-testing', 'github-strategies', 'localization', 'metrics', 'mobile-specifics', 'npm-scripts-and-nx', 'oauth-details', 'rate-limiting', 'storybook-deploys-with-circleci', 'system-diagrams', 'third-party-authentication', 'tokens', 'webchannels', 'tests-in-circleci'],
  'reference/style-guides': ['node-style-guide', 'react-style-guide'],
  'reference/team-processes': ['development-process', 'pull-request-review-guidelines', 'release-process', 'triage-process', 'work-breakdown-process'],
  'relying-parties/how-tos': ['apple-iap', 'device-registration', 'end-to-end-encryption', 'google-iap', 'product-metrics'],
  'relying-parties/reference': ['glossary', 'integration-requirements', 'metrics-for-relying-parties', 'query-parameters', 'sub-plat-coupons', 'sub-plat-features', 'sub-plat-overview', 'sub-plat-strapi', 'using-apis'],
  'relying-parties/tutorials': ['integration-with-fxa', 'integration-with-subscription-platform', 'pairing'],
  tutorials: ['development-setup', 'subscription-platform'],
};

test('the docs sidebar has every page of spec 1 §2, each built with real content', async ({ request }) => {
  const { readdirSync } = await import('node:fs');
  const dir = join(mainBuild, 'assets/js');
  const js = readFileSync(join(dir, readdirSync(dir).find((f) => /^main\.[0-9a-f]+\.js$/.test(f))), 'utf8');
  const inSidebar = new Set([...js.matchAll(/\{"id":"([^"]+)","path":"[^"]+","sidebar":"docs"\}/g)].map((m) => m[1]));
  const ids = Object.entries(SPEC_IDS).flatMap(([group, names]) => names.map((n) => (group ? `${group}/${n}` : n)));
  expect(ids.length).toBe(71);
  for (const id of ids) {
    expect(inSidebar.has(id), `${id} is in the docs sidebar`).toBe(true);
    const res = await request.get(at(id));
    expect(res.status(), id).toBe(200);
    const html = await res.text();
    expect(html, id).toMatch(/<h1[^>]*>/);
    const text = html.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<[^>]+>/g, ' ');
    expect(text, `${id} has no stub or filler`).not.toMatch(/\b(Stub|TODO|Lorem ipsum|Coming soon)\b/);
  }
});

test('there is one docs version, labelled Next', async () => {
  const { readdirSync } = await import('node:fs');
  const dir = join(mainBuild, 'assets/js');
  const main = readdirSync(dir).find((f) => /^main\.[0-9a-f]+\.js$/.test(f));
  const js = readFileSync(join(dir, main), 'utf8');
  // The docs plugin's global data lists each version once.
  expect(js.match(/"name":"[^"]+","label":"[^"]+","isLast"/g)).toEqual(['"name":"current","label":"Next","isLast"']);
});

test('Ctrl+K opens the search modal, which finds pages from the offline index', async ({ page }) => {
  await page.goto(at(''));
  await hydrated(page);
  await page.keyboard.press('Control+k');
  const dialog = page.getByRole('dialog', { name: 'Search the documentation' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('searchbox').fill('scrypt');
  await expect(dialog.getByRole('option').first()).toBeVisible();
  await expect(dialog.getByRole('option').first()).toContainText(/scrypt|onepw|protocol/i);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
});

test('"/" opens the search modal and Enter opens the first result', async ({ page }) => {
  await page.goto(at(''));
  await hydrated(page);
  await page.locator('article h1').click();
  await page.keyboard.press('/');
  const dialog = page.getByRole('dialog', { name: 'Search the documentation' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('searchbox').fill('passwordChangeToken');
  await expect(dialog.getByRole('option').first()).toBeVisible();
  await page.keyboard.press('Enter');
  await expect(dialog).toBeHidden();
  await expect(page).not.toHaveURL(at(''));
  await expect(page.locator('main')).toContainText('passwordChangeToken');
});

test('/search?q= shows results from the local index', async ({ page }) => {
  await page.goto(at('search?q=hawk%20nonce'));
  await expect(page.locator('h1')).toHaveText('Search results for "hawk nonce"');
  await expect(page.getByText(/documents? found/)).toBeVisible();
  const first = page.locator('main article h2 a').first();
  await expect(first).toBeVisible();
  await first.click();
  // A doc page (article) or an API page: both have the text in <main>.
  await expect(page.locator('main')).toContainText(/nonce/i);
});

test('every API operation is findable by search', async ({ page }) => {
  await page.goto(at('api'));
  await page.locator('main section[aria-labelledby] h3 a').first().click();
  await hydrated(page);
  const firstOp = page.locator('main section[aria-labelledby] h2').first();
  const id = await firstOp.getAttribute('id');
  const path = (await firstOp.locator('code').first().textContent()).trim();
  const pagePath = new URL(page.url()).pathname;
  await page.keyboard.press('Control+k');
  const dialog = page.getByRole('dialog', { name: 'Search the documentation' });
  await dialog.getByRole('searchbox').fill(path);
  await expect(dialog.locator(`a[href$="${pagePath}#${id}"]`).first()).toBeVisible();
});

test('with Algolia configured but unreachable, /search reports it', async ({ page }) => {
  await page.goto(new URL('search?q=token', process.env.PORTAL_ALGOLIA_URL).href);
  await expect(page.getByText('Unable to fetch results')).toBeVisible();
  await expect(page.getByText('You might want to check your network connection.')).toBeVisible();
});

test('colour mode: light by default, dark when the system prefers it', async ({ browser }) => {
  for (const [scheme, expected] of [['light', 'light'], ['no-preference', 'light'], ['dark', 'dark']]) {
    const context = await browser.newContext({ colorScheme: scheme });
    const page = await context.newPage();
    await page.goto(at(''));
    await expect(page.locator('html'), scheme).toHaveAttribute('data-theme', expected);
    await context.close();
  }
});

test('colour choice light/dark/system is stored under "theme" and synced across tabs', async ({ context }) => {
  const one = await context.newPage();
  const two = await context.newPage();
  await one.goto(at(''));
  await two.goto(at('reference/tokens'));
  const toggle = one.locator('.navbar button[class*="toggleButton"]').first();
  const seen = new Set();
  for (let i = 0; i < 3; i++) {
    await toggle.click();
    const stored = await one.evaluate(() => window.localStorage.getItem('theme'));
    const choice = await one.locator('html').getAttribute('data-theme-choice');
    seen.add(choice);
    if (stored === 'dark') await expect(two.locator('html')).toHaveAttribute('data-theme', 'dark');
    if (stored === 'light') await expect(two.locator('html')).toHaveAttribute('data-theme', 'light');
    if (stored === null) expect(choice).toBe('system');
  }
  expect([...seen].sort()).toEqual(['dark', 'light', 'system']);
});

test('the docs sidebar is 300 px wide and can be hidden', async ({ page }) => {
  await page.goto(at('reference/tokens'));
  const sidebar = page.locator('.theme-doc-sidebar-container');
  expect((await sidebar.boundingBox()).width).toBe(300);
  await page.getByRole('button', { name: 'Collapse sidebar' }).click();
  await expect(page.getByRole('button', { name: 'Expand sidebar' })).toBeVisible();
  await expect.poll(async () => (await sidebar.boundingBox()).width).toBeLessThan(60);
  await page.getByRole('button', { name: 'Expand sidebar' }).click();
  await expect.poll(async () => (await sidebar.boundingBox()).width).toBe(300);
});

test('desktop layout starts above 996 px', async ({ page }) => {
  await page.setViewportSize({ width: 997, height: 800 });
  await page.goto(at('reference/tokens'));
  await expect(page.locator('.theme-doc-sidebar-container')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Toggle navigation bar' })).toBeHidden();
  await page.setViewportSize({ width: 996, height: 800 });
  await expect(page.locator('.theme-doc-sidebar-container')).toBeHidden();
  await expect(page.getByRole('button', { name: 'Toggle navigation bar' })).toBeVisible();
});

test('the table of contents lists h2 and h3 but not h4', async ({ page }) => {
  await page.goto(at('reference/tokens'));
  const toc = page.locator('.theme-doc-toc-desktop');
  await expect(toc.getByRole('link', { name: 'Presenting a token' })).toBeVisible();
  await expect(toc.getByRole('link', { name: 'Prefixed Bearer' })).toBeVisible();
  await expect(page.locator('h4#what-the-server-checks')).toHaveCount(1);
  await expect(toc.getByRole('link', { name: 'What the server checks' })).toHaveCount(0);
});

test('doc pages show breadcrumbs', async ({ page }) => {
  await page.goto(at('reference/style-guides/node-style-guide'));
  const crumbs = page.getByRole('navigation', { name: 'Breadcrumbs' });
  await expect(crumbs).toContainText('Reference');
  await expect(crumbs).toContainText('Style guides');
  await expect(crumbs).toContainText('Node style guide');
});

test('the first Tab reaches a skip-to-content link that moves focus to the main content', async ({ page }) => {
  await page.goto(at('reference/tokens'));
  await page.waitForLoadState('networkidle');
  await page.keyboard.press('Tab');
  await expect(page.locator(':focus')).toHaveText('Skip to main content');
  await page.keyboard.press('Enter');
  // The next Tab lands inside the main content, past the navbar and the sidebar.
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => Boolean(document.activeElement?.closest('main')))).toBe(true);
  expect(await page.evaluate(() => Boolean(document.activeElement?.closest('.navbar, .theme-doc-sidebar-container')))).toBe(false);
});

test('the navbar stays fixed at the top while scrolling', async ({ page }) => {
  await page.goto(at('explanation/onepw-protocol'));
  await page.mouse.wheel(0, 3000);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(500);
  const box = await page.locator('nav.navbar').boundingBox();
  expect(box.y).toBe(0);
  await expect(page.locator('nav.navbar')).toHaveClass(/navbar--fixed-top/);
});

test('on mobile the navbar opens a side menu with the docs and the source link', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await page.goto(at('reference/tokens'));
  await page.getByRole('button', { name: 'Toggle navigation bar' }).click();
  const menu = page.locator('.navbar-sidebar');
  await expect(menu).toBeVisible();
  await expect(menu.getByRole('link', { name: /Source/ })).toHaveAttribute('href', REPO_URL);
  await expect(menu.getByText('Tutorials')).toBeVisible();
});

test('the navbar links to the source repository and the footer is shown', async ({ page }) => {
  await page.goto(at(''));
  await expect(page.locator('.navbar').getByRole('link', { name: /Source/ })).toHaveAttribute('href', REPO_URL);
  const footer = page.locator('footer.footer');
  await expect(footer.getByRole('link', { name: 'API reference' })).toBeVisible();
  await expect(footer.getByRole('link', { name: /Source repository/ })).toHaveAttribute('href', REPO_URL);
});

test('dismissing the announcement bar is remembered', async ({ page }) => {
  await page.goto(at(''));
  const bar = page.locator('.theme-announcement-bar');
  await expect(bar).toBeVisible();
  await bar.getByRole('button', { name: 'Close' }).click();
  await expect(bar).toBeHidden();
  expect(await page.evaluate(() => localStorage.getItem('docusaurus.announcement.dismiss'))).toBe('true');
  await page.reload();
  await expect(page.locator('article h1')).toBeVisible();
  await expect(page.locator('.theme-announcement-bar')).toHaveCount(0);
});
