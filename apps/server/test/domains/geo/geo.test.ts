import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestServer, httpDialects, verifiedAccount, type TestServer } from '../../harness.js';
import { expectError, rawRequest } from '../../helpers.js';
import { BERLIN, testGeoDatabase } from '../../mmdb-writer.js';

// Test requests come from 127.0.0.1, which the generated database places in Berlin.

describe.each(httpDialects())('locations and geo eligibility (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect, env: { GEOIP_DATABASE_FILE: testGeoDatabase(), GEO_ELIGIBILITY_RULES: 'vpn:DE,AT;recovery-phone:US' } });
  }, 120_000);
  afterAll(async () => t?.close());

  it('answers eligibility from the caller\'s country and the feature\'s rule', async () => {
    const acct = await verifiedAccount(t);
    expect(await t.client.geoEligibility(acct.sessionToken, 'vpn')).toEqual({ eligible: true, region: 'de' });
    expect(await t.client.geoEligibility(acct.sessionToken, 'recovery-phone')).toEqual({ eligible: false, region: 'de' });
    expect(await t.client.geoEligibility(acct.sessionToken, 'not-configured')).toEqual({ eligible: false, region: 'de' });
  }, 120_000);

  it('refuses a malformed feature name and a missing session', async () => {
    const acct = await verifiedAccount(t);
    await expectError(t.client.geoEligibility(acct.sessionToken, 'VPN!'), 'INVALID_PARAMETER');
    await expectError(t.client.geoEligibility(acct.sessionToken, 'x'.repeat(65)), 'INVALID_PARAMETER');
    expectError(await rawRequest(t.url, 'GET', '/geo/eligibility/vpn'), 'INVALID_TOKEN');
  }, 120_000);

  it('shows where sessions and devices were opened, and where security events came from', async () => {
    const acct = await verifiedAccount(t);
    await t.client.accountDevice(acct.sessionToken, { name: 'My laptop', type: 'desktop' });
    const clients = await t.client.accountAttachedClients(acct.sessionToken);
    expect(clients.find((c) => c.isCurrentSession)!.location).toEqual(BERLIN);
    const devices = await t.client.accountDevices(acct.sessionToken);
    expect(devices[0]!.location).toEqual(BERLIN);
    const events = await t.client.securityEvents(acct.sessionToken);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expect(e.location).toEqual(BERLIN);
  }, 120_000);
});

describe('without a location database', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ env: { GEO_ELIGIBILITY_RULES: 'vpn:DE' } });
  }, 120_000);
  afterAll(async () => t?.close());

  it('locations are empty and every feature is ineligible', async () => {
    const acct = await verifiedAccount(t);
    expect(await t.client.geoEligibility(acct.sessionToken, 'vpn')).toEqual({ eligible: false, region: null });
    const clients = await t.client.accountAttachedClients(acct.sessionToken);
    expect(clients[0]!.location).toEqual({});
    const events = await t.client.securityEvents(acct.sessionToken);
    for (const e of events) expect(e.location).toBeUndefined();
  }, 120_000);
});
