/** Order statistics of samples. */

/** The q-quantile (0..1) of sorted values, by linear interpolation. */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN;
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  const a = sorted[low] ?? NaN;
  const b = sorted[high] ?? NaN;
  return a + (b - a) * (position - low);
}

export function sorted(values: Iterable<number>): Float64Array {
  return Float64Array.from(values).sort();
}

export const median = (values: Iterable<number>): number => quantileSorted(sorted(values), 0.5);

export interface Summary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  readonly runs: number;
}

/** Median and spread (min–max) of the per-run values of one row. */
export function summarize(values: readonly number[]): Summary {
  const s = sorted(values);
  return { median: quantileSorted(s, 0.5), min: s[0] ?? NaN, max: s[s.length - 1] ?? NaN, runs: s.length };
}
