import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    pool: 'forks',
    // One migrated database per worker, shared by its files (DESIGN.md §10.6): isolation comes from
    // a fresh organization per test, never from a fresh database.
    poolOptions: { forks: { isolate: false, maxForks: 2, minForks: 1 } },
    testTimeout: 60_000,
    // expect.poll waits as long as Playwright's locators do (10 s), not vitest's 1 s: the web tests poll what the
    // page shows after a write and a refetch, which took longer than 1 s in the CI's PostgreSQL pass (two test
    // processes, Chromium and the server on two cores). A poll that never holds still fails, 9 s later.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 120_000,
    reporters: ['default', './test/helpers/summary-reporter.ts'],
  },
});
