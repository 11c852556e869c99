import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { isTesseraError, type TesseraApiError } from '@tessera/client';

/** Awaits a rejection and checks it is the named catalogue error (and status). */
export async function expectError(promise: Promise<unknown>, name: string, status?: number): Promise<TesseraApiError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  if (err === null) throw new Error(`expected ${name}, got success`);
  if (!isTesseraError(err)) throw err;
  expect(err.errorName, err.message).toBe(name);
  if (status) expect(err.code).toBe(status);
  return err;
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
