import { createECDH, randomBytes } from 'node:crypto';
import type { DialectName } from '../../../src/storage/db.js';
import { createTestServer, verifiedAccount, type TestServer } from '../../harness.js';
import { PushService } from '../../push-service.js';

// The device suites' server (devices.test.ts, device-push.test.ts): a manual clock, a local push
// service it trusts, and the accounts they start from.

/** A Web Push subscription's keys as a browser makes them (RFC 8291 §3). */
export function subscriptionKeys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { pushPublicKey: ecdh.getPublicKey().toString('base64url'), pushAuthKey: randomBytes(16).toString('base64url') };
}

export const hexId = (n = 32) => randomBytes(n / 2).toString('hex');

/**
 * The server and its push service. Time moves by hand: idle expiry is tested by moving it. The
 * local push service is allowed and trusted by configuration, as an operator's private push service
 * would be. Sign-ins to addresses starting "confirm." always need confirmation.
 */
export async function startDevicesServer(dialect: DialectName) {
  const push = new PushService();
  const PUSH = `${await push.start()}/wpush/`;
  const t = await createTestServer({
    dialect, manualClock: true,
    env: { PUSH_ALLOWED_HOSTS: push.host, PUSH_CA_FILE: push.caFile, SIGNIN_CONFIRMATION_FORCED_EMAIL_REGEX: '^confirm\\.' },
  });
  const close = async () => {
    await t.close();
    await push.stop();
  };
  return { t, push, PUSH, close };
}

/** A confirmed account signed in twice: two sessions. */
export async function twoSessions(t: TestServer) {
  const acct = await verifiedAccount(t);
  const second = await t.accounts.signIn(acct.email, acct.password);
  return { acct, a: acct.sessionToken, b: second.sessionToken };
}
