"""What a pull request's test runs prove: its own new tests, its edits to the tests and their closure, what no run
could rule out. Pure functions over the runs' results and the change's texts; bot/ensemble/verify.py makes the runs.

A pull request is judged as a candidate is (team_judge.py): the base's tests, as the base has them, over its head.
That says which tests it fixes, breaks or leaves failing. What it adds is read apart from that verdict:
- its new tests (`new_tests`), run as it wrote them at its base (without its change) and at its head: a new test
  that passes at the base too proves nothing about the change (`NewTest.proves`, `NewTest.idle`);
- its edits to the judge's files (`placed_edits`): the guard's findings (bot/ensemble/judge/guards.py: tests deleted,
  skipped, weakened, changed or moved, harness, data, test helpers and doctests), each placed on a line of the diff
  with the line as it was and as it is;
- a test whose outcome changed from the base to the head, run once more on both sides: one whose second run
  disagrees with its first is flaky (`flaky`), no evidence either way;
- what none of that rules out (`doubts`): a changed function no test names, a fix only the pull request's own tests
  back, runs that could not be completed or checked.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.ensemble.judge import Tampering
from bot.ensemble.types import TestOutcome
from common.languages import is_code
from common.testfiles import is_test_path
from common.testids import belongs_to, file_of_test
from sandbox.model import COLLECTION
from sandbox.model import FAILING as FAILED

Texts = Mapping[str, tuple[str | None, str | None]]  # path -> its text at the base and at the head (None: absent)


@dataclass(frozen=True)
class NewTest:
    """A test the pull request added, and how it ran at the base (without the change) and at the head."""

    __test__ = False  # not a pytest class

    name: str
    at_base: str  # 'pass', 'fail', 'error' or 'skip'; '' where it did not run there
    at_head: str

    @property
    def proves(self) -> bool:
        """True when it fails without the change and passes with it: it tests what the change does."""
        return self.at_base in FAILED and self.at_head == "pass"

    @property
    def idle(self) -> bool:
        """True when it passes at the base too: it proves nothing about the change."""
        return self.at_base == "pass"


@dataclass(frozen=True)
class TestEdit:
    """An edit to the tests or to what they use (harness, data, helpers, doctests), at a line of the diff."""

    __test__ = False  # not a pytest class

    path: str
    line: int  # at the head; at the base for a deletion (`at_base`)
    kind: str  # the guard's kind: deleted_test, skipped_test, weakened_test, edited_test, edited_test_data, ...
    detail: str
    was: str = ""  # the first line the edit removed there
    now: str = ""  # the first line it added
    at_base: bool = False


@dataclass(frozen=True)
class Doubt:
    """Something the runs could not rule out, and where."""

    kind: str  # uncovered, own-tests-only, nothing-shown, incomplete, unchecked
    detail: str
    path: str = ""
    line: int = 0


@dataclass(frozen=True)
class LineFinding:
    """One of the critic's findings on a pull request, tied to a line its head added (pr_review.py)."""

    path: str
    line: int
    body: str


@dataclass(frozen=True)
class Hunk:
    """One hunk of a zero-context diff: where it starts on each side and the lines it removed and added."""

    old: int
    new: int
    removed: tuple[str, ...]
    added: tuple[str, ...]


# --------------------------------------------------------------------------------------------- the new tests


def new_tests(base: TestOutcome, at_base: TestOutcome | None, at_head: Sequence[TestOutcome | None],
              files: Collection[str]) -> tuple[NewTest, ...]:
    """The tests of the pull request's test files (`files`) that the base's run did not have, with their outcome at
    the base (`at_base`: its tests over the base) and at the head (the first of `at_head` that ran them). A test
    whose file could not be collected at the base (it imports what the change adds) failed there."""
    known = {name for name, _ in base.results}
    base_results = dict(at_base.results) if at_base else {}
    heads = [dict(run.results) for run in at_head if run is not None]
    names = dict.fromkeys(name for results in (*heads, base_results) for name in results
                          if name not in known and not name.endswith(f"::{COLLECTION}") and _in(name, files))
    found = []
    for name in names:
        head = next((results[name] for results in heads if name in results), "")
        found.append(NewTest(name, base_results.get(name) or _uncollected(name, base_results), head))
    return tuple(sorted(found, key=lambda t: t.name))


