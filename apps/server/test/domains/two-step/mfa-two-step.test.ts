import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError } from '../../helpers.js';
import { expectMfaGuarded, mfaToken } from '../../mfa-helpers.js';
import { appFor, codeAt, nextStep } from './two-step-helpers.js';

// The /mfa variants of the two-step routes (protocol.md §5.1: scope mfa:2fa). Each refuses every
// token it must not take (none, expired, wrongly scoped, forged, of an ended session), and a token
// scoped mfa:2fa does the work of a confirmed session.

describe.each(httpDialects())('/mfa two-step routes (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, manualClock: true });
  });
  afterAll(async () => t?.close());

  it.each([
    ['POST', '/mfa/totp/setup/verify', { code: '123456' }],
    ['POST', '/mfa/totp/setup/complete', {}],
    ['POST', '/mfa/totp/destroy', undefined],
    ['POST', '/mfa/totp/replace/start', {}],
    ['POST', '/mfa/totp/replace/confirm', { code: '123456' }],
    ['GET', '/mfa/recoveryCodes', undefined],
    ['POST', '/mfa/recoveryCodes', { recoveryCodes: ['abcdefgh12'] }],
    ['PUT', '/mfa/recoveryCodes', { recoveryCodes: ['abcdefgh12'] }],
  ] as const)('%s %s needs a token scoped mfa:2fa', { timeout: 120_000 }, async (method, path, body) => {
    await expectMfaGuarded(t, { method, path, ...(body !== undefined ? { body } : {}) }, '2fa');
  });

  it('sets up, uses, replaces and removes two-step with an mfa:2fa token', { timeout: 120_000 }, async () => {
    const acct = await verifiedAccount(t);
    let token = await mfaToken(t, acct, '2fa');
    // A second session, confirmed by email, with its own token issued before two-step is on.
    const copy = await t.client.sessionDuplicate(acct.sessionToken, {});
    const stale = await mfaToken(t, { sessionToken: copy.sessionToken, email: acct.email }, '2fa');
    const { secret } = await t.client.totpCreate(acct.sessionToken, {});
    const app = appFor(secret);
    expect(await t.client.mfaTotpSetupVerify(token, { code: codeAt(t, app) })).toEqual({ success: true });
    expect(await t.client.mfaTotpSetupComplete(token, {})).toEqual({ success: true });
    expect(await t.client.totpExists({ sessionToken: acct.sessionToken })).toEqual({ exists: true, verified: true });
    // The session the token was issued to proved the app: it is at AAL2 now, and the token works on.
    expect((await t.client.sessionStatus(acct.sessionToken)).details).toMatchObject({ sessionVerificationMethod: 'totp-2fa', sessionVerificationMeetsMinimumAAL: true });
    const { recoveryCodes } = await t.client.mfaRecoveryCodesGenerate(token);
    expect(recoveryCodes).toHaveLength(8);
    expect(await t.client.mfaRecoveryCodesSet(token, { recoveryCodes: ['abcdefgh12'] })).toEqual({ success: true });
    expect(await t.client.mfaRecoveryCodesUpdate(token, { recoveryCodes: ['abcdefgh34', 'abcdefgh56'] })).toEqual({ success: true });
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: true, count: 2 });

    // The other session never passed the second factor: once two-step is on, its token no longer
    // acts for the account, and it cannot get a new one.
    await expectError(t.client.mfaRecoveryCodesGenerate(stale), 'INVALID_MFA_TOKEN', 401);
    await expectError(t.client.mfaOtpRequest(copy.sessionToken, { action: '2fa' }), 'INSUFFICIENT_AAL');
    nextStep(t);
    token = await mfaToken(t, acct, '2fa');
    const replacement = await t.client.mfaTotpReplaceStart(token, {});
    const newApp = appFor(replacement.secret);
    nextStep(t);
    expect(await t.client.mfaTotpReplaceConfirm(token, { code: codeAt(t, newApp) })).toEqual({ success: true });
    await t.client.mfaTotpDestroy(token);
    expect(await t.client.totpExists({ sessionToken: acct.sessionToken })).toEqual({ exists: false, verified: false });
    expect(await t.client.recoveryCodesExists({ sessionToken: acct.sessionToken })).toEqual({ hasBackupCodes: false, count: 0 });
  });
});
