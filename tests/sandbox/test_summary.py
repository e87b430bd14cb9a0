"""The compact failure summary the models read."""

from __future__ import annotations

import pytest

from sandbox import ExecResult, TestCase, summarize_failures
from sandbox.results import parse_tap

TRACE = """Traceback (most recent call last):
  File "/workspace/tests/test_calc.py", line 9, in test_add
    assert add(1, 2) == 4
  File "/opt/ensemble/venv/lib/python3.11/site-packages/pluggy/_hooks.py", line 3, in call
    x()
  File "/workspace/calc.py", line 2, in add
    return a - b
E       assert -1 == 3
"""


def result(tests: list[TestCase], code: int = 1, **kw: object) -> ExecResult:
    return ExecResult("pytest", code, kw.pop("stdout", ""), kw.pop("stderr", ""), 3.0, tests=tests, **kw)


def test_summary_names_failures_messages_and_own_frames_only() -> None:
    tests = [TestCase("tests/test_calc.py::test_add", "fail", TRACE), TestCase("tests/test_calc.py::test_ok", "pass")]
    summary = summarize_failures(result(tests))
    assert summary.splitlines()[0] == "`pytest`: 1 failed, 1 passed; exit code 1"
    assert "FAILED tests/test_calc.py::test_add" in summary and "assert -1 == 3" in summary
    assert "at calc.py:2 in add" in summary and "at tests/test_calc.py:9 in test_add" in summary
    assert "pluggy" not in summary and "/workspace/" not in summary and "test_ok" not in summary


def test_the_same_failure_reads_the_same_in_every_run_whatever_the_memory_addresses() -> None:
    """Python's reprs carry memory addresses that change from run to run; a summary that changed with them would
    get another reply from the same model at temperature 0. A hex value the test compares is kept."""
    def failing(address: str) -> str:
        message = (f"E       AssertionError: assert 2 == 3\n"
                   f"E        +  where 2 = <bound method Cart.quantity of <shop.cart.Cart object at {address}>>('tea')\n"
                   "E       assert '0x7f3a9c1d' == '0xdeadbeef'\n")
        return summarize_failures(result([TestCase("tests/test_cart.py::test_add", "fail", message)]))

    first, second = failing("0x7fc9cf9d1910"), failing("0x7f7c54cd9d90")
    assert first == second
    assert "<bound method Cart.quantity of <shop.cart.Cart object at 0x…>>('tea')" in first
    assert "assert '0x7f3a9c1d' == '0xdeadbeef'" in first


def test_summary_fits_the_budget_and_says_how_many_were_left_out() -> None:
    tests = [TestCase(f"tests/test_many.py::test_{i}", "fail", TRACE) for i in range(200)]
    summary = summarize_failures(result(tests), max_tokens=150)
    assert len(summary) <= 600
    assert "more failing tests" in summary


def test_without_parsed_tests_the_summary_is_the_log_tail() -> None:
    stderr = "collecting...\n" * 500 + "ImportError: cannot import name 'mul' from 'calc'\n"
    summary = summarize_failures(result([], code=2, stderr=stderr), max_chars=400)
    assert "no per-test results" in summary and summary.rstrip().endswith("from 'calc'")
    assert len(summary) <= 400


def test_timeouts_and_oom_are_said_plainly() -> None:
    assert "TIMED OUT after 3s" in summarize_failures(result([], code=124, timed_out=True))
    assert "OUT OF MEMORY" in summarize_failures(result([], code=137, oom_killed=True))


def test_a_unittest_failure_shows_its_exception_the_values_and_the_failing_line() -> None:
    trace = ('Traceback (most recent call last):\n  File "/workspace/tests/test_numerals.py", line 12, in test_sub\n'
             '    self.assertEqual(to_roman(4), "IV")\nAssertionError: \'IIII\' != \'IV\'\n- IIII\n+ IV\n')
    summary = summarize_failures(result([TestCase("tests.test_numerals.T::test_sub", "fail", trace)]))
    assert "AssertionError: 'IIII' != 'IV'\n  - IIII\n  + IV" in summary
    assert 'at tests/test_numerals.py:12 in test_sub: self.assertEqual(to_roman(4), "IV")' in summary


