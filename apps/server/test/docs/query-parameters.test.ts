import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTesseraError } from '@tessera/client';
import { randomHex } from '@tessera/protocol';
import { createTestServer, verifiedAccount, type TestServer } from '../harness.js';
import { repoRoot } from './pages.js';

// relying-parties/reference/query-parameters.md against the server: its table lists exactly the
// fields of POST /v1/oauth/authorization (from the OpenAPI document, which the route schema
// generates) plus keys_jwk, which stays in the URL; and the rules it states hold over HTTP.

const PAGE = join(repoRoot, 'apps/portal/docs/relying-parties/reference/query-parameters.md');
const CHALLENGE = createHash('sha256').update(randomHex(32)).digest('base64url');

describe('query-parameters.md matches the authorization route', () => {
  let t: TestServer;
  let sessionToken: string;
  const clientId = randomHex(8);
  beforeAll(async () => {
    t = await createTestServer();
    await t.app.services.oauth.registerClient(t.storage.db, { id: clientId, name: 'Params', redirectUris: ['https://rp.example/first', 'https://rp.example/second'], publicClient: true, trusted: false, canGrant: false, allowedScopes: ['profile'], createdAt: 1 });
    ({ sessionToken } = await verifiedAccount(t));
  }, 60_000);
  afterAll(async () => t?.close());

  /** The error a POST /v1/oauth/authorization with this body answers (by name), or `ok` with the answer. */
  async function authorize(body: Record<string, unknown>) {
    try {
      const reply = await t.client.oauthAuthorization(sessionToken, { client_id: clientId, code_challenge: CHALLENGE, code_challenge_method: 'S256', ...body } as never);
      return { ok: reply };
    } catch (err) {
      if (!isTesseraError(err)) throw err;
      return { error: err.errorName };
    }
  }

  it('lists the route\'s fields, and keys_jwk', async () => {
    const table = readFileSync(PAGE, 'utf8').split('\n').map((l) => /^\| `([a-z_]+)` \|/.exec(l)?.[1]).filter((n): n is string => !!n);
    const doc = (await (await fetch(`${t.url}/v1/openapi.json`)).json()) as {
      paths: Record<string, { post: { requestBody: { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> } } }>;
    };
    const schema = doc.paths['/v1/oauth/authorization']!.post.requestBody.content['application/json']!.schema;
    expect(table.filter((n) => n !== 'keys_jwk').sort()).toEqual(Object.keys(schema.properties).sort());
    expect(table).toContain('keys_jwk');
    expect(schema.required).toEqual(['client_id']);
  });

  it('holds the rules it states', async () => {
    // GET does not read its query: the same page, whatever it carries.
    const page = await fetch(`${t.url}/v1/authorization?client_id=nothex&response_type=token`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('Browser sign-in is not available yet');

    // Defaults: scope profile, the first registered redirect URI, state returned unchanged.
    const ok = await authorize({ state: 'x'.repeat(512) });
    expect(ok.ok).toMatchObject({ scope: 'profile', state: 'x'.repeat(512) });
    expect(ok.ok!.redirect).toMatch(/^https:\/\/rp\.example\/first\?code=[0-9a-f]{64}&state=x+&iss=http%3A%2F%2F127\.0\.0\.1%3A\d+$/);
    expect((await authorize({ redirect_uri: 'https://rp.example/second', scope: 'openid profile' })).ok).toMatchObject({ scope: 'openid profile' });

    expect(await authorize({ client_id: randomHex(8) })).toEqual({ error: 'UNKNOWN_CLIENT_ID' });
    expect(await authorize({ response_type: 'token' })).toEqual({ error: 'INVALID_RESPONSE_TYPE' });
    expect(await authorize({ response_type: 'id_token' })).toEqual({ error: 'INVALID_PARAMETER' });
    expect(await authorize({ redirect_uri: 'https://rp.example/first/' })).toEqual({ error: 'INCORRECT_REDIRECT_URI' });
    expect(await authorize({ redirect_uri: `https://rp.example/${'a'.repeat(240)}` })).toEqual({ error: 'INVALID_PARAMETER' });
    expect(await authorize({ scope: 'profile email' })).toEqual({ error: 'INVALID_SCOPES' });
    expect(await authorize({ state: 'x'.repeat(513) })).toEqual({ error: 'INVALID_PARAMETER' });
    expect(await authorize({ code_challenge: undefined, code_challenge_method: undefined })).toEqual({ error: 'MISSING_PKCE_PARAMETERS' });
    expect(await authorize({ code_challenge_method: undefined })).toEqual({ error: 'MISSING_PKCE_PARAMETERS' });
    expect(await authorize({ code_challenge_method: 'plain' })).toEqual({ error: 'INVALID_PARAMETER' });
    expect(await authorize({ acr_values: 'AAL2' })).toEqual({ error: 'INSUFFICIENT_ACR_VALUES' });
    expect((await authorize({ acr_values: 'AAL1 something-else' })).ok).toBeDefined();
    expect(await authorize({ nonce: 'n'.repeat(257) })).toEqual({ error: 'INVALID_PARAMETER' });
    expect(await authorize({ keys_jwe: 'a.b.c.d' })).toEqual({ error: 'INVALID_PARAMETER' });
    // Not in the body: keys_jwk, and other providers' parameters.
    for (const field of ['keys_jwk', 'prompt', 'login_hint', 'max_age']) {
      expect(await authorize({ [field]: 'x' }), field).toEqual({ error: 'INVALID_PARAMETER' });
    }
  });
});
