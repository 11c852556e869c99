import { describe, expect, it } from 'vitest';
import { deriveTokenKeys } from '@tessera/protocol';
import { newEmail } from '../harness.js';
import { expectError, hex } from '../helpers.js';
import { V1_PREFIX, V2_PREFIX, validationProbe } from './validation-probe.js';

// Spec 1 §5 through real HTTP, continued from validation.test.ts: metricsContext, the password
// fields and the verification codes, each rule's accepted edge and rejected edge.

describe('request validation (spec 1 §5) over HTTP: metricsContext, passwords, codes', () => {
  const p = validationProbe();
  const { send, post, bearer, expectInvalid, expectMissing, expectPassed, login, UNKNOWN, exists, verified } = p;

  describe('metricsContext', () => {
    const flowId = hex(64);
    const flowBeginTime = Date.now();

    it('flowId and flowBeginTime together are accepted', async () => {
      expectPassed(await login({ metricsContext: { flowId, flowBeginTime } }), UNKNOWN);
      expectPassed(await login({ metricsContext: {} }), UNKNOWN);
    });

    it('flowId without flowBeginTime and vice versa → 107 naming the missing one', async () => {
      const a = expectInvalid(await login({ metricsContext: { flowId } }), 'metricsContext.flowBeginTime', { rule: 'dependentRequired' });
      expect(a.message).toContain('flowId');
      const b = expectInvalid(await login({ metricsContext: { flowBeginTime } }), 'metricsContext.flowId', { rule: 'dependentRequired' });
      expect(b.message).toContain('flowBeginTime');
      expectInvalid(await post('/account/status', { email: newEmail(), metricsContext: { flowId } }), 'metricsContext.flowBeginTime', { rule: 'dependentRequired' });
    });

    it('a sign-up with flowId but no flowBeginTime is rejected and creates nothing', async () => {
      const email = newEmail('halfflow');
      expectInvalid(await post('/account/create', { email, authPW: hex(64), metricsContext: { flowId } }), 'metricsContext.flowBeginTime', { rule: 'dependentRequired' });
      expect(await exists(email)).toBe(false);
    });

    it('flowId is 64 hex; flowBeginTime a positive integer', async () => {
      expectInvalid(await login({ metricsContext: { flowId: hex(63), flowBeginTime } }), 'metricsContext.flowId');
      expectInvalid(await login({ metricsContext: { flowId: hex(65), flowBeginTime } }), 'metricsContext.flowId');
      expectInvalid(await login({ metricsContext: { flowId: `${hex(63)}q`, flowBeginTime } }), 'metricsContext.flowId', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { flowId, flowBeginTime: 0 } }), 'metricsContext.flowBeginTime', { rule: 'minimum' });
      expectInvalid(await login({ metricsContext: { flowId, flowBeginTime: 1.5 } }), 'metricsContext.flowBeginTime', { rule: 'type' });
    });

    it('deviceId is 32 hex', async () => {
      expectPassed(await login({ metricsContext: { deviceId: hex(32) } }), UNKNOWN);
      expectInvalid(await login({ metricsContext: { deviceId: hex(31) } }), 'metricsContext.deviceId');
      expectInvalid(await login({ metricsContext: { deviceId: hex(33) } }), 'metricsContext.deviceId');
      expectInvalid(await login({ metricsContext: { deviceId: `${hex(31)}z` } }), 'metricsContext.deviceId', { rule: 'pattern' });
    });

    it('utm fields: word characters, / . % - (max 128); others rejected', async () => {
      expectPassed(await login({ metricsContext: { utmSource: 'news/2024.05%20-a_b', utmCampaign: 'c'.repeat(128) } }), UNKNOWN);
      expectInvalid(await login({ metricsContext: { utmSource: 'has space' } }), 'metricsContext.utmSource', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { utmTerm: 'a<b' } }), 'metricsContext.utmTerm', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { utmCampaign: 'c'.repeat(129) } }), 'metricsContext.utmCampaign', { rule: 'maxLength' });
    });

    it('entrypoint fields: word characters, . : - (max 128); others rejected', async () => {
      expectPassed(await login({ metricsContext: { entrypoint: 'preferences:sync.menu-1', entrypointExperiment: 'exp_1', entrypointVariation: 'v.2' } }), UNKNOWN);
      expectInvalid(await login({ metricsContext: { entrypoint: 'menu/panel' } }), 'metricsContext.entrypoint', { rule: 'pattern' });
      expectInvalid(await login({ metricsContext: { entrypointVariation: 'a b' } }), 'metricsContext.entrypointVariation', { rule: 'pattern' });
    });

    it('an unknown metricsContext key is rejected', async () => {
      expectInvalid(await login({ metricsContext: { flowId, flowBeginTime, utm_source: 'x' } }), 'metricsContext.utm_source', { rule: 'additionalProperties' });
    });
  });

  describe('password fields', () => {
    // finish_setup checks its setup token before the password fields' business rules, so a body that
    // passes validation answers 110 (bogus token) without any scrypt.
    const fakeSetupToken = 'eyJhbGciOiJIUzI1NiJ9.eyJ1aWQiOiJ4In0.c2lnbmF0dXJl';
    const finishSetup = (extra: Record<string, unknown>) => post('/account/finish_setup', { token: fakeSetupToken, authPW: hex(64), ...extra });

    // The v2 group with a given clientSalt (the fields go together, so each needs the others).
    const v2With = (clientSalt: string) => ({ authPWVersion2: hex(64), wrapKb: hex(64), wrapKbVersion2: hex(64), clientSalt });

    it('clientSalt: only the v2 form (quickStretchV2 prefix + 32 lowercase hex) passes; the v1 prefix and anything else is refused', async () => {
      const bogusToken = { status: 401, errno: 110 };
      expectPassed(await finishSetup(v2With(`${V2_PREFIX}${hex(32)}`)), bogusToken);
      // The server never stretches with a v1 salt the client sends (protocol.md §1.2), so the schema
      // refuses it too instead of letting the request fail later.
      expectInvalid(await finishSetup(v2With(`${V1_PREFIX}someone@example.com`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`identity.mozilla.com/picl/v1/quickStretchV3:${hex(32)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(hex(32))), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`x${V2_PREFIX}${hex(32)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'A'.repeat(32)}`)), 'clientSalt', { rule: 'pattern' });
    });

    it('clientSalt: 31 or 33 hex characters are refused, and so is anything past 128 characters', async () => {
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'a'.repeat(31)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'a'.repeat(33)}`)), 'clientSalt', { rule: 'pattern' });
      expectInvalid(await finishSetup(v2With(`${V2_PREFIX}${'a'.repeat(129 - V2_PREFIX.length)}`)), 'clientSalt', { rule: 'maxLength' });
    });

    it('a v2 sign-up with every field and ?keys=true is accepted and returns both key fetch tokens', async () => {
      const email = newEmail('v2');
      const r = await post('/account/create', {
        email, authPW: hex(64), authPWVersion2: hex(64), wrapKb: hex(64), wrapKbVersion2: hex(64), clientSalt: `${V2_PREFIX}${hex(32)}`,
        verificationMethod: 'email-otp',
      }, { keys: 'true' });
      expect(r.status, r.text).toBe(200);
      expect(r.body.keyFetchToken).toMatch(/^[0-9a-f]{64}$/);
      expect(r.body.keyFetchTokenVersion2).toMatch(/^[0-9a-f]{64}$/);
      expect(await exists(email)).toBe(true);
    });

    it('the version-2 fields go together, with wrapKb: a partial group → 107 naming the first missing field (a schema rule)', async () => {
      const email = newEmail('v2half');
      const r = await post('/account/create', { email, authPW: hex(64), authPWVersion2: hex(64), wrapKb: hex(64) });
      expectError(r, 'INVALID_PARAMETER', 400);
      const v = r.body.validation as { source: string; keys: string[]; rule: string; message: string };
      expect(v).toEqual({ source: 'payload', keys: ['wrapKbVersion2'], rule: 'dependentRequired', message: 'wrapKbVersion2 is required when authPWVersion2 is present' });
      const noWrapKb = await post('/account/create', { email, authPW: hex(64), authPWVersion2: hex(64), wrapKbVersion2: hex(64), clientSalt: `${V2_PREFIX}${hex(32)}` });
      expectError(noWrapKb, 'INVALID_PARAMETER', 400);
      expect((noWrapKb.body.validation as { keys: string[] }).keys).toEqual(['wrapKb']);
      const saltOnly = await post('/account/create', { email, authPW: hex(64), clientSalt: `${V2_PREFIX}${hex(32)}` });
      expectError(saltOnly, 'INVALID_PARAMETER', 400);
      expect((saltOnly.body.validation as { keys: string[] }).keys).toEqual(['authPWVersion2']);
      // The OpenAPI document says the same, so generated clients know the rule.
      const doc = JSON.parse(JSON.stringify((await send('GET', '/openapi.json')).body)) as { paths: Record<string, { post: { requestBody: { content: { 'application/json': { schema: { dependentRequired?: Record<string, string[]> } } } } } }> };
      expect(doc.paths['/v1/account/create']!.post.requestBody.content['application/json'].schema.dependentRequired?.authPWVersion2).toEqual(['wrapKbVersion2', 'clientSalt', 'wrapKb']);
      // None of these left an account behind.
      expect(await exists(email)).toBe(false);
    });

    it('a rejected sign-up changes nothing', async () => {
      const email = newEmail('rejected');
      expectInvalid(await post('/account/create', { email, authPW: hex(63) }), 'authPW');
      expectInvalid(await post('/account/create', { email, authPW: hex(64), service: 'not_allowed' }), 'service');
      expectMissing(await post('/account/create', { email }), 'authPW');
      expectError(await send('POST', '/account/create', { raw: `{"email":"${email}","authPW":"${hex(64)}"` }), 'INVALID_JSON', 400);
      expect(await exists(email)).toBe(false);
      const byUid = await send('GET', '/account/status', { query: { uid: hex(32) } });
      expect(byUid.body).toEqual({ exists: false });
      // No confirmation mail went out either: MailCapture records a message before it acknowledges
      // it, and the server sends before it replies, so any mail these requests caused is already here.
      expect(p.t.mail.messages.filter((m) => m.to === email.toLowerCase())).toEqual([]);
    });
  });

  describe('verification codes', () => {
    it('session verify code: 6 to 8 digits pass validation; 5, 9 and non-digits are rejected', async () => {
      const auth = bearer('fxs_', p.session.id);
      const verify = (code: unknown) => send('POST', '/session/verify_code', { body: { code }, authorization: auth });
      // Wrong codes: past validation, refused by the code check (never 107/108).
      for (const code of ['000000', '0000000', '00000000']) {
        const r = await verify(code);
        expectPassed(r);
        expect(r.status, r.text).toBe(400);
      }
      expectInvalid(await verify('00000'), 'code', { rule: 'pattern' });
      expectInvalid(await verify('000000000'), 'code', { rule: 'pattern' });
      expectInvalid(await verify('12345a'), 'code', { rule: 'pattern' });
      expectInvalid(await verify(123456), 'code', { rule: 'type' });
      expectMissing(await send('POST', '/session/verify_code', { body: {}, authorization: auth }), 'code');
    });

    it('forgot-password code: 8 or 16 digits pass validation; 7, 9, 15, 17 and non-digits are rejected', async () => {
      const { email } = await verified();
      const { passwordForgotToken } = await p.t.client.passwordForgotSendCode({ email });
      const auth = bearer('fxpf_', deriveTokenKeys('passwordForgotToken', passwordForgotToken).tokenId);
      const verify = (c: unknown) => send('POST', '/password/forgot/verify_code', { body: { code: c }, authorization: auth });

      // Rejected shapes first: they must not spend any of the token's tries.
      for (const bad of ['1234567', '123456789', '123456789012345', '12345678901234567', 'abcdefgh', '1234 678']) {
        expectInvalid(await verify(bad), 'code', { rule: 'pattern' });
      }
      const before = await send('GET', '/password/forgot/status', { authorization: auth });
      expect(before.status, before.text).toBe(200);
      expect(before.body.tries).toBe(p.t.config.tokens.passwordForgotTries);

      const eight = await verify('00000000');
      expectPassed(eight, { status: 400, errno: 105 });
      const sixteen = await verify('0000000000000000');
      expectPassed(sixteen, { status: 400, errno: 105 });
    });

    it('/password/forgot/verify_otp code: exactly 8 digits', async () => {
      expectPassed(await post('/password/forgot/verify_otp', { email: newEmail(), code: '12345678' }), UNKNOWN);
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '1234567' }), 'code', { rule: 'pattern' });
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '123456789' }), 'code', { rule: 'pattern' });
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '1234567a' }), 'code', { rule: 'pattern' });
      expectInvalid(await post('/password/forgot/verify_otp', { email: newEmail(), code: '1234567890123456' }), 'code', { rule: 'pattern' });
      expectMissing(await post('/password/forgot/verify_otp', { email: newEmail() }), 'code');
    });
  });
});
