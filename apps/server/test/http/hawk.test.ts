import { describe, expect, it } from 'vitest';
import { NonceCache, sliceSeconds } from '../../src/http/hawk.js';

// The in-process Hawk nonce store (issue 9, hole 7), driven by hand-set times. `add(token, nonce,
// expiresAt, now)`: expiresAt is when a replay would fail the timestamp check anyway (ts + skew +
// 1 s), so it lies in (now, now + 2 × skew + 1 s]. With the skew of 60 s used here, nonces are
// filed in slices of 9 s by expiry: [54 s, 63 s) is one slice.

const skewSeconds = 60;
const E = 61_000; // the expiry of a request signed at ts 0

describe('the Hawk nonce cache', () => {
  it('cuts the window in 15 slices', () => {
    expect(sliceSeconds(60)).toBe(9);
    expect(sliceSeconds(1)).toBe(1);
    expect(sliceSeconds(3600) * 15).toBeGreaterThanOrEqual(2 * 3600 + 1);
  });

  it('refuses a nonce seen before until it expires', () => {
    const c = new NonceCache({ size: 1000, perToken: 100, skewSeconds });
    expect(c.add('t', 'a', E, 0)).toBe(true);
    expect(c.add('t', 'a', E, 500)).toBe(false);
    expect(c.add('t', 'a', E, E - 1)).toBe(false);
    expect(c.add('u', 'a', E, 1000)).toBe(true); // another token's nonce is its own
    // A request signed later with the same nonce has a later expiry: by then the first one is dead.
    expect(c.add('t', 'a', 2 * E, E)).toBe(true);
  });

  it('keeps every nonce until it expires however many others come: one holder cannot flush it', () => {
    // The attack of hole 7: sign many requests of one's own to push an observed nonce out of the
    // cache, then replay the observed request. The quota is lifted here so the flood meets the
    // cache's own limit.
    const c = new NonceCache({ size: 1000, perToken: 1_000_000, skewSeconds });
    expect(c.add('victim', 'observed', E, 0)).toBe(true);
    let accepted = 0;
    let refused = 0;
    for (let i = 0; i < 5000; i++) {
      const verdict = c.add('attacker', `n${i}`, E + i, i);
      if (verdict === true) accepted++;
      else {
        expect(verdict).toEqual({ refused: 'busy', retryAfterMs: expect.any(Number) });
        refused++;
      }
    }
    expect(accepted).toBeLessThan(1000);
    expect(refused).toBe(5000 - accepted);
    expect(c.size).toBeLessThanOrEqual(1000);
    expect(c.add('victim', 'observed', E, 5000)).toBe(false); // the replay is still refused
  });

  it('says when a full cache frees room, and takes nonces again once that slice has passed', () => {
    const c = new NonceCache({ size: 100, perToken: 1000, skewSeconds });
    let i = 0;
    while (c.add('t', `n${i}`, E, i) === true) i++;
    expect(i).toBe(99); // 99 nonces and the token's counter
    // The slice of E ends at 63 s: then every nonce in it has expired.
    expect(c.add('t', 'late', E, i)).toEqual({ refused: 'busy', retryAfterMs: 63_000 - i });
    expect(c.add('t', 'late', 63_000 + E, 63_000)).toBe(true);
    expect(c.size).toBe(2);
  });

  it('caps the nonces of one token in a slice; other tokens are not affected', () => {
    const c = new NonceCache({ size: 100_000, perToken: 50, skewSeconds });
    for (let i = 0; i < 50; i++) expect(c.add('greedy', `n${i}`, E, 0)).toBe(true);
    // Its next request signed 2 s later falls in the next slice.
    expect(c.add('greedy', 'n50', E, 0)).toEqual({ refused: 'token', retryAfterMs: 2000 });
    expect(c.add('other', 'n50', E, 0)).toBe(true);
    // A replay is still told apart from a quota refusal.
    expect(c.add('greedy', 'n3', E, 1)).toBe(false);
    expect(c.add('greedy', 'n50', 63_000, 2000)).toBe(true);
  });

  it('holds one token to 16 slices of its quota, whatever timestamps it signs', () => {
    const c = new NonceCache({ size: 1_000_000, perToken: 10, skewSeconds });
    let accepted = 0;
    // Every expiry a request at now = 60 s can have, each with many nonces.
    for (let e = 60_001; e <= 60_000 + 121_000; e += 250) {
      for (let i = 0; i < 20; i++) if (c.add('greedy', `${e}.${i}`, e, 60_000) === true) accepted++;
    }
    expect(accepted).toBeLessThanOrEqual(16 * 10);
  });

  it('gives memory back as slices pass', () => {
    const c = new NonceCache({ size: 1_000_000, perToken: 1_000_000, skewSeconds });
    for (let i = 0; i < 10_000; i++) expect(c.add('t', `n${i}`, E, 0)).toBe(true);
    expect(c.size).toBe(10_001);
    expect(c.add('t', 'later', 200_000, 140_000)).toBe(true);
    expect(c.size).toBe(2);
  });

  it('handles many nonces with distinct fingerprints', () => {
    const c = new NonceCache({ size: 400_000, perToken: 1_000_000, skewSeconds });
    let fresh = 0;
    for (let i = 0; i < 100_000; i++) if (c.add(i.toString(16), `nonce${i}`, E, 0) === true) fresh++;
    expect(fresh).toBe(100_000);
    let replays = 0;
    for (let i = 0; i < 100_000; i += 997) if (c.add(i.toString(16), `nonce${i}`, E, 1) === false) replays++;
    expect(replays).toBe(Math.ceil(100_000 / 997));
    // Token and nonce are told apart: ("ab", "c") is not ("a", "bc").
    expect(c.add('ab', 'c', E, 0)).toBe(true);
    expect(c.add('a', 'bc', E, 0)).toBe(true);
  });
});
