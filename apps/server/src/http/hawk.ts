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

/**
 * What a nonce store answers: true for a new nonce (now recorded), false for one already recorded
 * (a replay), or a refusal: the store cannot remember the nonce for its whole window (`busy`), or
 * the token already has its quota of nonces in this slice of the window (`token`).
 */
export type NonceVerdict = boolean | NonceRefusal;
export interface NonceRefusal {
  refused: 'busy' | 'token';
  /** When asking again may succeed. */
  retryAfterMs: number;
}

/** Where seen nonces are remembered: in process, or in Redis when instances must share them. */
export interface NonceStore {
  /**
   * Records `nonce` of the token `token` (a prefix of its id) until `expiresAt`, when a replay of
   * the request would fail the timestamp check anyway. Never forgets a nonce before that: when it
   * cannot keep one that long, it refuses it.
   */
  add(token: string, nonce: string, expiresAt: number, now: number): NonceVerdict | Promise<NonceVerdict>;
}

/** Nonces longer than this are refused (401/115): Hawk clients send 6–24 characters. */
export const HAWK_MAX_NONCE_LENGTH = 64;

// The fingerprint of the last `fingerprint` call, in two module variables: no tuple per request.
let fpHi = 0;
let fpLo = 0;

/**
 * Two independent 32-bit FNV-1a hashes of `a` then `b`: a 64-bit fingerprint (hi never 0). `seed`
 * separates the fingerprints of nonces from those of the tokens' counters.
 */
function fingerprint(a: string, b: string, seed: number): void {
  let x = 0x811c9dc5 ^ seed;
  let y = 0x9747b28c;
  for (let i = 0; i < a.length; i++) {
    const c = a.charCodeAt(i);
    x = Math.imul(x ^ c, 0x01000193);
    y = Math.imul(y ^ c, 0x01000193) ^ (y >>> 15);
  }
  // A separator, so ("ab", "c") and ("a", "bc") differ.
  x = Math.imul(x ^ 0xffff, 0x01000193);
  y = Math.imul(y ^ 0xffff, 0x01000193) ^ (y >>> 15);
  for (let i = 0; i < b.length; i++) {
    const c = b.charCodeAt(i);
    x = Math.imul(x ^ c, 0x01000193);
    y = Math.imul(y ^ c, 0x01000193) ^ (y >>> 15);
  }
  fpHi = x >>> 0 || 1;
  fpLo = y >>> 0;
}

const NONCE = 0;
const TOKEN = 0x5bd1e995;

/** Slices per ring: one more than the slices a live nonce's expiry can fall in (see sliceSeconds). */
const SLICES = 16;

/**
 * How the timestamp window is cut: a nonce expires at ts + skew + 1 s, which is at most 2 × skew
 * + 1 s ahead of the server clock, so 15 slices of this length cover every live expiry.
 */
export function sliceSeconds(skewSeconds: number): number {
  return Math.ceil((2 * skewSeconds + 1) / (SLICES - 1));
}

/**
 * The nonces (and the tokens' counters) whose expiry falls in one slice: an open-addressing table
 * of 64-bit fingerprints in one typed array (no objects, no GC work per request), each slot
 * [hi, lo, count]. A nonce's count is 0; a token's counter entry counts its nonces in the slice.
 * Starts small and doubles, so memory follows use; at most 2/3 full, so probes stay short.
 */
class Slice {
  slots = new Uint32Array(0);
  private mask = -1;
  size = 0;
  /** Which slice of time it holds (its number since the epoch), or -1. */
  id = -1;

  /** The slot of (hi, lo), or of the empty slot where it would go. */
  find(hi: number, lo: number): number {
    const slots = this.slots;
    const mask = this.mask;
    for (let i = (hi ^ lo) & mask; ; i = (i + 1) & mask) {
      const h = slots[i * 3]!;
      if (h === 0 || (h === hi && slots[i * 3 + 1] === lo)) return i;
    }
  }
  occupied(slot: number): boolean {
    return this.slots[slot * 3] !== 0;
  }
  count(slot: number): number {
    return this.slots[slot * 3 + 2]!;
  }
  /** Writes an entry into a slot `find` gave (call `reserve` first). */
  put(slot: number, hi: number, lo: number, count: number): void {
    const slots = this.slots;
    if (slots[slot * 3] === 0) this.size++;
    slots[slot * 3] = hi;
    slots[slot * 3 + 1] = lo;
    slots[slot * 3 + 2] = count;
  }
  /** Makes room for `more` entries (doubling the table when it would pass 2/3 full). */
  reserve(more: number): void {
    const n = this.mask + 1;
    if ((this.size + more) * 3 <= n * 2) return;
    let m = Math.max(1024, n);
    while ((this.size + more) * 3 > m * 2) m *= 2;
    const old = this.slots;
    this.slots = new Uint32Array(m * 3);
    this.mask = m - 1;
    for (let i = 0; i < old.length; i += 3) {
      if (old[i] !== 0) {
        const j = this.find(old[i]!, old[i + 1]!) * 3;
        this.slots[j] = old[i]!;
        this.slots[j + 1] = old[i + 1]!;
        this.slots[j + 2] = old[i + 2]!;
      }
    }
  }
  /** Table slots (a power of two), 0 before the first entry. */
  get capacity(): number {
    return this.mask + 1;
  }
  /** Starts holding slice `id`, with room for as many entries as `like` has slots (under steady load, the slice before). */
  start(id: number, like: number): void {
    this.id = id;
    if (like > 0) this.reserve(Math.floor((like * 2) / 3));
  }
  /** Forgets everything and gives the memory back. */
  release(): void {
    this.slots = new Uint32Array(0);
    this.mask = -1;
    this.size = 0;
    this.id = -1;
  }
}

