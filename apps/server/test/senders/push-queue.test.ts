import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadVapidKeys, PushQueue, vapidKeysFrom } from '../../src/senders/push/index.js';
import { PushService } from '../push-service.js';

describe('the push queue', () => {
  let push: PushService;
  beforeAll(async () => {
    push = new PushService();
    await push.start();
  });
  afterAll(async () => push?.stop());

  it('is bounded: past maxQueued waiting pushes, new ones are dropped, never blocked on', async () => {
    const warnings: string[] = [];
    const queue = new PushQueue({
      vapid: vapidKeysFrom(loadVapidKeys({ privateKey: '', devFile: `${push.caFile}.vapid`, production: false }).privateKey),
      subject: 'mailto:ops@example.com', ca: readFileSync(push.caFile, 'utf8'),
      maxQueued: 1, concurrency: 1, timeoutMs: 5000, log: { warn: (_o, msg) => void warnings.push(msg) },
    });
    const sub = push.subscribe();
    push.behaviour.set(new URL(sub.endpoint).pathname, { delayMs: 300 });
    const job = (n: number) => ({
      subscription: { endpoint: sub.endpoint, publicKey: sub.keys.pushPublicKey, authKey: sub.keys.pushAuthKey },
      payload: { n }, ttlSeconds: 0, onGone: async () => undefined,
    });
    // One is sent, one waits, the third finds the queue full.
    expect([queue.enqueue(job(1)), queue.enqueue(job(2)), queue.enqueue(job(3))]).toEqual([true, true, false]);
    expect(queue.dropped).toBe(1);
    expect(warnings).toEqual(['push dropped: the push queue is full']);
    await queue.close();
    expect(push.pushesFor(sub)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(queue.enqueue(job(4))).toBe(false);
  });

  it('derives the VAPID public key and refuses a malformed private key', () => {
    const keys = loadVapidKeys({ privateKey: '', devFile: `${push.caFile}.vapid2`, production: false });
    expect(Buffer.from(keys.publicKey, 'base64url')).toHaveLength(65);
    expect(loadVapidKeys({ privateKey: '', devFile: `${push.caFile}.vapid2`, production: false })).toEqual(keys);
    expect(vapidKeysFrom(keys.privateKey)).toEqual(keys);
    expect(() => vapidKeysFrom('c2hvcnQ')).toThrow(/32 bytes/);
    expect(() => loadVapidKeys({ privateKey: '', devFile: '/nonexistent/x', production: true })).toThrow(/VAPID_PRIVATE_KEY must be set/);
  });
});
