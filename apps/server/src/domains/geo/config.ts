import { ConfigError, defineConfig, str, type ConfigValues } from '../../config-schema.js';

// The location service (issue 13): a MaxMind-format database (GeoIP2/GeoLite2 City or Country,
// or any .mmdb of the same shape) when one is configured, nothing otherwise; and the per-feature
// country rules GET /geo/eligibility/{feature} answers from.

/** `feature:CC,CC;feature2:CC` → feature → upper-case ISO 3166-1 alpha-2 codes. */
export function parseEligibilityRules(raw: string): Record<string, string[]> {
  const rules: Record<string, string[]> = {};
  for (const part of raw.split(';').map((p) => p.trim()).filter(Boolean)) {
    const m = /^([a-z0-9][a-z0-9_-]{0,63}):\s*([A-Za-z]{2}(?:\s*,\s*[A-Za-z]{2})*)$/.exec(part);
    if (!m) throw new ConfigError(`"${part}" is not feature:CC,CC (a feature name of a-z, 0-9, _ and -, then two-letter country codes)`);
    if (rules[m[1]!]) throw new ConfigError(`feature ${m[1]} is given twice`);
    rules[m[1]!] = m[2]!.split(',').map((c) => c.trim().toUpperCase());
  }
  return rules;
}

export const geoConfig = defineConfig({
  databaseFile: {
    env: 'GEOIP_DATABASE_FILE', default: '', defaultText: '(none: no locations)', parse: str,
    description: 'A MaxMind-format database (`.mmdb`, e.g. GeoLite2-City) read at start: sessions, devices, attached clients and security events then show where they came from (city, country, countryCode, state, stateCode), and /geo/eligibility knows the caller\'s country. Unset: locations are empty and every feature is ineligible.',
  },
  eligibilityRules: {
    env: 'GEO_ELIGIBILITY_RULES', default: {} as Record<string, string[]>, defaultText: '(none)', parse: parseEligibilityRules,
    description: 'The countries each feature is offered in, for GET /geo/eligibility/{feature}: `feature:CC,CC;feature2:CC` (ISO 3166-1 alpha-2 codes), e.g. `recovery-phone:US,CA;vpn:US,GB,DE`. A feature not listed is ineligible everywhere.',
  },
});

export type GeoConfig = ConfigValues<typeof geoConfig>;
