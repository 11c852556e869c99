import { Secret, TOTP } from 'otpauth';
import { verifiedAccount, type TestServer } from '../../harness.js';

// Two-step authentication in tests: otpauth is the independent RFC 6238 generator (the "phone").

export function appFor(secret: string): TOTP {
  return new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
}

/** The code the app shows at the server's time (the manual clock when the test has one). */
export function codeAt(t: TestServer, app: TOTP, offsetSteps = 0): string {
  const now = t.clock ? t.clock.now() : Date.now();
  return app.generate({ timestamp: now + offsetSteps * 30_000 });
}

/** Moves the manual clock to the start of the next 30-second step, so a new code is due. */
export function nextStep(t: TestServer): void {
  const now = t.clock!.now();
  t.clock!.advance(30_000 - (now % 30_000) + 1);
}

/** A confirmed account with two-step on (its session at AAL2) and the app that makes its codes. */
export async function twoStepAccount(t: TestServer, password = 'two step password', options: { keys?: boolean } = {}) {
  const acct = await verifiedAccount(t, password, options);
  const { secret, qrCodeUrl } = await t.client.totpCreate(acct.sessionToken, {});
  const app = appFor(secret);
  const { success } = await t.client.totpSetupVerify(acct.sessionToken, { code: codeAt(t, app) });
  if (!success) throw new Error('setup code refused');
  await t.client.totpSetupComplete(acct.sessionToken, {});
  return { ...acct, secret, qrCodeUrl, app };
}
