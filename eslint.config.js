import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';
import { plugin as tessera } from './scripts/eslint/domain-boundaries.mjs';

// apps/portal, the Docusaurus developer portal: plain JS with JSX, no TypeScript. The recommended rules
// and the house rules (in the list below) apply to it as to every file; these blocks only say where each
// file runs. `...portal` stays after the house-rules block: that block gives every file the Node
// globals, and the browser block here takes the Node-only ones back.
const portalBrowserFiles = [
  // Bundled by webpack for the browser (and for the static render, which needs the same browser-safe code).
  'apps/portal/src/components/**/*.{js,jsx}',
  'apps/portal/src/theme/**/*.{js,jsx}',
  'apps/portal/src/plugins/*/theme/**/*.{js,jsx}',
  'apps/portal/src/plugins/*/client/**/*.{js,jsx}',
  'apps/portal/src/plugins/lazy-prism/empty-client-module.js',
];
const nodeOnlyGlobals = Object.fromEntries(
  Object.keys(globals.node)
    .filter((name) => !(name in globals.browser))
    .map((name) => [name, 'off']),
);
const portal = [
  {
    // Config files, scripts, tests and the plugins' build-time half (src/plugins/*/index.js and the
    // modules they import) run in Node.
    files: ['apps/portal/**/*.{js,jsx,mjs}'],
    ignores: portalBrowserFiles,
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: portalBrowserFiles,
    languageOptions: {
      parserOptions: { ecmaFeatures: { jsx: true } },
      globals: { ...nodeOnlyGlobals, ...globals.browser },
    },
  },
  {
    // Playwright specs run in Node, and the callbacks they hand to page.evaluate run in the page.
    files: ['apps/portal/test/browser/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
];

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'data/**', 'apps/portal/build/**', 'apps/portal/test-results/**', 'apps/portal/**/.docusaurus/**', 'apps/web/dist/**', '**/*.d.ts', 'packages/client/src/generated/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // Benchmarks run code inside the browser page too (page.evaluate).
    files: ['bench/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // The domain contract (README "Layout"): domains meet only through each other's index.ts, on
    // the floors of apps/server/src/floors.json (downwards, or on one floor without a cycle); a
    // store names only its domain's tables, a routes file imports no store; http/, storage/ and
    // platform/ import no domain. Rule and fixtures: scripts/eslint/.
    files: ['apps/server/src/**/*.ts'],
    plugins: { tessera },
    rules: { 'tessera/domain-boundaries': 'error' },
  },
  ...portal,
);
