"""The engine in a child process that holds no GitHub token: both ends of the pipe between them.

The handler does every GitHub read and write; the engine, which reads untrusted text and talks to
models, runs in `python -m actions.engine_process` with the environment `actions/engine_env.py`
allows (model keys, no GitHub or Actions credential) on a clone that stores none. They exchange
data only, one JSON object a line:

    handler -> engine (stdin)   {"mode": "run" | "plan" | "update" | "verify", "entry": "module:function",
                                 "repo_dir": ..., "task": Task, "config": Config, "run_id": ...}
                                ("job": UpdateJob for an update, VerifyJob for a verification)
                                {"stop": true}          a human asked the run to stop (EOF: the same)
    engine -> handler (stdout)  {"progress": [team, phase, round, detail]}   any number of these
                                {"result": RunResult | UpdateResult | VerifyResult} | {"plan": Plan}
                                | {"error": "Type: message"}

Anything else the engine prints goes to its stderr, which the handler passes on to its own, masked,
keeping the end of it for the message when the engine dies without a word. A stop gives the engine
a grace to return its best result (by default as long as one test run and one model call may take,
and a minute more); past the run's `deadline_minutes` and that grace it is killed with every process
it started.
"""

from __future__ import annotations

import collections
import contextlib
import importlib
import json
import logging
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal, TypedDict, cast, overload

from bot.config import Config
from bot.ensemble.types import Phase, Plan, Progress, RunResult, Task
from bot.redact import clip, scrub

if TYPE_CHECKING:
    from bot.ensemble.update import UpdateJob, UpdateResult
    from bot.ensemble.verify import VerifyJob, VerifyResult

log = logging.getLogger(__name__)
CHILD_MODULE = "actions.engine_process"
Mode = Literal["run", "plan", "update", "verify"]
# What the child runs for each mode, unless a role names another function (tests do): actions/engine.py's.
ENTRIES: dict[Mode, str] = {"run": "actions.engine:ensemble_engine", "plan": "actions.engine:ensemble_planner",
                            "update": "actions.engine:ensemble_updater", "verify": "actions.engine:ensemble_verifier"}
GRACE_MARGIN_S = 60.0
LOG_TAIL_LINES = 30


class EngineProcessError(RuntimeError):
    """The engine process failed: its own error, or how it ended and the last lines it logged."""


class Request(TypedDict, total=False):
    """The handler's first line: what to run on which clone; `task` and `config` as bot/ensemble/wire.py dumps them."""

    mode: Mode
    entry: str
    repo_dir: str
    task: object
    job: object
    config: object
    run_id: str


class Answer(TypedDict, total=False):
    """The engine's last word: a `RunResult` or a `Plan` as wire.py dumps it, or its error."""

    result: object
    plan: object
    error: str


@dataclass(frozen=True)
class ChildRole:
    """What the Action's engine, updater, verifier and planner share: the function `entry` names, run in a child
    process whose whole environment is the one given, under the run's deadline and a stop's grace."""

    entry: str | None = None  # "module:function"; None: actions/engine.py's for what runs (ENTRIES)
    grace_s: float | None = None  # None: from the config (see `grace_for`)

    def ask(self, mode: Mode, request: Request, config: Config, env: Mapping[str, str],
            progress: Progress | None = None, stop: threading.Event | None = None) -> object:
        """The child's `result` or `plan` for `request` in `mode` (the entry filled in); EngineProcessError when it
        failed, died or was killed."""
        grace = self.grace_s or grace_for(config)
        process = EngineProcess(env, progress, stop or threading.Event(), _limit_s(config, grace), grace)
        return process.run({**request, "mode": mode, "entry": self.entry or ENTRIES[mode]})


@dataclass(frozen=True)
class ChildRun(ChildRole):
    """A run in the child that reports progress and stops when asked: a task's (the engine's, answering a RunResult),
    an update job's (the updater's, an UpdateResult) or a verify job's (the verifier's, a VerifyResult). What the
    child runs follows from what it is given; the update's module is imported only when an update or a verification
    runs, the verification's only when one does."""

    @overload
    def __call__(self, repo_dir: Path, work: Task, config: Config, env: Mapping[str, str], /, *, run_id: str,
                 progress: Progress, stop: threading.Event) -> RunResult: ...

    @overload
    def __call__(self, repo_dir: Path, work: UpdateJob, config: Config, env: Mapping[str, str], /, *, run_id: str,
                 progress: Progress, stop: threading.Event) -> UpdateResult: ...

    @overload
    def __call__(self, repo_dir: Path, work: VerifyJob, config: Config, env: Mapping[str, str], /, *, run_id: str,
                 progress: Progress, stop: threading.Event) -> VerifyResult: ...

    def __call__(self, repo_dir: Path, work: Task | UpdateJob | VerifyJob, config: Config, env: Mapping[str, str],
                 /, *, run_id: str, progress: Progress,
                 stop: threading.Event) -> RunResult | UpdateResult | VerifyResult:
        """Run the task, update the branch or verify the pull request, in a child process whose whole environment
        is `env`."""
        from bot.ensemble.wire import dump, load

        request = Request(repo_dir=str(repo_dir), config=dump(config), run_id=run_id)
        if isinstance(work, Task):
            return load(RunResult, self.ask("run", {**request, "task": dump(work)}, config, env, progress, stop))
        from bot.ensemble.update import UpdateJob, UpdateResult

        if isinstance(work, UpdateJob):
            return load(UpdateResult, self.ask("update", {**request, "job": dump(work)}, config, env, progress, stop))
        from bot.ensemble.verify import VerifyResult

        return load(VerifyResult, self.ask("verify", {**request, "job": dump(work)}, config, env, progress, stop))


