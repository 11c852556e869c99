import { describe, expect, it } from 'vitest';
import { isAppError } from '@tessera/errors';
import { MemoryLimitStore } from '../../../src/domains/customs/counters.js';
import { endpointAction } from '../../../src/domains/customs/hooks.js';
import { parseRules } from '../../../src/domains/customs/rules.js';
import { addressKey, Customs, retryAfterLocalized } from '../../../src/domains/customs/service.js';

function customs(rules: string, options: { ignoreIps?: string[]; ignoreEmails?: RegExp[] } = {}) {
  let now = 0;
  const local = new MemoryLimitStore(() => now);
  const warnings: object[] = [];
  const c = new Customs({
    enabled: true, rules: parseRules(rules), store: local, local, shared: false, failClosed: true,
    ignore: { ips: options.ignoreIps ?? [], emails: options.ignoreEmails ?? [], uids: [] },
    log: { warn: (obj) => void warnings.push(obj) }, now: () => now,
  });
  return { c, warnings, advance: (ms: number) => { now += ms; } };
}

describe('customs', () => {
  it('counts IPv6 clients by their /64 and IPv4-mapped addresses as IPv4', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
  });

  it('names endpoints as the protocol does', () => {
    expect(endpointAction('POST', '/v1/account/login')).toBe('POST__v1_account_login');
    expect(endpointAction('GET', '/v1/recovery_email/status')).toBe('GET__v1_recovery_email_status');
  });

  it('words retryAfter in the caller\'s language, English otherwise', () => {
    expect(retryAfterLocalized(30, null)).toBe('in 30 seconds');
    expect(retryAfterLocalized(900, 'de-DE, de')).toBe('in 15 Minuten');
    expect(retryAfterLocalized(4 * 3600, 'xx-invalid')).toBe('in 4 hours');
  });

  it('counts an account named by email and by uid as one, and a different address separately', async () => {
    const { c } = customs('sendVerifyCode : email : 2 : 1 hour : 1 hour : block');
    expect((await c.check(['sendVerifyCode'], { ip: '192.0.2.1', email: 'A@Example.com' })).blocked).toBe(false);
    expect((await c.check(['sendVerifyCode'], { ip: '192.0.2.2', email: 'a@example.com' })).blocked).toBe(false);
    expect((await c.check(['sendVerifyCode'], { ip: '192.0.2.3', email: 'a@example.com' })).blocked).toBe(true);
    expect((await c.check(['sendVerifyCode'], { ip: '192.0.2.3', email: 'b@example.com' })).blocked).toBe(false);
  });

  it('counts an action without rules under the default rules, per action', async () => {
    const { c } = customs('default : ip : 2 : 1 hour : 1 hour : block');
    await c.check(['someAction'], { ip: '192.0.2.1' });
    await c.check(['someAction'], { ip: '192.0.2.1' });
    expect((await c.check(['someAction'], { ip: '192.0.2.1' })).blocked).toBe(true);
    expect((await c.check(['otherAction'], { ip: '192.0.2.1' })).blocked).toBe(false);
  });

  it('never counts ignored addresses or emails', async () => {
    const { c } = customs('accountLogin : ip : 1 : 1 hour : 1 hour : ban', { ignoreIps: ['192.0.2.9'], ignoreEmails: [/@monitoring\.example$/] });
    for (let i = 0; i < 3; i++) expect((await c.check(['accountLogin'], { ip: '192.0.2.9' })).blocked).toBe(false);
    for (let i = 0; i < 3; i++) expect((await c.check(['accountLogin'], { ip: '192.0.2.1', email: 'probe@monitoring.example' })).blocked).toBe(false);
  });

  it('refuses an endpoint of a banned address with 429/114, and reports endpoint floods once per window', () => {
    const { c, warnings, advance } = customs('default : ip : 3 : 1 minute : 1 minute : report; passwordCheckFailed : ip : 1 : 1 hour : 2 hours : ban');
    for (let i = 0; i < 6; i++) c.checkEndpoint('GET__v1_session_status', '192.0.2.1', () => null);
    expect(warnings).toEqual([{ action: 'GET__v1_session_status', property: 'ip', ip: '192.0.2.1' }]);
    void c.fail('passwordCheckFailed', { ip: '192.0.2.1' });
    void c.fail('passwordCheckFailed', { ip: '192.0.2.1' });
    let thrown: unknown;
    try {
      c.checkEndpoint('GET__v1_session_status', '192.0.2.1', () => 'fr');
    } catch (err) {
      thrown = err;
    }
    expect(isAppError(thrown, 'THROTTLED')).toBe(true);
    expect((thrown as { extras: unknown }).extras).toEqual({ retryAfter: 7200, retryAfterLocalized: 'dans 2 heures' });
    advance(7200_000);
    expect(() => c.checkEndpoint('GET__v1_session_status', '192.0.2.1', () => null)).not.toThrow();
  });
});
