import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';

const root = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('README, architecture page and CI script', () => {
  test('the README opens with the start and test commands, and its table names every env var', () => {
    const readme = read('README.md');
    const firstBlock = readme
      .match(/```sh\n([\s\S]*?)```/)![1]
      .trim()
      .split('\n');
    expect(readme.indexOf('```sh')).toBeLessThan(readme.indexOf('\n## '));
    expect(firstBlock[0]).toMatch(/npm start/);
    expect(firstBlock[1]).toMatch(/npm test/);
    expect(readme).toMatch(/## Running against PostgreSQL/);
    const vars = [...read('src/config.ts').matchAll(/^ {2}([A-Z][A-Z0-9_]+): z\./gm)].map((m) => m[1]);
    expect(vars.length).toBeGreaterThan(10);
    const missing = vars.filter((v) => !new RegExp(`^\\|[^\\n]*\`${v}\``, 'm').test(readme));
    expect(missing).toEqual([]);
  });

  test('docs/architecture.md shows the request path, the module shape and how to add a route', () => {
    const doc = read('docs/architecture.md');
    for (const word of ['RLS', 'transaction', 'x-tenant-id', 'table.ts', 'routes.ts', 'OpenAPI'])
      expect(doc, word).toContain(word);
    expect(doc).toMatch(/## Adding a route/);
  });

  test('.ci/run installs, tests on PGlite and on a fresh PostgreSQL database, then lints and typechecks', () => {
    const ci = read('.ci/run');
    const at = (re: RegExp) => ci.search(re);
    const steps = [
      at(/^npm (ci|install)\b/m),
      at(/^npm test$/m),
      at(/CREATE DATABASE/),
      at(/^DATABASE_URL=\S+ npm test$/m),
      at(/^npm run lint$/m),
      at(/^npm run typecheck$/m),
    ];
    expect(steps.every((i) => i >= 0)).toBe(true);
    expect(steps).toEqual([...steps].sort((a, b) => a - b));
  });

  test('the contract ships in docs/spec and equals the team copy beside the checkout when there is one', () => {
    const shipped = read('docs/spec/crm-service-interface.md');
    expect(shipped).toMatch(/^# /);
    expect(read('README.md')).toContain('](docs/spec/crm-service-interface.md)');
    const team = join(root, '../shared/spec/crm-service-interface.md');
    if (existsSync(team)) expect(shipped).toBe(readFileSync(team, 'utf8'));
  });
});