# `node --test --test-reporter=tap` (Node 20) on a failing `assert.equal`, as the sandbox captures it
NODE_TAP = """TAP version 13
# Subtest: once listeners run a single time
not ok 1 - once listeners run a single time
  ---
  duration_ms: 2.890492
  location: '/workspace/test/emitter.test.js:22:1'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:
    <blank>
    2 !== 1
    <blank>
  code: 'ERR_ASSERTION'
  name: 'AssertionError'
  expected: 1
  actual: 2
  operator: 'strictEqual'
  stack: |-
    TestContext.<anonymous> (/workspace/test/emitter.test.js:28:10)
    Test.runInAsyncScope (node:async_hooks:206:9)
    Test.run (node:internal/test_runner/test:796:25)
    async Test.processPendingSubtests (node:internal/test_runner/test:526:7)
  ...
1..1
""".replace("    <blank>", "    ")  # Node writes the block's empty lines indented


def test_a_node_test_failure_shows_the_assertion_its_values_and_the_tests_own_line() -> None:
    summary = summarize_failures(result(parse_tap(NODE_TAP)))
    assert ("FAILED once listeners run a single time\n  AssertionError: Expected values to be strictly equal:\n"
            "  2 !== 1\n  expected: 1\n  actual: 2\n  at test/emitter.test.js:28 in TestContext.<anonymous>") in summary
    assert "node:" not in summary and "processPendingSubtests" not in summary


# `cargo test`'s panic, as Rust 1.73 and later print it, and as Debian bookworm's Rust 1.63 does
RUST_PANICS = {
    "current": ("thread 'wraps' (19955) panicked at tests/wrap.rs:15:5:\nassertion `left == right` failed\n"
                "  left: [\"aaaaa bbbbb\", \"ccc\"]\n right: [\"aaaaa\", \"bbbbb ccc\"]\n"
                "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"),
    "1.63": ("thread 'wraps' panicked at 'assertion failed: `(left == right)`\n  left: `[\"aaaaa bbbbb\", \"ccc\"]`,\n"
             " right: `[\"aaaaa\", \"bbbbb ccc\"]`', tests/wrap.rs:15:5\n"
             "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"),
}


@pytest.mark.parametrize("rust", list(RUST_PANICS))
def test_a_rust_panic_shows_its_message_both_values_and_where(rust: str) -> None:
    summary = summarize_failures(result([TestCase("tests/wrap.rs::wraps", "fail", RUST_PANICS[rust])]))
    entry = summary.split("FAILED tests/wrap.rs::wraps\n", 1)[1].splitlines()
    assert "left == right" in entry[0]
    assert "left:" in entry[1] and '"aaaaa bbbbb"' in entry[1] and "right:" in entry[2] and '"bbbbb ccc"' in entry[2]
    assert entry[3:] == ["  at tests/wrap.rs:15"]
    assert "RUST_BACKTRACE" not in summary


# `go test -json`'s output for a test, as Go 1.19 (Debian bookworm's) prints a logged failure and a panic
GO_FAILURES = {
    "t.Errorf": "=== RUN   TestTail\n    tail_test.go:10: Tail(3) = [1 2], want [2 3 4]\n--- FAIL: TestTail (0.00s)\n",
    "panic": ("=== RUN   TestTail\n--- FAIL: TestTail (0.00s)\n"
              "panic: runtime error: index out of range [3] with length 3 [recovered]\n"
              "\tpanic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:\n"
              "testing.tRunner.func1.2({0x5163e0, 0xc000016180})\n\t/usr/lib/go-1.19/src/testing/testing.go:1396 +0x24e\n"
              "panic({0x5163e0, 0xc000016180})\n\t/usr/lib/go-1.19/src/runtime/panic.go:884 +0x212\n"
              "example.com/tail.Tail(...)\n\t/workspace/tail.go:12 +0x1d\n"
              "example.com/tail.TestTail(0x0?)\n\t/workspace/tail_test.go:8 +0x45\n"),
}


