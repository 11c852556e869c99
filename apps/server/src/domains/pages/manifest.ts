import { defineDomain } from '../../manifest.js';
import { createPagesDomain } from './index.js';

export const pagesDomain = defineDomain({
  name: 'pages',
  needs: ['emails', 'passwords', 'accountSetup'],
  create: ({ platform, services }) => createPagesDomain({
    confirmations: services.emails, resetLinks: services.passwords, setupLinks: services.accountSetup,
    allowedOrigins: platform.allowedOrigins, publicUrl: platform.publicUrl.origin,
  }),
});
