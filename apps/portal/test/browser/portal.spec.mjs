// The built portal in Chromium: one test per behaviour of issue 3. Runs against the static server
// started by global-setup.mjs; the browser has no network beyond 127.0.0.1.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mainBuild } from '../build-site.mjs';

const at = (path = '') => new URL(path, process.env.PORTAL_URL).href;
const REPO_URL = 'https://github.com/tessera-platform/tessera';

// Offline: anything not served by the local server fails, as on a machine without network.
test.beforeEach(async ({ context }) => {
  await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort('internetdisconnected'));
});

/** Waits until React has hydrated the page (keyboard shortcuts and click handlers are live). */
async function hydrated(page) {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => document.querySelector('#__docusaurus')?.dataset.hydrated !== undefined || window.docusaurus !== undefined);
}

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

// A timing check run beside other browser tests on two cores: a navigation that a busy machine
// happens to finish before the bar's 200 ms (a chunk fetched early) gets two more tries. A bar that
// starts too early, too late or never fails every try.
test.describe(() => {
  test.describe.configure({ retries: 2 });
  test('the route progress bar starts only after 200 ms and ends with the navigation', async ({ page }) => {
    // The portal prefetches the chunks of links that come into view with <link rel="prefetch">,
    // which the browser may fetch past page.route: a chunk prefetched that way would make the
    // navigation fast by chance. Without that strategy, Docusaurus prefetches with XHR, which the
    // route below holds like every other script.
    await page.addInitScript(() => {
      const supports = DOMTokenList.prototype.supports;
      DOMTokenList.prototype.supports = function (token) {
        return token === 'prefetch' ? false : supports.call(this, token);
      };
    });
    await page.goto(at(''));
    await page.waitForLoadState('networkidle');
    // Every script requested from here on answers 1.5 s after the click: a chunk that the portal
    // prefetched when the link came into view must not make the navigation fast by chance.
    let delay = 0;
    let clicked;
    const afterClick = new Promise((resolve) => { clicked = resolve; });
    await page.route('**/assets/js/*.js', async (route) => {
      if (delay) {
        await afterClick;
        await new Promise((r) => setTimeout(r, delay));
      }
      await route.continue();
    });
    delay = 1500;
    await page.locator('.theme-doc-sidebar-menu').getByText('Explanation', { exact: true }).click();
    const link = page.locator('.theme-doc-sidebar-menu').getByRole('link', { name: 'Scoped keys' });
    await expect(link).toBeVisible();
    // Time the bar's appearance in the page itself, from the click that starts the navigation.
    await page.evaluate(() => {
      window.__bar = null;
      document.addEventListener('click', () => { window.__clickAt = performance.now(); }, { capture: true, once: true });
      new MutationObserver((_, obs) => {
        if (document.getElementById('nprogress')) {
          window.__bar = performance.now() - window.__clickAt;
          obs.disconnect();
        }
      }).observe(document.body, { childList: true, subtree: true });
    });
    clicked();
    await link.click();
    await expect.poll(() => page.evaluate(() => window.__bar), { timeout: 3000 }).not.toBeNull();
    const startedAfter = await page.evaluate(() => window.__bar);
    expect(startedAfter).toBeGreaterThanOrEqual(200);
    expect(startedAfter).toBeLessThan(1000);
    await expect(page.locator('article h1')).toHaveText('Scoped keys', { timeout: 5000 });
    await expect(page.locator('#nprogress')).toHaveCount(0, { timeout: 3000 });
  });
});

