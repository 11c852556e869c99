import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../../src/app.js';
import { WebhookSender } from '../../../src/senders/webhook/index.js';
import { createTestServer, httpDialects, newEmail, testSigningKey, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { ManualScheduler, WebhookReceiver } from '../../webhook-receiver.js';

const WEBHOOK_SECRET = 'support-webhook-secret-0123456789abcdef';
const SUPPORT_SECRET = 'helpdesk-front-end-secret-0123456789abcdef';
const ticket = { productName: 'Tessera Sync', topic: 'sign-in', message: 'I cannot sign in on my phone.', productPlatform: 'Android', subject: 'Help' };

async function ticketRow(t: TestServer, id: string) {
  return t.storage.db.selectFrom('support_tickets').selectAll().where('id', '=', id).executeTakeFirst();
}

describe.each(httpDialects())('support tickets (%s)', (dialect) => {
  let t: TestServer;
  let helpdesk: WebhookReceiver;
  let scheduler: ManualScheduler;
  /** Where the helpdesk listens after it came back (on another port). */
  let helpdeskUrl = '';

  beforeAll(async () => {
    // The receiver needs the clock before the server exists: a clock of its own that reads the server's.
    const clockRef = { now: () => Date.now() };
    helpdesk = new WebhookReceiver(WEBHOOK_SECRET, { now: () => clockRef.now() });
    scheduler = new ManualScheduler({ now: () => clockRef.now() });
    const hook = await helpdesk.start();
    t = await createTestServer({
      dialect, manualClock: true, webhookScheduler: scheduler.schedule,
      env: { SUPPORT_WEBHOOK_URL: hook, SUPPORT_WEBHOOK_SECRET: WEBHOOK_SECRET, SUPPORT_SECRET, WEBHOOK_RETRY_BASE_SECONDS: '30' },
    });
    clockRef.now = () => t.clock!.now();
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    await helpdesk?.stop();
  });

  it('files a ticket from a confirmed session: stored, forwarded signed, with the account\'s address', async () => {
    const acct = await verifiedAccount(t);
    const before = helpdesk.received.length;
    const reply = await t.client.supportTicket({ sessionToken: acct.sessionToken }, { ...ticket, email: 'someone.else@example.com' });
    expect(reply).toEqual({ success: true, ticket: expect.stringMatching(/^[0-9a-f]{32}$/), error: null });

    const [got] = helpdesk.received.slice(before);
    expect(got).toMatchObject({ event: 'support.ticket', signed: true });
    expect(got!.body).toMatchObject({ ...ticket, ticket: reply.ticket, uid: acct.uid, email: acct.email, via: 'session' });
    const row = await ticketRow(t, reply.ticket);
    expect(row).toMatchObject({ uid: acct.uid, email: acct.email, status: 'forwarded' });
    expect(await t.storage.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  }, 120_000);

  it('files a ticket with the support secret (SDK), which then needs an email', async () => {
    const email = newEmail('customer');
    const reply = await t.accounts.supportTicketWithSecret(SUPPORT_SECRET, { ...ticket, email });
    expect(reply.success).toBe(true);
    expect(helpdesk.received.at(-1)!.body).toMatchObject({ ticket: reply.ticket, uid: null, email, via: 'helpdesk' });
    expect(await ticketRow(t, reply.ticket)).toMatchObject({ uid: null, email, status: 'forwarded' });

    await expectError(t.accounts.supportTicketWithSecret(SUPPORT_SECRET, ticket), 'MISSING_PARAMETER');
  });

  it('refuses a wrong or missing secret and an unconfirmed session', async () => {
    const count = await t.storage.db.selectFrom('support_tickets').select('id').execute();
    await expectError(t.accounts.supportTicketWithSecret(`${SUPPORT_SECRET}x`, { ...ticket, email: newEmail() }), 'INVALID_TOKEN');
    await expectError(t.accounts.supportTicketWithSecret(SUPPORT_SECRET.slice(0, -1), { ...ticket, email: newEmail() }), 'INVALID_TOKEN');
    await expectError(t.client.supportTicket(undefined, { ...ticket, email: newEmail() }), 'INVALID_TOKEN');
    const unconfirmed = await t.accounts.signUp(newEmail(), 'correct horse battery staple', { verificationMethod: 'email-otp' });
    await expectError(t.client.supportTicket({ sessionToken: unconfirmed.sessionToken }, ticket), 'SESSION_UNVERIFIED');
    expect(await t.storage.db.selectFrom('support_tickets').select('id').execute()).toHaveLength(count.length);
  }, 120_000);

  it('validates the fields: productName, topic and message required, lengths, no unknown fields', async () => {
    const acct = await verifiedAccount(t);
    for (const missing of ['productName', 'topic', 'message'] as const) {
      const body: Record<string, string> = { ...ticket };
      delete body[missing];
      await expectError(t.client.supportTicket({ sessionToken: acct.sessionToken }, body as typeof ticket), 'MISSING_PARAMETER');
    }
    await expectError(t.client.supportTicket({ sessionToken: acct.sessionToken }, { ...ticket, message: 'x'.repeat(10_001) }), 'INVALID_PARAMETER');
    await expectError(t.client.supportTicket({ sessionToken: acct.sessionToken }, { ...ticket, subject: 'a\u0000b' }), 'INVALID_PARAMETER');
    await expectError(t.client.supportTicket({ sessionToken: acct.sessionToken }, { ...ticket, extra: 'x' } as typeof ticket), 'INVALID_PARAMETER');
  }, 120_000);

  it('keeps a ticket the helpdesk refused pending, and retries it with doubling waits until it is accepted', async () => {
    const acct = await verifiedAccount(t);
    helpdesk.status = 503;
    const attempts = helpdesk.attempts;
    const reply = await t.client.supportTicket({ sessionToken: acct.sessionToken }, ticket);
    expect(reply).toMatchObject({ success: false, ticket: expect.any(String), error: expect.stringContaining('forwarded again later') });
    expect(await ticketRow(t, reply.ticket)).toMatchObject({ status: 'pending', forwarded_at: null });
    expect(helpdesk.attempts).toBe(attempts + 1);
    expect(scheduler.pending()).toContain(30_000);

    // Not due yet: nothing happens.
    t.clock!.advance(29_000);
    scheduler.runDue();
    await t.app.webhooks.idle();
    expect(helpdesk.attempts).toBe(attempts + 1);

    // Due: tried again, refused again; the next wait doubles.
    t.clock!.advance(1_000);
    scheduler.runDue();
    await t.app.webhooks.idle();
    expect(helpdesk.attempts).toBe(attempts + 2);
    expect(scheduler.pending()).toContain(60_000);
    // One retry wake-up (and the periodic sweep), however many failures: timers do not pile up.
    expect(scheduler.pending().length).toBeLessThanOrEqual(2);
    const [delivery] = await t.storage.db.selectFrom('jobs').selectAll().execute();
    expect(delivery).toMatchObject({ attempts: 2, last_error: 'HTTP 503' });

    helpdesk.status = 200;
    t.clock!.advance(60_000);
    scheduler.runDue();
    await t.app.webhooks.idle();
    expect(helpdesk.received.at(-1)).toMatchObject({ signed: true, body: { ticket: reply.ticket } });
    expect(await ticketRow(t, reply.ticket)).toMatchObject({ status: 'forwarded', forwarded_at: t.clock!.now() });
    expect(await t.storage.db.selectFrom('jobs').selectAll().execute()).toEqual([]);
  }, 120_000);

  it('two senders attempting one delivery at once: one holds it, the helpdesk gets it once', async () => {
    const attempts = helpdesk.attempts;
    const id = await t.app.webhooks.enqueue(t.storage.db, 'support', 'support.ticket', { ticket: 'f'.repeat(32) });
    const results = await Promise.all([t.app.webhooks.attempt(id), t.app.webhooks.attempt(id), t.app.webhooks.attempt(id)]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(helpdesk.attempts).toBe(attempts + 1);
    expect(await t.app.webhooks.attempt(id)).toBe(false);
  });

  it('a helpdesk that cannot be reached at all counts as a failure too', async () => {
    const acct = await verifiedAccount(t);
    await helpdesk.stop();
    try {
      const reply = await t.client.supportTicket({ sessionToken: acct.sessionToken }, ticket);
      expect(reply.success).toBe(false);
      expect(await ticketRow(t, reply.ticket)).toMatchObject({ status: 'pending' });
    } finally {
      helpdeskUrl = await helpdesk.start();
    }
  }, 120_000);

  it('after a restart, the start-up sweep forwards what was left pending', async () => {
    // The receiver came back on another port: a server started with that URL picks the ticket up.
    const pending = await t.storage.db.selectFrom('jobs').selectAll().execute();
    expect(pending).toHaveLength(1);
    expect(pending[0]!.last_error).toMatch(/fetch failed|ECONNREFUSED/);
    const restarted = await createApp({
      config: { ...t.config, support: { ...t.config.support, webhookUrl: helpdeskUrl } }, storage: t.storage, logger: false, signingKey: testSigningKey(),
      clock: { now: () => t.clock!.now() + 3_600_000 }, webhookScheduler: () => () => undefined,
    });
    try {
      await restarted.webhooks.idle();
      const ticketId = (JSON.parse(pending[0]!.payload) as { body: { ticket: string } }).body.ticket;
      expect(helpdesk.received.at(-1)).toMatchObject({ body: { ticket: ticketId } });
      expect(await ticketRow(t, ticketId)).toMatchObject({ status: 'forwarded' });
    } finally {
      await restarted.close();
    }
  }, 120_000);

  it('account deletion removes the account\'s tickets', async () => {
    const acct = await verifiedAccount(t);
    const reply = await t.client.supportTicket({ sessionToken: acct.sessionToken }, ticket);
    const { authPW } = await t.accounts.credentialsFor(acct.email, acct.password);
    await t.client.accountDestroy(acct.sessionToken, { email: acct.email, authPW });
    expect(await ticketRow(t, reply.ticket)).toBeUndefined();
  }, 120_000);
});

describe('support tickets without a helpdesk webhook', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ env: { SUPPORT_SECRET, RATE_LIMIT_RULES: 'supportTicket : ip : 2 : 60 minutes : 60 minutes : block' } });
  });
  afterAll(async () => t?.close());

  it('answers 503/202; tickets are rate limited per client address', async () => {
    await expectError(t.accounts.supportTicketWithSecret(SUPPORT_SECRET, { ...ticket, email: newEmail() }), 'FEATURE_NOT_ENABLED');
    await expectError(t.accounts.supportTicketWithSecret(SUPPORT_SECRET, { ...ticket, email: newEmail() }), 'FEATURE_NOT_ENABLED');
    const err = await expectError(t.accounts.supportTicketWithSecret(SUPPORT_SECRET, { ...ticket, email: newEmail() }), 'THROTTLED');
    expect(err.body.retryAfter).toBeGreaterThan(0);
  });

  it('a delivery left for a webhook no longer configured waits, without spinning the sweep', async () => {
    const now = Date.now();
    await t.storage.db.insertInto('jobs').values({
      id: 'e'.repeat(32), kind: 'webhook.support', dedupe_key: null, payload: '{"event":"support.ticket","body":{}}', state: 'pending',
      run_at: now - 1000, last_error: null, created_at: now - 1000, updated_at: now - 1000,
    }).execute();
    const scheduler = new ManualScheduler({ now: () => Date.now() });
    const sender = new WebhookSender({
      db: t.storage.db, clock: { now: () => Date.now() }, targets: { support: null }, scheduler: scheduler.schedule,
      timeoutMs: 1000, retryBaseMs: 1000, retryMaxMs: 1000, log: { warn: () => undefined },
    });
    expect(await sender.sweep()).toBe(0);
    expect(scheduler.pending()).toEqual([]);
    expect(await t.storage.db.selectFrom('jobs').select('id').execute()).toEqual([{ id: 'e'.repeat(32) }]);
    sender.close();
  });
});
