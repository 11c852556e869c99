import { describe, expect, it } from 'vitest';
import { networkOf } from '../../../src/domains/security-events/index.js';

describe('networkOf: what a security event keeps of an address', () => {
  it('cuts IPv4 to its /24, IPv4-mapped IPv6 too', () => {
    expect(networkOf('203.0.113.77')).toBe('203.0.113.0/24');
    expect(networkOf('::ffff:198.51.100.9')).toBe('198.51.100.0/24');
    expect(networkOf('::FFFF:198.51.100.9')).toBe('198.51.100.0/24');
  });

  it('cuts IPv6 to its /48, whatever the notation', () => {
    expect(networkOf('2001:db8:85a3:8d3:1319:8a2e:370:7348')).toBe('2001:db8:85a3::/48');
    expect(networkOf('2001:db8::1')).toBe('2001:db8:0::/48');
    expect(networkOf('2001:DB8:a::')).toBe('2001:db8:a::/48');
    expect(networkOf('::1')).toBe('0:0:0::/48');
    expect(networkOf('fe80::1%eth0')).toBe('fe80:0:0::/48');
    expect(networkOf('64:ff9b::192.0.2.33')).toBe('64:ff9b:0::/48');
  });

  it('keeps nothing of what is not an address', () => {
    expect(networkOf('')).toBeNull();
    expect(networkOf('localhost')).toBeNull();
    expect(networkOf('300.1.1.1')).toBeNull();
    expect(networkOf('1:2:3')).toBeNull();
  });
});
