import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, verifiedAccount, type TestServer } from '../../harness.js';
import { browserAvailable, launchChromium } from '../../browser.js';

// Issue 10: the reset page in Chromium, on a desktop and on a phone (375 px wide): it checks the
// link as it opens, says in words what went wrong and what to do, and ends with how to sign in.

const VIEWPORTS = {
  desktop: { viewport: { width: 1280, height: 800 } },
  mobile: { viewport: { width: 375, height: 667 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
} as const;

describe.runIf(browserAvailable())('the reset page in a browser', () => {
  let t: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    t = await createTestServer({ env: { REDIRECT_ALLOWED_ORIGINS: 'https://app.example' } });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function withPage(viewport: keyof typeof VIEWPORTS, run: (page: Page, context: BrowserContext) => Promise<void>): Promise<void> {
    const context = await browser.newContext(VIEWPORTS[viewport]);
    // Nothing but the test server: a request anywhere else would leak the link to a third party.
    const elsewhere: string[] = [];
    await context.route((url) => url.origin !== new URL(t.url).origin, (route) => {
      elsewhere.push(route.request().url());
      return route.abort();
    });
    try {
      await run(await context.newPage(), context);
      expect(elsewhere).toEqual([]);
    } finally {
      await context.close();
    }
  }

  /** The card keeps a margin from the screen's edges, and nothing scrolls sideways. */
  async function expectCardInside(page: Page): Promise<void> {
    const width = page.viewportSize()!.width;
    const box = (await page.locator('main').boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(12);
    expect(box.x + box.width).toBeLessThanOrEqual(width - 12);
    // Nothing in the card (a long address, a command) sticks out of it.
    const sticksOut = await page.evaluate((right) => Array.from(document.querySelectorAll('main *'))
      .filter((e) => e.getBoundingClientRect().right > right + 0.5).map((e) => e.outerHTML.slice(0, 120)), box.x + box.width);
    expect(sticksOut).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }

  async function resetLink(email: string, redirectTo?: string) {
    const before = t.mail.messages.length;
    const reply = await t.client.passwordForgotSendCode({ email, ...(redirectTo ? { redirectTo } : {}) });
    const mail = await t.mail.waitFor(email, 'recoveryEmail', before);
    return { link: mail.link!, code: mail.code!, token: reply.passwordForgotToken };
  }

  async function typePassword(page: Page, pw: string, again = pw): Promise<void> {
    await page.fill('#pw', pw);
    await page.fill('#pw2', again);
    await page.click('#go');
  }

  for (const viewport of Object.keys(VIEWPORTS) as Array<keyof typeof VIEWPORTS>) {
    it(`${viewport}: the success state has its own heading and the way to sign in`, async () => {
      const acct = await verifiedAccount(t, 'password before reset', { keys: true });
      const oldKeys = await t.accounts.fetchKeys(acct.keyFetchToken!, acct.unwrapBKey);
      const { link } = await resetLink(acct.email, 'https://app.example/done');
      await withPage(viewport, async (page) => {
        await page.goto(link);
        await expect(page.locator('h1:visible').textContent()).resolves.toBe('Choose a new password');
        await expectCardInside(page);
        await typePassword(page, 'password after reset');
        await page.locator('#done h1').waitFor({ state: 'visible', timeout: 60_000 });
        expect(await page.locator('h1:visible').allTextContents()).toEqual(['Your password is changed']);
        expect(await page.locator('#choose').isHidden()).toBe(true);
        expect(await page.locator('#continue').getAttribute('href')).toBe('https://app.example/done');
        expect(await page.locator('#continue').textContent()).toBe('Continue to app.example');
        expect(await page.locator('#done code').textContent()).toBe(`npm run tessera -- --url ${new URL(t.url).origin} signin ${acct.email}`);
        await expectCardInside(page);
        // The link is spent: opening it again shows the used-link state.
        await page.goto(link);
        expect(await page.locator('h1').allTextContents()).toEqual(['This reset link no longer works']);
      });
      // The browser set a v2 password: signing in with it works; kB is new; the old password fails.
      const login = await t.accounts.signIn(acct.email, 'password after reset', { keys: true });
      expect((await t.client.accountCredentialsStatus({ email: acct.email })).currentVersion).toBe('v2');
      const keys = await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey);
      expect(keys.kA).toBe(oldKeys.kA);
      expect(keys.kB).not.toBe(oldKeys.kB);
      await expect(t.accounts.signIn(acct.email, 'password before reset')).rejects.toMatchObject({ errorName: 'INCORRECT_PASSWORD' });
    }, 90_000); // the page stretches v2 (650,000 PBKDF2 rounds) in the browser: slow on a loaded machine

    it(`${viewport}: a used link shows why, and emails a new link on request`, async () => {
      const acct = await verifiedAccount(t);
      const { link, code, token } = await resetLink(acct.email);
      await t.client.passwordForgotVerifyCode(token, { code });
      await withPage(viewport, async (page) => {
        await page.goto(link);
        expect(await page.locator('h1').allTextContents()).toEqual(['This reset link no longer works']);
        expect(await page.locator('#reset').count()).toBe(0);
        expect(await page.inputValue('#again-email')).toBe(acct.email);
        await expectCardInside(page);
        const before = t.mail.messages.length;
        await page.click('#again button');
        await page.locator('#again-msg.ok').waitFor({ timeout: 10_000 });
        expect(await page.locator('#again-msg').textContent()).toBe(`A new reset link is on its way to ${acct.email}. It works for 60 minutes; open it from the newest email.`);
        const fresh = await t.mail.waitFor(acct.email, 'recoveryEmail', before);
        await page.goto(fresh.link!);
        expect(await page.locator('h1:visible').allTextContents()).toEqual(['Choose a new password']);
      });
    }, 60_000);
  }

  it('speaks in sentences: weak password, a replaced code, a link used meanwhile, no server, rate limited', async () => {
    const acct = await verifiedAccount(t);
    const { link, token } = await resetLink(acct.email);
    await withPage('mobile', async (page, context) => {
      await page.goto(link);
      const msg = page.locator('#msg');
      await typePassword(page, 'short');
      expect(await msg.textContent()).toBe('The password must have at least 8 characters.');
      await typePassword(page, acct.email.toUpperCase());
      expect(await msg.textContent()).toBe('The password must not be your email address.');
      await typePassword(page, 'a long password', 'another long one');
      expect(await msg.textContent()).toBe('The two passwords differ. Type the same password twice.');

      // No server: the request never reaches one.
      await context.route('**/v1/**', (route) => route.abort('connectionrefused'));
      await typePassword(page, 'a long password');
      await page.locator('#msg.error').waitFor();
      expect(await msg.textContent()).toBe('The Tessera server could not be reached. Check your internet connection, then try again.');
      // Rate limited: the catalogue's 429/114 with retryAfter.
      await context.unroute('**/v1/**');
      await context.route('**/v1/**', (route) => route.fulfill({ status: 429, contentType: 'application/json', body: JSON.stringify({ code: 429, errno: 114, error: 'Too Many Requests', message: 'Client has sent too many requests', retryAfter: 95 }) }));
      await typePassword(page, 'a long password');
      await page.waitForFunction(() => document.querySelector('#msg')?.textContent?.startsWith('Too many'));
      expect(await msg.textContent()).toBe('Too many attempts. Wait, then try again in 2 minutes.');
      await context.unroute('**/v1/**');

      // A newer email replaced the code this link carries (resend_code keeps the token).
      await t.client.passwordForgotResendCode(token, { email: acct.email });
      await typePassword(page, 'a long password');
      await page.waitForFunction(() => document.querySelector('#msg')?.textContent?.includes('newer'));
      expect(await msg.textContent()).toBe('The code in this link was replaced by a newer reset email. Open the link in the newest email.');

      // Spent elsewhere while the page was open: the page turns to the used-link state.
      const since = t.mail.messages.length;
      await t.client.passwordForgotSendCode({ email: acct.email });
      await t.mail.waitFor(acct.email, 'recoveryEmail', since);
      await typePassword(page, 'a long password');
      await page.locator('#gone h1').waitFor({ state: 'visible' });
      expect(await page.locator('h1:visible').allTextContents()).toEqual(['This reset link no longer works']);
      expect(await page.inputValue('#again-email')).toBe(acct.email);
    });
  }, 60_000);
});
