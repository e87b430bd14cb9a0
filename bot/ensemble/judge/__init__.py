"""The judge: what decides whether a candidate change is good, and what keeps it honest. Its one face.

A team asks the judge once per round (`TeamJudge.verdict`: the candidate run as the judge runs it, and judged
against the base run `run_base` made before any model call); round 0's reproduction test goes where the judge
says (`TeamJudge.new_test_path`: never over an existing test) and must be red at the base (`reproduces`) before
the judge requires it (`with_reproduction`); the coder's edits pass its guards
(`find_test_tampering`) before they are tested; a good change meets the hidden check; with two teams, each team's
reproduction test judges the other's change (`corroborate`). Nothing outside this package imports its inner
modules (tests/test_imports.py holds it to that).

Which cheat each detector catches, and where it lives:

| a change that ...                                                        | caught by                          | module            |
| ---                                                                      | ---                                | ---               |
| edits, skips, weakens, moves or deletes a test; edits CI or the harness  | the edit guards, refused and undone| `guards.py`       |
| (honest) adds tests to an existing test file                             | moved to a test file of their own  | `added_tests.py`  |
| edits what the tests read (helper modules, data, doctest examples)       | the tests' closure, learned at base| `closure.py`      |
| reaches into the runner, patches the standard library, reads a frame     | the static screen                  | `screen.py`       |
| hides a test, forges results, or breaks what passed at the base          | per-test red/green against the base| `verdict.py`      |
| rewrites the tests' files while they run                                 | the files put back, guarded        | `files.py`        |
| loads a test module past the judge's loaders (an import hook rewrites it)| the tests' code held to the judge's compile | sandbox/run_hooks.py |
| forges the runner's report or exit status                                | known-answer sentinels             | `sentinels.py`    |
| answers only the test's own assertion (equal to anything, read from it)  | twins and stand-ins                | `twins.py`        |
| answers only the inputs of the tests the coder saw                       | the hidden check                   | `hidden.py`       |
| ... writing only the answer, behind a comparison with a literal         | the hidden check, with the gate    | `hidden.py`, `answers.py` |
| ... telling the shown test apart as it runs (its frame's code, a tracer) | the hidden check, with the reach   | `hidden.py`, `runs.py` |
| ... and, with two teams, the other team's independently written test     | corroboration                      | `corroboration.py`|

No honest change is refused, so each detector spares the honest shape nearest its cheat (docs/security.md, rows
172 to 182): a runner import only a main guard runs and a forked child's `os._exit` (`screen.py`), test settings
that only declare a new test's marker (`common/testfiles.py`), a testing helper only its own tests load
(`closure.py`), the source of a function a test hands the code, and an equality other than a builtin's where the
tests name its class (sandbox/run_hooks.py).

The judged run itself (its processes, overlay and evidence) is `runs.py`; which of the base's failing tests a
change is answerable for is `blame.py`; which forged-value findings are about an equality the base already had,
and so not the change's, is `equality.py`. Inside the test process the comparisons, reads of the tests, the runner's
integrity, the tests' helpers and doctest examples as the code under test leaves them in memory, and the files the
runner would load that a run may not make are checked by the sandbox (sandbox/run_hooks.py; in Node,
sandbox/node_guard.js): their findings come back as the run's and are judged here against the base's.
"""

from __future__ import annotations

from bot.ensemble.judge.added_tests import AddedTests, split_added_tests, tests_to_move
from bot.ensemble.judge.blame import changed_definitions, related_failures
from bot.ensemble.judge.closure import NO_CLOSURE, Closure, unchecked
from bot.ensemble.judge.corroboration import Candidate, backing, corroborate
from bot.ensemble.judge.files import owned_by_judge
from bot.ensemble.judge.guards import (
    RUNNER_KINDS,
    Tampering,
    find_test_tampering,
    task_names_change,
    tests_in,
)
from bot.ensemble.judge.hidden import (  # noqa: I001 - after the run: the hidden check runs candidates with it
    SPECIAL_CASED,
    HiddenCheck,
    can_tell_apart,
    hidden_check_at_base,
    judge_by_hidden_check,
    no_hidden_check,
    not_needed,
)
from bot.ensemble.judge.runs import BaseRun, TeamJudge, run_base
from bot.ensemble.judge.screen import change_hooks, hooks_in
from bot.ensemble.judge.verdict import judge, reproduces

__all__ = [
    "NO_CLOSURE", "RUNNER_KINDS", "SPECIAL_CASED", "AddedTests", "BaseRun", "Candidate", "Closure", "HiddenCheck",
    "Tampering", "TeamJudge", "backing", "can_tell_apart", "change_hooks", "changed_definitions", "corroborate", "find_test_tampering",
    "hidden_check_at_base", "hooks_in", "judge", "judge_by_hidden_check", "no_hidden_check", "not_needed",
    "owned_by_judge", "related_failures", "reproduces", "run_base", "split_added_tests",
    "task_names_change", "tests_in", "tests_to_move", "unchecked",
]
