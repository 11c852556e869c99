import { Redis } from 'ioredis';
import type { NonceStore } from './hawk.js';

/**
 * The Hawk nonce cache in Redis, so a request replayed to another instance is refused too:
 * `SET key 1 PX <window> NX` records a nonce only if it is new, and Redis expires it.
 */
export class RedisNonceStore implements NonceStore {
  constructor(private readonly redis: Redis, private readonly prefix = 'tessera:hawk-nonce:') {}

  async add(key: string, expiresAt: number, now: number): Promise<boolean> {
    const ttl = Math.max(1, expiresAt - now);
    return (await this.redis.set(this.prefix + key, '1', 'PX', ttl, 'NX')) === 'OK';
  }
}

export function connectRedis(url: string): Redis {
  // Fail requests fast while Redis is down instead of queueing them without bound.
  return new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
}
