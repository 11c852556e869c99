import type { ConfigValues } from '../../config-schema.js';
import { defineDomain } from '../../manifest.js';
import { geoConfig } from './config.js';
import { createGeoDomain } from './index.js';
import type { GeoService } from './service.js';

declare module '../../manifest.js' {
  interface DomainServices {
    geo: GeoService;
  }
  interface DomainSettings {
    geo: ConfigValues<typeof geoConfig>;
  }
}

export const geoDomain = defineDomain({
  name: 'geo',
  config: { key: 'geo', title: 'Locations and geo eligibility', slice: geoConfig },
  create: ({ config }) => createGeoDomain({ config }),
});
