/** Summary figures of raw samples. */

/** The q-quantile (0..1) of `values` by nearest rank; NaN for no values. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** p50, p95, p99, max, min and mean of `values`, rounded to `digits` decimals. */
export function summarize(values: readonly number[], digits = 3) {
  const round = (x: number) => Number(x.toFixed(digits));
  const mean = values.reduce((a, b) => a + b, 0) / (values.length || 1);
  return {
    count: values.length,
    min: round(Math.min(...values)),
    p50: round(quantile(values, 0.5)),
    p95: round(quantile(values, 0.95)),
    p99: round(quantile(values, 0.99)),
    max: round(Math.max(...values)),
    mean: round(mean),
  };
}

/** Seconds since `start` (a performance.now() value), to the millisecond. */
export function secondsSince(start: number): number {
  return Number(((performance.now() - start) / 1000).toFixed(3));
}
