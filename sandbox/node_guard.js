// The sandbox's preload in every Node process of a judged run (sandbox/scripts.py: NODE_OPTIONS=--require), before
// any repository code runs.
//
// The assertion modules and JSON are frozen, so code under test cannot replace `assert.strictEqual` or `JSON.parse`
// however it names them (`require('as' + 'sert')['strict' + 'Equal'] = ...`): the assignment is ignored, or throws
// in strict code. Test runners that give each test file a context of its own (Jest's `expect`, its per-file `JSON`)
// are not reached by it; Node's core modules are shared, so `assert` is.
//
// The code under test reading a file of the tests' code (the judge's JavaScript and TypeScript files, listed in
// ensemble_owned.txt beside this file) through `fs` is recorded in `$ENSEMBLE_RESULTS/honesty.log` as `reads_tests`,
// as sandbox/run_hooks.py records it in Python: the reader is the innermost frame of the repository's own code
// (not node_modules, not the sandbox's files, not the tests'), and code that reads its test can answer what the
// test expects (a table of expected values, a literal on the calling line). A test reading its own fixtures, the
// runner loading the tests, and a library's reads are not the code under test's.
'use strict';
for (const name of ['assert', 'assert/strict']) {
  try {
    Object.freeze(require(name));
  } catch (error) {
    // a Node without this module: nothing to freeze
  }
}
Object.freeze(JSON);

(function watchReads() {
  const fs = require('fs');
  const path = require('path');
  const workspace = process.env.ENSEMBLE_WORKSPACE;
  const results = process.env.ENSEMBLE_RESULTS;
  let listing;
  try {
    listing = fs.readFileSync(path.join(__dirname, 'ensemble_owned.txt'), 'utf8');
  } catch (error) {
    return; // not a judged run
  }
  if (!workspace || !results) {
    return;
  }
  const root = path.resolve(workspace) + path.sep;
  const code = /\.(?:[cm]?[jt]sx?)$/;
  const tests = new Set(listing.split('\n').filter((name) => code.test(name)).map((name) => path.join(root, name)));
  if (tests.size === 0) {
    return;
  }
  const append = fs.appendFileSync;
  const seen = new Set();
  let busy = false;

  // the repository file of the innermost frame of the code under test, '' when that is the tests', the sandbox's,
  // a dependency's, or none (the runner's own)
  function asker() {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 40;
    const stack = new Error().stack || '';
    Error.stackTraceLimit = limit;
    for (const line of stack.split('\n').slice(1)) {
      const found = line.match(/\(?((?:file:\/\/)?\/[^()]*?):\d+:\d+\)?\s*$/);
      const file = found ? found[1].replace(/^file:\/\//, '') : '';
      const rel = file.startsWith(root) ? file.slice(root.length) : '';
      if (!rel || rel.startsWith('.ensemble-')) { // Node's own, or this file's
        continue;
      }
      return tests.has(file) || rel.split(path.sep).includes('node_modules') ? '' : rel;
    }
    return '';
  }

  function check(target) {
    if (busy || (typeof target !== 'string' && !(target instanceof URL) && !Buffer.isBuffer(target))) {
      return;
    }
    busy = true;
    try {
      const text = target instanceof URL ? target.pathname : target.toString();
      const full = path.resolve(text);
      if (!tests.has(full)) {
        return;
      }
      const here = asker();
      const key = `${here}\t${full}`;
      if (here && !seen.has(key)) {
        seen.add(key);
        append(path.join(results, 'honesty.log'), `reads_tests\t${here} read ${full.slice(root.length)}, a file of the `
          + 'tests: code under test that reads its tests can answer what they expect\n');
      }
    } catch (error) {
      // the check never fails the read
    } finally {
      busy = false;
    }
  }

  for (const name of ['readFileSync', 'readFile', 'openSync', 'open', 'createReadStream']) {
    const original = fs[name];
    fs[name] = function (target, ...rest) {
      check(target);
      return original.call(this, target, ...rest);
    };
  }
  for (const name of ['readFile', 'open']) {
    const original = fs.promises[name];
    fs.promises[name] = function (target, ...rest) {
      check(target);
      return original.call(this, target, ...rest);
    };
  }
}());
