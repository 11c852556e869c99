import { bearerHeader, deriveTokenKeys, hawkHeader, TOKEN_TYPES, type TokenType } from '@tessera/protocol';
import type { ErrorBody } from '@tessera/errors';
import { TesseraApiError, TesseraConnectionError } from './errors.js';

/** How the SDK presents onepw tokens. */
export type TokenPresentation = 'bearer' | 'hawk';

export interface TransportOptions {
  /** The server origin (with or without `/v1`), e.g. `http://localhost:9000`. */
  baseUrl: string;
  /** Defaults to `bearer` (prefixed ids); `hawk` signs every request with the token's authKey. */
  presentation?: TokenPresentation;
  /** Retries after 503/201 ("server busy"), each after the server's retryAfter. Default 2. */
  busyRetries?: number;
  /** Longest wait honoured for one retry, in seconds. Default 30. */
  maxRetryAfterSeconds?: number;
  fetch?: typeof fetch;
  /** Seconds since the epoch; tests move it. Defaults to the system clock. */
  now?: () => number;
}

/**
 * A token as the SDK holds it: its kind and the 64-hex token data the server returned, or (kind
 * `jwt`) the MFA token of /mfa/otp/verify, sent as is.
 */
export interface TokenRef {
  type: TokenType | 'oauth' | 'jwt';
  value: string;
}

/**
 * The auth argument of a route that takes one of several token kinds, or a token optionally: the
 * kind by name (`{ sessionToken }`, `{ keyFetchToken }`, …) or an OAuth `{ accessToken }`.
 */
export type TokenArg = { [K in TokenType]: { [P in K]: string } }[TokenType] | { accessToken: string } | { mfaToken: string };

/** `{ sessionToken: value }` → `{ type: 'sessionToken', value }`; `{ accessToken }` → `{ type: 'oauth', value }`; `{ mfaToken }` → `{ type: 'jwt', value }`. */
export function tokenRef(auth: TokenArg): TokenRef {
  if ('accessToken' in auth) return { type: 'oauth', value: auth.accessToken };
  if ('mfaToken' in auth) return { type: 'jwt', value: auth.mfaToken };
  const type = (Object.keys(TOKEN_TYPES) as TokenType[]).find((t) => t in auth);
  if (!type) throw new TypeError(`no token in the auth argument (expected one of accessToken, ${Object.keys(TOKEN_TYPES).join(', ')})`);
  return { type, value: (auth as Record<TokenType, string>)[type] };
}

export interface RequestSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  token?: TokenRef | undefined;
  /** Further request headers (e.g. Tessera-Support-Secret). */
  headers?: Record<string, string> | undefined;
  /** `oauth`: an OAuth-server route, whose errors come from the OAuth catalogue. */
  catalogue?: 'oauth' | undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Node's network error codes, as a person would say them. */
const NETWORK_FAILURES: Record<string, string> = {
  ECONNREFUSED: 'connection refused: nothing listens on that port',
  ENOTFOUND: 'unknown host name',
  EAI_AGAIN: 'the host name could not be looked up',
  ECONNRESET: 'the connection was reset',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  UND_ERR_SOCKET: 'the connection closed before an answer',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
};



/** HTTP, token presentation, clock-skew correction and busy back-off, for every SDK method. */
export class Transport {
  readonly baseUrl: string;
  private readonly presentation: TokenPresentation;
  private readonly busyRetries: number;
  private readonly maxRetryAfter: number;
  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  /** Server time minus local time, learnt from 401/111 answers (seconds). */
  private skew = 0;
  private readonly keyCache = new Map<string, { tokenId: string; authKey: string }>();

  constructor(options: TransportOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.presentation = options.presentation ?? 'bearer';
    this.busyRetries = options.busyRetries ?? 2;
    this.maxRetryAfter = options.maxRetryAfterSeconds ?? 30;
    this.fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.now = options.now ?? (() => Date.now() / 1000);
  }

  private keysOf(type: TokenType, value: string) {
    const cacheKey = `${type}:${value}`;
    let keys = this.keyCache.get(cacheKey);
    if (!keys) {
      const derived = deriveTokenKeys(type, value);
      keys = { tokenId: derived.tokenId, authKey: derived.authKey };
      if (this.keyCache.size > 256) this.keyCache.clear();
      this.keyCache.set(cacheKey, keys);
    }
    return keys;
  }

