import { describe, expect, it } from 'vitest';
import { DOMAINS } from '../../src/app.js';
import { composeDeclarations } from '../../src/composition.js';
import { Mailer } from '../../src/senders/mail/mailer.js';
import type { MailMessage, MailSender } from '../../src/senders/mail/sender.js';

// Issue 9, hole 9: codes and links travel in X-Tessera-* headers only outside production.
describe('the mailer and its development headers', () => {
  const sent: MailMessage[] = [];
  const sender: MailSender = { send: async (m) => void sent.push(m), close: async () => undefined };
  const mailer = (revealCodes: boolean) => new Mailer({
    sender, revealCodes, softBounceMs: 0, clock: { now: () => 0 },
    bounces: { latest: async () => null, record: async () => undefined },
    log: { warn: () => undefined } as never, templates: composeDeclarations(DOMAINS).emails,
  });

  it('puts the code in X-Tessera-Code outside production', async () => {
    await mailer(true).send('verifyShortCode', 'a@example.com', null, { code: '123456', minutes: 20 });
    expect(sent.at(-1)!.headers['X-Tessera-Code']).toBe('123456');
    expect(sent.at(-1)!.code).toBe('123456');
  });

  it('keeps it in the body only in production', async () => {
    await mailer(false).send('verifyShortCode', 'a@example.com', null, { code: '654321', minutes: 20 });
    const m = sent.at(-1)!;
    expect(m.headers).toEqual({});
    expect(m.code).toBeUndefined();
    expect(m.text).toContain('654321');
  });
});
