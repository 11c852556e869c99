import { routesOf, type Domain } from '../../domain.js';
import { supportRoutes } from './routes.js';
import { SupportService, type SupportDeps } from './service.js';
export { supportDomain } from './manifest.js';

// The support domain: POST /support/ticket, stored in support_tickets and forwarded to the helpdesk
// webhook by senders/webhook. An account's tickets go with it.

export { supportConfig, type SupportConfig } from './config.js';
export { SUPPORT_SECRET_HEADER } from './secret.js';
export { SUPPORT_TARGET, SupportService, TICKET_EVENT } from './service.js';

export function createSupportDomain(deps: SupportDeps): Domain<SupportService> {
  const support = new SupportService(deps);
  return { name: 'support', service: support, routes: routesOf(supportRoutes, { support }), hooks: { onAccountDeleted: support.accountDeleted } };
}
