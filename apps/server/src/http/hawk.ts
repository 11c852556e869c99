import { createHash, createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import { constantTimeStringEqual, hawkNormalizedString, parseHawkHeader, type HawkArtifacts } from '@tessera/protocol';
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

/** Two independent 32-bit FNV-1a hashes of a string: a 64-bit fingerprint (never 0/0). */
function fingerprint(key: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return [a >>> 0 || 1, b >>> 0];
}

/** An open-addressing set of 64-bit fingerprints in one typed array: no objects, no GC work. */
class FingerprintSet {
  readonly slots: Uint32Array;
  size = 0;
  constructor(readonly capacity: number) {
    // Twice the capacity keeps the load factor at most 1/2, so probes stay short.
    this.slots = new Uint32Array(capacity * 4);
  }
  private find(hi: number, lo: number): number {
    const n = this.slots.length / 2;
    for (let i = ((hi ^ lo) >>> 0) % n; ; i = (i + 1) % n) {
      const h = this.slots[i * 2]!;
      if (h === 0 || (h === hi && this.slots[i * 2 + 1] === lo)) return i;
    }
  }
  has(hi: number, lo: number): boolean {
    return this.slots[this.find(hi, lo) * 2] !== 0;
  }
  /** Adds; false when already present. */
  add(hi: number, lo: number): boolean {
    const i = this.find(hi, lo);
    if (this.slots[i * 2] !== 0) return false;
    this.slots[i * 2] = hi;
    this.slots[i * 2 + 1] = lo;
    this.size++;
    return true;
  }
  clear(): void {
    this.slots.fill(0);
    this.size = 0;
  }
}

/**
 * Remembers nonces per token for the length of the timestamp window, in two generations of
 * fingerprint sets: a nonce is remembered for at least one window (the older generation is dropped
 * only when the newer one is a window old) and at most two. Bounded at `max` nonces: when the newer
 * generation fills early it rotates early, forgetting the oldest. Typed arrays only, so a busy
 * server keeps no per-request garbage alive.
 */
export class NonceCache implements NonceStore {
  private current: FingerprintSet;
  private previous: FingerprintSet;
  private startedAt = -Infinity;

  constructor(max: number) {
    const half = Math.max(1, Math.ceil(max / 2));
    this.current = new FingerprintSet(half);
    this.previous = new FingerprintSet(half);
  }

  add(key: string, expiresAt: number, now: number): boolean {
    const window = expiresAt - now;
    if (now - this.startedAt >= window || this.current.size >= this.current.capacity) {
      const dropped = this.previous;
      this.previous = this.current;
      dropped.clear();
      this.current = dropped;
      this.startedAt = now;
    }
    const [hi, lo] = fingerprint(key);
    if (this.previous.has(hi, lo)) return false;
    return this.current.add(hi, lo);
  }

  get size(): number {
    return this.current.size + this.previous.size;
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
  if (!constantTimeStringEqual(mac, attrs.mac!)) throw appError('INVALID_REQUEST_SIGNATURE', { detail: 'Bad mac' });

  if (attrs.hash !== undefined) {
    const type = (req.contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const hash = createHash('sha256').update(`hawk.1.payload\n${type}\n`).update(req.rawBody ?? '').update('\n').digest('base64');
    if (!constantTimeStringEqual(hash, attrs.hash)) throw appError('INVALID_REQUEST_SIGNATURE', { detail: 'Payload hash does not match the body' });
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
