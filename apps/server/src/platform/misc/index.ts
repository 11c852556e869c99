import { routesOf, type Domain } from '../../domain.js';
import { miscRoutes } from './routes.js';

// The misc domain: small utilities of the account API.

export function createMiscDomain(): Domain<null> {
  return { name: 'misc', service: null, routes: routesOf(miscRoutes, {}) };
}
