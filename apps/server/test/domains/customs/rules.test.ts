import { describe, expect, it } from 'vitest';
import { DOMAINS } from '../../../src/app.js';
import { composeDeclarations } from '../../../src/composition.js';
import { formatDuration, mergeRules, parseDuration, parseRules } from '../../../src/domains/customs/rules.js';

describe('rate-limit rules', () => {
  it('parses the protocol grammar, with comments, `;` separators and an implicit block policy', () => {
    const rules = parseRules(`
      # a comment
      accountLogin : ip_email : 5 : 15 minutes : 15 minutes : block
      accountLogin : ip : 100 : 24 hours : 15 minutes : ban   # trailing comment; with a semicolon: x : y
      sendVerifyCode : uid : 3 : 30 seconds : 1 hour; verifyTotpCode : ip_uid : 10 : 30s : 15m : report
    `);
    expect(rules).toEqual([
      { action: 'accountLogin', property: 'ip_email', max: 5, windowMs: 900_000, durationMs: 900_000, policy: 'block' },
      { action: 'accountLogin', property: 'ip', max: 100, windowMs: 86_400_000, durationMs: 900_000, policy: 'ban' },
      { action: 'sendVerifyCode', property: 'uid', max: 3, windowMs: 30_000, durationMs: 3_600_000, policy: 'block' },
      { action: 'verifyTotpCode', property: 'ip_uid', max: 10, windowMs: 30_000, durationMs: 900_000, policy: 'report' },
    ]);
  });

  it('names the line and the fault of a bad rule', () => {
    expect(() => parseRules('a : ip : 5 : 15 minutes')).toThrow(/rule at line 1 .*expected "action : property/);
    expect(() => parseRules('\na : mac : 5 : 1 hour : 1 hour')).toThrow(/rule at line 2 .*property must be one of ip, email, uid, ip_email, ip_uid/);
    expect(() => parseRules('a : ip : 5 : 1 hour : 1 hour; b : ip : 0 : 1 hour : 1 hour')).toThrow(/rule at line 1, rule 2 \("b : ip : 0/);
    expect(() => parseRules('a : ip : 0 : 1 hour : 1 hour')).toThrow(/maxAttempts must be a whole number/);
    expect(() => parseRules('a : ip : 5 : 1 fortnight : 1 hour')).toThrow(/"1 fortnight" is not a duration/);
    expect(() => parseRules('a : ip : 5 : 1 hour : 1 hour : jail')).toThrow(/policy must be one of block, ban, report/);
    expect(() => parseRules('a-b : ip : 5 : 1 hour : 1 hour')).toThrow(/action must be a name/);
  });

  it('parses the default rules the domains declare, which cover every action the protocol rate-limits', () => {
    const rules = parseRules(composeDeclarations(DOMAINS).rateLimitRules);
    const actions = new Set(rules.map((r) => r.action));
    for (const a of ['default', 'accountLogin', 'accountCreate', 'accountStatusCheck', 'passwordCheckFailed', 'sendUnblockCode', 'unblockCodeFailed',
      'verifySessionCode', 'sendVerifyCode', 'passwordForgotSendCode', 'passwordForgotSendOtp', 'passwordForgotVerifyOtp', 'passwordChange', 'accountDestroy']) {
      expect(actions.has(a), a).toBe(true);
    }
    expect(rules.find((r) => r.action === 'accountLogin' && r.property === 'email')).toMatchObject({ max: 50, windowMs: 86_400_000, policy: 'block' });
    expect(rules.find((r) => r.action === 'default')).toMatchObject({ property: 'ip', max: 900, policy: 'report' });
  });

  it('lets an override replace the rule of the same action and property, or add one', () => {
    const base = parseRules('accountLogin : ip_email : 5 : 15 minutes : 15 minutes : block; accountLogin : ip : 100 : 24 hours : 15 minutes : ban');
    const merged = mergeRules(base, parseRules('accountLogin : ip_email : 10 : 1 hour : 1 hour : report; accountLogin : uid : 3 : 1 hour : 1 hour'));
    expect(merged.map((r) => `${r.property}:${r.max}:${r.policy}`)).toEqual(['ip_email:10:report', 'ip:100:ban', 'uid:3:block']);
  });

  it('formats and parses durations both ways', () => {
    for (const text of ['30 seconds', '1 minute', '15 minutes', '4 hours', '1 day']) expect(formatDuration(parseDuration(text))).toBe(text);
    expect(formatDuration(1500)).toBe('1500 ms');
  });
});
