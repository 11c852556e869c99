import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, newEmail, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { ManualScheduler, WebhookReceiver } from '../../webhook-receiver.js';

const WEBHOOK_SECRET = 'newsletter-webhook-secret-0123456789abcdef';

/** The account's choices as stored, read below the API. */
async function rowsOf(t: TestServer, uid: string): Promise<string[]> {
  const row = await t.storage.db.selectFrom('account_newsletters').select('newsletters').where('uid', '=', uid).executeTakeFirst();
  return row ? (JSON.parse(row.newsletters) as string[]) : [];
}

describe.each(httpDialects())('newsletters (%s)', (dialect) => {
  let t: TestServer;
  let lists: WebhookReceiver;
  let scheduler: ManualScheduler;

  beforeAll(async () => {
    const clockRef = { now: () => Date.now() };
    lists = new WebhookReceiver(WEBHOOK_SECRET, { now: () => clockRef.now() });
    scheduler = new ManualScheduler({ now: () => clockRef.now() });
    const hook = await lists.start();
    t = await createTestServer({
      dialect, manualClock: true, webhookScheduler: scheduler.schedule,
      env: { NEWSLETTER_WEBHOOK_URL: hook, NEWSLETTER_WEBHOOK_SECRET: WEBHOOK_SECRET },
    });
    clockRef.now = () => t.clock!.now();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await lists?.stop();
  });

  /** Lets the sender's kicked deliveries finish. */
  async function settle(): Promise<void> {
    await t.app.webhooks.idle();
  }

  it('stores the choices, reads them back, and tells the mailing-list service what changed (signed)', async () => {
    const acct = await verifiedAccount(t);
    expect(await t.client.newsletters(acct.sessionToken)).toEqual({ newsletters: [] });

    const set = await t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['test-pilot', 'knowledge-is-power'] });
    expect(set).toEqual({ newsletters: ['knowledge-is-power', 'test-pilot'] });
    expect(await t.client.newsletters(acct.sessionToken)).toEqual({ newsletters: ['knowledge-is-power', 'test-pilot'] });
    await settle();
    expect(lists.received.at(-1)).toMatchObject({
      event: 'newsletters.updated', signed: true,
      body: { uid: acct.uid, email: acct.email, newsletters: ['knowledge-is-power', 'test-pilot'], added: ['knowledge-is-power', 'test-pilot'], removed: [] },
    });

    await t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['test-pilot', 'mdnplus'] });
    await settle();
    expect(lists.received.at(-1)!.body).toMatchObject({ newsletters: ['mdnplus', 'test-pilot'], added: ['mdnplus'], removed: ['knowledge-is-power'] });

    // The same choices again: nothing to tell.
    const before = lists.received.length;
    await t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['mdnplus', 'test-pilot'] });
    await settle();
    expect(lists.received).toHaveLength(before);

    await t.client.newslettersUpdate(acct.sessionToken, { newsletters: [] });
    await settle();
    expect(lists.received.at(-1)!.body).toMatchObject({ newsletters: [], added: [], removed: ['mdnplus', 'test-pilot'] });
    expect(await rowsOf(t, acct.uid)).toEqual([]);
  }, 120_000);

  it('concurrent changes of one account all succeed; one of them wins whole', async () => {
    const acct = await verifiedAccount(t);
    const choices = [['hubs'], ['hubs', 'mdnplus'], ['test-pilot'], ['hubs', 'test-pilot', 'knowledge-is-power'], []] as const;
    const replies = await Promise.all(choices.map((c) => t.client.newslettersUpdate(acct.sessionToken, { newsletters: [...c] })));
    expect(replies).toHaveLength(choices.length);
    const kept = await rowsOf(t, acct.uid);
    expect(choices.map((c) => [...c].sort())).toContainEqual(kept);
    await settle();
  }, 120_000);

  it('accepts only the spec\'s newsletters, each once', async () => {
    const acct = await verifiedAccount(t);
    await expectError(t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['spam-weekly'] as never }), 'INVALID_PARAMETER');
    await expectError(t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['hubs', 'hubs'] }), 'INVALID_PARAMETER');
    await expectError(t.client.newslettersUpdate(acct.sessionToken, {} as never), 'MISSING_PARAMETER');
    expect(await rowsOf(t, acct.uid)).toEqual([]);
  }, 120_000);

  it('needs a session to read and a confirmed one to change', async () => {
    await expectError(t.client.newsletters('0'.repeat(64)), 'INVALID_TOKEN');
    const unconfirmed = await t.accounts.signUp(newEmail(), 'correct horse battery staple', { verificationMethod: 'email-otp' });
    await expectError(t.client.newslettersUpdate(unconfirmed.sessionToken, { newsletters: ['hubs'] }), 'SESSION_UNVERIFIED');
    expect(await t.client.newsletters(unconfirmed.sessionToken)).toEqual({ newsletters: [] });
  }, 120_000);

  it('retries a refused delivery until the service accepts it', async () => {
    const acct = await verifiedAccount(t);
    lists.status = 500;
    const attempts = lists.attempts;
    await t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['hubs'] });
    await settle();
    expect(lists.attempts).toBe(attempts + 1);
    lists.status = 200;
    t.clock!.advance(30_000);
    scheduler.runDue();
    await settle();
    expect(lists.received.at(-1)).toMatchObject({ signed: true, body: { uid: acct.uid, newsletters: ['hubs'] } });
  }, 120_000);

  it('account deletion removes the choices and, once committed, tells the service', async () => {
    const acct = await verifiedAccount(t);
    await t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['security-privacy-news'] });
    await settle();

    // A deletion that rolls back keeps the rows and sends nothing.
    await t.storage.db.transaction().execute(async (trx) => {
      await t.app.services.records.deleteAccount(acct.uid, trx);
      throw new Error('rolled back');
    }).catch(() => undefined);
    t.clock!.advance(1_000);
    scheduler.runDue();
    await settle();
    expect(lists.received.filter((r) => r.event === 'account.deleted' && r.body.uid === acct.uid)).toEqual([]);
    expect(await rowsOf(t, acct.uid)).toEqual(['security-privacy-news']);

    const { authPW } = await t.accounts.credentialsFor(acct.email, acct.password);
    await t.client.accountDestroy(acct.sessionToken, { email: acct.email, authPW });
    expect(await rowsOf(t, acct.uid)).toEqual([]);
    t.clock!.advance(1_000);
    scheduler.runDue();
    await settle();
    expect(lists.received.filter((r) => r.event === 'account.deleted' && r.body.uid === acct.uid)).toEqual([
      expect.objectContaining({ signed: true, body: expect.objectContaining({ uid: acct.uid }) }),
    ]);
  }, 120_000);
});

describe('newsletters without a webhook', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(async () => t?.close());

  it('stores the choices and sends nothing', async () => {
    const acct = await verifiedAccount(t);
    await t.client.newslettersUpdate(acct.sessionToken, { newsletters: ['hubs'] });
    expect(await t.client.newsletters(acct.sessionToken)).toEqual({ newsletters: ['hubs'] });
    expect(await t.storage.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  }, 120_000);
});