  private authorization(spec: RequestSpec, url: URL, payload: string | undefined): string | undefined {
    const token = spec.token;
    if (!token) return undefined;
    // OAuth access tokens and MFA tokens are Bearer values as the server issued them.
    if (token.type === 'oauth' || token.type === 'jwt') return `Bearer ${token.value}`;
    const { tokenId, authKey } = this.keysOf(token.type, token.value);
    if (this.presentation === 'bearer') return bearerHeader(token.type, tokenId);
    return hawkHeader({
      method: spec.method, url, credentials: { id: tokenId, key: authKey },
      ts: Math.floor(this.now() + this.skew),
      ...(payload !== undefined ? { payload, contentType: 'application/json' } : {}),
    });
  }

  private unreachable(url: URL, err: TypeError): TesseraConnectionError {
    const cause = err.cause as { code?: unknown; message?: unknown; errors?: { code?: unknown }[] } | undefined;
    // Node names the failure in cause.code; with several addresses (localhost: ::1 and 127.0.0.1)
    // the cause is an AggregateError of one error per address.
    const code = String(cause?.code ?? cause?.errors?.[0]?.code ?? '');
    const why = NETWORK_FAILURES[code]
      // The Fetch standard's "bad ports" (1, 22, 25, 6000, …) are refused before connecting.
      ?? (cause?.message === 'bad port' ? 'the Fetch standard blocks this port; use another' : undefined)
      ?? (code || (typeof cause?.message === 'string' ? cause.message : err.message));
    return new TesseraConnectionError('unreachable', url.href, `no server answered at ${this.baseUrl} (${why})`, { cause: err });
  }

  private notTessera(url: URL, res: Response, json?: unknown): TesseraConnectionError {
    const type = res.headers.get('content-type') ?? '';
    const what = type.includes('html') ? 'an HTML page' : json === undefined ? `a ${type.split(';')[0] || 'non-JSON'} body` : 'JSON without a Tessera error number';
    return new TesseraConnectionError(
      'not-tessera', url.href,
      `${this.baseUrl} does not look like a Tessera server: ${url.pathname} answered HTTP ${res.status} with ${what}`,
      { status: res.status },
    );
  }

  async request<T>(spec: RequestSpec): Promise<T> {
    const url = new URL(`${this.baseUrl}${spec.path.startsWith('/.well-known') ? '' : '/v1'}${spec.path}`);
    for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const payload = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    let busyLeft = this.busyRetries;
    let skewRetried = false;
    for (;;) {
      const headers: Record<string, string> = { ...spec.headers, accept: 'application/json' };
      if (payload !== undefined) headers['content-type'] = 'application/json';
      const auth = this.authorization(spec, url, payload);
      if (auth) headers.authorization = auth;
      let res: Response;
      try {
        res = await this.fetchImpl(url, { method: spec.method, headers, ...(payload !== undefined ? { body: payload } : {}) });
      } catch (err) {
        // fetch rejects with a TypeError when no HTTP answer came (refused, unknown host, reset).
        if (err instanceof TypeError) throw this.unreachable(url, err);
        throw err;
      }
      const text = await res.text();
      let json: unknown;
      try {
        json = text ? JSON.parse(text) : {};
      } catch {
        json = undefined;
      }
      if (res.ok) {
        if (json === undefined) throw this.notTessera(url, res);
        return json as T;
      }
      let body: ErrorBody;
      if (json && typeof json === 'object' && typeof (json as { errno?: unknown }).errno === 'number') body = json as ErrorBody;
      // Proxies can answer without a catalogue body; map the common ones as the protocol does.
      else if (res.status === 429 || res.status === 406) body = { code: res.status, errno: res.status === 429 ? 114 : 125, error: res.statusText, message: res.statusText, info: '' };
      // Anything else without a catalogue errno is not Tessera speaking; its body (often an HTML
      // page) is no message for a person.
      else throw this.notTessera(url, res, json);
      if (body.errno === 111 && typeof body.serverTime === 'number' && !skewRetried && this.presentation === 'hawk' && spec.token) {
        this.skew = (body.serverTime as number) - this.now();
        skewRetried = true;
        continue;
      }
      const retryAfter = Number(body.retryAfter ?? res.headers.get('retry-after'));
      if (body.errno === 201 && busyLeft > 0 && retryAfter > 0 && retryAfter <= this.maxRetryAfter) {
        busyLeft--;
        // Spec: after 503/201 the client pauses for retryAfter seconds before trying again.
        await sleep(retryAfter * 1000);
        continue;
      }
      throw new TesseraApiError(body, spec.catalogue);
    }
  }
}
