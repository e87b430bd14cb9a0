"""A team's judge: what every candidate of the team is judged with, and by.

The judge is fixed by the run (the base's test run, the tests the task names) and, once round 0
wrote a reproduction test that failed at the base, by that test as it was then (`frozen`). It is a
value: a team that learns its reproduction test gets a new judge (`with_reproduction`), and nothing
is assigned onto it afterwards. It reads the candidate's workspace; the rules are in verdict.py
(red and green against the base) and judged.py (the files a judged run puts back over the tree).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from bot.ensemble.judged import allowed_changes, diff_by_file, judged_files
from bot.ensemble.types import Judgement, TestChange, TestOutcome
from bot.ensemble.verdict import judge, related_failures
from bot.ensemble.workspace_files import WorkspaceFiles
from bot.forge import Workspace
from common.testfiles import is_test_path


@dataclass(frozen=True)
class TeamJudge:
    """The base run and the tests a team's change must pass; judges the team's test runs."""

    task_text: str
    baseline: TestOutcome | None = None  # the tests at the base, which every candidate is judged against
    required_tests: tuple[str, ...] = ()  # tests the task names: they must pass
    reproduction: str | None = None  # the reproduction test, once it failed at the base
    frozen: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # its text as round 0 wrote it

    def with_reproduction(self, path: str, text: str | None) -> TeamJudge:
        """This judge, also requiring the reproduction test at `path`, judged as `text` from now on."""
        return replace(self, reproduction=path, frozen=MappingProxyType({**self.frozen, **({path: text} if text else {})}))

    def judge(self, tests: TestOutcome, workspace: Workspace, reproduction: str | None = None) -> Judgement:
        """`tests` judged against the base: the reproduction test (this judge's, or `reproduction` while it is
        written), the tests the task names and the failing tests that exercise the changed code must pass."""
        repro = reproduction or self.reproduction
        required = [*self.required_tests, *([repro] if repro else []), *self._related_failures(workspace)]
        return judge(self.baseline, tests, required)

    def known_failures(self, workspace: Workspace) -> frozenset[str]:
        """Tests that failed at the base and are not the task's: left out of what the coder is shown.

        Only once the task's own tests are known (named by the task, or the reproduction test);
        before that one of the failing tests is the bug, so the coder sees them all.
        """
        if not (self.required_tests or self.reproduction):
            return frozenset()
        return frozenset(set(self.base_failures()) - set(self.required_tests) - set(self._related_failures(workspace)))

    def files(self, workspace: Workspace) -> dict[str, bytes | None]:
        """What the judge puts over the workspace's tree before a run: the base's tests and harness, the frozen
        reproduction test, and no new harness file; test changes the task asks for by name are kept."""
        changed = workspace.changed_paths()
        allowed = allowed_changes(self.task_text, changed, workspace.base_text)
        return judged_files(changed, workspace.base_text, WorkspaceFiles(workspace.path).read, self.frozen, allowed)

    def test_changes(self, workspace: Workspace) -> list[TestChange]:
        """The changes to existing tests and harness the task asked for, each with its diff (shown in the PR)."""
        allowed = set(allowed_changes(self.task_text, workspace.changed_paths(), workspace.base_text))
        return [TestChange(path, diff) for path, diff in diff_by_file(workspace.diff()).items() if path in allowed]

    def base_failures(self) -> list[str]:
        """The tests that failed at the base."""
        results = self.baseline.results if self.baseline else ()
        return [name for name, outcome in results if outcome in ("fail", "error")]

    def _related_failures(self, workspace: Workspace) -> list[str]:
        """Base failures whose test file uses a source file the workspace changed."""
        failed = self.base_failures()
        if not failed:
            return []
        return related_failures(failed, workspace.changed_paths(), WorkspaceFiles(workspace.path).read, is_test_path,
                                workspace.diff())
