import { describe, expect, it } from 'vitest';
import { NonceCache } from './hawk.js';

describe('the Hawk nonce cache', () => {
  it('refuses a nonce seen inside its window and accepts it after', () => {
    const c = new NonceCache(10);
    expect(c.add('t:a', 1000, 0)).toBe(true);
    expect(c.add('t:a', 1500, 500)).toBe(false);
    expect(c.add('t:a', 2100, 1001)).toBe(true);
  });

  it('keeps a re-added nonce when its earlier entry leaves the ring', () => {
    const c = new NonceCache(3);
    c.add('x', 150, 0);
    c.add('a', 100, 1);
    c.add('a', 300, 120); // expired behind a live head, added again
    c.add('b', 400, 160); // pops x and the old 'a' slot; the new 'a' must stay
    expect(c.add('a', 400, 200)).toBe(false);
  });

  it('stays bounded, forgetting the oldest first', () => {
    const c = new NonceCache(3);
    for (const k of ['a', 'b', 'c', 'd']) expect(c.add(k, 10_000, 0)).toBe(true);
    expect(c.size).toBe(3);
    expect(c.add('a', 10_000, 1)).toBe(true); // evicted, so accepted again
    expect(c.add('d', 10_000, 1)).toBe(false);
  });

  it('keeps constant work per add when full (no rescans of removed entries)', () => {
    const c = new NonceCache(1000);
    for (let i = 0; i < 200_000; i++) c.add(`k${i}`, 1e12, i);
    expect(c.size).toBe(1000);
    expect(c.add('k199999', 1e12, 200_000)).toBe(false);
    expect(c.add('k0', 1e12, 200_000)).toBe(true);
  });
});
