'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { parseQuery, buildQuery } = require('../lib/query');

describe('parseQuery', () => {
  it('reads pairs', () => {
    assert.deepEqual(parseQuery('?a=1&b=two'), { a: '1', b: 'two' });
  });

  it('decodes percent escapes', () => {
    assert.deepEqual(parseQuery('q=caf%C3%A9%20au%20lait&op=1%2B1'), { q: 'café au lait', op: '1+1' });
  });

  it('reads + as a space', () => {
    assert.deepEqual(parseQuery('?q=hello+world&lang=en+gb'), { q: 'hello world', lang: 'en gb' });
  });

  it('keeps empty values and keys without =', () => {
    assert.deepEqual(parseQuery('a=&b'), { a: '', b: '' });
  });
});

describe('buildQuery', () => {
  it('round-trips', () => {
    const params = { q: 'hello world', op: '1+1' };
    assert.deepEqual(parseQuery(buildQuery(params)), params);
  });
});
