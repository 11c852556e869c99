import { routesOf, type Domain } from '../../domain.js';
import { pageRoutes, type PageDeps } from './routes.js';
export { pagesDomain } from './manifest.js';

// The pages domain: where emailed links land (/verify_email, /complete_reset_password) until the
// account web app serves them.

export function createPagesDomain(deps: PageDeps): Domain<null> {
  return { name: 'pages', service: null, rootRoutes: routesOf(pageRoutes, deps) };
}