def test_a_go_failure_shows_what_the_test_logged_or_the_panic_and_its_own_frames() -> None:
    logged, panic = (summarize_failures(result([TestCase("tail_test.go::TestTail", "fail", GO_FAILURES[kind])]))
                     for kind in ("t.Errorf", "panic"))
    assert logged.endswith("FAILED tail_test.go::TestTail\n  tail_test.go:10: Tail(3) = [1 2], want [2 3 4]")
    assert panic.endswith("FAILED tail_test.go::TestTail\n  panic: runtime error: index out of range [3] with length 3 "
                          "[recovered]\n  at tail_test.go:8\n  at tail.go:12")  # innermost last, the toolchain's left out


def test_a_hostile_diagnostics_block_is_not_expanded() -> None:
    """A test's output is untrusted: nested YAML aliases (nine levels of nine: 387 million strings) in its
    diagnostics are not read as YAML, and the summary still names the failure."""
    levels = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    levels += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    block = "\n".join(["error: 'boom'", *levels, "expected: *a9", "actual: *a9"])
    tap = "TAP version 13\nnot ok 1 - hostile\n  ---\n" + "".join(f"  {line}\n" for line in block.splitlines()) + "  ...\n"
    summary = summarize_failures(result(parse_tap(tap)))
    assert "FAILED hostile" in summary and len(summary) < 2000


def test_a_pytest_comparison_reads_without_its_full_diff_and_without_difflib_guides() -> None:
    """What the coder reads first is the failures, in every request: pytest's full diff of two containers says again
    what the lines above it say (where they differ, both values cut short), and difflib's `?` guide lines mark
    columns that mean nothing outside a terminal."""
    strings = ("E       AssertionError: assert 'Hello-World' == 'hello-world'\nE         \nE         - hello-world\n"
               "E         ? ^     ^\nE         + Hello-World\nE         ? ^     ^\n")
    summary = summarize_failures(result([TestCase("tests/test_textkit.py::test_lower", "fail", strings)]))
    assert "- hello-world\n  + Hello-World" in summary and "?" not in summary
    lists = ("E       assert [10, 11, 12, 13, 14, 15, ...] == [0, 1, 2, 3, 4, 5, ...]\nE         \n"
             "E         At index 0 diff: 10 != 0\nE         Use -v to get more diff\nE         Full diff:\n"
             "E         - [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\nE         + [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]\n"
             "E         ?  +   +   +   +   +   +   +   +   +   +\n")
    summary = summarize_failures(result([TestCase("tests/test_listing.py::test_first_page", "fail", lists)]))
    assert "assert [10, 11, 12, 13, 14, 15, ...] == [0, 1, 2, 3, 4, 5, ...]" in summary
    assert "At index 0 diff: 10 != 0" in summary
    assert "Full diff" not in summary and "16, 17" not in summary and "?" not in summary and "-v" not in summary


def test_the_judges_own_frames_are_not_the_repositorys() -> None:
    """The judge's hooks wrap unittest's assert methods; their frame is no code of the repository's, and a coder shown
    it reads the judge's internals as a place to look."""
    trace = ('  File "/workspace/tests/test_numerals.py", line 12, in test_subtractive\n'
             '    self.assertEqual(to_roman(4), "IV")\n'
             '  File "/workspace/.ensemble-plugins/sitecustomize.py", line 2183, in assertion\n'
             "    return original(self, first, second, *args, **kwargs)\nAssertionError: 'IIII' != 'IV'\n")
    summary = summarize_failures(result([TestCase("tests.test_numerals.ToRomanTest::test_subtractive", "fail", trace)]))
    assert "at tests/test_numerals.py:12 in test_subtractive" in summary and "ensemble-plugins" not in summary
