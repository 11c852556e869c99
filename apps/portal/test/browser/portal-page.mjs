// What the portal's browser specs (portal.spec.mjs, portal-routes.spec.mjs) share: the built site's
// URLs, an offline browser, and waiting for React.
import { test } from '@playwright/test';

export const at = (path = '') => new URL(path, process.env.PORTAL_URL).href;

/** Offline: anything not served by the local server fails, as on a machine without network. */
export function offline() {
  test.beforeEach(async ({ context }) => {
    await context.route(/^https?:\/\/(?!127\.0\.0\.1)/, (route) => route.abort('internetdisconnected'));
  });
}

/** Waits until React has hydrated the page (keyboard shortcuts and click handlers are live). */
export async function hydrated(page) {
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => document.querySelector('#__docusaurus')?.dataset.hydrated !== undefined || window.docusaurus !== undefined);
}