test('route changes scroll to the top, or to the hash target', async ({ page }) => {
  await page.goto(at('explanation/onepw-protocol'));
  await page.mouse.wheel(0, 4000);
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(500);
  await page.locator('article').getByRole('link', { name: 'tokens reference' }).first().click();
  await expect(page.locator('article h1')).toHaveText('Tokens');
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBe(0);
  await page.goto(at('explanation/onepw-protocol'));
  await page.locator('.table-of-contents').getByRole('link', { name: 'Password flows' }).click();
  await expect(page).toHaveURL(/#password-flows$/);
  await expect.poll(async () => (await page.locator('#password-flows').boundingBox()).y).toBeLessThan(150);
});

test('.html and /index.html paths are normalised to the page', async ({ page }) => {
  await page.goto(at('reference/tokens.html'));
  await expect(page.locator('article h1')).toHaveText('Tokens');
  await page.goto(at('index.html'));
  await expect(page.locator('article h1')).toHaveText('Tessera Ecosystem Platform');
});

test('an unknown path shows the not-found page', async ({ page }) => {
  const res = await page.goto(at('no/such/page'));
  expect(res.status()).toBe(404);
  await expect(page.locator('h1')).toHaveText('Page Not Found');
});

test('a crashing page shows "This page crashed." with a working "Try again"', async ({ page }) => {
  await page.goto(at('reference/tokens'));
  await hydrated(page);
  await expect(page.locator('article h1')).toHaveText('Tokens');
  // Make the next render of the sidebar throw, as a component bug would: mapping over sidebar items fails.
  await page.evaluate(() => {
    const original = Array.prototype.map;
    window.__restoreMap = () => {
      Array.prototype.map = original;
    };
    Array.prototype.map = function crashOnSidebarItems(...args) {
      const first = this[0];
      if (first && typeof first === 'object' && first.type === 'link' && 'docId' in first) throw new Error('test crash');
      return original.apply(this, args);
    };
  });
  await page.locator('.theme-doc-sidebar-menu').getByText('Explanation', { exact: true }).click();
  await expect(page.getByText('This page crashed.')).toBeVisible();
  await page.evaluate(() => window.__restoreMap());
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByText('This page crashed.')).toHaveCount(0);
  await expect(page.locator('article h1')).toHaveText('Tokens');
});

test('a wrong base URL shows the misconfiguration banner with a suggestion', async ({ page }) => {
  const index = readFileSync(join(mainBuild, 'index.html'), 'utf8');
  // The site deployed under /docs/ by mistake: its assets are looked up under the configured base and 404.
  await page.route('**/docs/', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: index }));
  await page.route('**/ecosystem-platform/assets/**', (route) => route.fulfill({ status: 404, body: 'not found' }));
  await page.goto(new URL('/docs/', process.env.PORTAL_URL).href);
  const banner = page.locator('#__docusaurus-base-url-issue-banner');
  await expect(banner).toContainText('did not load properly');
  await expect(banner).toContainText('/ecosystem-platform/');
  await expect(page.locator('#__docusaurus-base-url-issue-banner-suggestion-container')).toHaveText('/docs/');
});

test('Mermaid renders the system diagrams', async ({ page }) => {
  await page.goto(at('reference/system-diagrams'));
  await expect(page.locator('.docusaurus-mermaid-container svg')).toHaveCount(4, { timeout: 15000 });
});

/** The API reference's pages, from the overview's groups: [{ href, count }]. */
async function apiGroups(page) {
  await page.goto(at('api'));
  const groups = page.locator('main section[aria-labelledby]');
  return groups.evaluateAll((sections) =>
    sections.map((s) => ({ href: s.querySelector('h3 a').getAttribute('href'), ids: [...s.querySelectorAll('li a')].map((a) => a.hash.slice(1)) })),
  );
}

