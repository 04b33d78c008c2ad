/** The percentiles the benchmarks publish (nearest rank), rounded to 0.01. */
export function percentiles(values: number[]): { n: number; p50: number; p90: number; p99: number; max: number; mean: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  const round = (v: number) => Math.round(v * 100) / 100;
  return {
    n: sorted.length,
    p50: round(at(0.5)),
    p90: round(at(0.9)),
    p99: round(at(0.99)),
    max: round(sorted[sorted.length - 1] ?? NaN),
    mean: round(sorted.reduce((s, v) => s + v, 0) / Math.max(1, sorted.length)),
  };
}
