import { describe, expect, it } from 'vitest';
import { GeoService, MmdbLocator, noLocator, parseEligibilityRules } from '../../../src/domains/geo/index.js';
import { testGeoDatabase as testDatabase } from '../../mmdb-writer.js';

describe('the MaxMind-format location database', () => {
  const locator = new MmdbLocator(testDatabase());

  it('finds city, country and state of an address, IPv4-mapped IPv6 too', () => {
    const berlin = { city: 'Berlin', country: 'Germany', countryCode: 'DE', state: 'Land Berlin', stateCode: 'BE' };
    expect(locator.locate('127.0.0.1')).toEqual(berlin);
    expect(locator.locate('::ffff:127.0.0.9')).toEqual(berlin);
    expect(locator.locate('203.0.113.77')).toEqual({ city: 'San Francisco', country: 'United States', countryCode: 'US', state: 'California', stateCode: 'CA' });
  });

  it('keeps only the keys the record has', () => {
    expect(locator.locate('198.51.100.7')).toEqual({ country: 'Canada', countryCode: 'CA' });
  });

  it('knows nothing of addresses outside its networks, of IPv6 in an IPv4 database, and of non-addresses', () => {
    expect(locator.locate('198.51.100.8')).toBeNull();
    expect(locator.locate('10.0.0.1')).toBeNull();
    expect(locator.locate('2001:db8::1')).toBeNull();
    expect(locator.locate('not an address')).toBeNull();
  });

  it('answers eligibility from the per-feature country rules', () => {
    const geo = new GeoService({ locator, rules: parseEligibilityRules('vpn:DE,us; recovery-phone:US') });
    expect(geo.eligibility('vpn', '127.0.0.1')).toEqual({ eligible: true, region: 'de' });
    expect(geo.eligibility('vpn', '203.0.113.1')).toEqual({ eligible: true, region: 'us' });
    expect(geo.eligibility('recovery-phone', '127.0.0.1')).toEqual({ eligible: false, region: 'de' });
    expect(geo.eligibility('unknown-feature', '203.0.113.1')).toEqual({ eligible: false, region: 'us' });
    expect(geo.eligibility('vpn', '10.0.0.1')).toEqual({ eligible: false, region: null });
    // A feature named like an Object.prototype key is not configured either.
    expect(geo.eligibility('constructor', '127.0.0.1')).toEqual({ eligible: false, region: 'de' });
    expect(new GeoService({ locator: noLocator, rules: { vpn: ['DE'] } }).eligibility('vpn', '127.0.0.1')).toEqual({ eligible: false, region: null });
  });
});

describe('GEO_ELIGIBILITY_RULES', () => {
  it('reads feature:CC,CC;… with upper-cased codes', () => {
    expect(parseEligibilityRules('')).toEqual({});
    expect(parseEligibilityRules('vpn:us, gb ;recovery-phone:CA;')).toEqual({ vpn: ['US', 'GB'], 'recovery-phone': ['CA'] });
  });

  it('refuses what it cannot read', () => {
    for (const bad of ['vpn', 'vpn:', 'vpn:USA', 'Vpn:US', 'vpn:US;vpn:GB', 'a b:US']) expect(() => parseEligibilityRules(bad)).toThrow();
  });
});
