"""What a pull request's runs prove (bot/ensemble/proof.py): its new tests, its edits placed on lines, flaky tests,
and what no run rules out. Pure functions over results and texts; `/ensemble verify` runs them end to end
(tests/actions/test_verify.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot.ensemble.judge.guards import find_test_tampering
from bot.ensemble.proof import (
    NewTest,
    TestEdit,
    backing,
    flaky,
    hunks_by_file,
    new_tests,
    placed_edits,
    uncovered,
)
from bot.ensemble.types import TestOutcome
from bot.ensemble.verify import VerifyResult
from bot.ensemble.wire import dump, load

TESTS = "from calc import mul\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n    assert mul(0, 5) == 0\n\n\n" \
        "def test_one():\n    assert mul(1, 1) == 1\n"


def run(*results: tuple[str, str]) -> TestOutcome:
    return TestOutcome(all(o == "pass" for _, o in results), results=results)


def diff_of(tmp_path: Path, before: dict[str, str], after: dict[str, str | None]) -> str:
    """A real `git diff -U0` between two commits holding `before` and `after`."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, capture_output=True, text=True, check=True).stdout

    tmp_path.mkdir(parents=True, exist_ok=True)
    git("init", "-q")
    for name, text in before.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    git("add", "-A")
    git("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "base")
    for name, now in after.items():
        if now is None:
            (tmp_path / name).unlink()
        else:
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name).write_text(now)
    git("add", "-A")
    git("-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qm", "head")
    return git("diff", "-U0", "--no-renames", "HEAD~1", "HEAD")


def edits(tmp_path: Path, before: dict[str, str], after: dict[str, str | None],
          data: tuple[str, ...] = ()) -> tuple[TestEdit, ...]:
    texts = {p: (before.get(p), after[p] if p in after else before.get(p)) for p in {*before, *after}
             if before.get(p) != (after[p] if p in after else before.get(p))}
    found = find_test_tampering({p: t[0] for p, t in texts.items()}, {p: t[1] for p, t in texts.items()}, "", data)
    return placed_edits(found, texts, diff_of(tmp_path, before, after))


def test_a_weakened_test_is_placed_on_its_definition_with_the_line_it_lost(tmp_path: Path) -> None:
    [edit] = edits(tmp_path, {"tests/test_calc.py": TESTS},
                   {"tests/test_calc.py": TESTS.replace("    assert mul(0, 5) == 0\n", "")})
    assert (edit.path, edit.line, edit.kind, edit.was, edit.now) == \
        ("tests/test_calc.py", 4, "weakened_test", "assert mul(0, 5) == 0", "")
    assert "lost assertions (2 real ones before, 1 now)" in edit.detail


def test_an_expected_value_changed_in_a_test_or_in_its_data_shows_the_line_before_and_after(tmp_path: Path) -> None:
    cases = '[\n  {"in": 1, "out": 2},\n  {"in": 2, "out": 4}\n]\n'
    found = edits(tmp_path, {"tests/test_calc.py": TESTS, "data/cases.json": cases},
                  {"tests/test_calc.py": TESTS.replace("== 6", "== 7"), "data/cases.json": cases.replace("4}", "5}")},
                  data=("data/cases.json",))
    by_path = {e.path: e for e in found}
    assert (by_path["data/cases.json"].line, by_path["data/cases.json"].kind) == (3, "edited_test_data")
    assert (by_path["data/cases.json"].was, by_path["data/cases.json"].now) == ('{"in": 2, "out": 4}', '{"in": 2, "out": 5}')
    test = by_path["tests/test_calc.py"]
    assert (test.line, test.kind, test.was, test.now) == (5, "edited_test", "assert mul(2, 3) == 6",
                                                          "assert mul(2, 3) == 7")


