import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { hawkNormalizedString, parseHawkHeader, type HawkArtifacts } from '@tessera/protocol';
import { appError } from '@tessera/errors';

// Full Hawk verification (protocol.md §2.2; Tessera verifies what FxA's current server skips):
// the MAC over the configured public host and port, the payload hash when one is sent, the
// timestamp window, and nonce replay. HMAC and SHA-256 run synchronously: they take microseconds
// and must not queue on libuv's thread pool.

export interface HawkConfig {
  /** From PUBLIC_URL: the host and port clients sign, whatever Host header a proxy forwards. */
  host: string;
  port: number;
  skewSeconds: number;
}

export interface HawkRequestParts {
  method: string;
  /** Path and query as received. */
  url: string;
  contentType: string | undefined;
  rawBody: string | undefined;
}

/** Where seen nonces are remembered: in process, or in Redis when instances must share them. */
export interface NonceStore {
  /** Records the key until `expiresAt`; resolves false when it was already recorded and live. */
  add(key: string, expiresAt: number, now: number): boolean | Promise<boolean>;
}

/**
 * Remembers nonces per token for the length of the timestamp window. Bounded: a ring of insertion
 * order beside the lookup map; entries leave from the oldest end when they expire or when the
 * ring is full, so every add is O(1) however full the cache is.
 */
export class NonceCache implements NonceStore {
  /** key → expiry in ms after `base`: small integers, so the map stores no boxed numbers. */
  private readonly seen = new Map<string, number>();
  private readonly base = Date.now();
  private readonly keys: (string | undefined)[];
  private readonly expiries: Float64Array;
  private head = 0;
  private count = 0;

  constructor(private readonly max: number) {
    this.keys = new Array(max);
    this.expiries = new Float64Array(max);
  }

  add(key: string, expiresAtMs: number, nowMs: number): boolean {
    const expiresAt = expiresAtMs - this.base;
    const now = nowMs - this.base;
    const prior = this.seen.get(key);
    if (prior !== undefined && prior > now) return false;
    // Drop expired entries from the oldest end, then make room if the ring is full.
    while (this.count > 0) {
      const exp = this.expiries[this.head]!;
      if (exp > now && this.count < this.max) break;
      const oldest = this.keys[this.head]!;
      // The map may hold a newer entry for the same key (re-added after expiry): keep that one.
      if (this.seen.get(oldest) === exp) this.seen.delete(oldest);
      this.keys[this.head] = undefined;
      this.head = (this.head + 1) % this.max;
      this.count--;
    }
    this.seen.set(key, expiresAt);
    const tail = (this.head + this.count) % this.max;
    this.keys[tail] = key;
    this.expiries[tail] = expiresAt;
    this.count++;
    return true;
  }

  get size(): number {
    return this.seen.size;
  }
}

export interface ParsedHawk {
  id: string;
  attrs: Record<string, string>;
}

const REQUIRED = ['id', 'ts', 'nonce', 'mac'] as const;

export function parseHawk(header: string): ParsedHawk {
  const attrs = parseHawkHeader(header);
  if (!attrs) throw appError('INVALID_TOKEN', { detail: 'Malformed Hawk header' });
  for (const key of REQUIRED) {
    if (!attrs[key]) throw appError('INVALID_TOKEN', { detail: `Hawk header lacks ${key}` });
  }
  if (!/^\d{1,13}$/.test(attrs.ts!)) throw appError('INVALID_REQUEST_SIGNATURE', { detail: 'Hawk ts must be a number of seconds' });
  return { id: attrs.id!.toLowerCase(), attrs };
}

// HMAC keys as KeyObjects, reused while a token keeps signing (importing a raw key on every
// request shows in profiles). Bounded; the oldest go first.
const keyObjects = new Map<string, KeyObject>();
function macKey(authKeyHex: string): KeyObject {
  let key = keyObjects.get(authKeyHex);
  if (!key) {
    key = createSecretKey(Buffer.from(authKeyHex, 'hex'));
    if (keyObjects.size >= 10_000) keyObjects.delete(keyObjects.keys().next().value!);
    keyObjects.set(authKeyHex, key);
  }
  return key;
}

/** Compares two MACs (base64 text) in time that depends only on their length, without allocating. */
function safeEqualBase64(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * Verifies a parsed Hawk header against the token's authKey (hex). Throws the catalogue error.
 * Synchronous unless the nonce store answers with a promise (Redis): it runs on every Hawk request.
 */
export function verifyHawk(
  parsed: ParsedHawk,
  authKeyHex: string,
  req: HawkRequestParts,
  config: HawkConfig,
  nonces: NonceStore,
  nowMs: number,
): void | Promise<void> {
  const { attrs } = parsed;
  const artifacts: HawkArtifacts = {
    method: req.method,
    resource: req.url,
    host: config.host,
    port: config.port,
    ts: Number(attrs.ts),
    nonce: attrs.nonce!,
    ...(attrs.hash !== undefined ? { hash: attrs.hash } : {}),
    ...(attrs.ext !== undefined ? { ext: attrs.ext } : {}),
    ...(attrs.app !== undefined ? { app: attrs.app, dlg: attrs.dlg ?? '' } : {}),
  };
  const mac = createHmac('sha256', macKey(authKeyHex)).update(hawkNormalizedString(artifacts)).digest('base64');
  if (!safeEqualBase64(mac, attrs.mac!)) throw appError('INVALID_REQUEST_SIGNATURE', { detail: 'Bad mac' });

  if (attrs.hash !== undefined) {
    const type = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const hash = createHash('sha256').update(`hawk.1.payload\n${type}\n`).update(req.rawBody ?? '').update('\n').digest('base64');
    if (!safeEqualBase64(hash, attrs.hash)) throw appError('INVALID_REQUEST_SIGNATURE', { detail: 'Payload hash does not match the body' });
  }

  const nowSec = Math.floor(nowMs / 1000);
  if (Math.abs(Number(attrs.ts) - nowSec) > config.skewSeconds) {
    throw appError('INVALID_TIMESTAMP', { serverTime: nowSec });
  }
  const windowMs = config.skewSeconds * 2000;
  // 16 hex of the token id (64 bits) tell tokens apart well enough to key their nonces.
  const added = nonces.add(`${parsed.id.slice(0, 16)}${attrs.nonce}`, nowMs + windowMs, nowMs);
  if (added instanceof Promise) {
    return added.then((fresh) => {
      if (!fresh) throw appError('INVALID_NONCE');
    });
  }
  if (!added) throw appError('INVALID_NONCE');
}
