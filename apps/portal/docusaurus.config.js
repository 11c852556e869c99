// The Tessera developer portal. Every behaviour the issue lists comes from Docusaurus itself or from
// the two local plugins (src/plugins/openapi: the /api page; src/plugins/search: the offline index and
// the search UI) — nothing here re-implements what the framework already gives.
import { themes as prismThemes } from 'prism-react-renderer';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { docsDir, plannedDocIds } from './src/planned/pages.mjs';
import { algoliaFromEnv, brokenContentPolicy, openApiPathFromEnv, siteUrlFromEnv, repoUrlFromEnv } from './site-env.js';

const algolia = algoliaFromEnv(process.env);
const repoUrl = repoUrlFromEnv(process.env);
const title = 'Tessera Ecosystem Platform';
const tagline = 'Documentation for accounts, Sync and more'; // spec 1 §1 fixes this wording

// The navbar says how much of the Relying parties section is written: most of it waits for the
// OAuth server and subscriptions (the pages themselves say so; src/planned/pages.mjs reads them).
const rpPlanned = plannedDocIds().filter((id) => id.startsWith('relying-parties/')).length;
const rpPages = ['how-tos', 'reference', 'tutorials'].flatMap((d) => readdirSync(join(docsDir, 'relying-parties', d))).length;

/** @type {import('@docusaurus/types').Config} */
const config = {
  title,
  tagline,
  favicon: 'img/logo.svg',
  url: siteUrlFromEnv(process.env),
  baseUrl: '/ecosystem-platform/',
  trailingSlash: false,
  // Broken links warn (a page may link ahead to one a later issue writes); broken images fail.
  onBrokenLinks: brokenContentPolicy.onBrokenLinks,
  onBrokenAnchors: brokenContentPolicy.onBrokenAnchors,
  markdown: { mermaid: true, hooks: brokenContentPolicy.markdownHooks },
  i18n: { defaultLocale: 'en', locales: ['en'] },
  // The banner that explains a wrong baseUrl stays on (it is Docusaurus' default; stated for clarity).
  baseUrlIssueBanner: true,
  future: { v4: { removeLegacyPostBuildHeadAttribute: true } },
  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {
          routeBasePath: '/',
          sidebarPath: './sidebars.js',
          editUrl: `${repoUrl}/edit/main/apps/portal/`,
          lastVersion: 'current',
          versions: { current: { label: 'Next' } },
          showLastUpdateTime: false,
        },
        blog: false,
        pages: false,
        theme: { customCss: './src/css/custom.css' },
        sitemap: false,
      }),
    ],
  ],
  // The classic preset adds @docusaurus/theme-search-algolia by itself when themeConfig.algolia is set.
  themes: ['@docusaurus/theme-mermaid'],
  plugins: [
    './src/plugins/lazy-prism/index.js',
    ['./src/plugins/openapi/index.js', { specPath: openApiPathFromEnv(process.env) }],
    ['./src/plugins/search/index.js', { algolia }],
    './src/plugins/inline-css/index.js',
  ],
  themeConfig:
    /** @type {import('@docusaurus/preset-classic').ThemeConfig} */
    ({
      colorMode: { defaultMode: 'light', disableSwitch: false, respectPrefersColorScheme: true },
      docs: { sidebar: { hideable: true, autoCollapseCategories: false } },
      tableOfContents: { minHeadingLevel: 2, maxHeadingLevel: 3 },
      announcementBar: {
        id: 'tessera-early-2026',
        content: 'Tessera is under active development: dimmed pages marked <span class="planned-badge">planned</span> in the sidebar describe what is coming, not what exists.',
        isCloseable: true,
      },
      navbar: {
        title,
        logo: { alt: 'Tessera', src: 'img/logo.svg', width: 32, height: 32 },
        hideOnScroll: false,
        items: [
          { type: 'doc', docId: 'intro', label: 'Docs', position: 'left' },
          {
            type: 'doc',
            docId: 'relying-parties/reference/using-apis',
            html: `Relying parties <span class="planned-badge planned-badge--count">${rpPlanned} of ${rpPages} planned</span>`,
            position: 'left',
          },
          { to: '/api', label: 'API', position: 'left', activeBasePath: 'api' },
          { type: 'search', position: 'right' },
          { href: repoUrl, label: 'Source', position: 'right', 'aria-label': 'Source repository' },
        ],
      },
      footer: {
        style: 'dark',
        links: [
          {
            title: 'Documentation',
            items: [
              { label: 'Development setup', to: '/tutorials/development-setup' },
              { label: 'onepw protocol', to: '/explanation/onepw-protocol' },
              { label: 'API reference', to: '/api' },
            ],
          },
          {
            title: 'Project',
            items: [
              { label: 'Source repository', href: repoUrl },
              { label: 'Development process', to: '/reference/team-processes/development-process' },
            ],
          },
        ],
        copyright: `${title} — ${tagline}. Content licensed MPL-2.0.`,
      },
      prism: {
        theme: prismThemes.github,
        darkTheme: prismThemes.dracula,
        additionalLanguages: ['bash'],
      },
      mermaid: { theme: { light: 'neutral', dark: 'dark' } },
      ...(algolia ? { algolia: { ...algolia, contextualSearch: false, searchPagePath: 'search' } } : {}),
    }),
};

export default config;
