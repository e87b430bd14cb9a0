'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { percentile, mean, summarize } = require('../lib/stats');

describe('percentile', () => {
  it('takes the nearest rank', () => {
    assert.equal(percentile([5, 1, 4, 2, 3], 50), 3);
    assert.equal(percentile([5, 1, 4, 2, 3], 100), 5);
    assert.equal(percentile([7], 95), 7);
  });

  it('compares durations as numbers', () => {
    const values = [120, 95, 1003, 88, 430, 9, 250, 87, 76, 1500];
    assert.equal(percentile(values, 50), 95);
    assert.equal(percentile(values, 90), 1003);
    assert.equal(percentile(values, 100), 1500);
  });

  it('refuses no values and a bad p', () => {
    assert.throws(() => percentile([], 50), RangeError);
    assert.throws(() => percentile([1, 2], 0), RangeError);
    assert.throws(() => percentile([1, 2], 120), RangeError);
  });

  it('leaves its argument alone', () => {
    const values = [3, 1, 2];
    percentile(values, 50);
    assert.deepEqual(values, [3, 1, 2]);
  });
});

describe('summarize', () => {
  it('gives every figure', () => {
    assert.deepEqual(summarize([40, 10, 30, 20]), { count: 4, mean: 25, p50: 20, p95: 40, p99: 40, max: 40 });
  });

  it('never puts p95 below p50', () => {
    const s = summarize([8, 12, 9, 15, 110, 7, 95, 10, 11, 13, 9, 14, 8, 10, 240, 12, 9, 11, 10, 13]);
    assert.equal(s.p50, 11);
    assert.equal(s.p95, 110);
    assert.equal(s.p99, 240);
    assert.ok(s.p50 <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.max);
  });
});

describe('mean', () => {
  it('averages', () => {
    assert.equal(mean([1, 2, 3, 4]), 2.5);
  });
});
