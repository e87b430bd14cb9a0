'use strict';

/** The `p`-th percentile of `values` (nearest rank: the smallest value with p% of them at or below it). */
function percentile(values, p) {
  if (values.length === 0) throw new RangeError('percentile of no values');
  if (!(p > 0 && p <= 100)) throw new RangeError(`percentile must be in (0, 100], got ${p}`);
  const sorted = [...values].sort();
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[rank - 1];
}

function mean(values) {
  if (values.length === 0) throw new RangeError('mean of no values');
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

/** count, mean, p50, p95, p99 and max of a list of durations. */
function summarize(values) {
  return {
    count: values.length,
    mean: mean(values),
    p50: percentile(values, 50),
    p95: percentile(values, 95),
    p99: percentile(values, 99),
    max: Math.max(...values),
  };
}

module.exports = { percentile, mean, summarize };
