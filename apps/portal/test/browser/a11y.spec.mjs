// axe on the four pages the issue names: zero serious or critical violations, light and dark.
import { test, expect } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';

const at = (path = '') => new URL(path, process.env.PORTAL_URL).href;

for (const [name, path] of [['landing', ''], ['a doc page', 'explanation/onepw-protocol'], ['/api', 'api'], ['an API tag page', 'api/account'], ['/search', 'search?q=token']]) {
  for (const scheme of ['light', 'dark']) {
    test(`axe: ${name} (${scheme}) has no serious or critical violations`, async ({ browser }) => {
      // The API reference's pages are the largest (operations, schemas and errors): axe is slow on a
      // 2-core machine beside the other workers.
      test.slow(path.startsWith('api'), 'axe over an API reference page');
      const context = await browser.newContext({ colorScheme: scheme });
      await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort('internetdisconnected'));
      const page = await context.newPage();
      await page.goto(at(path));
      await page.waitForLoadState('networkidle');
      if (path.startsWith('search')) await expect(page.getByText(/documents? found/)).toBeVisible();
      const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${v.id} (${v.impact}): ${v.nodes.length} nodes, e.g. ${v.nodes[0].target.join(' ')}`)).toEqual([]);
      await context.close();
    });
  }
}
