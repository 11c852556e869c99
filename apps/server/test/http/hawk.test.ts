import { describe, expect, it } from 'vitest';
import { NonceCache } from '../../src/http/hawk.js';

describe('the Hawk nonce cache', () => {
  it('refuses a nonce seen inside its window, and forgets it two windows later', () => {
    const c = new NonceCache(10);
    expect(c.add('t:a', 1000, 0)).toBe(true);
    expect(c.add('t:a', 1500, 500)).toBe(false);
    expect(c.add('t:a', 2001, 1001)).toBe(false);
    expect(c.add('t:b', 2000, 1000)).toBe(true); // a window later: rotates once
    expect(c.add('t:c', 3000, 2000)).toBe(true); // and again: 't:a' is gone
    expect(c.add('t:a', 3001, 2001)).toBe(true);
  });

  it('remembers a nonce for at least one window, across a generation change', () => {
    const c = new NonceCache(100);
    expect(c.add('t:a', 1000, 0)).toBe(true); // window 1000 ms
    expect(c.add('t:b', 1999, 999)).toBe(true);
    expect(c.add('t:c', 2000, 1000)).toBe(true); // rotates: a and b are now the older generation
    expect(c.add('t:a', 2500, 1500)).toBe(false);
    expect(c.add('t:b', 2900, 1900)).toBe(false);
    expect(c.add('t:z', 3000, 2000)).toBe(true); // rotates again: a and b are forgotten (two windows on)
    expect(c.add('t:a', 3001, 2001)).toBe(true);
  });

  it('stays bounded: a full generation rotates early, forgetting the oldest', () => {
    const c = new NonceCache(4); // two generations of two
    for (const k of ['a', 'b', 'c', 'd', 'e']) expect(c.add(k, 1e9, 0)).toBe(true);
    expect(c.size).toBeLessThanOrEqual(4);
    expect(c.add('e', 1e9, 1)).toBe(false); // newest still known
    expect(c.add('a', 1e9, 1)).toBe(true); // oldest forgotten
  });

  it('handles many nonces with distinct fingerprints', () => {
    const c = new NonceCache(200_000);
    for (let i = 0; i < 100_000; i++) expect(c.add(`${i.toString(16)}nonce${i}`, 1e12, i)).toBe(true);
    for (let i = 0; i < 100_000; i += 997) expect(c.add(`${i.toString(16)}nonce${i}`, 1e12, 100_000)).toBe(false);
  });
});
