"""Per-test results for Go, Rust, Node and CTest, from the output those runners really print."""

from __future__ import annotations

import json
from pathlib import Path

from sandbox.results import (
    collect_tests,
    name_go_tests_by_file,
    parse_cargo_test,
    parse_junit_xml,
    parse_tap,
    read_tests,
)

CARGO = """\
   Compiling stats v0.1.0 (/workspace)
    Finished test [unoptimized + debuginfo] target(s) in 0.61s
     Running unittests src/lib.rs (target/debug/deps/stats-5f1c2c1d0b1f7c1e)

running 1 test
test tests::internal ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

     Running tests/stats.rs (target/debug/deps/stats-8d3e6c3b2a1f0e9d)

running 4 tests
test mean_of_three ... ok
test median_odd ... ok
test slow_one ... ignored
test median_even ... FAILED

failures:

---- median_even stdout ----
thread 'median_even' panicked at 'assertion failed: `(left == right)`
  left: `3.0`,
 right: `2.5`', tests/stats.rs:15:5
note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace


failures:
    median_even

test result: FAILED. 2 passed; 1 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests stats

running 1 test
test src/lib.rs - median (line 9) ... ok

test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.15s

error: 1 target failed:
    `--test stats`
"""

# node --test --test-reporter=tap (Node 18, as Debian ships it): each file is a subtest of its own
NODE_TAP = """\
TAP version 13
# Subtest: /workspace/test/stats.test.js
    # Subtest: mean of three
    ok 1 - mean of three
      ---
      duration_ms: 0.61
      ...
    # Subtest: median
        # Subtest: even
        not ok 1 - even
          ---
          duration_ms: 1.02
          failureType: 'testCodeFailure'
          error: |-
            Expected values to be strictly equal:

            3 !== 2.5

          code: 'ERR_ASSERTION'
          ...
        # Subtest: later
        ok 2 - later # SKIP
          ---
          duration_ms: 0.1
          ...
        1..2
    not ok 2 - median
      ---
      duration_ms: 1.5
      failureType: 'subtestsFailed'
      ...
    1..2
not ok 1 - /workspace/test/stats.test.js
  ---
  duration_ms: 40.2
  failureType: 'subtestsFailed'
  ...
1..1
# tests 3
# pass 1
# fail 1
"""

CTEST_XML = b"""<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="Linux-c++" tests="2" failures="1" disabled="0" skipped="0" hostname="" time="0">
  <testcase name="median_odd" classname="median_odd" time="0.002" status="run">
    <system-out></system-out>
  </testcase>
  <testcase name="median_even" classname="median_even" time="0.002" status="fail">
    <failure message="Failed"/>
    <system-out>median(values, 4) with {1, 2, 3, 4} = 3, want 2.5</system-out>
  </testcase>
</testsuite>"""


def test_cargo_lines_become_tests_named_by_their_target_with_the_panic_as_message() -> None:
    cases = {c.name: c for c in parse_cargo_test(CARGO)}
    assert {n: c.outcome for n, c in cases.items()} == {
        "src/lib.rs::tests::internal": "pass", "tests/stats.rs::mean_of_three": "pass",
        "tests/stats.rs::median_odd": "pass", "tests/stats.rs::slow_one": "skip",
        "tests/stats.rs::median_even": "fail", "src/lib.rs - median (line 9)": "pass"}
    assert "right: `2.5`" in cases["tests/stats.rs::median_even"].message
    assert cases["tests/stats.rs::median_odd"].message == ""


def test_node_tap_gives_the_leaf_tests_named_by_file_and_suite() -> None:
    cases = {c.name: c for c in parse_tap(NODE_TAP)}
    assert {n: c.outcome for n, c in cases.items()} == {
        "test/stats.test.js::mean of three": "pass", "test/stats.test.js::median > even": "fail",
        "test/stats.test.js::median > later": "skip"}
    assert "3 !== 2.5" in cases["test/stats.test.js::median > even"].message


def test_plain_tap_without_subtests() -> None:
    cases = parse_tap("TAP version 13\n1..2\nok 1 - adds\nnot ok 2 - subtracts\n")
    assert [(c.name, c.outcome) for c in cases] == [("adds", "pass"), ("subtracts", "fail")]


def test_ctest_junit_names_each_test_once() -> None:
    assert [(c.name, c.outcome) for c in parse_junit_xml(CTEST_XML)] == [("median_odd", "pass"),
                                                                       ("median_even", "fail")]


