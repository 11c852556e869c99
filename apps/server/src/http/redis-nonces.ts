import { Redis } from 'ioredis';
import { sliceSeconds, type NonceStore, type NonceVerdict } from './hawk.js';

// One round trip per Hawk request, atomic: a replay is refused (0); a token that already has its
// quota of nonces in the slice of time this nonce's expiry falls in is refused (-1) without
// recording anything; otherwise the nonce is recorded until its expiry (SET … PX: Redis forgets it
// exactly when a replay would fail the timestamp check anyway) and the token's counter for the
// slice goes up (1). The same slices and quota as the in-process cache (hawk.ts).
// KEYS: the nonce, the token's counter of the slice. ARGV: the nonce's TTL (ms), the counter's TTL (ms), the quota.
const ADD_NONCE = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[3]) then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
if redis.call('INCR', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[2]) end
return 1
`;

type AddNonce = (nonceKey: string, counterKey: string, ttlMs: number, counterTtlMs: number, perToken: number) => Promise<number>;

export interface RedisNonceOptions {
  /** Nonces one token may have in one slice (HAWK_NONCES_PER_TOKEN). */
  perToken: number;
  /** The Hawk timestamp skew: it sets the slices (see sliceSeconds in hawk.ts). */
  skewSeconds: number;
  prefix?: string;
  /** Told when Redis fails; the request is refused meanwhile (503/201), never let through unchecked. */
  onError?: (err: unknown) => void;
}

/**
 * The Hawk nonce store in Redis, so a request replayed to another instance is refused too. Keys
 * carry the token in a hash tag, so both keys of a request sit in one Redis Cluster slot. Redis
 * must run with `maxmemory-policy noeviction`: every other policy may evict a nonce before it
 * expires, and an evicted nonce is a replay that passes. When Redis is full (it then refuses
 * writes) or unreachable, Hawk requests get 503/201 (fail closed).
 */
export class RedisNonceStore implements NonceStore {
  private readonly prefix: string;
  private readonly addNonce: AddNonce;
  private readonly sliceMs: number;

  constructor(redis: Redis, private readonly options: RedisNonceOptions) {
    this.prefix = options.prefix ?? 'tessera:hawk-nonce:';
    this.sliceMs = sliceSeconds(options.skewSeconds) * 1000;
    // defineCommand runs the script by its SHA (EVALSHA), loading it again after a Redis restart.
    if (!(redis as unknown as { tesseraAddNonce?: AddNonce }).tesseraAddNonce) {
      redis.defineCommand('tesseraAddNonce', { numberOfKeys: 2, lua: ADD_NONCE });
    }
    const command = (redis as unknown as { tesseraAddNonce: AddNonce }).tesseraAddNonce;
    this.addNonce = command.bind(redis);
  }

  async add(token: string, nonce: string, expiresAt: number, now: number): Promise<NonceVerdict> {
    const base = `${this.prefix}{${token}}`;
    const slice = Math.floor(expiresAt / this.sliceMs);
    const sliceEnd = (slice + 1) * this.sliceMs;
    let answer: number;
    try {
      answer = await this.addNonce(`${base}:n:${nonce}`, `${base}:c:${slice}`, Math.max(1, expiresAt - now), Math.max(1, sliceEnd - now), this.options.perToken);
    } catch (err) {
      this.options.onError?.(err);
      return { refused: 'busy', retryAfterMs: 1000 };
    }
    if (answer === 1) return true;
    if (answer === 0) return false;
    // The token's next nonce falls in the next slice once its clock reaches it.
    return { refused: 'token', retryAfterMs: sliceEnd - expiresAt };
  }
}

export function connectRedis(url: string): Redis {
  // Fail requests fast while Redis is down instead of queueing them without bound.
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
  // An outage shows as failing commands, which their callers log and answer (503/201 for nonces);
  // without a listener ioredis would also print every failed reconnection to stderr.
  redis.on('error', () => undefined);
  return redis;
}
