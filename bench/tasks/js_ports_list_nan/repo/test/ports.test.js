'use strict';
const { describe, it } = require('node:test');
const assert = require('node:assert/strict');
const { parsePorts } = require('../lib/ports');

describe('parsePorts', () => {
  it('reads one port', () => {
    assert.deepEqual(parsePorts('8080'), [8080]);
  });

  it('reads a comma-separated list', () => {
    assert.deepEqual(parsePorts('3000,3001,3002'), [3000, 3001, 3002]);
  });

  it('allows spaces and drops duplicates', () => {
    assert.deepEqual(parsePorts(' 8080, 9090 ,8080'), [8080, 9090]);
  });

  it('rejects ports out of range', () => {
    assert.throws(() => parsePorts('0'), /invalid port 0/);
    assert.throws(() => parsePorts('70000'), /invalid port 70000/);
  });

  it('rejects an empty list', () => {
    assert.throws(() => parsePorts(' , '), /no port given/);
  });
});
