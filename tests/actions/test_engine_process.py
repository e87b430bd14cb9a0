"""The engine in its own process: progress streams back, a stop is a graceful end, a crash or a hang
becomes a clear error, and the answer crosses the pipe whole.

Each test runs the real child (`python -m actions.engine_process`) with a small engine from
tests/actions/child_engines.py as its entry.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from actions.app import handle_event
from actions.engine_process import ChildEngine, ChildPlanner, EngineProcessError
from bot.config import Config
from bot.ensemble.types import STOPPED, Phase, Plan, Task
from fakes.github_hub import REPO, Hub
from tests.actions import child_engines

TASK = Task("Fix median", "even counts are wrong", slug="issue-7")
ENV = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/tmp")}


def engine(name: str, grace_s: float = 10.0) -> ChildEngine:
    return ChildEngine(entry=f"tests.actions.child_engines:{name}", grace_s=grace_s)


def run(entry: ChildEngine, tmp_path: Path, config: Config | None = None, stop: threading.Event | None = None,
        reports: list[tuple[str, str, int, str]] | None = None):
    seen = reports if reports is not None else []
    return entry(tmp_path, TASK, config or Config(), ENV, run_id="run-1",
                 progress=lambda *report: seen.append(report), stop=stop or threading.Event())


def test_progress_streams_back_and_the_result_arrives_whole(tmp_path: Path) -> None:
    reports: list[tuple[str, str, int, str]] = []
    result = run(engine("reporting"), tmp_path, reports=reports)
    assert result == child_engines.full_result("run-1", TASK)  # what a library printed did not get in the way
    assert [r[1] for r in reports] == [Phase.INDEXING, Phase.PLANNING, Phase.CODING, Phase.TESTING, Phase.REVIEWING]
    assert reports[0] == ("a", Phase.INDEXING, 1, f"indexing in {tmp_path.name}")


def test_a_stop_is_passed_on_and_the_engine_returns_its_best_result(tmp_path: Path) -> None:
    stop = threading.Event()
    reports: list[tuple[str, str, int, str]] = []
    threading.Timer(1.0, stop.set).start()
    started = time.monotonic()
    result = run(engine("until_stopped"), tmp_path, stop=stop, reports=reports)
    assert result.stop_reason == STOPPED and result.commits and reports
    assert time.monotonic() - started < 20


def test_an_error_in_the_engine_is_raised_with_its_words(tmp_path: Path) -> None:
    with pytest.raises(EngineProcessError, match=r"^ValueError: the index under .ensemble/index is unreadable$"):
        run(engine("failing"), tmp_path)


def test_an_engine_that_dies_without_a_word_is_reported_with_its_exit_status_and_last_lines(tmp_path: Path) -> None:
    with pytest.raises(EngineProcessError) as raised:
        run(engine("dying"), tmp_path)
    assert "exit status 3" in str(raised.value) and "segmentation fault in libfaiss" in str(raised.value)


def test_a_hung_engine_is_killed_at_the_deadline_with_what_it_started(tmp_path: Path) -> None:
    reports: list[tuple[str, str, int, str]] = []
    started = time.monotonic()
    with pytest.raises(EngineProcessError, match="killed: it was still running"):
        run(engine("hanging", grace_s=1.0), tmp_path, Config(deadline_minutes=0.02), reports=reports)
    assert time.monotonic() - started < 15
    sleeper = int(reports[0][3])
    assert not _alive(sleeper), "the process the engine started outlived it"


def test_a_hung_engine_that_ignores_a_stop_is_killed_after_its_grace(tmp_path: Path) -> None:
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    with pytest.raises(EngineProcessError, match="did not stop within 1 s of being asked to"):
        run(engine("hanging", grace_s=1.0), tmp_path, stop=stop)


def test_the_planner_runs_in_the_child_too(tmp_path: Path) -> None:
    plan = ChildPlanner(entry="tests.actions.child_engines:planning")(tmp_path, TASK, Config(), ENV)
    assert plan == Plan("plan for Fix median", ("a.py",), ("step one",), ("which file?",), "tests/test_a.py")


def test_the_engine_process_has_exactly_the_environment_it_is_given(tmp_path: Path) -> None:
    os.environ["HANDLER_ONLY"] = "in the handler's own environment"
    try:
        reports: list[tuple[str, str, int, str]] = []
        run(engine("environment"), tmp_path, reports=reports)
    finally:
        del os.environ["HANDLER_ONLY"]
    seen = {name: value for name, _, _, value in reports}
    assert set(seen) - {"PYTHONPATH"} <= set(ENV) | {"LC_CTYPE"}  # Python may set LC_CTYPE for a C locale
    assert seen["PATH"] == ENV["PATH"]


def test_through_the_handler_the_progress_comment_follows_the_engine_and_a_stop_comment_stops_it(hub: Hub) -> None:
    def stop_once_working() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if any("Wrote the code" in c["body"] for c in hub.fake.comments_on(REPO, 1)):  # the progress comment
                hub.fake.add_comment(REPO, 1, "/ensemble stop", user="mona")
                return
            time.sleep(0.05)

    threading.Thread(target=stop_once_working, daemon=True).start()
    outcome = handle_event({**os.environ, **hub.env("issues", hub.labeled(1))}, engine=engine("until_stopped"))
    assert outcome.result == "stopped", outcome.message
    bodies = [c["body"] for c in hub.fake.comments_on(REPO, 1)]
    # the engine's report that it wrote code reached the comment (ticks are coalesced, the last one is written)
    assert any("- [x] Wrote the code" in body and "Stopped by @mona" in body for body in bodies), bodies
    assert any("Stopped by @mona; nothing was pushed" in body for body in bodies)  # and why: nothing improved
    assert hub.fake.head_sha(REPO, "ensemble/issue-1") is None


def test_through_the_handler_a_crashed_engine_is_reported_on_the_thread(hub: Hub) -> None:
    with pytest.raises(EngineProcessError):
        handle_event({**os.environ, **hub.env("issues", hub.labeled(1))}, engine=engine("failing"))
    note = [c["body"] for c in hub.fake.comments_on(REPO, 1) if "The run failed" in c["body"]]
    assert note and ("The run failed and nothing was pushed: EngineProcessError: ValueError: the index under "
                     ".ensemble/index is unreadable") in note[0]
    assert "ensemble:working" not in [label["name"] for label in hub.fake.repos[REPO].issues[1]["labels"]]


def _alive(pid: int) -> bool:
    """True while `pid` runs (a zombie waiting for its parent to reap it counts as ended)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state in ("Z", "X"):
            return False
        time.sleep(0.1)
    return True