def test_a_deleted_test_is_placed_at_the_base_and_added_tests_are_no_edit(tmp_path: Path) -> None:
    [deleted] = edits(tmp_path, {"tests/test_calc.py": TESTS},
                      {"tests/test_calc.py": TESTS.split("\n\n\ndef test_one")[0] + "\n"})
    assert (deleted.kind, deleted.line, deleted.at_base) == ("deleted_test", 9, True)
    added = edits(tmp_path / "more", {"tests/test_calc.py": TESTS},
                  {"tests/test_calc.py": TESTS + "\n\ndef test_two():\n    assert mul(1, 2) == 2\n"})
    assert added == ()  # a new test is a new test, reported as one


def test_hunks_name_each_files_lines_on_both_sides() -> None:
    diff = ("diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -3 +3,2 @@ def f():\n-    return 1\n+    return 2\n"
            "+    # done\ndiff --git a/gone.py b/gone.py\ndeleted file mode 100644\n--- a/gone.py\n+++ /dev/null\n"
            "@@ -1 +0,0 @@\n-x = 1\n")
    hunks = hunks_by_file(diff)
    assert [(h.old, h.new, h.removed, h.added) for h in hunks["x.py"]] == [(3, 3, ("    return 1",),
                                                                          ("    return 2", "    # done"))]
    assert hunks["gone.py"][0].removed == ("x = 1",)


def test_new_tests_fail_at_the_base_when_their_file_cannot_be_collected_there() -> None:
    base = run(("tests/test_calc.py::test_mul", "pass"))
    at_base = run(("tests/test_calc.py::test_mul", "pass"), ("tests/test_new.py::<collection>", "error"),
                  ("tests/test_idle.py::test_idle", "pass"))
    at_head = run(("tests/test_calc.py::test_mul", "pass"), ("tests/test_new.py::test_it", "pass"),
                  ("tests/test_idle.py::test_idle", "pass"))
    found = new_tests(base, at_base, [at_head], ["tests/test_new.py", "tests/test_idle.py"])
    assert found == (NewTest("tests/test_idle.py::test_idle", "pass", "pass"),
                     NewTest("tests/test_new.py::test_it", "error", "pass"))
    assert [t.proves for t in found] == [False, True] and [t.idle for t in found] == [True, False]


def test_a_test_is_flaky_when_a_second_run_of_one_side_disagrees_with_the_first() -> None:
    first = [run(("a", "fail"), ("b", "fail")), run(("a", "pass"), ("b", "pass"))]
    second = [run(("a", "fail"), ("b", "pass")), run(("a", "pass"), ("b", "pass"))]
    assert flaky(["a", "b"], first, second) == ("b",)
    assert flaky(["a"], [first[0], None], [None, second[1]]) == ()  # nothing to compare


def test_a_changed_function_no_test_names_and_a_fix_only_its_own_tests_back_are_doubts() -> None:
    texts = {"calc.py": ("def mul(a, b):\n    return a * b\n", "def mul(a, b):\n    return b * a\n\n\n"
                                                                 "def scaled(a):\n    return 2 * a\n")}
    [doubt] = uncovered({"mul", "scaled", "__eq__"}, texts, ["from calc import mul\n"])
    assert (doubt.kind, doubt.path, doubt.line) == ("uncovered", "calc.py", 5) and "`scaled`" in doubt.detail
    proving = NewTest("tests/test_new.py::test_it", "fail", "pass")
    assert [d.kind for d in backing((), [proving], True)] == ["own-tests-only"]
    assert [d.kind for d in backing((), [], True)] == ["nothing-shown"]
    assert backing(("tests/test_calc.py::test_add",), [], True) == () and backing((), [], False) == ()


def test_a_verification_round_trips_through_json() -> None:
    result = VerifyResult("r1", "a" * 40, "b" * 40, tests_after=run(("t", "pass")),
                          new=(NewTest("t", "fail", "pass"),), flaky=("u",), pinned=(".github/ensemble.yml",))
    assert load(VerifyResult, dump(result)) == result