def test_go_tests_are_named_by_the_file_that_defines_them(tmp_path: Path) -> None:
    (tmp_path / "go.mod").write_text("module example.com/stats\n\ngo 1.19\n")
    (tmp_path / "internal").mkdir()
    (tmp_path / "stats_test.go").write_text("package stats\n\nfunc TestMedian(t *testing.T) {}\n")
    (tmp_path / "internal" / "sort_test.go").write_text("package internal\n\nfunc TestSort(t *testing.T) {}\n")
    events = [{"Action": "fail", "Package": "example.com/stats", "Test": "TestMedian"},
              {"Action": "pass", "Package": "example.com/stats", "Test": "TestMedian/even"},
              {"Action": "pass", "Package": "example.com/stats/internal", "Test": "TestSort"},
              {"Action": "pass", "Package": "example.com/stats", "Test": "TestGenerated"},
              {"Action": "pass", "Package": "other.org/x", "Test": "TestX"}]
    cases = collect_tests({}, "\n".join(json.dumps(e) for e in events), "", tmp_path)
    assert [c.name for c in cases] == ["stats_test.go::TestMedian", "stats_test.go::TestMedian/even",
                                       "internal/sort_test.go::TestSort", "example.com/stats::TestGenerated",
                                       "other.org/x::TestX"]
    assert name_go_tests_by_file(cases, tmp_path / "no-module") == cases


def test_collect_tests_reads_cargo_and_tap_output() -> None:
    assert len(collect_tests({}, CARGO, "")) == 6
    assert len(collect_tests({}, "npm output\n" + NODE_TAP, "")) == 3


def test_node_tests_without_a_file_in_tap_are_named_by_the_test_file_that_holds_them(tmp_path: Path) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "stats.test.js").write_text("test('median even', () => {});\ntest(\"median odd\", () => {});\n")
    (tmp_path / "test" / "other.test.js").write_text("test('shared', () => {});\n")
    (tmp_path / "test" / "more.test.js").write_text("test('shared', () => {});\n")
    tap = ("TAP version 13\n# Subtest: median odd\nok 1 - median odd\n# Subtest: median even\nnot ok 2 - median even\n"
           "# Subtest: shared\nok 3 - shared\n1..3\n")  # Node 18 as Debian ships it: no file for passing tests
    cases = collect_tests({}, tap, "", tmp_path)
    assert [(c.name, c.outcome) for c in cases] == [
        ("test/stats.test.js::median odd", "pass"), ("test/stats.test.js::median even", "fail"),
        ("shared", "pass")]  # two files hold it: the name stays as it was


def test_tests_are_named_by_the_files_the_run_saw_not_only_the_repositorys(tmp_path: Path) -> None:
    """A test file the judge adds for one run (the hidden check, a twin) is in the run's overlay, not in the
    repository: its Go and Node tests are named by it, and a file the overlay takes out names none."""
    (tmp_path / "go.mod").write_text("module example.com/stats\n\ngo 1.19\n")
    (tmp_path / "stats_test.go").write_text("package stats\n\nfunc TestMedian(t *testing.T) {}\n")
    overlay: dict[str, bytes | None] = {"stats_hidden_test.go": b"package stats\n\nfunc TestSix(t *testing.T) {}\n"}
    events = [{"Action": "fail", "Package": "example.com/stats", "Test": "TestSix"},
              {"Action": "pass", "Package": "example.com/stats", "Test": "TestMedian"}]
    go = "\n".join(json.dumps(e) for e in events)
    assert [c.name for c in read_tests({}, go, "", tmp_path, overlay=overlay)[1]] == [
        "stats_hidden_test.go::TestSix", "stats_test.go::TestMedian"]
    assert [c.name for c in read_tests({}, go, "", tmp_path, overlay={"stats_test.go": None})[1]] == [
        "example.com/stats::TestSix", "example.com/stats::TestMedian"]
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "stats.test.js").write_text("test('median even', () => {});\n")
    hidden = {"test/stats_hidden.test.js": b"test('median of six', () => {});\ntest('median even', () => {});\n"}
    tap = "TAP version 13\nnot ok 1 - median of six\nnot ok 2 - median even\n1..2\n"
    assert [c.name for c in read_tests({}, tap, "", tmp_path, overlay={**hidden, "test/stats.test.js": None})[1]] == [
        "test/stats_hidden.test.js::median of six", "test/stats_hidden.test.js::median even"]
    assert [c.name for c in read_tests({}, tap, "", tmp_path, overlay=hidden)[1]] == [
        "test/stats_hidden.test.js::median of six", "median even"]  # two files of the run hold it: not named
