'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { chunk } = require('../lib/batch');

describe('chunk', () => {
  it('cuts into equal batches', () => {
    assert.deepEqual(chunk([1, 2, 3, 4, 5, 6], 3), [[1, 2, 3], [4, 5, 6]]);
  });

  it('keeps the last, shorter batch', () => {
    assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
    assert.deepEqual(chunk([1, 2], 5), [[1, 2]]);
  });

  it('has no batch for no items', () => {
    assert.deepEqual(chunk([], 10), []);
  });

  it('refuses a size that is not a positive integer', () => {
    assert.throws(() => chunk([1], 0), RangeError);
    assert.throws(() => chunk([1], 2.5), RangeError);
  });
});
