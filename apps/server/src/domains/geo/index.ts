import { routesOf, type Domain } from '../../domain.js';
import type { GeoConfig } from './config.js';
import { MmdbLocator, noLocator } from './locator.js';
import { geoRoutes } from './routes.js';
import { GeoService } from './service.js';
export { geoDomain } from './manifest.js';

// The geo domain: where requests come from (a MaxMind-format database, when configured) and which
// features are offered there. Built before the domains that keep locations (security events,
// sessions), which are handed `service.locate`. It keeps no rows of its own.

export { geoConfig, parseEligibilityRules, type GeoConfig } from './config.js';
export { locationColumn, locationFromColumn, MmdbLocator, noLocator, type Location, type Locator } from './locator.js';
export { GeoService } from './service.js';

export function createGeoDomain(deps: { config: GeoConfig }): Domain<GeoService> {
  const locator = deps.config.databaseFile ? new MmdbLocator(deps.config.databaseFile) : noLocator;
  const geo = new GeoService({ locator, rules: deps.config.eligibilityRules });
  return { name: 'geo', service: geo, routes: routesOf(geoRoutes, { geo }) };
}
