"""The test-weakening guards on real Go, Rust and JavaScript test files (the demo samples, node:test's own
skip options): a skipped, deleted or weakened test is caught; a new test or a real fix is not."""

from __future__ import annotations

import pytest

from bot.ensemble.demo.languages import SAMPLES
from bot.ensemble.judge.guards import find_test_tampering

GO = SAMPLES["go"].files["stats_test.go"]
RUST = SAMPLES["rust"].files["tests/stats.rs"]
JS = SAMPLES["js"].files["test/stats.test.js"]
MOCHA = """const assert = require('assert');
const { median } = require('../stats');

describe('median', function () {
  it('handles an even count', function () {
    assert.equal(median([1, 2, 3, 4]), 2.5);
  });

  it('handles an odd count', function () {
    assert.equal(median([3, 1, 2]), 2);
  });
});
"""
GO_EVEN = "func TestMedianEven(t *testing.T) {\n"
JS_EVEN = "test('median even', () => {\n"


def tampering(path: str, old: str, new: str) -> list[tuple[str, str]]:
    return [(t.kind, t.detail) for t in find_test_tampering({path: old}, {path: new}, "Fix median for even counts")]


@pytest.mark.parametrize(("path", "old", "new", "kind", "test"), [
    ("stats_test.go", GO, GO.replace(GO_EVEN, GO_EVEN + '\tt.Skip("flaky on CI")\n'), "skipped_test", "TestMedianEven"),
    ("stats_test.go", GO, GO.replace(GO_EVEN, GO_EVEN + '\tif testing.Short() {\n\t\tt.SkipNow()\n\t}\n'),
     "skipped_test", "TestMedianEven"),
    ("stats_test.go", GO, GO.replace('\t\tt.Errorf("Median = %v, want 2.5", got)\n', "\t\t_ = got\n"),
     "weakened_test", "TestMedianEven"),
    ("stats_test.go", GO, GO.replace("func TestMedianEven", "func testMedianEven"), "deleted_test",
     "TestMedianEven"),
    ("tests/stats.rs", RUST, RUST.replace("#[test]\nfn median_even", '#[test]\n#[ignore = "slow"]\nfn median_even'),
     "skipped_test", "median_even"),
    ("tests/stats.rs", RUST, RUST.replace("assert_eq!(median(&[1.0, 2.0, 3.0, 4.0]), 2.5);", "assert!(true);"),
     "weakened_test", "median_even"),
    ("tests/stats.rs", RUST, RUST.replace("#[test]\nfn median_even", "fn median_even"), "deleted_test",
     "median_even"),
    ("test/stats.test.js", JS, JS.replace(JS_EVEN, "test('median even', { skip: true }, () => {\n"),
     "skipped_test", "median even"),
    ("test/stats.test.js", JS, JS.replace(JS_EVEN, "test('median even', { skip: 'flaky' }, () => {\n"),
     "skipped_test", "median even"),
    ("test/stats.test.js", JS, JS.replace(JS_EVEN, "test('median even', { todo: true }, () => {\n"),
     "skipped_test", "median even"),
    ("test/stats.test.js", JS, JS.replace(JS_EVEN, "test('median even', (t) => {\n  t.skip('later');\n"),
     "skipped_test", "median even"),
    ("test/stats.test.js", JS, JS.replace(JS_EVEN, "test.skip('median even', () => {\n"), "skipped_test",
     "median even"),
    ("test/stats.test.js", JS, JS.replace("  assert.strictEqual(median([1, 2, 3, 4]), 2.5);\n", ""),
     "weakened_test", "median even"),
    ("test/median.test.js", MOCHA, MOCHA.replace("it('handles an even count'", "it.skip('handles an even count'"),
     "skipped_test", "handles an even count"),
    ("test/median.test.js", MOCHA, MOCHA.replace("assert.equal(median([1, 2, 3, 4]), 2.5);", "assert.ok(true);"),
     "weakened_test", "handles an even count"),
])
def test_weakening_a_real_test_is_caught_and_named(path: str, old: str, new: str, kind: str, test: str) -> None:
    found = tampering(path, old, new)
    assert [k for k, _ in found] == [kind] and test in found[0][1]


def test_an_added_test_is_refused_in_an_existing_file_and_clean_in_a_new_one() -> None:
    go = GO + ('\nfunc TestMedianEmpty(t *testing.T) {\n\tdefer func() { recover() }()\n'
               '\tif Median(nil) == 0 {\n\t\tt.Fatal("no panic")\n\t}\n}\n')
    rust = RUST.replace("assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);",
                        "assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);\n    assert_eq!(median(&[5.0]), 5.0);")
    js = JS + "\ntest('median of one', { skip: false }, () => {\n  assert.strictEqual(median([5]), 5);\n});\n"
    assert [k for k, _ in tampering("stats_test.go", GO, go)] == ["edited_test"]
    assert [k for k, _ in tampering("tests/stats.rs", RUST, rust)] == ["edited_test"]
    assert [k for k, _ in tampering("test/stats.test.js", JS, js)] == ["edited_test"]
    assert tampering("median_empty_test.go", None, go) == []
    assert tampering("tests/median_one.rs", None, rust) == []
    assert tampering("test/median_one.test.js", None, js) == []