export interface NonceCacheOptions {
  /** Entries held at most: one per nonce, plus one per token and slice (HAWK_NONCE_CACHE_SIZE). */
  size: number;
  /** Nonces one token may have in one slice (HAWK_NONCES_PER_TOKEN). */
  perToken: number;
  /** The Hawk timestamp skew (HAWK_TIMESTAMP_SKEW_SECONDS): it sets the slices. */
  skewSeconds: number;
}

/**
 * The in-process nonce store (issue 9, hole 7). A nonce is kept until it expires (ts + skew + 1 s),
 * never less: the cache does not evict. Nonces are filed by expiry in a ring of slices, so a
 * replay (same ts, so same expiry) is looked up in one table, and a slice whose time has passed
 * is dropped whole. When `size` entries are live, new nonces are refused (fail closed: 503/201
 * with retryAfter) rather than forgetting any. Each token may add `perToken` nonces per slice
 * (429/114 beyond), so one holder alone fills at most 16 × perToken entries.
 *
 * Capacity: a request signed now keeps its entry for skew + 1 s plus up to a slice, so the cache
 * sustains about size / (skew + 1 + slice) Hawk requests per second (size / 70 at the default
 * skew of 60 s); clients whose clocks run ahead keep theirs longer (up to twice).
 */
export class NonceCache implements NonceStore {
  private readonly slices: Slice[] = Array.from({ length: SLICES }, () => new Slice());
  private readonly sliceMs: number;
  private total = 0;

  constructor(private readonly options: NonceCacheOptions) {
    this.sliceMs = sliceSeconds(options.skewSeconds) * 1000;
  }

  add(token: string, nonce: string, expiresAt: number, now: number): NonceVerdict {
    const id = Math.floor(expiresAt / this.sliceMs);
    const slice = this.slices[id % SLICES]!;
    if (slice.id !== id) {
      // A new slice of time: drop every slice whose nonces have all expired, this one's holder included.
      this.dropExpired(now);
      if (slice.id !== -1) return { refused: 'busy', retryAfterMs: (slice.id + 1) * this.sliceMs - now };
      const before = this.slices[(id + SLICES - 1) % SLICES]!;
      // Sized like the slice before it, so a steady load allocates one table per slice and never rehashes.
      slice.start(id, before.id === id - 1 ? before.capacity : 0);
    }
    fingerprint(token, nonce, NONCE);
    const nh = fpHi;
    const nl = fpLo;
    if (slice.size && slice.occupied(slice.find(nh, nl))) return false;
    fingerprint(token, '', TOKEN);
    const th = fpHi;
    const tl = fpLo;
    let used = 0;
    if (slice.size) {
      const t = slice.find(th, tl);
      if (slice.occupied(t)) used = slice.count(t);
    }
    // The token's next nonce falls in the next slice once its clock reaches it.
    if (used >= this.options.perToken) return { refused: 'token', retryAfterMs: (id + 1) * this.sliceMs - expiresAt };
    const more = used ? 1 : 2;
    if (this.total + more > this.options.size) {
      this.dropExpired(now);
      if (this.total + more > this.options.size) return { refused: 'busy', retryAfterMs: this.soonestExpiry() - now };
    }
    slice.reserve(more);
    slice.put(slice.find(nh, nl), nh, nl, 0);
    slice.put(slice.find(th, tl), th, tl, used + 1);
    this.total += more;
    return true;
  }

  private dropExpired(now: number): void {
    for (const slice of this.slices) {
      if (slice.id !== -1 && (slice.id + 1) * this.sliceMs <= now) {
        this.total -= slice.size;
        slice.release();
      }
    }
  }

  private soonestExpiry(): number {
    let soonest = Infinity;
    for (const slice of this.slices) if (slice.id !== -1) soonest = Math.min(soonest, (slice.id + 1) * this.sliceMs);
    return soonest;
  }

  /** Entries held: nonces and token counters not yet dropped. */
  get size(): number {
    return this.total;
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
  if (attrs.nonce!.length > HAWK_MAX_NONCE_LENGTH) throw appError('INVALID_NONCE', {}, `Invalid nonce in request signature: longer than ${HAWK_MAX_NONCE_LENGTH} characters`);
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
  // A replay of this request passes the timestamp check until ts + skew (whole seconds): its nonce
  // must be remembered until then, and no longer.
  const expiresAt = (Number(attrs.ts) + config.skewSeconds + 1) * 1000;
  // 16 hex of the token id (64 bits) tell tokens apart well enough to key their nonces.
  const verdict = nonces.add(parsed.id.slice(0, 16), attrs.nonce!, expiresAt, nowMs);
  if (verdict instanceof Promise) return verdict.then(nonceAccepted);
  nonceAccepted(verdict);
}

/**
 * Throws unless the nonce store recorded the nonce. A store that cannot remember it for its whole
 * window refuses it: 503/201 when the store is full (the server's capacity, not the client's fault:
 * retry later), 429/114 when this token alone has used its quota. Neither is a 401, which clients
 * may take as "this token is dead".
 */
function nonceAccepted(verdict: NonceVerdict): void {
  if (verdict === true) return;
  if (verdict === false) throw appError('INVALID_NONCE');
  const retryAfter = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
  if (verdict.refused === 'token') {
    throw appError('THROTTLED', { retryAfter }, 'Client has sent too many requests: this token has used its Hawk nonces for the timestamp window');
  }
  throw appError('SERVER_BUSY', { retryAfter }, 'Service unavailable: the Hawk nonce cache is full; retry after retryAfter seconds');
}
