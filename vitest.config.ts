import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** The newest modification time of any file under a directory. */
const newest = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((e) =>
      e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
    ),
  );

/**
 * Whether dist/ was built from the sources as they are (`npm install` and `npm ci` build it: .ci/run's fresh clone
 * always has a current one): both entry points exist and are newer than every file under src/ and the compiler's
 * settings. An edit since the last build makes it stale.
 */
function distIsCurrent(): boolean {
  const entries = ['dist/cli.js', 'dist/mcp/main.js'];
  if (!entries.every((f) => existsSync(f))) return false;
  const built = Math.min(...entries.map((f) => statSync(f).mtimeMs));
  const sources = Math.max(
    newest('src'),
    ...['tsconfig.json', 'tsconfig.build.json'].map((f) => statSync(f).mtimeMs),
  );
  return built > sources;
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    setupFiles: ['test/helpers/setup.ts'],
    // Processes the tests spawn (bin/crm.js, bin/crm-mcp.js) run the sources under test, never a stale dist/: the
    // compiled dist/ when it is current (a second less of CPU per process than compiling the sources through tsx,
    // and the suite starts a few hundred), else the sources.
    env: { CRM_FROM_SOURCE: distIsCurrent() ? '' : '1' },
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