test('/api lists every operation and each tag page renders its operations with anchor, auth, responses and a curl sample', async ({ page, request }) => {
  const groups = await apiGroups(page);
  expect(groups.length).toBeGreaterThan(1);
  const nav = page.getByRole('navigation', { name: 'API operations' });
  await expect(nav.getByRole('link')).toHaveCount(groups.length + 1);
  for (const { href, ids } of groups) {
    expect(ids.length).toBeGreaterThan(0);
    const html = await (await request.get(new URL(href, process.env.PORTAL_URL).href)).text();
    await page.goto(new URL(href, process.env.PORTAL_URL).href);
    const ops = page.locator('main section[aria-labelledby]');
    await expect(ops).toHaveCount(ids.length);
    await expect(page.getByRole('navigation', { name: 'API operations' }).locator('li a')).toHaveCount(ids.length);
    for (let i = 0; i < ids.length; i++) {
      expect(await ops.nth(i).getAttribute('aria-labelledby')).toBe(ids[i]);
      expect(html, `operation ${ids[i]} is in the server-rendered HTML`).toContain(`id="${ids[i]}"`);
      await expect(ops.nth(i).locator('h2 code').first()).toHaveText(/^\/(v1|\.well-known)\//);
      await expect(ops.nth(i).getByText('Authentication:', { exact: true })).toBeVisible();
      await expect(ops.nth(i).getByText('Request sample')).toBeVisible();
    }
  }
  const sample = page.locator('main section[aria-labelledby]').first().locator('details').filter({ hasText: 'Request sample' });
  await sample.locator('summary').click();
  await expect(sample.locator('code')).toContainText('curl -X');
  await expect(sample.getByRole('button', { name: 'Copy as curl' })).toBeVisible();
});

test('/api: links to the one-page reference (#operationId, #tag-Name) land on the operation\'s page', async ({ page }) => {
  const [first, second] = await apiGroups(page);
  const id = second.ids.at(-1);
  await page.goto(at(`api#${id}`));
  await expect(page).toHaveURL(new URL(`${second.href}#${id}`, process.env.PORTAL_URL).href);
  await expect(page.locator(`[id="${id}"]`)).toBeInViewport();
  // The tag anchors of the one-page reference were `tag-<name as shown>`.
  const name = (await page.goto(new URL(first.href, process.env.PORTAL_URL).href), await page.locator('main h1').textContent());
  await page.goto(at(`api#tag-${encodeURIComponent(name)}`));
  await expect(page).toHaveURL(new URL(first.href, process.env.PORTAL_URL).href);
  // After a client-side navigation too (the overview's inline script only runs on a full load): the
  // router follows a history entry it is told about through popstate.
  await page.goto(at('reference/errors'));
  await hydrated(page);
  await page.evaluate((target) => {
    window.history.pushState({}, '', target);
    window.dispatchEvent(new PopStateEvent('popstate', { state: {} }));
  }, at(`api#${id}`));
  await expect(page).toHaveURL(new URL(`${second.href}#${id}`, process.env.PORTAL_URL).href);
  await expect(page.locator(`[id="${id}"]`)).toBeVisible();
  // Unknown anchors stay on the overview.
  await page.goto(at('api#authentication'));
  await expect(page).toHaveURL(at('api#authentication'));
});

test('the API pages stay small: each under 3,000 elements', async ({ page }) => {
  const groups = await apiGroups(page);
  for (const href of [at('api'), ...groups.map((g) => new URL(g.href, process.env.PORTAL_URL).href)]) {
    await page.goto(href);
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    expect(elements, href).toBeLessThan(3000);
  }
});

test('every errno has an anchor on the error reference, as the server links to it', async ({ page }) => {
  await page.goto(at('reference/errors#errno-110'));
  const target = page.locator('#errno-110');
  await expect(target).toHaveText('110');
  await expect.poll(async () => (await target.boundingBox()).y).toBeLessThan(200);
  await expect(page.locator('article tr').filter({ has: target })).toContainText('INVALID_TOKEN');
  // The OAuth server's catalogue has its own anchors (its numbers overlap the auth ones).
  await page.goto(at('reference/errors#oauth-errno-101'));
  const oauth = page.locator('#oauth-errno-101');
  await expect(oauth).toHaveText('101');
  await expect(page.locator('article tr').filter({ has: oauth })).toContainText('UNKNOWN_CLIENT');
});
