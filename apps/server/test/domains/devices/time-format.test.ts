import { describe, expect, it } from 'vitest';
import { formatTimeAgo, timeLocaleOf } from '../../../src/domains/devices/time-format.js';

// The relative times of devices and attached clients (lastAccessTimeFormatted, …): each unit's edge,
// the caller's language, English when none fits.

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const NOW = Date.UTC(2026, 10, 24, 12);
const ago = (ms: number, locale = 'en') => formatTimeAgo(NOW - ms, NOW, locale);

describe('formatTimeAgo', () => {
  it('picks the largest unit that fits, at each edge', () => {
    expect(ago(0)).toBe('now');
    expect(ago(44 * S)).toBe('now');
    expect(ago(45 * S)).toBe('1 minute ago');
    expect(ago(5 * M)).toBe('5 minutes ago');
    expect(ago(45 * M)).toBe('1 hour ago');
    expect(ago(21 * H)).toBe('21 hours ago');
    expect(ago(22 * H)).toBe('yesterday');
    expect(ago(3 * D)).toBe('3 days ago');
    expect(ago(26 * D)).toBe('last month');
    expect(ago(100 * D)).toBe('3 months ago');
    expect(ago(320 * D)).toBe('last year');
    expect(ago(3 * 365 * D)).toBe('3 years ago');
  });

  it('reads a time ahead of the clock as now', () => {
    expect(ago(-10 * M)).toBe('now');
  });

  it('speaks the caller\'s language', () => {
    expect(ago(5 * M, 'de')).toBe('vor 5 Minuten');
    expect(ago(0, 'fr')).toBe('maintenant');
  });
});

describe('timeLocaleOf', () => {
  it('takes the first supported language, English otherwise', () => {
    expect(timeLocaleOf('de-CH, fr')).toBe('de-CH');
    expect(timeLocaleOf('xx, fr-CA, en')).toBe('fr-CA');
    expect(timeLocaleOf('xx')).toBe('en');
    expect(timeLocaleOf(null)).toBe('en');
  });
});
