// The built portal in Chromium, continued from portal.spec.mjs (issue 3): route changes and their
// progress bar, error and not-found pages, diagrams, the API reference and the error reference.
import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mainBuild } from '../build-site.mjs';
import { at, hydrated, offline } from './portal-page.mjs';

offline();

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