# The Action's `Engine`, `Updater` and `Verifier` (actions/engine.py's protocols) are one class: what the child runs
# follows from what it is given; `entry` (a test's function) and `grace_s` can be given to each.
ChildEngine = ChildUpdater = ChildVerifier = ChildRun


@dataclass(frozen=True)
class ChildPlanner(ChildRole):
    """The `Planner` of the Action: the planner (or `entry`) run in a child process."""

    def __call__(self, repo_dir: Path, task: Task, config: Config, env: Mapping[str, str]) -> Plan:
        """The plan, made in a child process whose whole environment is `env` (no progress; nothing stops it)."""
        from bot.ensemble.wire import dump, load

        request = Request(repo_dir=str(repo_dir), task=dump(task), config=dump(config))
        return load(Plan, self.ask("plan", request, config, env))


def grace_for(config: Config) -> float:
    """Seconds a stopped engine may take to return its best result: a test run and a model call under way
    finish first (the teams look at the stop between steps)."""
    return config.sandbox.timeout_s + config.llm.timeout_s + GRACE_MARGIN_S


def _limit_s(config: Config, grace_s: float) -> float | None:
    """Seconds after which the engine process is killed: the run's deadline and the grace (None: no deadline)."""
    return config.deadline_minutes * 60 + grace_s if config.deadline_minutes else None


@dataclass
class EngineProcess:
    """One run of the child: start it, feed it the request and stops, read its progress and answer."""

    env: Mapping[str, str]
    progress: Progress | None
    stop: threading.Event
    limit_s: float | None = None
    grace_s: float = GRACE_MARGIN_S
    killed: str = ""  # why the handler killed the child ('' when it did not)
    _tail: collections.deque[str] = field(default_factory=lambda: collections.deque(maxlen=LOG_TAIL_LINES))
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, request: Request) -> object:
        """The child's `result` or `plan`; EngineProcessError when it failed, died or was killed."""
        proc = subprocess.Popen([sys.executable, "-P", "-m", CHILD_MODULE], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_child_env(self.env),
                                cwd=request["repo_dir"], start_new_session=True, text=True, encoding="utf-8",
                                errors="replace", bufsize=1)
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        threads = [threading.Thread(target=self._relay, args=(proc.stderr,), name="engine-log", daemon=True),
                   threading.Thread(target=self._watch, args=(proc,), name="engine-watch", daemon=True)]
        answer = Answer()
        try:
            threads[0].start()  # the log first: a child blocked writing it would never read the request
            self._send(proc, request)
            threads[1].start()  # stops only after the request
            for line in proc.stdout:
                answer |= self._receive(line)
            proc.wait()
        finally:
            _kill(proc)
            with contextlib.suppress(OSError):
                proc.stdin.close()
            for thread in threads:
                if thread.is_alive():
                    thread.join(timeout=5)
        return self._answer(answer, proc.returncode)

    def _send(self, proc: subprocess.Popen[str], message: Mapping[str, object]) -> None:
        with self._lock:
            try:
                assert proc.stdin is not None
                proc.stdin.write(json.dumps(message) + "\n")
                proc.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):  # it has ended; its answer says why
                pass

    def _receive(self, line: str) -> Answer:
        """A protocol line: progress is passed on at once; the answer is kept."""
        try:
            message = json.loads(line)
        except json.JSONDecodeError:
            log.warning("the engine process wrote a line that is not JSON: %s", clip(line.strip(), 200))
            return Answer()
        if not isinstance(message, dict):
            return Answer()
        if isinstance(report := message.get("progress"), list) and len(report) == 4 and self.progress:
            team, phase, number, detail = report
            if (known := _phase(phase)) is not None:
                self.progress(str(team), known, int(number), str(detail))
            return Answer()
        return cast(Answer, {key: message[key] for key in ("result", "plan", "error") if key in message})

    def _relay(self, stream: IO[str]) -> None:
        """The child's log to this process's stderr, masked; the last lines kept for an error message."""
        for line in stream:
            clean = scrub(line.rstrip("\n"))
            self._tail.append(clean)
            sys.stderr.write(clean + "\n")

    def _watch(self, proc: subprocess.Popen[str]) -> None:
        """Pass a stop on to the child; kill it when it outlives its grace or the deadline."""
        started = time.monotonic()
        kill_at = started + self.limit_s if self.limit_s else None
        asked = False
        while proc.poll() is None:
            now = time.monotonic()
            if self.stop.is_set() and not asked:
                self._send(proc, {"stop": True})
                asked, kill_at = True, min(kill_at or now + self.grace_s, now + self.grace_s)
            if kill_at is not None and now >= kill_at:
                self.killed = (f"it did not stop within {self.grace_s:g} s of being asked to" if asked else
                               f"it was still running {self.limit_s:g} s after it started (deadline_minutes "
                               f"and {self.grace_s:g} s of grace)")
                _kill(proc)
                return
            time.sleep(0.1)

    def _answer(self, answer: Answer, code: int | None) -> object:
        if "result" in answer or "plan" in answer:
            return answer.get("result", answer.get("plan"))
        if self.killed:
            raise EngineProcessError(f"the engine process was killed: {self.killed}")
        if "error" in answer:
            raise EngineProcessError(str(answer["error"]))
        last = "\n".join(self._tail) or "(it logged nothing)"
        raise EngineProcessError(f"the engine process ended with exit status {code} before answering; "
                                 f"its last lines:\n{clip(last, 2000, keep='tail')}")


