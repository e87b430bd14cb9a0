"""Judging a candidate against the base, test by test (fail-to-pass, pass-to-pass)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.ensemble.judge.verdict import judge
from bot.ensemble.types import TestOutcome
from common.testids import file_of_test, matching_tests


def outcome(exit_ok: bool, **results: str) -> TestOutcome:
    pairs = tuple((name.replace("__", "::").replace("_py", ".py"), o) for name, o in results.items())
    return TestOutcome(exit_ok, tuple(n for n, o in pairs if o in ("fail", "error")), results=pairs)


BASE = outcome(False, t_py__test_ok="pass", t_py__test_bug="fail", t_py__test_flaky="fail")


def test_a_fix_is_good_although_an_unrelated_test_already_failed() -> None:
    after = outcome(False, t_py__test_ok="pass", t_py__test_bug="pass", t_py__test_flaky="fail")
    judged = judge(BASE, after)
    assert judged.good and judged.per_test
    assert judged.fixed == ("t.py::test_bug",)
    assert judged.still_failing == ("t.py::test_flaky",)
    assert judged.blamed == ()
    assert "not blocking" in judged.reason


def test_a_change_that_turns_no_failing_test_green_is_not_good() -> None:
    judged = judge(BASE, outcome(False, t_py__test_ok="pass", t_py__test_bug="fail", t_py__test_flaky="fail"))
    assert not judged.good and judged.blamed == ()
    assert "fixes nothing" in judged.reason
    clean = outcome(True, t_py__test_ok="pass")
    assert judge(clean, outcome(True, t_py__test_ok="pass", t_py__test_new="pass")).good  # a feature on a green base


def test_breaking_a_test_that_passed_at_the_base_is_not_good() -> None:
    after = outcome(False, t_py__test_ok="fail", t_py__test_bug="pass", t_py__test_flaky="fail")
    judged = judge(BASE, after)
    assert not judged.good
    assert judged.broken == ("t.py::test_ok",)
    assert "broke 1 test" in judged.reason


def test_the_reproduction_test_must_pass_and_a_new_failing_test_blocks() -> None:
    after = outcome(False, t_py__test_ok="pass", t_py__test_bug="fail", t_py__test_flaky="fail",
                    repro_py__test_it="fail")
    judged = judge(BASE, after, required=["repro.py"])
    assert not judged.good
    assert judged.required_failing == ("repro.py::test_it",)
    assert judged.new_failing == ()
    other = judge(BASE, outcome(False, t_py__test_ok="pass", t_py__test_bug="pass", new_py__test_x="error"))
    assert not other.good and other.new_failing == ("new.py::test_x",)


def test_without_per_test_results_only_a_green_suite_is_good() -> None:
    base = TestOutcome(False, summary="exit 1")
    assert not judge(base, TestOutcome(False, summary="exit 1")).good
    assert judge(base, TestOutcome(True)).good
    assert not judge(base, TestOutcome(False, summary="exit 1")).per_test


def test_a_timed_out_run_is_never_good() -> None:
    after = TestOutcome(False, results=(("t.py::test_ok", "pass"),), timed_out=True)
    assert not judge(BASE, after).good


def test_required_tests_are_found_by_file_path_or_dotted_module() -> None:
    names = ["tests/test_repro.py::test_a", "tests.test_repro::Case::test_b", "tests/test_other.py::test_c"]
    assert matching_tests(names, ["tests/test_repro.py"]) == names[:2]
    assert matching_tests(names, ["tests/test_other.py::test_c"]) == [names[2]]


class CountingSandbox:
    """A `sandbox.Sandbox` that prepares nothing and passes every run; counts how often it prepares."""

    def __init__(self) -> None:
        self.prepared = 0

    def prepare(self, repo_dir, spec):
        from sandbox.model import Environment, ProjectInfo

        self.prepared += 1
        return Environment(repo_dir, spec, ProjectInfo("python", "true"), "none", "fake", "key", False)

    def run(self, env, command, timeout=None, files=None, trace_reads=False, owned=()):
        from sandbox.model import ExecResult, TestCase

        return ExecResult(command, 1, "", "", 0.1, tests=[TestCase("t.py::test_old", "fail", "boom"),
                                                           TestCase("t.py::test_new", "fail", "bang")])


def test_editing_a_dependency_file_prepares_the_environment_again(tmp_path) -> None:
    from bot.ensemble.adapters import SandboxRunner
    from sandbox.model import SandboxSpec

    (tmp_path / "requirements.txt").write_text("requests==2.0\n")
    sandbox = CountingSandbox()
    runner = SandboxRunner(sandbox, SandboxSpec())
    runner.run_tests(tmp_path)
    runner.run_tests(tmp_path)
    assert sandbox.prepared == 1
    (tmp_path / "requirements.txt").write_text("requests==2.0\nattrs==23.1\n")
    outcome = runner.run_tests(tmp_path, known_failures={"t.py::test_old"})
    assert sandbox.prepared == 2
    assert "t.py::test_new" in outcome.summary and "t.py::test_old" not in outcome.summary
    assert "1 test(s) that already failed before any change are not shown" in outcome.summary
    assert dict(outcome.results) == {"t.py::test_old": "fail", "t.py::test_new": "fail"}


def test_a_failing_test_that_uses_the_changed_code_is_the_changes_business() -> None:
    from bot.ensemble.judge.blame import related_failures

    files = {"tests/test_core.py": "from stats.core import median\n", "tests/test_net.py": "import socket\n",
             "tests/test_legacy.py": "import stats.core as core\n"}
    failed = ["tests/test_core.py::test_median_even", "tests/test_net.py::test_online",
              "tests.test_legacy::Old::test_it"]
    related = related_failures(failed, ["stats/core.py", "tests/test_repro.py"], files.get,
                               lambda p: p.startswith("tests/"))
    assert related == ["tests/test_core.py::test_median_even", "tests.test_legacy::Old::test_it"]
    assert related_failures(failed, ["tests/test_repro.py"], files.get, lambda p: p.startswith("tests/")) == []


def test_the_definitions_a_diff_touches_are_named_from_hunk_headers_and_changed_lines() -> None:
    from bot.ensemble.judge.blame import changed_definitions

    diff = ("--- a/stats/core.py\n+++ b/stats/core.py\n@@ -12,3 +12,5 @@ def median(values):\n"
            "     middle = len(ordered) // 2\n+    if even:\n+def helper(x):\n"
            "--- a/tests/test_core.py\n+++ b/tests/test_core.py\n@@ -1 +1 @@ def test_mean():\n+def test_new():\n")
    assert changed_definitions(diff) == {"median", "helper"}


def run_of(results: dict[str, str], complete: bool = True, passed: bool = False) -> TestOutcome:
    return TestOutcome(passed, results=tuple(results.items()), complete=complete,
                       incomplete_reason="" if complete else "killed by the memory limit")


BASE_RUN = {"t::fixed": "fail", "t::kept": "pass", "t::other": "pass"}


def test_a_test_that_vanishes_or_is_newly_skipped_is_broken() -> None:
    gone = judge(run_of(BASE_RUN), run_of({"t::fixed": "pass", "t::kept": "pass"}))
    assert not gone.good and gone.broken == ("t::other",) and gone.vanished == ("t::other",)
    assert "1 of them were not reported at all" in gone.reason
    skipped = judge(run_of(BASE_RUN), run_of({"t::fixed": "pass", "t::kept": "pass", "t::other": "skip"}))
    assert not skipped.good and skipped.broken == ("t::other",)


def test_no_per_test_results_after_the_change_is_no_pass_when_the_base_had_them() -> None:
    judged = judge(run_of(BASE_RUN), TestOutcome(True, summary="exit 0"))
    assert not judged.good and "reported no per-test results" in judged.reason


def test_tests_a_killed_run_never_reached_are_unknown_and_block() -> None:
    judged = judge(run_of(BASE_RUN), run_of({"t::fixed": "pass", "t::kept": "pass"}, complete=False))
    assert not judged.good and judged.unknown == ("t::other",) and judged.broken == ()
    assert "incomplete (killed by the memory limit)" in judged.reason


def test_a_base_collection_error_is_fixed_when_the_files_tests_pass() -> None:
    base = {"tests/test_low.py::<collection>": "error", "tests/test_core.py::test_mean": "pass"}
    after = {"tests/test_low.py::test_low": "pass", "tests/test_core.py::test_mean": "pass"}
    judged = judge(run_of(base), run_of(after))
    assert judged.good and judged.fixed == ("tests/test_low.py::<collection>",)
    half = judge(run_of(base), run_of({**after, "tests/test_low.py::test_high": "fail"}))
    assert not half.good and half.new_failing == ("tests/test_low.py::test_high",)
    assert judge(run_of(base), run_of(after), required=["tests/test_low.py"]).good


def test_a_break_in_one_class_is_not_hidden_by_a_test_of_the_same_name_in_another() -> None:
    base = {"t.py::TestParse::test_empty": "pass", "t.py::TestFormat::test_empty": "pass", "t.py::test_bug": "fail"}
    after = {"t.py::TestParse::test_empty": "pass", "t.py::TestFormat::test_empty": "fail", "t.py::test_bug": "pass"}
    assert judge(run_of(base), run_of(after)).broken == ("t.py::TestFormat::test_empty",)


def test_a_revision_of_a_good_change_must_name_something_in_the_change() -> None:
    from bot.ensemble.critic import names_a_problem

    diff = ("--- a/stats.py\n+++ b/stats.py\n@@ -3,2 +3,2 @@ def mean(values):\n"
            "-    return sum(values) // len(values)\n+    return sum(values) / len(values)\n")
    assert names_a_problem("`sum(values) / len(values)` fails for an empty list", diff)
    assert names_a_problem("`return  sum(values) / len(values)` divides by zero", diff)  # spacing aside
    assert not names_a_problem("Consider edge cases such as negative_numbers and test them", diff)
    # the file and the function the change is in, or the line it already replaced, point at nothing it did
    assert not names_a_problem("stats.py: mean() should return 0 when values is empty", diff)
    assert not names_a_problem("Not truncated: the line to change is `return sum(values) // len(values)`", diff)
    assert not names_a_problem("Please add more tests for robustness of the change.", diff)
    assert not names_a_problem("ok", diff)
    # a name counts where the change introduced it, not where it reuses one the code already had
    renamed = ("--- a/articles.py\n+++ b/articles.py\n@@ -6,3 +6,3 @@ class Article:\n"
               "     def __init__(self, title, tags=[]):\n-        self.tags = tags\n+        self.tags = list(tags or ())\n"
               "+        self.tag_count = 0\n")
    assert not names_a_problem("The `tags` list should be initialized in the constructor of `Article`.", renamed)
    assert names_a_problem("`tag_count` is never updated when a tag is added", renamed)
    assert names_a_problem("`self.tags = list(tags or ())` drops a tuple's order", renamed)
    # code the change wrote, quoted as what the code should be, asks for what is already there
    paged = ("--- a/listing.py\n+++ b/listing.py\n@@ -3,2 +3,2 @@ def paginate(items, page, per_page=10):\n"
             "-    start = page * per_page\n+    start = (page - 1) * per_page\n")
    assert not names_a_problem("The `start` variable should be calculated as `(page - 1) * per_page`, not just "
                               "`page * per_page`.", paged)
    assert not names_a_problem("The line `start = page * per_page` should be changed to `start = (page - 1) * "
                               "per_page`", paged)
    assert not names_a_problem("Use `(page - 1) * per_page` for the start of the page", paged)
    assert names_a_problem("`(page - 1) * per_page` is negative for page 0: check the page first", paged)
    assert names_a_problem("The start goes negative: `start = (page - 1) * per_page` needs a check of page", paged)
    assert names_a_problem("The change to `start = (page - 1) * per_page` breaks page 0", paged)
    # without the change to check against, anything concrete counts
    assert names_a_problem("Consider edge cases such as negative_numbers and test them")


def test_the_file_of_a_unittest_id_that_names_its_class_is_the_module() -> None:
    files = {"tests/test_numerals.py"}
    assert file_of_test("tests.test_numerals.ToRomanTest::test_sub", files.__contains__) == "tests/test_numerals.py"
    assert file_of_test("tests.test_numerals::test_sub", files.__contains__) == "tests/test_numerals.py"
    assert file_of_test("tests/test_x.py::T::t", files.__contains__) == "tests/test_x.py"


def test_the_coder_is_shown_the_file_of_a_failing_unittest() -> None:
    from bot.ensemble.coder.turns import failing_test_files

    feedback = "`python3 -m unittest discover -v`: 1 failed\nFAILED tests.test_numerals.ToRomanTest::test_sub\n  + IV"
    assert failing_test_files(feedback, exists={"tests/test_numerals.py"}.__contains__) == ["tests/test_numerals.py"]


def test_a_unittest_reproduction_test_is_found_by_its_file_with_the_class_in_its_id() -> None:
    names = ["tests.test_add_repro.TestRepro::test_two_and_three", "tests.test_ops.TestOps::test_add"]
    assert matching_tests(names, ["tests/test_add_repro.py"]) == names[:1]


class RunCounting:
    """A LocalSandbox that counts the commands it runs."""

    def __init__(self) -> None:
        import sys

        from sandbox import LocalSandbox

        self.local = LocalSandbox(env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
        self.commands: list[str] = []

    def prepare(self, repo_dir, spec):
        return self.local.prepare(repo_dir, spec)

    def run(self, env, command, timeout=None, files=None, trace_reads=False, owned=()):
        self.commands.append(command)
        return self.local.run(env, command, timeout, files, trace_reads=trace_reads, owned=owned)


@pytest.mark.parametrize(("test", "runs"), [("python -m pytest -q -p no:cacheprovider", 1),
                                            ("python -m unittest discover -v", 2)], ids=["pytest", "unittest"])
def test_a_listed_run_lists_itself_where_the_runner_can(tmp_path, test: str, runs: int) -> None:
    """The base run is held to its listing: pytest lists what it collects in the run itself, with no listing run of
    its own; unittest still needs one. Either way every test is listed and accounted for."""
    from bot.ensemble.adapters import SandboxRunner
    from sandbox.model import SandboxSpec

    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "__init__.py").write_text("")
    (tmp_path / "tests" / "test_a.py").write_text(
        "import unittest\n\n\nclass A(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(1, 1)\n\n"
        "    def test_two(self):\n        self.assertEqual(1, 2)\n")
    sandbox = RunCounting()
    outcome = SandboxRunner(sandbox, SandboxSpec(setup="", test=test, timeout_s=60)).run_tests(tmp_path, listing=True)
    assert len(sandbox.commands) == runs, sandbox.commands
    assert len(outcome.listed or ()) == 2 and outcome.complete
    assert sorted(o for _, o in outcome.results) == ["fail", "pass"]


def test_the_summary_names_the_repositorys_test_command_not_the_judges_wrapping_of_it(tmp_path) -> None:
    """A listed run runs the command behind the judge's own setting; the coder reads the repository's command."""
    from bot.ensemble.adapters import SandboxRunner
    from sandbox.model import SandboxSpec

    outcome = SandboxRunner(CountingSandbox(), SandboxSpec()).run_tests(tmp_path, listing=True)
    assert outcome.summary.startswith("`true`: 2 failed; exit code 1") and "export" not in outcome.summary
