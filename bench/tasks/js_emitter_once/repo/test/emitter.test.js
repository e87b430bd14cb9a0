'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { Emitter } = require('../lib/emitter');

test('on listeners run every time, in order', () => {
  const bus = new Emitter();
  const seen = [];
  bus.on('x', (v) => seen.push(`a${v}`)).on('x', (v) => seen.push(`b${v}`));
  bus.emit('x', 1);
  bus.emit('x', 2);
  assert.deepEqual(seen, ['a1', 'b1', 'a2', 'b2']);
});

test('off removes a listener', () => {
  const bus = new Emitter();
  const listener = () => assert.fail('should not run');
  bus.on('x', listener).off('x', listener);
  assert.equal(bus.emit('x'), false);
});

test('once listeners run a single time', () => {
  const bus = new Emitter();
  let calls = 0;
  bus.once('ready', () => { calls += 1; });
  assert.equal(bus.emit('ready'), true);
  bus.emit('ready');
  assert.equal(calls, 1);
  assert.equal(bus.listenerCount('ready'), 0);
});
