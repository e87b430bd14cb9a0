'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { durationsByEndpoint, report } = require('../lib/report');

const LOG = [
  'GET /health 200 2ms',
  'GET /api/orders 200 87ms',
  'GET /api/orders 200 120ms',
  'not a request line',
  'POST /api/orders 201 310ms',
  'GET /api/orders 200 1003ms',
  'GET /api/orders 500 95ms',
];

describe('report', () => {
  it('groups durations by endpoint', () => {
    assert.deepEqual([...durationsByEndpoint(LOG)], [
      ['GET /health', [2]],
      ['GET /api/orders', [87, 120, 1003, 95]],
      ['POST /api/orders', [310]],
    ]);
  });

  it('prints one row an endpoint', () => {
    assert.equal(report(LOG), [
      'endpoint          count   mean  p50   p95   p99   max',
      'GET /health           1    2.0    2     2     2     2',
      'GET /api/orders       4  326.3   95  1003  1003  1003',
      'POST /api/orders      1  310.0  310   310   310   310',
    ].join('\n'));
  });
});
