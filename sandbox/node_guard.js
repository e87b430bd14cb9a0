// The sandbox's preload in every Node process of a judged run (sandbox/scripts.py: NODE_OPTIONS=--require), before
// any repository code runs: the assertion modules and JSON are frozen, so code under test cannot replace
// `assert.strictEqual` or `JSON.parse` however it names them (`require('as' + 'sert')['strict' + 'Equal'] = ...`):
// the assignment is ignored, or throws in strict code. Test runners that give each test file a context of its own
// (Jest's `expect`, its per-file `JSON`) are not reached by it; Node's core modules are shared, so `assert` is.
'use strict';
for (const name of ['assert', 'assert/strict']) {
  try {
    Object.freeze(require(name));
  } catch (error) {
    // a Node without this module: nothing to freeze
  }
}
Object.freeze(JSON);
