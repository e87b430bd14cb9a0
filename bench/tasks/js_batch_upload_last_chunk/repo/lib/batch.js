'use strict';

/** `items` cut into arrays of `size` items, in order. */
function chunk(items, size) {
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch size must be a positive integer, got ${size}`);
  const batches = [];
  for (let start = 0; start + size <= items.length; start += size) {
    batches.push(items.slice(start, start + size));
  }
  return batches;
}

module.exports = { chunk };