def test_an_update_crosses_the_pipe_and_moves_only_the_local_branch(tmp_path: Path) -> None:
    import subprocess

    from actions.engine_process import ChildUpdater
    from bot.ensemble.update import UpdateJob

    def git(*args: str) -> str:
        return subprocess.run(["git", "-c", "user.name=T", "-c", "user.email=t@example.com", *args], cwd=tmp_path,
                              check=True, capture_output=True, text=True).stdout.strip()

    (tmp_path / "tests").mkdir()
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (tmp_path / "tests" / "test_calc.py").write_text("from calc import add\n\n\ndef test_add():\n"
                                                     "    assert add(2, 3) == 5\n")
    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-qm", "start")
    git("checkout", "-qb", "ensemble/issue-7")
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    git("commit", "-qam", "Fix add\n\nEnsemble-Run: r0")
    git("checkout", "-q", "main")
    (tmp_path / "README.md").write_text("# calc\n")
    git("add", "-A")
    git("commit", "-qm", "docs")
    base = git("rev-parse", "HEAD")
    reports: list[tuple[str, str, int, str]] = []
    job = UpdateJob(TASK, base, "main", fixed=("tests/test_calc.py::test_add",))
    result = ChildUpdater(entry="tests.actions.child_engines:host_updating", grace_s=10.0)(
        tmp_path, job, Config(), ENV, run_id="run-1", progress=lambda *r: reports.append(r), stop=threading.Event())
    assert result.updated and not result.conflicts and result.run.usage["calls"] == 0
    assert result.run.judgement is not None and result.run.judgement.good
    assert git("rev-parse", "ensemble/issue-7") == result.head and git("rev-parse", f"{result.head}^2") == base
    assert git("rev-parse", "main") == base and Phase.BASELINE in [r[1] for r in reports]
