import type { Locator, Location } from './locator.js';

// Locations and geo eligibility. Other domains get `locate` (sessions and security events keep
// what it returns); the eligibility route asks `eligibility`.

export interface GeoDeps {
  locator: Locator;
  /** feature → upper-case country codes it is offered in. */
  rules: Record<string, string[]>;
}

export class GeoService {
  constructor(private readonly deps: GeoDeps) {}

  /** Where `ip` is, when the database knows. Never throws. */
  readonly locate = (ip: string): Location | null => this.deps.locator.locate(ip);

  /**
   * Whether `feature` is offered where `ip` is: its country must be one of the feature's. Unknown
   * features and unknown places are ineligible. `region` is the country code found (lower case,
   * as clients compare it), null when the place is unknown.
   */
  eligibility(feature: string, ip: string): { eligible: boolean; region: string | null } {
    const country = this.locate(ip)?.countryCode ?? null;
    const countries = Object.hasOwn(this.deps.rules, feature) ? this.deps.rules[feature]! : [];
    return { eligible: country !== null && countries.includes(country), region: country?.toLowerCase() ?? null };
  }
}
