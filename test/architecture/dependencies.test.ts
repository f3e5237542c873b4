import { resolve } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, test } from 'vitest';

/**
 * The dependency lint (.dependency-cruiser.cjs, `npm run lint:deps` in .ci/run): it fails on the deliberately bad
 * imports of test/fixtures/dependency-lint, and the service's own tree (src) breaks none of its rules. web/src is
 * checked by .ci/run.
 */
const root = resolve(import.meta.dirname, '../..');

async function lint(baseDir: string, paths: string[]) {
  const options = await extractDepcruiseOptions(resolve(root, '.dependency-cruiser.cjs'));
  const tsConfig = extractTSConfig(resolve(root, 'tsconfig.json'));
  const out = await cruise(
    paths,
    { ...options, baseDir, tsConfig: { fileName: resolve(root, 'tsconfig.json') }, outputType: 'json' },
    undefined,
    { tsConfig },
  );
  const result = (typeof out.output === 'string' ? JSON.parse(out.output) : out.output) as ICruiseResult;
  return result.summary.violations.map((v) => ({
    rule: v.rule.name,
    from: v.from,
    to: v.to,
    cycle: v.cycle?.map((c) => c.name),
  }));
}

describe('dependency lint (.dependency-cruiser.cjs)', () => {
  test('fails on a platform → module import, a module → app import and an import cycle (type imports counted)', async () => {
    const violations = await lint(resolve(root, 'test/fixtures/dependency-lint'), ['src']);
    expect(violations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          rule: 'platform-not-to-modules-or-app',
          from: 'src/platform/leaky.ts',
          to: 'src/modules/notes/service.ts',
        }),
        expect.objectContaining({
          rule: 'modules-not-to-app',
          from: 'src/modules/notes/jobs.ts',
          to: 'src/workers.ts',
        }),
        expect.objectContaining({ rule: 'no-circular', from: 'src/modules/notes/format.ts' }),
      ]),
    );
    const cycle = violations.find((v) => v.rule === 'no-circular');
    expect(cycle?.cycle).toEqual(expect.arrayContaining(['src/modules/notes/model.ts']));
    // Nothing else (a cycle is reported once): the fixture's other imports (service → format) are allowed.
    expect(violations.map((v) => v.rule).sort()).toEqual([
      'modules-not-to-app',
      'no-circular',
      'platform-not-to-modules-or-app',
    ]);
  });

  test('the service (src) breaks none of the rules', async () => {
    expect(await lint(root, ['src'])).toEqual([]);
  });
});
