import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomHex } from '@tessera/protocol';
import { SmtpSender } from '../../../src/senders/mail/sender.js';
import { createTestServer, newEmail, type TestServer } from '../../harness.js';
import { expectError, rawRequest } from '../../helpers.js';

// Issue 9, hole 2: an address is one mailbox. The schema refuses every form a mail library would
// read as a list, a group, a comment or another mailbox; the mailer gets a structured recipient.
describe('email addresses: one grammar, one mailbox', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer();
  });
  afterAll(async () => t?.close());

  const signUp = (email: string) => rawRequest(t.url, 'POST', '/account/create', { body: { email, authPW: randomHex(32) } });

  it('refuses addresses that name another mailbox or are not one address (400/107), and mails nobody', async () => {
    const before = t.mail.messages.length;
    const hostile = [
      'victim.example.com,mallory@evil.example', 'victim@example.com, mallory@evil.example', 'a<mallory@evil.example>',
      'a<b@example.com', 'team:b@example.com;', 'team:b@example.com', 'x(y)@example.com', '"quoted"@example.com',
      'a@b', 'a@[127.0.0.1]', 'a..b@example.com', '.a@example.com', 'a.@example.com', 'a@-x.example', 'a@x-.example',
      'a@xn--zz.example', 'a@example.123', 'a@example.com.', 'a b@example.com', 'a\u200b@example.com', 'a@ex_ample.com',
      `${'l'.repeat(65)}@example.com`, `a@${'d'.repeat(64)}.example`,
    ];
    for (const email of hostile) {
      const r = await signUp(email);
      expectError(r, 'INVALID_PARAMETER', 400);
      expect((r.body.validation as { keys: string[] }).keys, email).toEqual(['email']);
      // A sentence a person can act on, not the grammar's regular expression.
      expect(r.body.message, email).toMatch(/must be one email address like name@example\.com/);
    }
    expect(t.mail.messages.slice(before)).toEqual([]);
    expect(t.mail.messages.some((m) => m.to.includes('mallory'))).toBe(false);
  });

  it('accepts dot-atom local parts with any atext, Unicode, and internationalised domains', async () => {
    for (const email of [`o'brien+${randomHex(3)}@example.com`, `ünï.${randomHex(3)}@例え.jp`, `x.${randomHex(3)}@münchen.de`, `😀.${randomHex(3)}@example.co.uk`]) {
      const since = t.mail.messages.length;
      const r = await signUp(email);
      expect(r.status, r.text).toBe(200);
      const mail = await t.mail.waitFor(email, 'verify', since);
      expect(mail.to).toBe(email.toLowerCase());
    }
  });

  it('hands the mailer one structured recipient: a string that looks like a list reaches no one else', async () => {
    const sender = new SmtpSender(t.config.mail.smtpUrl, 'Tessera <no-reply@tessera.localhost>');
    const before = t.mail.messages.length;
    const outcome = await sender.send({
      to: 'victim.example.com,mallory@evil.example', subject: 's', text: 't', html: '<p>t</p>', template: 'verify', headers: {},
    }).then(() => 'sent', () => 'refused');
    // Either the SMTP server refuses the one malformed mailbox, or it takes it as one recipient:
    // the envelope never lists mallory as a mailbox of its own (a parsed string would).
    const arrived = t.mail.messages.slice(before);
    for (const m of arrived) expect(m.envelopeTo).toEqual(['victim.example.com,mallory@evil.example']);
    expect(outcome === 'refused' || arrived.length === 1, outcome).toBe(true);
    await sender.close();
  });

  it('refuses bodies that are not UTF-8 and strings with lone surrogates (400/106), instead of storing U+FFFD', async () => {
    const email = newEmail('utf8');
    const bytes = Buffer.concat([Buffer.from(`{"email":"${email.replace('@', '')}`), Buffer.from([0xff, 0xfe]), Buffer.from(`@example.com","authPW":"${randomHex(32)}"}`)]);
    const bad = await fetch(`${t.url}/v1/account/create`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bytes });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errno: 106 });
    const lone = await rawRequest(t.url, 'POST', '/account/create', { raw: `{"email":"a\\ud800b@example.com","authPW":"${randomHex(32)}"}` });
    expectError(lone, 'INVALID_JSON', 400);
    expect(lone.body.message).toMatch(/lone surrogate/);
    // A well-formed pair is text like any other.
    const pair = await rawRequest(t.url, 'POST', '/account/status', { raw: `{"email":"\\ud83d\\ude00.${randomHex(3)}@example.com"}` });
    expect(pair.status, pair.text).toBe(200);
  });
});
