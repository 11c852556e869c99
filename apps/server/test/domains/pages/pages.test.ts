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

  it('GET /complete_reset_password checks the link as it opens: the form, or why not and a way to a new link', async () => {
    const acct = await verifiedAccount(t);
    const before = t.mail.messages.length;
    const { passwordForgotToken } = await t.client.passwordForgotSendCode({ email: acct.email });
    const mail = await t.mail.waitFor(acct.email, 'recoveryEmail', before);
    const page = await fetch(mail.link!);
    expect(page.status).toBe(200);
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await page.text();
    expect(html).toContain('Choose a new password');
    expect(html).toContain(`data-code="${mail.code}"`);
    expect(html).toMatch(/This link works for 60 more minutes\./);
    // An address edited in the link is not the one the new password is stretched with.
    const edited = new URL(mail.link!);
    edited.searchParams.set('email', 'someone.else@example.com');
    const editedHtml = await (await fetch(edited)).text();
    expect(editedHtml).toContain(`data-email="${acct.email}"`);
    expect(editedHtml).not.toContain('someone.else@example.com');
    // Opening the page spent no try (GET /password/forgot/status reads them).
    expect((await t.client.passwordForgotStatus(passwordForgotToken)).tries).toBe(3);

    // Used (the code was exchanged): no form, the reason, and the new-link form with the address.
    await t.client.passwordForgotVerifyCode(passwordForgotToken, { code: mail.code! });
    const used = await fetch(mail.link!);
    expect(used.status).toBe(400);
    const usedHtml = await used.text();
    expect(usedHtml).toContain('This reset link no longer works');
    expect(usedHtml).not.toContain('id="reset"');
    expect(usedHtml).toContain(`id="again-email" type="email" autocomplete="email" required value="${acct.email}"`);

    const broken = await fetch(`${t.url}/complete_reset_password?email=x@example.com&code=12&token=zz`);
    expect(broken.status).toBe(400);
    const brokenHtml = await broken.text();
    expect(brokenHtml).toContain('This reset link is not valid');
    expect(brokenHtml).toContain('id="again"');
  });

  it('a replaced reset link no longer works, and an unknown token never did', async () => {
    const acct = await verifiedAccount(t);
    const before = t.mail.messages.length;
    await t.client.passwordForgotSendCode({ email: acct.email });
    const first = await t.mail.waitFor(acct.email, 'recoveryEmail', before);
    const since = t.mail.messages.length;
    await t.client.passwordForgotSendCode({ email: acct.email });
    await t.mail.waitFor(acct.email, 'recoveryEmail', since);
    expect(await (await fetch(first.link!)).text()).toContain('This reset link no longer works');
    const forged = new URL(first.link!);
    forged.searchParams.set('token', 'ab'.repeat(32));
    expect(await (await fetch(forged)).text()).toContain('This reset link no longer works');
  });

  it('explains a used or broken /verify_email link and how to get a new email', async () => {
    const malformed = await (await fetch(`${t.url}/verify_email?uid=zz&code=1`)).text();
    expect(malformed).toContain('This link is not valid');
    expect(malformed).toContain('Getting a new email');
    expect(malformed).toContain('npm run tessera -- --url');
  });
});
