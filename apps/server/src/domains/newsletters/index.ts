import { routesOf, type Domain } from '../../domain.js';
import { newsletterRoutes } from './routes.js';
import { NewslettersService, type NewslettersDeps } from './service.js';
export { newslettersDomain } from './manifest.js';

// The newsletters domain: the account's choices (account_newsletters) and the webhook that tells
// the mailing-list service of them. The rows go with the account, and the service hears of it.

export { newslettersConfig, type NewslettersConfig } from './config.js';
export { NEWSLETTERS, NEWSLETTERS_TARGET, NewslettersService, type Newsletter } from './service.js';

export function createNewslettersDomain(deps: NewslettersDeps): Domain<NewslettersService> {
  const newsletters = new NewslettersService(deps);
  return { name: 'newsletters', service: newsletters, routes: routesOf(newsletterRoutes, { newsletters }), hooks: { onAccountDeleted: newsletters.accountDeleted } };
}
