import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { browserAvailable, launchChromium } from '../../browser.js';

describe('pages the emailed links land on', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ env: { REDIRECT_ALLOWED_ORIGINS: 'https://app.example' } });
  });
  afterAll(async () => t?.close());

  const post = (path: string, form: Record<string, string>) =>
    fetch(`${t.url}${path}`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });

  it('GET /verify_email shows what it confirms and a button, and confirms nothing by itself (issue 9, hole 8)', async () => {
    const email = newEmail();
    const s = await t.accounts.signUp(email, 'page password');
    const mail = await t.mail.waitFor(email, 'verify');
    const res = await fetch(mail.link!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    const html = await res.text();
    expect(html).toContain('action="/verify_email"');
    expect(html).toContain(email);
    expect(html).not.toContain('<script');
    expect((await t.client.recoveryEmailStatus(s.sessionToken)).emailVerified).toBe(false);

    const confirmed = await post('/verify_email', { uid: s.uid, code: mail.code! });
    expect(confirmed.status).toBe(200);
    expect(await confirmed.text()).toContain('Your email is confirmed');
    expect((await t.client.recoveryEmailStatus(s.sessionToken)).verified).toBe(true);
    // Used: the link now says so instead of offering a button.
    const used = await fetch(mail.link!);
    expect(used.status).toBe(400);
    expect(await used.text()).toContain('no longer works');
  });

  it('a sign-in link shows the device and time it confirms', async () => {
    const strict = await createTestServer({ env: { SIGNIN_CONFIRMATION_SKIP_FOR_NEW_ACCOUNTS_SECONDS: '0' } });
    try {
      const acct = await verifiedAccount(strict);
      const since = strict.mail.messages.length;
      const login = await strict.accounts.signIn(acct.email, acct.password);
      const mail = await strict.mail.waitFor(acct.email, 'verifyLogin', since);
      const html = await (await fetch(mail.link!)).text();
      expect(html).toContain('Confirm this sign-in?');
      expect(html).toMatch(/<dt>Device<\/dt><dd>[^<]+<\/dd>/);
      expect(html).toMatch(/<dt>Time<\/dt><dd>\d{4}-\d{2}-\d{2} \d{2}:\d{2} \(UTC\)<\/dd>/);
      expect((await strict.client.sessionStatus(login.sessionToken)).state).toBe('unverified');
    } finally {
      await strict.close();
    }
  });

  it.runIf(browserAvailable())('a browser that runs the page\'s scripts confirms nothing until the button is clicked', async () => {
    const email = newEmail('scanner');
    const s = await t.accounts.signUp(email, 'page password');
    const mail = await t.mail.waitFor(email, 'verify');
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(mail.link!);
      await page.waitForLoadState('networkidle');
      await page.waitForTimeout(500);
      expect((await t.client.recoveryEmailStatus(s.sessionToken)).emailVerified).toBe(false);
      await page.click('button[type=submit]');
      await page.waitForSelector('text=Your email is confirmed', { timeout: 10_000 });
    } finally {
      await browser.close();
    }
    expect((await t.client.recoveryEmailStatus(s.sessionToken)).emailVerified).toBe(true);
  });

  it('redirects to allowed origins only, and explains bad or used links', async () => {
    const email = newEmail();
    const s = await t.accounts.signUp(email, 'page password');
    const code = (await t.mail.waitFor(email, 'verify')).code!;
    const evil = await post('/verify_email', { uid: s.uid, code, redirectTo: 'https://evil.example/x' });
    expect(evil.status).toBe(200);
    const good = await post('/verify_email', { uid: s.uid, code, redirectTo: 'https://app.example/welcome' });
    expect(good.status).toBe(303);
    expect(good.headers.get('location')).toBe('https://app.example/welcome');
    const wrong = await post('/verify_email', { uid: s.uid, code: 'a'.repeat(32) });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('no longer works');
    const malformed = await fetch(`${t.url}/verify_email?uid=zz&code=1`);
    expect(malformed.status).toBe(400);
  });

  it('GET /complete_reset_password shows the reset form, or an error for a broken link', async () => {
    const acct = await verifiedAccount(t);
    await t.client.passwordForgotSendCode({ email: acct.email });
    const mail = await t.mail.waitFor(acct.email, 'recoveryEmail');
    const page = await fetch(mail.link!);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Choose a new password');
    expect(html).toContain(`data-code="${mail.code}"`);
    const broken = await fetch(`${t.url}/complete_reset_password?email=x@example.com&code=12&token=zz`);
    expect(broken.status).toBe(400);
  });

  it.runIf(browserAvailable())('resets the password in a real browser from the emailed link', async () => {
    const acct = await verifiedAccount(t, 'password before reset', { keys: true });
    const oldKeys = await t.accounts.fetchKeys(acct.keyFetchToken!, acct.unwrapBKey);
    const before = t.mail.messages.length;
    await t.client.passwordForgotSendCode({ email: acct.email, redirectTo: 'https://app.example/done' });
    const mail = await t.mail.waitFor(acct.email, 'recoveryEmail', before);
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(mail.link!);
      // The SDK's password policy runs in the page: the address itself is refused with its reason.
      await page.fill('#pw', acct.email);
      await page.fill('#pw2', acct.email);
      await page.click('#go');
      await page.waitForSelector('#msg.error >> text=The password must not be your email address.');
      await page.fill('#pw', 'password after reset');
      await page.fill('#pw2', 'password after reset');
      await page.click('#go');
      await page.waitForSelector('text=Your password has been reset', { timeout: 20_000 });
      expect(await page.getAttribute('a', 'href')).toBe('https://app.example/done');
    } finally {
      await browser.close();
    }
    // The browser set a v2 password: signing in with it works; kB is new; the old password fails.
    const login = await t.accounts.signIn(acct.email, 'password after reset', { keys: true });
    expect((await t.client.accountCredentialsStatus({ email: acct.email })).currentVersion).toBe('v2');
    const keys = await t.accounts.fetchKeys(login.keyFetchToken!, login.unwrapBKey);
    expect(keys.kA).toBe(oldKeys.kA);
    expect(keys.kB).not.toBe(oldKeys.kB);
    await expect(t.accounts.signIn(acct.email, 'password before reset')).rejects.toMatchObject({ errorName: 'INCORRECT_PASSWORD' });
  }, 60_000); // the page stretches v2 in the browser: about 20 s on a loaded 2-core machine
});
