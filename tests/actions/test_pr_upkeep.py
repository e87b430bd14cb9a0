"""End to end: the bot's pull requests kept on a moving default branch (`/ensemble update`, `update: auto`).

The fake GitHub holds the repository; people push to it over git's smart HTTP. The update runs the real
engine side (`bot/ensemble/update.py`: git merge or rebase, the judge, pytest on the host) with the real
model manager pointed at the fake OpenAI server, whose request log shows every model call.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from actions.engine import ensemble_updater
from actions.markers import read_marker
from bot.config import Config
from bot.ensemble.runner import Components
from bot.ensemble.types import Progress
from bot.ensemble.update import UpdateJob, UpdateResult
from fakes.engine_parts import HostPytest
from fakes.github_hub import REPO, Hub
from fakes.github_server import FakeGitHub
from fakes.openai_server import FakeOpenAI
from fakes.scripted_engine import ScriptedEngine

BRANCH = "ensemble/issue-1"
BOT = "github-actions[bot]"
CALC = '"""Small arithmetic."""\n\n\ndef add(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n'
FIXED = CALC.replace("return a - b", "return a + b")
TESTS = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_mul():\n    assert mul(2, 3) == 6\n"
CONFIG = "ensembles: 1\nmax_iterations: 2\nupdate: auto\n"


def host_updater(repo_dir: Path, job: UpdateJob, config: Config, env: Mapping[str, str], *, run_id: str,
                 progress: Progress, stop: threading.Event) -> UpdateResult:
    """The engine's update with pytest on the host; its models are the config's (the fake OpenAI server)."""
    return ensemble_updater(repo_dir, job, config, env, run_id=run_id, progress=progress, stop=stop,
                            components=Components(runner=HostPytest()))


@dataclass
class Upkeep:
    hub: Hub
    openai: FakeOpenAI
    pr: int

    @property
    def fake(self) -> FakeGitHub:
        return self.hub.fake

    def head(self, branch: str = BRANCH) -> str:
        return self.fake.head_sha(REPO, branch) or ""

    def body(self) -> str:
        return self.fake.repos[REPO].issues[self.pr]["body"]

    def bot_comments(self) -> list[str]:
        return [c["body"] for c in self.fake.comments_on(REPO, self.pr) if c["user"]["login"] == BOT]

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.fake.repos[REPO].bare, capture_output=True, text=True,
                              check=True).stdout.strip()


def start(tmp_path: Path, config: str = CONFIG) -> Iterator[Upkeep]:
    engine = ScriptedEngine(files=lambda n: {"calc.py": FIXED})
    with FakeGitHub(tmp_path / "github") as fake, FakeOpenAI(api_key="sk-upkeep-test-key") as openai:
        fake.add_repo(REPO, {"calc.py": CALC, "tests/test_calc.py": TESTS, ".github/ensemble.yml": config})
        fake.add_issue(REPO, "add() subtracts", "add(2, 3) returns -1; it should return 5.", user="alice")
        fake.set_permission(REPO, "alice", "write")
        hub = Hub(fake, tmp_path, engine)
        hub.updater = host_updater
        hub.extra_env = {"OPENAI_API_KEY": "sk-upkeep-test-key", "OPENAI_BASE_URL": openai.url}
        pr = hub.send("issues", hub.labeled(1)).pr_number or 0
        assert pr
        yield Upkeep(hub, openai, pr)


@pytest.fixture
def upkeep(tmp_path: Path) -> Iterator[Upkeep]:
    yield from start(tmp_path)


@pytest.fixture
def rebasing(tmp_path: Path) -> Iterator[Upkeep]:
    yield from start(tmp_path, CONFIG + "update_strategy: rebase\ncommit: {verified: true}\n")


def test_a_clean_update_on_a_push_is_judged_again_on_the_new_base_with_no_model_call(upkeep: Upkeep) -> None:
    hub, old = upkeep.hub, upkeep.head()
    with_sub = CALC + "\n\ndef sub(a, b):\n    return a - b\n"
    before, after = hub.commit("main", {"calc.py": with_sub,
                                        "tests/test_sub.py": "from calc import sub\n\n\ndef test_sub():\n"
                                                             "    assert sub(5, 3) == 2\n"})
    outcome = hub.send("push", hub.push(before, after))
    assert outcome.result == "updated", outcome.message
    assert not upkeep.openai.requests  # clean, and the judgement held: no model was asked anything
    head = upkeep.head()
    assert upkeep.git("rev-parse", f"{head}^1", f"{head}^2").split() == [old, after]  # a merge: the old head kept
    merged = upkeep.fake.file_at(REPO, BRANCH, "calc.py")
    assert "return a + b" in merged and "def sub(a, b)" in merged
    message = upkeep.git("log", "-1", "--format=%B", head)
    assert message.startswith(f"Merge main ({after[:7]}) into {BRANCH}") and "Ensemble-Run: " in message
    body = upkeep.body()
    assert f"Judged again on `main` at {after[:7]} (update 1: `main` merged into the branch; no conflicts" in body
    assert "- after: pass (3 tests)" in body and "- before: fail (`tests/test_calc.py::test_add`)" in body
    assert f"- {head[:7]} Merge main" in body and body.startswith("Closes #1")
    assert read_marker(body, "evidence") == {"base": after, "fixed": ["tests/test_calc.py::test_add"],
                                             "reproduction": "tests/test_calc.py", "updates": 1}
    [progress] = [b for b in upkeep.bot_comments() if b.startswith("**ensemble update**")]
    assert "- [x] Judged the change again there" in progress and "- [x] Pushed the branch" in progress
    summary = hub.summary.read_text()
    assert "### ensemble: updated" in summary and f"**Update**: merged main ({after[:7]}): clean, no model call" in summary


def test_a_push_that_touches_none_of_the_pull_requests_files_updates_nothing(upkeep: Upkeep) -> None:
    hub, old = upkeep.hub, upkeep.head()
    before, after = hub.commit("main", {"README.md": "# demo\n"})
    outcome = hub.send("push", hub.push(before, after))
    assert outcome.result == "nothing-to-do" and "changed none of the files" in outcome.message
    assert upkeep.head() == old and not upkeep.openai.requests


def test_a_conflict_is_resolved_by_the_coder_and_judged_on_the_new_base(upkeep: Upkeep) -> None:
    hub, old = upkeep.hub, upkeep.head()
    documented = CALC.replace("def add(a, b):\n", 'def add(a, b):\n    """The sum of a and b."""\n')
    _, after = hub.commit("main", {"calc.py": documented})
    upkeep.openai.reply('### conflict 1\n```python\n    """The sum of a and b."""\n    return a + b\n```\n',
                        marker="merge conflicts")
    outcome = hub.send("issue_comment", hub.comment(upkeep.pr, "/ensemble update"))
    assert outcome.result == "updated", outcome.message
    [asked] = upkeep.openai.requests
    prompt = asked.last_user
    assert "return a + b" in prompt and "The sum of a and b" in prompt and "add(2, 3) returns -1" in prompt
    assert "||||||| " not in prompt and "<<<<<<< HEAD" not in prompt  # the sides are shown apart, not as markers
    resolved = upkeep.fake.file_at(REPO, BRANCH, "calc.py")
    assert resolved == documented.replace("return a - b", "return a + b")
    assert upkeep.git("rev-parse", f"{upkeep.head()}^1") == old
    assert "the conflicts in `calc.py` resolved by the coder and judged like any change" in upkeep.body()
    assert "- after: pass (2 tests)" in upkeep.body()


def test_a_resolution_that_breaks_a_test_on_the_new_base_leaves_the_branch_to_a_human(upkeep: Upkeep) -> None:
    hub, old = upkeep.hub, upkeep.head()
    defaulted = CALC.replace("def add(a, b):\n    return a - b", "def add(a, b=0):\n    return a - b")
    hub.commit("main", {"calc.py": defaulted, "tests/test_default.py": "from calc import add\n\n\n"
                        "def test_one_argument():\n    assert add(3) == 3\n"})
    upkeep.openai.reply("### conflict 1\n```python\ndef add(a, b):\n    return a + b\n```\n", marker="merge conflicts",
                        times=0)
    outcome = hub.send("issue_comment", hub.comment(upkeep.pr, "/ensemble update"))
    assert outcome.result == "update-failed" and outcome.exit_code == 1
    assert len(upkeep.openai.requests) == 2  # max_iterations: the second attempt was told what broke
    assert "test_one_argument" in upkeep.openai.requests[1].last_user
    assert upkeep.head() == old  # nothing was pushed
    assert "ensemble:needs-human" in upkeep.fake.labels_on(REPO, upkeep.pr)
    [left] = [b for b in upkeep.bot_comments() if b.startswith("I could not bring this pull request")]
    assert "The files that conflict: `calc.py`" in left and f"left as it was, at {old[:7]}" in left
    assert "test_one_argument" in left


def test_a_branch_with_a_humans_commit_is_never_rewritten(upkeep: Upkeep) -> None:
    hub = upkeep.hub
    _, theirs = hub.commit(BRANCH, {"NOTES.md": "a person's notes\n"})
    hub.commit("main", {"calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n"})
    outcome = hub.send("issue_comment", hub.comment(upkeep.pr, "/ensemble update"))
    assert outcome.result == "held" and upkeep.head() == theirs
    assert any(b.startswith(f"Someone pushed {theirs[:7]}") for b in upkeep.bot_comments())
    assert not upkeep.openai.requests


def test_automatic_updates_stop_after_max_updates_per_pr_without_a_review(tmp_path: Path) -> None:
    for upkeep in start(tmp_path, CONFIG + "max_updates_per_pr: 1\n"):
        hub = upkeep.hub
        text = CALC
        results = []
        for n in range(3):
            text += f"\n\ndef f{n}():\n    return {n}\n"
            results.append(hub.send("push", hub.push(*hub.commit("main", {"calc.py": text}))).result)
        assert results == ["updated", "update-limit", "update-limit"]
        limits = [b for b in upkeep.bot_comments() if "`max_updates_per_pr` is 1" in b]
        assert len(limits) == 1 and "since its last review" in limits[0]
        hub.fake.add_review(REPO, upkeep.pr, "COMMENTED", "looks fine")
        text += "\n\ndef g():\n    return 0\n"
        assert hub.send("push", hub.push(*hub.commit("main", {"calc.py": text}))).result == "updated"


def test_a_rebase_replays_the_bots_commits_on_the_new_base_through_the_api(rebasing: Upkeep) -> None:
    hub = rebasing.hub
    before, after = hub.commit("main", {"calc.py": CALC + "\n\ndef sub(a, b):\n    return a - b\n"})
    outcome = hub.send("push", hub.push(before, after))
    assert outcome.result == "updated", outcome.message
    head = rebasing.head()
    assert rebasing.git("rev-parse", f"{head}^") == after  # linear: the bot's commit on top of the new base
    assert head in rebasing.fake.repos[REPO].verified and "Ensemble-Run: " in rebasing.git("log", "-1", "--format=%B",
                                                                                            head)
    assert "(update 1: the branch rebased onto `main`; no conflicts, no model call)" in rebasing.body()


def test_updates_count_as_runs_against_the_hourly_limit_and_in_the_spend_ledger(tmp_path: Path) -> None:
    from bot.spend import LEDGER_BRANCH, LEDGER_FILE, RESERVE, SETTLE

    for upkeep in start(tmp_path, CONFIG + "max_runs_per_hour: 2\nbudget: {issue_usd: 10.0}\n"):
        hub, text, results = upkeep.hub, CALC, []
        for n in range(3):
            text += f"\n\ndef f{n}():\n    return {n}\n"
            hub.commit("main", {"calc.py": text})
            results.append(hub.send("issue_comment", hub.comment(upkeep.pr, "/ensemble update")).result)
        assert results == ["updated", "updated", "too-many-runs"]
        lines = [json.loads(line) for line in upkeep.fake.file_at(REPO, LEDGER_BRANCH, LEDGER_FILE).splitlines()]
        assert [d["kind"] for d in lines] == [RESERVE, SETTLE] * 3  # the run that opened the PR, then two updates
        assert [d["usd"] for d in lines[3::2]] == [0.0, 0.0]  # clean updates: no model call, nothing charged