def _in(name: str, files: Collection[str]) -> bool:
    where = file_of_test(name, lambda p: p in files)
    return where in files or any(belongs_to(name, p) or name.startswith(p + "::") for p in files)


def _uncollected(name: str, results: Mapping[str, str]) -> str:
    """'error' when the file of test `name` could not be collected in `results`, else ''."""
    return next(("error" for pseudo, outcome in results.items() if pseudo.endswith(f"::{COLLECTION}")
                 and outcome in FAILED and belongs_to(name, pseudo.rsplit("::", 1)[0])), "")


def flaky(names: Iterable[str], first: Sequence[TestOutcome | None], second: Sequence[TestOutcome | None]) -> tuple[str, ...]:
    """The tests of `names` whose outcome in a run of `second` differs from theirs in the same run of `first` (each
    a pair of runs of one side, base or head): run twice, they do not agree with themselves."""
    found = []
    for name in names:
        for one, two in zip(first, second, strict=True):
            if one is None or two is None:
                continue
            was, now = dict(one.results).get(name), dict(two.results).get(name)
            if was is not None and now is not None and was != now:
                found.append(name)
                break
    return tuple(dict.fromkeys(found))


# --------------------------------------------------------------------------------------------- the edits


def placed_edits(findings: Iterable[Tampering], texts: Texts, diff: str) -> tuple[TestEdit, ...]:
    """The guard's findings on a pull request (its changes to the judge's files), each placed on a line: a test's
    own hunk, else the file's first; `texts` are the changed files' texts and `diff` their zero-context diff. A test
    file the change only added lines to (new tests) is no edit: its tests are new tests."""
    by_file = hunks_by_file(diff)
    edits = []
    for finding in findings:
        if finding.kind == "runner_tampering":
            continue  # the static screen's, shown on its own (screen.py)
        hunks = by_file.get(finding.path, [])
        if finding.kind == "edited_test" and not finding.test and hunks and not any(h.removed for h in hunks):
            continue
        edits.append(_placed(finding, texts.get(finding.path, (None, None)), hunks))
    return tuple(edits)


def _placed(finding: Tampering, texts: tuple[str | None, str | None], hunks: list[Hunk]) -> TestEdit:
    before, after = texts
    deleted = after is None or finding.kind in ("deleted_test", "deleted_test_file", "moved_test")
    where = _definition_line(finding.test, before if deleted else after) if finding.test else 0
    if deleted:
        hunk = next((h for h in hunks if h.old >= where and h.removed), hunks[0] if hunks else None)
        line = where or (hunk.old if hunk else 1)
        return TestEdit(finding.path, max(line, 1), finding.kind, finding.detail, _first(hunk, "removed"),
                        _first(hunk, "added"), at_base=True)
    hunk = next((h for h in hunks if h.new >= where), None) if where else (hunks[0] if hunks else None)
    line = (hunk.new if hunk and hunk.added else where or (hunk.new if hunk else 1))
    return TestEdit(finding.path, max(line, 1), finding.kind, finding.detail, _first(hunk, "removed"),
                    _first(hunk, "added"))


def _first(hunk: Hunk | None, side: str) -> str:
    lines = (hunk.removed if side == "removed" else hunk.added) if hunk else ()
    return next((line.strip() for line in lines if line.strip()), "")[:200]


