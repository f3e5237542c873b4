import { z } from 'zod';

/**
 * Whether a number is exactly a decimal of at most `scale` places, as `numeric(p, scale)` stores it without
 * rounding. A JSON number of up to 15 significant digits (every value a numeric(14, s) column holds) parses to the
 * double nearest to it, whose `toFixed(scale)` writes the same digits back: so this is true exactly when the client
 * wrote at most `scale` decimals. A denormal like 4.9e-324, or 0.1 + 0.2 computed by a client, is not.
 */
export function fitsScale(value: number, scale: number): boolean {
  return Number(value.toFixed(scale)) === value;
}

export interface NumericBounds {
  /** Lowest value accepted (default: the column's lowest). */
  min?: number;
  /** Highest value accepted (default: the column's highest). */
  max?: number;
  /** Only values above 0 (a check `> 0`). */
  positive?: boolean;
}

/**
 * A JSON number bound for a `numeric(precision, scale)` column: finite, within the column's range (narrowed by
 * `bounds`, the column's check constraint), and with at most `scale` decimals. More decimals are refused, never
 * rounded (docs/decisions.md, "Numbers the database cannot hold"): rounding would store a value the client did
 * not send, and could turn a positive quantity into 0 against the column's `> 0` check. `-0` is 0.
 */
export function numericColumn(precision: number, scale: number, bounds: NumericBounds = {}) {
  const largest = Number((10 ** (precision - scale) - 10 ** -scale).toFixed(scale));
  const min = Math.max(bounds.min ?? -largest, -largest);
  const max = Math.min(bounds.max ?? largest, largest);
  const base = bounds.positive ? z.number().gt(Math.max(min, 0)) : z.number().min(min);
  return base.max(max).refine((v) => fitsScale(v, scale), {
    message: scale === 0 ? 'must be a whole number' : `at most ${scale} decimal${scale > 1 ? 's' : ''}`,
  });
}
