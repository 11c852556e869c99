import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearerHeader, deriveTokenKeys, randomHex, type TokenType } from '@tessera/protocol';
import { TesseraClient } from '@tessera/client';
// @ts-expect-error: a plain ES module of the benchmarks, without types
import { credentialKit, fuzz } from '../../../../bench/fuzz-lib.mjs';
import { createTestServer, type TestServer } from '../harness.js';

// The short run of the schema-driven fuzzer (issue 9): a few hundred requests generated from
// openapi.json, valid and broken, with and without credentials of each kind, made again as the
// fuzz kills them. No answer may be a 5xx, and every error must be a catalogue error its operation
// declares. The long run (≥ 10,000 requests) is `node bench/fuzz.mjs`.
const STUB_CLIENT = '6b6b6b6b6b6b6b6b';
// The credential kit's requests come from an address rate limiting ignores; the fuzz from 16 others.
const KIT_ADDRESS = '192.0.2.1';
const FUZZ_ADDRESSES = Array.from({ length: 16 }, (_, i) => `198.51.100.${i + 1}`);

interface Kit {
  credentials: Record<string, unknown>;
  init(): Promise<void>;
  renewals: Record<string, { ok: number; failed: number; lastError?: string }>;
}

describe('fuzzing the API from its OpenAPI document (short run)', () => {
  let t: TestServer;
  let kit: Kit;
  beforeAll(async () => {
    t = await createTestServer({
      env: {
        ACCOUNT_STUB_CLIENT_IDS: STUB_CLIENT, SCRYPT_MAX_PENDING: '1000', TRUST_PROXY: 'true', RATE_LIMIT_IGNORE_IPS: KIT_ADDRESS,
        // Linked accounts on (a provider that is off answers 503/202 by design): fuzzed tokens fail
        // their checks (400/107) before any key is fetched from this address, where nothing listens.
        LINKED_ACCOUNT_GOOGLE_ENABLED: 'true', LINKED_ACCOUNT_GOOGLE_CLIENT_IDS: 'fuzz', LINKED_ACCOUNT_GOOGLE_JWKS_URL: 'http://127.0.0.1:9/keys',
        LINKED_ACCOUNT_APPLE_ENABLED: 'true', LINKED_ACCOUNT_APPLE_CLIENT_IDS: 'fuzz', LINKED_ACCOUNT_APPLE_JWKS_URL: 'http://127.0.0.1:9/keys',
        LINKED_ACCOUNT_APPLE_NOTIFICATIONS_ENABLED: 'true',
        // Support tickets on (off answers 503/202 by design): each is stored, and its delivery to this
        // address, where nothing listens, fails and is retried later.
        SUPPORT_WEBHOOK_URL: 'http://127.0.0.1:9/tickets', SUPPORT_WEBHOOK_SECRET: 'f'.repeat(32),
      },
    });
    const secret = randomHex(32);
    await t.app.services.oauth.registerClient(t.storage.db, {
      id: STUB_CLIENT, name: 'fuzz', imageUri: '', redirectUri: 'https://fuzz.example/', secret, trusted: false, publicClient: false, canGrant: false, allowedScopes: [], createdAt: 1,
    });
    const client = new TesseraClient({
      baseUrl: t.url,
      fetch: (input, init = {}) => fetch(input, { ...init, headers: { ...(init.headers as Record<string, string>), 'x-forwarded-for': KIT_ADDRESS } }),
    });
    kit = credentialKit({
      client, stub: { clientId: STUB_CLIENT, clientSecret: secret },
      bearer: (type: TokenType, data: string) => bearerHeader(type, deriveTokenKeys(type, data).tokenId),
      mail: {
        mark: () => t.mail.messages.length,
        code: async (email: string, template: string, since: number) => (await t.mail.waitFor(email, template, since)).code,
      },
    }) as Kit;
    await kit.init();
  });
  afterAll(async () => t?.close());

  it('answers 600 generated requests without a 5xx, each error a declared catalogue error', async () => {
    const doc = JSON.parse(readFileSync(new URL('../../../../openapi.json', import.meta.url), 'utf8'));
    const report = await fuzz({
      doc, baseUrl: t.url, credentials: kit.credentials, requests: 600, seed: 20261124, timeLimitMs: 120_000, concurrency: 4, clientAddresses: FUZZ_ADDRESSES,
    });
    expect(report.fiveXX).toEqual([]);
    expect(report.notCatalogue).toEqual([]);
    expect(report.undeclared).toEqual([]);
    expect(report.sent).toBeGreaterThan(300);
    // The generator reaches past validation: some requests succeed.
    expect(report.byStatus[200] ?? 0).toBeGreaterThan(20);
    // And past authentication: credentials the fuzz killed were made again, so few requests sent
    // with one were refused as unauthenticated.
    expect(report.authenticated.sent).toBeGreaterThan(100);
    expect(report.authenticated.unauthorized / report.authenticated.sent).toBeLessThan(0.2);
    expect(Object.values(kit.renewals).reduce((n, r) => n + r.ok, 0)).toBeGreaterThan(Object.keys(kit.renewals).length);
  }, 240_000);
});
