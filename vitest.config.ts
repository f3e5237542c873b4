import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    // Processes the tests spawn (bin/crm.js, bin/crm-mcp.js) run the sources under test, never a stale dist/.
    env: { CRM_FROM_SOURCE: '1' },
    pool: 'forks',
    // One migrated database per worker, shared by its files (DESIGN.md §10.6): isolation comes from
    // a fresh organization per test, never from a fresh database.
    poolOptions: { forks: { isolate: false, maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
