import { fromHex, randomBytes, toBase64, toBase64Url, utf8 } from './bytes.js';
import { hmacSha256, sha256 } from './kdf.js';

// Hawk 1 request signing (protocol.md §2.2), used with the onepw token's authKey as the MAC key.

export interface HawkArtifacts {
  method: string;
  /** Path plus query, e.g. `/v1/session/status?x=1`. */
  resource: string;
  host: string;
  port: number;
  ts: number;
  nonce: string;
  hash?: string;
  ext?: string;
  app?: string;
  dlg?: string;
}

export function hawkNormalizedString(a: HawkArtifacts): string {
  let s = `hawk.1.header\n${a.ts}\n${a.nonce}\n${a.method.toUpperCase()}\n${a.resource}\n${a.host.toLowerCase()}\n${a.port}\n${a.hash ?? ''}\n`;
  s += `${(a.ext ?? '').replace(/\\/g, '\\\\').replace(/\n/g, '\\n')}\n`;
  if (a.app) s += `${a.app}\n${a.dlg ?? ''}\n`;
  return s;
}

/** base64(SHA256("hawk.1.payload\n" + contentType + "\n" + body + "\n")), content type without parameters. */
export function hawkPayloadHash(contentType: string, payload: string | Uint8Array): string {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const body = typeof payload === 'string' ? utf8(payload) : payload;
  const prefix = utf8(`hawk.1.payload\n${type}\n`);
  const all = new Uint8Array(prefix.length + body.length + 1);
  all.set(prefix);
  all.set(body, prefix.length);
  all[all.length - 1] = 10;
  return toBase64(sha256(all));
}

export function hawkMac(key: Uint8Array | string, artifacts: HawkArtifacts): string {
  const k = typeof key === 'string' ? utf8(key) : key;
  return toBase64(hmacSha256(k, utf8(hawkNormalizedString(artifacts))));
}

export interface HawkRequest {
  method: string;
  url: string | URL;
  /** Token id (hex) and the MAC key: the onepw authKey as hex, or raw bytes. */
  credentials: { id: string; key: string | Uint8Array };
  payload?: string;
  contentType?: string;
  /** Seconds since the epoch; defaults to now (corrected by a known clock offset). */
  ts?: number;
  nonce?: string;
  ext?: string;
}

/** Builds the `Authorization: Hawk …` header for a request. */
export function hawkHeader(req: HawkRequest): string {
  const url = typeof req.url === 'string' ? new URL(req.url) : req.url;
  const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  const key = typeof req.credentials.key === 'string' ? fromHex(req.credentials.key) : req.credentials.key;
  const artifacts: HawkArtifacts = {
    method: req.method,
    resource: url.pathname + url.search,
    host: url.hostname,
    port,
    ts: req.ts ?? Math.floor(Date.now() / 1000),
    nonce: req.nonce ?? toBase64Url(randomBytes(6)),
    ...(req.payload !== undefined ? { hash: hawkPayloadHash(req.contentType ?? 'application/json', req.payload) } : {}),
    ...(req.ext ? { ext: req.ext } : {}),
  };
  const mac = hawkMac(key, artifacts);
  let header = `Hawk id="${req.credentials.id}", ts="${artifacts.ts}", nonce="${artifacts.nonce}"`;
  if (artifacts.hash) header += `, hash="${artifacts.hash}"`;
  if (artifacts.ext) header += `, ext="${artifacts.ext}"`;
  return `${header}, mac="${mac}"`;
}

const HAWK_KEYS = new Set(['id', 'ts', 'nonce', 'hash', 'ext', 'mac', 'app', 'dlg']);
export const HAWK_MAX_HEADER_LENGTH = 4096;

/**
 * Parses `Hawk id="…", …` into its attributes; returns null when the header breaks the grammar
 * (unknown or repeated attribute, a quote or backslash inside a value, junk between attributes).
 * A plain scan rather than a regex loop: it runs on every Hawk request.
 */
export function parseHawkHeader(header: string): Record<string, string> | null {
  if (header.length > HAWK_MAX_HEADER_LENGTH || !/^Hawk\s/i.test(header)) return null;
  const attrs: Record<string, string> = {};
  let i = 5;
  const n = header.length;
  for (;;) {
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
    if (i >= n) return attrs;
    const eq = header.indexOf('="', i);
    if (eq < 0) return null;
    const key = header.slice(i, eq);
    if (!/^\w+$/.test(key) || !HAWK_KEYS.has(key) || key in attrs) return null;
    const close = header.indexOf('"', eq + 2);
    if (close < 0) return null;
    const value = header.slice(eq + 2, close);
    if (value.includes('\\')) return null;
    attrs[key] = value;
    i = close + 1;
    while (i < n && (header[i] === ' ' || header[i] === '\t')) i++;
    if (i < n) {
      if (header[i] !== ',') return null;
      i++;
    }
  }
}
