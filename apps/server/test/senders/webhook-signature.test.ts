import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { signWebhook, verifyWebhook } from '../../src/senders/webhook/index.js';
import { PRODUCTION_ENV } from '../production-env.js';

const SECRET = 'webhook-secret-0123456789abcdef-0123456789';

describe('webhook signatures', () => {
  const body = JSON.stringify({ ticket: 'a'.repeat(32), message: 'hello' });
  const now = 1_795_000_000;

  it('signs "<t>.<body>" with HMAC-SHA256 and says when', () => {
    const header = signWebhook(SECRET, body, now);
    expect(header).toMatch(/^t=1795000000,v1=[0-9a-f]{64}$/);
    expect(verifyWebhook(SECRET, body, header, now)).toBe(true);
    expect(verifyWebhook(SECRET, body, header, now + 300)).toBe(true);
  });

  it('a receiver refuses another body, another key, an old or future timestamp and a malformed header', () => {
    const header = signWebhook(SECRET, body, now);
    expect(verifyWebhook(SECRET, `${body} `, header, now)).toBe(false);
    expect(verifyWebhook(`${SECRET}x`, body, header, now)).toBe(false);
    expect(verifyWebhook(SECRET, body, header, now + 301)).toBe(false);
    expect(verifyWebhook(SECRET, body, header, now - 301)).toBe(false);
    // The timestamp is signed: moving it breaks the MAC.
    expect(verifyWebhook(SECRET, body, header.replace(`t=${now}`, `t=${now + 1}`), now)).toBe(false);
    expect(verifyWebhook(SECRET, body, 'v1=abc', now)).toBe(false);
    expect(verifyWebhook(SECRET, body, '', now)).toBe(false);
  });
});

describe('webhook and support configuration', () => {
  const base = { NODE_ENV: 'test' };

  it('needs a signing secret of 32+ characters with each webhook URL, and a long support secret', () => {
    expect(() => loadConfig({ ...base, SUPPORT_WEBHOOK_URL: 'https://helpdesk.example/hook' })).toThrow(/SUPPORT_WEBHOOK_SECRET/);
    expect(() => loadConfig({ ...base, NEWSLETTER_WEBHOOK_URL: 'https://lists.example/hook', NEWSLETTER_WEBHOOK_SECRET: 'short' })).toThrow(/NEWSLETTER_WEBHOOK_SECRET/);
    expect(() => loadConfig({ ...base, SUPPORT_SECRET: 'short' })).toThrow(/SUPPORT_SECRET/);
    expect(() => loadConfig({ ...base, SUPPORT_WEBHOOK_URL: 'ftp://helpdesk.example/' , SUPPORT_WEBHOOK_SECRET: SECRET })).toThrow(/SUPPORT_WEBHOOK_URL/);
    expect(loadConfig({ ...base, SUPPORT_WEBHOOK_URL: 'https://helpdesk.example/hook', SUPPORT_WEBHOOK_SECRET: SECRET }).support.webhookUrl).toBe('https://helpdesk.example/hook');
    expect(loadConfig({ ...base, NEWSLETTER_WEBHOOK_URL: 'http://127.0.0.1:8080/hook', NEWSLETTER_WEBHOOK_SECRET: SECRET }).newsletters.webhookUrl).toBe('http://127.0.0.1:8080/hook');
  });

  it('production: webhooks over https only, and the optional secrets may stay unset', () => {
    const production = PRODUCTION_ENV;
    const attempt = (env: Record<string, string>) => {
      try {
        loadConfig({ ...production, ...env });
        return 'ok';
      } catch (err) {
        return (err as Error).message;
      }
    };
    expect(attempt({ SUPPORT_WEBHOOK_URL: 'http://helpdesk.example/hook', SUPPORT_WEBHOOK_SECRET: SECRET })).toMatch(/SUPPORT_WEBHOOK_URL must be https/);
    expect(attempt({ SUPPORT_WEBHOOK_URL: 'https://helpdesk.example/hook', SUPPORT_WEBHOOK_SECRET: SECRET })).toBe('ok');
    // Neither SUPPORT_SECRET nor the webhook secrets are required: those features are simply off.
    expect(attempt({})).toBe('ok');
  });

  it('reads the eligibility rules, and refuses rules it cannot read', () => {
    expect(loadConfig({ ...base, GEO_ELIGIBILITY_RULES: 'vpn:us,ca' }).geo.eligibilityRules).toEqual({ vpn: ['US', 'CA'] });
    expect(() => loadConfig({ ...base, GEO_ELIGIBILITY_RULES: 'vpn=US' })).toThrow(/GEO_ELIGIBILITY_RULES/);
  });
});
