import { expect } from 'vitest';

/** Smooth weighted 2:1 over six assignments: a four times, b twice, never three a's in a row. */
export function expectTwoToOne(got: (string | undefined)[], a: string, b: string) {
  expect(got.filter((x) => x === a)).toHaveLength(4);
  expect(got.filter((x) => x === b)).toHaveLength(2);
  expect(got.join(',')).not.toContain([a, a, a].join(','));
}
