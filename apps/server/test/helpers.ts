import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { isTesseraError, type TesseraApiError } from '@tessera/client';
import { AUTH_ERRORS, OAUTH_ERRORS, type AuthErrorName, type OAuthErrorName } from '@tessera/errors';

/**
 * Checks that a call failed with the named catalogue error: an SDK call's rejection (awaited), or
 * a raw reply (its status, the body's code and errno, and the body's shape). `status` defaults to
 * the catalogue's for that name.
 */
export function expectError(reply: Reply, name: AuthErrorName, status?: number): void;
export function expectError(promise: Promise<unknown>, name: AuthErrorName | OAuthErrorName, status?: number): Promise<TesseraApiError>;
export function expectError(target: Reply | Promise<unknown>, name: AuthErrorName | OAuthErrorName, status?: number): void | Promise<TesseraApiError> {
  if (!(target instanceof Promise)) {
    const def = AUTH_ERRORS[name as AuthErrorName];
    const r = target;
    expect(r.status, r.text).toBe(status ?? def.status);
    expect(r.headers.get('content-type'), r.text).toMatch(/^application\/json/);
    expect(r.body.code, r.text).toBe(r.status);
    expect(r.body.errno, r.text).toBe(def.errno);
    expect(typeof r.body.message).toBe('string');
    expect(typeof r.body.info).toBe('string');
    return;
  }
  return target.then(() => null, (e: unknown) => e).then((err) => {
    if (err === null) throw new Error(`expected ${name}, got success`);
    if (!isTesseraError(err)) throw err;
    expect(err.errorName, err.message).toBe(name);
    if (status) expect(err.code).toBe(status);
    return err;
  });
}

/** Checks a raw reply of an OAuth-server route: the OAuth catalogue's status and errno, the shape, the info anchor. */
export function expectOAuthError(r: Reply, name: OAuthErrorName): void {
  const def = OAUTH_ERRORS[name];
  expect(r.status, r.text).toBe(def.status);
  expect(r.headers.get('content-type'), r.text).toMatch(/^application\/json/);
  expect(r.body, r.text).toMatchObject({ code: def.status, errno: def.errno });
  expect(r.body.info).toMatch(new RegExp(`#oauth-errno-${def.errno}$`));
}

/** A raw HTTP answer, for requests the typed SDK would not send. */
export interface Reply {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
  text: string;
}

export interface RawRequest {
  body?: unknown;
  /** Sent as is instead of JSON.stringify(body). */
  raw?: string;
  contentType?: string;
  query?: Record<string, string>;
  authorization?: string;
}

/** Sends `method /v1<path>` (or `<path>` when it starts with `/.well-known`) to a server's origin. */
export async function rawRequest(origin: string, method: string, path: string, options: RawRequest = {}): Promise<Reply> {
  const url = new URL(`${origin}${path.startsWith('/v1') || path.startsWith('/.well-known') ? '' : '/v1'}${path}`);
  for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
  const headers: Record<string, string> = { accept: 'application/json' };
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
  if (options.authorization !== undefined) headers.authorization = options.authorization;
  const res = await fetch(url, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = {};
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** `n` random hex characters. */
export const hex = (n: number) => randomBytes(Math.ceil(n / 2)).toString('hex').slice(0, n);

/** A TCP port free on 127.0.0.1 right now (for a server process a test starts itself). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as { port: number };
  await new Promise((resolve) => s.close(resolve));
  return port;
}
