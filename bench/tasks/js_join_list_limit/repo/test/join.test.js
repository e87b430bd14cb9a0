'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { joinList } = require('../lib/join');

const FIVE = ['Ann', 'Bo', 'Cy', 'Di', 'Ed'];

describe('joinList', () => {
  it('joins one, two and three items', () => {
    assert.equal(joinList([]), '');
    assert.equal(joinList(['Ann']), 'Ann');
    assert.equal(joinList(['Ann', 'Bo']), 'Ann and Bo');
    assert.equal(joinList(['Ann', 'Bo', 'Cy']), 'Ann, Bo, and Cy');
  });

  it('takes another conjunction and no serial comma', () => {
    assert.equal(joinList(['tea', 'coffee', 'water'], { conjunction: 'or', serialComma: false }), 'tea, coffee or water');
  });

  it('skips empty items', () => {
    assert.equal(joinList(['Ann', '', null, 'Bo', undefined]), 'Ann and Bo');
  });

  it('refuses what is not an array', () => {
    assert.throws(() => joinList('Ann, Bo'), TypeError);
  });
});

describe('joinList limit', () => {
  it('names the first items and counts the others', () => {
    assert.equal(joinList(FIVE, { limit: 2 }), 'Ann, Bo, and 3 others');
    assert.equal(joinList(FIVE, { limit: 1 }), 'Ann and 4 others');
  });

  it('says "1 other" for one', () => {
    assert.equal(joinList(['Ann', 'Bo', 'Cy'], { limit: 2 }), 'Ann, Bo, and 1 other');
  });

  it('joins the rest like any list', () => {
    assert.equal(joinList(FIVE, { limit: 3, conjunction: 'or', serialComma: false }), 'Ann, Bo, Cy or 2 others');
  });

  it('changes nothing when the items fit', () => {
    assert.equal(joinList(['Ann', 'Bo'], { limit: 2 }), 'Ann and Bo');
    assert.equal(joinList(FIVE, { limit: 5 }), 'Ann, Bo, Cy, Di, and Ed');
  });

  it('skips empty items before counting', () => {
    assert.equal(joinList(['Ann', '', 'Bo', null, 'Cy'], { limit: 2 }), 'Ann, Bo, and 1 other');
  });

  it('refuses a limit that is not a positive integer', () => {
    for (const limit of [0, -1, 1.5, '2']) {
      assert.throws(() => joinList(FIVE, { limit }), { name: 'RangeError', message: `limit must be a positive integer, got ${limit}` });
    }
  });
});
