"""The repository the `/ensemble verify` tests share, and people's pull requests on it.

One fake GitHub per test module holds octo/demo: `calc.py` with a bug in `add`, its tests (one reads its expected
values from `data/cases.json`), and a config that tests in the Docker sandbox. Each pull request of a test is proposed
and verified once per module (`World.verified`), in the test that first asks for it (so after the suite's autouse
fixtures cleaned the environment), and the verifications in this process share the base's test run (`bases`): the
same merge base, tested once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from actions.context import Outcome
from bot.config import Config
from bot.ensemble.judge.runs import BaseRun
from bot.ensemble.types import Progress
from bot.ensemble.verify import VerifyJob, VerifyResult, verify_pull
from fakes.github_hub import REPO, Hub
from fakes.github_server import FakeGitHub
from fakes.scripted_engine import ScriptedEngine
from sandbox.images import BASE_IMAGE

BOT = "github-actions[bot]"
CALC = '''"""Small arithmetic."""


def add(a, b):
    return a - b


def mul(a, b):
    return a * b


def scale(values, factor):
    return [v * factor for v in values]
'''
TESTS = '''import json
from pathlib import Path

from calc import add, mul, scale

CASES = json.loads((Path(__file__).parent.parent / "data" / "cases.json").read_text())


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(2, 3) == 6
    assert mul(0, 5) == 0


def test_scale_cases():
    for case in CASES:
        assert scale(case["values"], case["factor"]) == case["expected"]
'''
CASES = '''[
  {"values": [1, 2], "factor": 2, "expected": [2, 4]},
  {"values": [3], "factor": 0, "expected": [0]}
]
'''
CONFIG = f"""ensembles: 1
sandbox: {{image: "{BASE_IMAGE}", timeout_s: 120, require_docker: true}}
verify: auto
"""


@dataclass
class World:
    """The fake GitHub, its repository, and the pull requests verified so far (by name)."""

    hub: Hub
    bases: MutableMapping[str, BaseRun] = field(default_factory=dict)
    pulls: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def fake(self) -> FakeGitHub:
        return self.hub.fake

    def verifier(self, repo_dir: Path, job: VerifyJob, config: Config, env: Mapping[str, str], *, run_id: str,
                 progress: Progress, stop: threading.Event) -> VerifyResult:
        """The engine's verification in this process, sharing the base's test run between pull requests."""
        return verify_pull(repo_dir, job, config, env, run_id=run_id, bases=self.bases)

    def verified(self, name: str, propose: Callable[[Hub], int], by: str = "alice") -> int:
        """The pull request `name`, proposed by `propose` and verified with `/ensemble verify` by `by`, once."""
        with self.lock:
            if name not in self.pulls:
                self.pulls[name] = propose(self.hub)
                self.hub.verifier = self.verifier
                self.outcomes[name] = self.hub.send("issue_comment", self.hub.comment(self.pulls[name],
                                                                                    "/ensemble verify", sender=by))
            return self.pulls[name]

    def report(self, pr: int) -> str:
        """The bot's verify comment on PR #pr (there is exactly one)."""
        found = [c["body"] for c in self.fake.comments_on(REPO, pr) if "<!-- ensemble:verify" in c["body"]]
        assert len(found) == 1, found
        return found[0]

    def check(self, pr: int) -> dict[str, Any]:
        """The `ensemble/verify` check run on PR #pr's head (there is exactly one)."""
        pull = self.fake.pull_json(self.fake.repos[REPO], self.fake.repos[REPO].pulls[pr])
        runs = [r for r in self.fake.repos[REPO].check_runs
                if r["name"] == "ensemble/verify" and r["head_sha"] == pull["head"]["sha"]]
        assert len(runs) == 1, runs
        return runs[0]


def world_at(root: Path) -> tuple[FakeGitHub, World]:
    """The fake GitHub, entered, with octo/demo and its people: alice (write), mona (admin), trina (triage)."""
    fake = FakeGitHub(root / "github").__enter__()
    fake.add_repo(REPO, {"calc.py": CALC, "tests/test_calc.py": TESTS, "data/cases.json": CASES,
                         ".github/ensemble.yml": CONFIG})
    for login, role in (("alice", "write"), ("mona", "admin"), ("trina", "triage")):
        fake.set_permission(REPO, login, role)
    return fake, World(Hub(fake, root, ScriptedEngine()))
