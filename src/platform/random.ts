/**
 * mulberry32: a small, fast, seeded PRNG, uniform in [0, 1) and the same sequence on every Node version.
 * For reproducible data (the demo, the benchmark seed) and replayable property tests; never for secrets
 * (those use node:crypto).
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seeded PRNG with the helpers its users share: an integer in [min, max], a pick from a list, a chance. */
export function prng(seed: number) {
  const next = mulberry32(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  /** An integer in [0, n). */
  const below = (n: number) => Math.floor(next() * n);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  const chance = (p: number) => next() < p;
  return { next, int, below, pick, chance };
}
export type Prng = ReturnType<typeof prng>;