def _definition_line(test: str, text: str | None) -> int:
    """The line that defines test `test` (its last dotted part) in `text`; 0 when none does."""
    if not text:
        return 0
    bare = re.escape(test.rsplit(".", 1)[-1])
    pattern = re.compile(rf"(?:\bdef|\bfn|\bfunc|\bvoid|\bfun)\s+{bare}\b|(?:\bit|\btest)\s*\(\s*['\"`]{bare}['\"`]")
    return next((number for number, line in enumerate(text.splitlines(), 1) if pattern.search(line)), 0)


_HUNK = re.compile(r"^@@ -(?P<old>\d+)(?:,\d+)? \+(?P<new>\d+)(?:,\d+)? @@")


def hunks_by_file(diff: str) -> dict[str, list[Hunk]]:
    """A zero-context unified diff (`git diff -U0`) as each file's hunks, by the file's path (its path at the base for
    a deleted file)."""
    found: dict[str, list[Hunk]] = {}
    path = ""
    old_path = ""
    current: tuple[int, int, list[str], list[str]] | None = None

    def close() -> None:
        if current is not None and path:
            found.setdefault(path, []).append(Hunk(current[0], current[1], tuple(current[2]), tuple(current[3])))

    for line in diff.splitlines():
        if line.startswith("diff --git "):
            close()
            current, path, old_path = None, "", ""
        elif line.startswith("--- "):
            old_path = line[4:].removeprefix("a/")
        elif line.startswith("+++ "):
            new = line[4:]
            path = old_path if new == "/dev/null" else new.removeprefix("b/")
        elif match := _HUNK.match(line):
            close()
            current = (int(match["old"]), int(match["new"]), [], [])
        elif current is not None and line[:1] == "-":
            current[2].append(line[1:])
        elif current is not None and line[:1] == "+":
            current[3].append(line[1:])
    close()
    return found


# --------------------------------------------------------------------------------------------- the doubts


_DEFINES = r"(?:\bdef|\bclass|\bfunc|\bfunction|\bfn|\bstruct|\binterface)\s+(?:\([^)]*\)\s*)?{name}\b"


def uncovered(changed: Iterable[str], texts: Texts, test_texts: Iterable[str]) -> tuple[Doubt, ...]:
    """A doubt for each function or class the change defines or edits (`changed`, names from the diff) in a code file
    that no test file at the head (`test_texts`) names: nothing shows what it does now."""
    tests = "\n".join(test_texts)
    found = []
    for name in sorted(set(changed)):
        if re.search(rf"\b{re.escape(name)}\b", tests) or (name.startswith("__") and name.endswith("__")):
            continue  # named by a test; or a special method (`__eq__`), which tests use without naming
        where = _defined_at(name, texts)
        if where is not None:
            found.append(Doubt("uncovered", f"`{name}` changed, and no test names it", *where))
    return tuple(found)


def _defined_at(name: str, texts: Texts) -> tuple[str, int] | None:
    """Where the head defines `name` in a changed code file that is not a test; None when none does."""
    pattern = re.compile(_DEFINES.format(name=re.escape(name)))
    for path, (_, after) in sorted(texts.items()):
        if after is None or is_test_path(path) or not is_code(path):
            continue
        for number, line in enumerate(after.splitlines(), 1):
            if pattern.search(line):
                return path, number
    return None


def backing(fixed: Sequence[str], new: Sequence[NewTest], code_changed: bool) -> tuple[Doubt, ...]:
    """What backs the change: a doubt when no test that was there before turns green and only the pull request's own
    new tests fail without it, or when no test shows the change does anything at all."""
    if fixed or not code_changed:
        return ()
    proving = [t.name for t in new if t.proves]
    if proving:
        return (Doubt("own-tests-only", f"only the pull request's own test(s) back the change ({', '.join(proving[:3])}"
                                        f"{', ...' if len(proving) > 3 else ''}): no test that was there before turns "
                                        "green"),)
    return (Doubt("nothing-shown", "no test shows what the change does: none that was there before turns green, and "
                                   "no new test fails without it"),)
