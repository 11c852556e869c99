import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deriveTokenKeys } from '@tessera/protocol';
import { isTesseraError, TesseraApiError } from './errors.js';
import { TesseraClient, type ErrorOf } from './generated/client.js';

// The generated client against the committed contract: one method per operation, and the arguments
// of each auth shape land where the route expects them (checked with a fetch that records).

interface Operation {
  operationId: string;
}
const doc = JSON.parse(readFileSync(new URL('../../../openapi.json', import.meta.url), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};
const operationIds = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));

interface Sent {
  method: string;
  url: URL;
  authorization: string | null;
  body: unknown;
}

/** A client whose fetch records each request and answers `{}`. */
function recordingClient() {
  const sent: Sent[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({
      method: init?.method ?? 'GET',
      url: new URL(String(input)),
      authorization: headers.get('authorization'),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    });
    return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { client: new TesseraClient({ baseUrl: 'https://accounts.example/v1', fetch }), sent };
}

const sessionToken = 'a'.repeat(64);
const sessionBearer = `Bearer fxs_${deriveTokenKeys('sessionToken', sessionToken).tokenId}`;

describe('the generated TesseraClient', () => {
  it('has one method per operation of openapi.json', () => {
    expect(operationIds.length).toBeGreaterThan(30);
    expect(new Set(operationIds).size).toBe(operationIds.length);
    const missing = operationIds.filter((id) => typeof (TesseraClient.prototype as unknown as Record<string, unknown>)[id] !== 'function');
    expect(missing).toEqual([]);
  });

  it('sends a session-token route with its token, body and query', async () => {
    const { client, sent } = recordingClient();
    await client.sessionReauth(sessionToken, { email: 'a@example.com', authPW: 'b'.repeat(64) }, { keys: true });
    const [req] = sent;
    expect(req?.method).toBe('POST');
    expect(req?.url.pathname).toBe('/v1/session/reauth');
    expect(req?.url.searchParams.get('keys')).toBe('true');
    expect(req?.body).toEqual({ email: 'a@example.com', authPW: 'b'.repeat(64) });
    expect(req?.authorization).toBe(sessionBearer);
  });

  it('sends an empty body when a route has no required field and none is given', async () => {
    const { client, sent } = recordingClient();
    await client.sessionDestroy(sessionToken);
    expect(sent[0]?.body).toEqual({});
    expect(sent[0]?.authorization).toBe(sessionBearer);
  });

  it('sends an OAuth access token as a plain Bearer', async () => {
    const { client, sent } = recordingClient();
    await client.accountSetPassword('c'.repeat(64), { authPW: 'b'.repeat(64) }, { sendVerifyEmail: false });
    expect(sent[0]?.url.pathname).toBe('/v1/account/set_password');
    expect(sent[0]?.url.search).toBe('?sendVerifyEmail=false');
    expect(sent[0]?.authorization).toBe(`Bearer ${'c'.repeat(64)}`);
    await client.accountProfile({ accessToken: 'd'.repeat(64) });
    await client.accountProfile({ sessionToken });
    expect(sent.slice(1).map((r) => [r.method, r.url.pathname, r.authorization])).toEqual([
      ['GET', '/v1/account/profile', `Bearer ${'d'.repeat(64)}`],
      ['GET', '/v1/account/profile', sessionBearer],
    ]);
  });

  it('sends an optional-auth route with its token or anonymously with its query', async () => {
    const { client, sent } = recordingClient();
    await client.accountStatus({ sessionToken });
    await client.accountStatus(undefined, { uid: 'f'.repeat(32) });
    expect(sent.map((r) => [r.method, r.url.pathname + r.url.search, r.authorization, r.body])).toEqual([
      ['GET', '/v1/account/status', sessionBearer, undefined],
      ['GET', `/v1/account/status?uid=${'f'.repeat(32)}`, null, undefined],
    ]);
  });

  it('reaches /.well-known routes outside /v1, without auth', async () => {
    const { client, sent } = recordingClient();
    await client.publicKeys();
    expect(sent[0]?.url.href).toBe('https://accounts.example/.well-known/public-keys');
    expect(sent[0]?.authorization).toBeNull();
  });

  it('types the error names each operation declares', () => {
    const err: unknown = new TesseraApiError({ code: 400, errno: 103, error: 'Bad Request', message: 'Incorrect password', info: '' });
    expect(isTesseraError<ErrorOf<'accountLogin'>>(err, 'INCORRECT_PASSWORD')).toBe(true);
    // @ts-expect-error accountLogin does not answer ACCOUNT_EXISTS
    expect(isTesseraError<ErrorOf<'accountLogin'>>(err, 'ACCOUNT_EXISTS')).toBe(false);
    if (!isTesseraError(err, 'INCORRECT_PASSWORD')) throw new Error('expected INCORRECT_PASSWORD');
    const name: 'INCORRECT_PASSWORD' = err.errorName;
    expect(name).toBe('INCORRECT_PASSWORD');
  });
});
