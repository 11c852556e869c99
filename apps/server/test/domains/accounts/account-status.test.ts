import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveTokenKeys, hawkHeader } from '@tessera/protocol';
import { createTestServer, httpDialects, newEmail, type TestServer } from '../../harness.js';

// Issue 9, hole 12: GET /account/status needs a session or ?uid=. OpenAPI cannot make a parameter
// required only without credentials, so the document says the rule as far as it can: in the
// description and the parameter's, in the security alternatives (a session, or none), and by
// declaring 400/108. Every request a generator can build from that document gets a 200 or a
// declared error (in test mode an undeclared one would come back as a 500).

interface Operation {
  description: string;
  security: Record<string, string[]>[];
  parameters: { name: string; in: string; required: boolean; description: string }[];
  'x-errors': { status: number; errno: number }[];
}

describe.each(httpDialects())('GET /account/status: a session or a uid (%s)', (dialect) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await createTestServer({ dialect });
  });
  afterAll(async () => t?.close());

  it('says the rule in its OpenAPI operation', async () => {
    const doc = (await t.app.server.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    const op = doc.paths['/v1/account/status']!.get!;
    expect(op.security).toEqual([{ sessionTokenBearer: [] }, { sessionTokenHawk: [] }, {}]);
    const uid = op.parameters.find((p) => p.name === 'uid')!;
    expect(uid).toMatchObject({ in: 'query', required: false });
    expect(uid.description).toMatch(/Required when no session is sent/);
    expect(op.description).toMatch(/a session .* or `\?uid=` without one/);
    expect(op.description).toMatch(/400\/108/);
    expect(op['x-errors']).toContainEqual(expect.objectContaining({ status: 400, errno: 108 }));
  });

  it('answers every combination a generator can send with 200 or the declared 400/108', async () => {
    const { uid, sessionToken } = await t.accounts.signUp(newEmail('status'), 'account status password');
    const keys = deriveTokenKeys('sessionToken', sessionToken);
    const url = (query: string) => `/v1/account/status${query}`;
    const bearer = () => `Bearer fxs_${keys.tokenId}`;
    const hawk = (query: string) => hawkHeader({ method: 'GET', url: new URL(url(query), t.url), credentials: { id: keys.tokenId, key: keys.authKey } });
    const send = async (query: string, authorization?: (q: string) => string) => {
      const r = await t.app.server.inject({ method: 'GET', url: url(query), headers: authorization ? { authorization: authorization(query) } : {} });
      return { status: r.statusCode, body: r.json() as Record<string, unknown> };
    };
    const unknown = 'ABCDEF0123456789abcdef0123456789';
    for (const query of ['', `?uid=${uid}`, `?uid=${unknown}`]) {
      const withBearer = await send(query, bearer);
      expect(withBearer).toMatchObject({ status: 200, body: { exists: true, hasPassword: true } });
      expect(Object.keys(withBearer.body).sort()).toEqual(['exists', 'hasPassword', 'locale']);
    }
    // Hawk last: from its first Hawk request on, a token no longer works as Bearer.
    for (const query of ['', `?uid=${unknown}`]) expect((await send(query, hawk)).status).toBe(200);
    expect(await send(`?uid=${uid}`)).toEqual({ status: 200, body: { exists: true } });
    expect(await send(`?uid=${unknown}`)).toEqual({ status: 200, body: { exists: false } });
    const neither = await send('');
    expect(neither.status).toBe(400);
    expect(neither.body).toMatchObject({ errno: 108, param: 'uid' });
    expect(t.app.undeclaredErrors).toEqual([]);
  });
});
