import { defineConfig } from 'vitest/config';

// One runner for every TypeScript package: workspace packages resolve to their sources through the
// `tessera-source` export condition, so tests never need a build first.
export default defineConfig({
  resolve: { conditions: ['tessera-source'] },
  ssr: { resolve: { conditions: ['tessera-source'] } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'apps/server/src/**/*.test.ts', 'apps/server/test/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