def _child_env(env: Mapping[str, str]) -> dict[str, str]:
    """`env`, with this code's own folder first on PYTHONPATH so the child runs the same package as the handler."""
    root = str(Path(__file__).resolve().parent.parent)
    path = env.get("PYTHONPATH", "")
    return {**env, "PYTHONPATH": os.pathsep.join([root, *(p for p in path.split(os.pathsep) if p and p != root)])}


def _kill(proc: subprocess.Popen[str]) -> None:
    """Kill the child and every process it started (it leads its own session)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _phase(value: object) -> Phase | None:
    """The phase a report names; None for one this handler does not know (a newer engine's)."""
    try:
        return Phase(str(value))
    except ValueError:
        return None


# -- the child ----------------------------------------------------------------------------------


def main() -> int:
    """The engine process: read the request, run it, write the answer; 0 when it answered, 1 on an error."""
    from bot.cli import configure_logging

    channel = _protocol_channel()
    configure_logging(False)
    send = _sender(channel)
    stop = threading.Event()
    try:
        request: Request = json.loads(sys.stdin.readline() or "null")
        threading.Thread(target=_read_stops, args=(stop,), name="engine-stop", daemon=True).start()
        send(_serve(request, lambda *report: send({"progress": list(report)}), stop))
    except Exception as exc:  # noqa: BLE001 - the boundary: every failure becomes the answer
        logging.getLogger(CHILD_MODULE).error("the engine failed", exc_info=True)
        send({"error": clip(f"{type(exc).__name__}: {exc}", 2000)})
        return 1
    return 0


def _serve(request: Request, progress: Progress, stop: threading.Event) -> Answer:
    from bot.ensemble.wire import dump, load

    entry = _entry(request["entry"])
    repo_dir, config = Path(request["repo_dir"]), load(Config, request["config"])
    if request["mode"] in ("update", "verify"):
        from bot.ensemble.update import UpdateJob
        from bot.ensemble.verify import VerifyJob

        job: UpdateJob | VerifyJob = load(UpdateJob, request["job"]) if request["mode"] == "update" else \
            load(VerifyJob, request["job"])
        return Answer(result=dump(entry(repo_dir, job, config, dict(os.environ), run_id=request["run_id"],
                                        progress=progress, stop=stop)))
    task = load(Task, request["task"])
    if request["mode"] == "plan":
        return Answer(plan=dump(entry(repo_dir, task, config, dict(os.environ))))
    result = entry(repo_dir, task, config, dict(os.environ), run_id=request["run_id"], progress=progress, stop=stop)
    return Answer(result=dump(result))


def _entry(name: str) -> Callable[..., RunResult | Plan | UpdateResult | VerifyResult]:
    """The function `module:function` names: an `Engine`, a `Planner`, an `Updater` or a `Verifier`
    (actions/engine.py)."""
    module, _, function = name.partition(":")
    found: Callable[..., RunResult | Plan | UpdateResult | VerifyResult] = getattr(importlib.import_module(module),
                                                                                    function)
    return found


def _protocol_channel() -> IO[str]:
    """The pipe to the handler, on a descriptor of its own; fd 1 then points at stderr, so whatever a
    library prints lands in the log, never in the protocol."""
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return channel


def _sender(channel: IO[str]) -> Callable[[Mapping[str, object]], None]:
    lock = threading.Lock()

    def send(message: Mapping[str, object]) -> None:
        with lock:
            channel.write(json.dumps(message) + "\n")
            channel.flush()

    return send


def _read_stops(stop: threading.Event) -> None:
    """Set `stop` on a stop message, or when the handler is gone (stdin closed)."""
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict) and message.get("stop"):
            break
    stop.set()


if __name__ == "__main__":
    sys.exit(main())
