import { routesOf, type Domain } from '../../domain.js';
import { apiIndexRoutes, healthRoutes } from './routes.js';
import type { HealthCheck } from './service.js';

export { heartbeat, readVersion, type HealthCheck, type Heartbeat, type VersionInfo } from './service.js';

// The health domain: /__heartbeat__, /__lbheartbeat__, /__version__ for load balancers and
// operators, and GET /v1, the API's front door.

export type HealthDeps = {
  checks: HealthCheck[];
  publicUrl: string;
  /** Whether the developer portal is served (its links are given only then). */
  portal: boolean;
  /** Where failed checks are reported (the body says only which check failed). */
  warn: (message: string, err: unknown) => void;
};

export function createHealthDomain(deps: HealthDeps): Domain<null> {
  return { name: 'health', service: null, rootRoutes: routesOf(healthRoutes, deps), routes: routesOf(apiIndexRoutes, deps) };
}
