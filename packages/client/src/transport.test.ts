import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { PasswordPolicyError, TesseraApiError, TesseraConnectionError } from './errors.js';
import { TesseraAccounts } from './flows.js';
import { TesseraClient } from './generated/client.js';

// What the SDK throws when no Tessera server answers: a connection error naming the URL, never the
// body of someone else's page; and a refused password before any request.

const PAGE = '<!doctype html><html><head><title>Welcome to nginx!</title></head><body><h1>Welcome</h1></body></html>';

function answering(status: number, body: string, type: string) {
  let calls = 0;
  const fetch: typeof globalThis.fetch = async () => {
    calls++;
    return new Response(body, { status, headers: { 'content-type': type } });
  };
  return { client: new TesseraClient({ baseUrl: 'http://example.test', fetch }), calls: () => calls };
}

/** A port nothing listens on: bound by the system, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the transport without a Tessera server', () => {
  it('names the URL and the cause when nothing listens', async () => {
    const port = await closedPort();
    const client = new TesseraClient({ baseUrl: `http://127.0.0.1:${port}` });
    const err = await client.accountStatus(undefined, { uid: 'a'.repeat(32) }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TesseraConnectionError);
    expect(err).toMatchObject({ reason: 'unreachable', message: `no server answered at http://127.0.0.1:${port} (connection refused: nothing listens on that port)` });
  });

  it('says an HTML answer is not Tessera, with its status, and keeps the page out of the message', async () => {
    const { client } = answering(404, PAGE, 'text/html; charset=utf-8');
    const err = await client.accountCredentialsStatus({ email: 'a@example.com' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TesseraConnectionError);
    expect(err).toMatchObject({ reason: 'not-tessera', status: 404 });
    expect((err as Error).message).toBe('http://example.test does not look like a Tessera server: /v1/account/credentials/status answered HTTP 404 with an HTML page');
  });

  it('refuses a 200 that is not JSON and an error without a catalogue errno', async () => {
    const ok = await answering(200, PAGE, 'text/html').client.accountCredentialsStatus({ email: 'a@example.com' }).catch((e: unknown) => e);
    expect(ok).toMatchObject({ name: 'TesseraConnectionError', status: 200 });
    const json = await answering(500, '{"error":"boom"}', 'application/json').client.accountCredentialsStatus({ email: 'a@example.com' }).catch((e: unknown) => e);
    expect((json as Error).message).toMatch(/answered HTTP 500 with JSON without a Tessera error number$/);
  });

  it('still maps a proxy\'s bare 429 to errno 114, without its body', async () => {
    const err = await answering(429, PAGE, 'text/html').client.accountCredentialsStatus({ email: 'a@example.com' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TesseraApiError);
    expect(err).toMatchObject({ errno: 114, code: 429 });
    expect((err as Error).message).not.toContain('<');
  });
});

describe('the password policy in the flows', () => {
  it('refuses a short password or the address itself before sending anything', async () => {
    const { client, calls } = answering(200, '{}', 'application/json');
    const accounts = new TesseraAccounts(client);
    const short = await accounts.signUp('me@example.com', 'abc').catch((e: unknown) => e);
    expect(short).toBeInstanceOf(PasswordPolicyError);
    expect(short).toMatchObject({ problem: 'too-short', message: 'The password must have at least 8 characters.' });
    await expect(accounts.resetPassword('a'.repeat(64), 'me@example.com', 'Me@Example.com')).rejects.toMatchObject({ problem: 'is-email' });
    await expect(accounts.changePassword('a'.repeat(64), 'me@example.com', 'old password', '1234567')).rejects.toMatchObject({ problem: 'too-short' });
    expect(calls()).toBe(0);
  });
});

describe('errors of the two catalogues', () => {
  const body = (code: number, errno: number) => JSON.stringify({ code, errno, error: 'x', message: 'm', info: '' });

  it('names an OAuth-server route\'s errors from the OAuth catalogue, its twin\'s from the auth one', async () => {
    const oauth = await answering(400, body(400, 101), 'application/json').client.token({ client_id: 'a'.repeat(16) }).catch((e: unknown) => e);
    expect(oauth).toMatchObject({ name: 'TesseraApiError', catalogue: 'oauth', errorName: 'UNKNOWN_CLIENT', errno: 101 });
    const twin = await answering(400, body(400, 101), 'application/json').client.oauthToken(undefined, { client_id: 'a'.repeat(16) }).catch((e: unknown) => e);
    expect(twin).toMatchObject({ catalogue: 'auth', errorName: 'ACCOUNT_EXISTS' });
  });

  it('keeps the shared shapes on OAuth-server routes: 429/114 is THROTTLED', async () => {
    const err = await answering(429, body(429, 114), 'application/json').client.token({ client_id: 'a'.repeat(16) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ catalogue: 'auth', errorName: 'THROTTLED' });
  });
});
