// The `docs` sidebar: every group and page id of spec 1 §2, plus Tessera's generated reference pages
// (errors, configuration). Ids are paths under docs/ without the extension. A page whose subject is
// not built yet (src/planned/pages.mjs reads that from the page itself) carries the class
// `sidebar-item--planned`: custom.css dims it and adds a "planned" badge, explained by the legend.
import { plannedDocIds } from './src/planned/pages.mjs';

const planned = new Set(plannedDocIds());
const doc = (id) => (planned.has(id) ? { type: 'doc', id, className: 'sidebar-item--planned', customProps: { planned: true } } : id);
const group = (label, dir, ids, extra = {}) => ({
  type: 'category',
  label,
  collapsed: true,
  ...extra,
  items: ids.map((id) => (typeof id === 'string' ? doc(`${dir}/${id}`) : id)),
});
const legend = {
  type: 'html',
  className: 'sidebar-planned-legend',
  value: '<span class="planned-badge">planned</span> pages describe work not built yet',
};

/** @type {import('@docusaurus/plugin-content-docs').SidebarsConfig} */
export default {
  docs: [
    'intro',
    legend,
    group('Tutorials', 'tutorials', ['development-setup', 'subscription-platform'], { collapsed: false }),
    group('How-tos', 'how-tos', [
      'adding-a-secondary-email',
      'ci-guidelines',
      'connecting-to-a-local-mysql-db',
      'creating-an-account-locally',
      'local-emails-with-maildev',
      'node-debugging',
      'serve-settings-production-build-locally',
      'using-a-custom-profile-with-firefox',
      'using-sentry-locally',
      'using-swagger-for-api-documentation',
      'using-tracing-in-gcp',
      'using-tracing-locally',
      'using-twilio-locally',
      'using-vscode-with-fxa',
      'working-with-metrics',
      'working-with-strapi-cms',
    ]),
    group('Explanation', 'explanation', [
      'architecture',
      'house-style',
      'architectural-decision-records',
      'cms-strapi-l10n',
      'content-server-architecture',
      'onepw-protocol',
      'pairing-flow-architecture',
      'scoped-keys',
    ]),
    group('Reference', 'reference', [
      'admin-panel',
      'application-logging',
      'application-tracing',
      'automation-testplan',
      'browser-support',
      'canceling-subscriptions-to-plan',
      'configuration',
      'continuous-integration-for-monorepos',
      'database-structure',
      'emails',
      'errors',
      'functional-testing',
      'github-strategies',
      'localization',
      'locations',
      'metrics',
      'mobile-specifics',
      'npm-scripts-and-nx',
      'oauth-details',
      'operations',
      'rate-limiting',
      'recovery-phone',
      'route-credentials',
      'secondary-emails',
      'two-step-authentication',
      'security-events',
      'storybook-deploys-with-circleci',
      'support-and-newsletters',
      'system-diagrams',
      'third-party-authentication',
      'tokens',
      'webchannels',
      'tests-in-circleci',
      group('Style guides', 'reference/style-guides', ['node-style-guide', 'react-style-guide']),
      group('Team processes', 'reference/team-processes', [
        'development-process',
        'pull-request-review-guidelines',
        'release-process',
        'triage-process',
        'work-breakdown-process',
      ]),
    ]),
    {
      type: 'category',
      label: 'Relying parties',
      collapsed: true,
      items: [
        group('How-tos', 'relying-parties/how-tos', ['apple-iap', 'device-registration', 'end-to-end-encryption', 'google-iap', 'product-metrics']),
        group('Reference', 'relying-parties/reference', [
          'glossary',
          'integration-requirements',
          'metrics-for-relying-parties',
          'query-parameters',
          'sub-plat-coupons',
          'sub-plat-features',
          'sub-plat-overview',
          'sub-plat-strapi',
          'using-apis',
        ]),
        group('Tutorials', 'relying-parties/tutorials', ['integration-with-fxa', 'integration-with-subscription-platform', 'pairing']),
      ],
    },
    'additional-docs',
  ],
};
