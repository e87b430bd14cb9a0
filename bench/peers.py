#!/usr/bin/env python
"""The engine against peer agents (aider, mini-swe-agent) on bench/tasks: one model, one budget, one judge.

    scripts/local_model.sh                          # a local Qwen2.5-Coder-1.5B on 127.0.0.1:8080
    .venv/bin/python bench/peers.py --base-url http://127.0.0.1:8080/v1 --model qwen2.5-coder-1.5b-instruct \\
        [--agents ensemble aider mini] [--tasks ID ...] [--budget-s 900] [--json peers.json] [--out-dir DIR]

Every agent gets the same issue text (task.md), a fresh git repository of the task, the same
model behind a counting proxy (bench/usage_proxy.py: model requests, prompt and completion
tokens per agent and task, every reply capped at the same --max-output-tokens; one port for the
whole run, as the engine remembers what a server refused by its URL) and the same wall
budget per task. The engine runs in this process through bench/real_model.py's run path, with
the budget as its `deadline_minutes`: no model call of its own waits past it. A peer is a
subprocess, killed with its process group at the budget. A request the server was still working
on for a stopped agent is let finish (or the server restarted, --restart-server) before the next
agent starts, so no agent pays for another's leftovers. Every
result tree is judged by bench/judge.py: solved = the task's failing tests pass and no test
that passed before broke.

Peers are never dependencies of the project: each is installed, at a pinned version, into a
virtual environment of its own under --venvs-dir on first use. aider gets the issue as its one
`--message`, the repository's source files, `--yes-always`, `--auto-test` with the task's test
command and no commits of its own; mini-swe-agent runs `mini` in yolo mode in a local
environment with its text-based action format (local servers often lack tool calls).

The table lists task × agent (an unsolved engine task's note says why it stopped and how much of its
budget was left); the last lines say, per agent,
`AGENT: solved N/M, median wall S s, tokens T, median prompt tokens P, prefix cache C, uncached per solved task
U` (the median over its solved tasks of the prompt tokens the server did not take from its cache; all of them
where it reports no cache), for the engine followed by `ensemble unsolved: K of U stopped with more than 20% of
the budget left; TASK: REASON, L% left, ...` and, for each peer, `ensemble and PEER both solved K: median wall
E s against P s (R x)`: the time to green where both reached it. Before them, when the tasks span both sets
(task.json's "set": design or held_out, bench/README.md), the same per set as `[SET] AGENT: ...`. `--set` picks the tasks (design by default; held_out or all only to measure an
engine change that is done), and `--from-json peers.json` prints the report of recorded results again.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
DEFAULT_VENVS = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ensemble-bot" / "peers"
SOURCE_SUFFIXES = {".py", ".js", ".mjs", ".cjs", ".ts", ".rs", ".go", ".java", ".rb", ".c", ".h", ".cpp"}
MINI_COMMAND_TIMEOUT_S = 120
ENGINE = "ensemble"
EARLY_STOP_SHARE = 0.2  # an unsolved engine task that stopped with more of its budget left gave up early


def _real_model() -> Any:
    """bench/real_model.py, loaded by its file (it keeps bench/ off sys.path: bench/sandbox.py shadows the engine's)."""
    if "bench_real_model" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_real_model", BENCH / "real_model.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_real_model"]


real_model = _real_model()
judge = real_model.judge
usage_proxy = real_model._bench_module("usage_proxy")


class PeerInstallError(RuntimeError):
    """A peer could not be installed into its virtual environment."""


# ---------------------------------------------------------------- one agent's job


@dataclass(frozen=True)
class Job:
    """One agent on one task: where it works, which model it asks, how long it has."""

    task: Mapping[str, Any]
    repo: Path
    base_url: str
    model: str
    budget_s: float
    logs: Path

    @property
    def issue(self) -> str:
        return f"{self.task['title']}\n\n{self.task['body']}"

    @property
    def test_command(self) -> str:
        return judge.plain_command(judge.load_spec(self.task["folder"]))

    def source_files(self) -> list[str]:
        """The repository's source files, as a user would hand them to an agent: no tests, no build files."""
        return [rel for rel in sorted(judge.tree_files(self.repo))
                if Path(rel).suffix in SOURCE_SUFFIXES and not judge.is_test_file(rel)
                and not judge.is_harness_file(rel)]


def api_key() -> str:
    """The key agents send: LOCAL_MODEL_API_KEY when the server wants one, never a real provider's key."""
    return os.environ.get("LOCAL_MODEL_API_KEY", "sk-no-key-required")


def aider_command(exe: Path, job: Job) -> list[str]:
    """aider, non-interactive: the issue as one message, the source files in the chat, tests after each edit."""
    return [str(exe), "--model", f"openai/{job.model}", "--openai-api-base", job.base_url,
            "--yes-always", "--no-auto-commits", "--no-dirty-commits", "--no-gitignore", "--no-stream",
            "--no-pretty", "--no-fancy-input", "--no-show-model-warnings", "--no-check-update",
            "--no-show-release-notes", "--analytics-disable", "--no-detect-urls", "--no-suggest-shell-commands",
            "--timeout", str(int(job.budget_s)), "--auto-test", "--test-cmd", job.test_command,
            "--chat-history-file", str(job.logs / "aider.chat.md"),
            "--input-history-file", str(job.logs / "aider.input.history"),
            "--llm-history-file", str(job.logs / "aider.llm.log"),
            "--message", job.issue, *job.source_files()]


def mini_command(exe: Path, job: Job) -> list[str]:
    """mini-swe-agent's `mini`, non-interactive: yolo mode, exits when the agent submits, stops at the budget."""
    return [str(exe), "--model", f"openai/{job.model}", "--model-class", "litellm_textbased",
            "--agent-class", "default", "--environment-class", "local",
            "-c", "mini_textbased.yaml",
            "-c", f"model.model_kwargs.api_base={job.base_url}",
            "-c", "model.cost_tracking=ignore_errors",
            "-c", f"agent.wall_time_limit_seconds={int(job.budget_s)}",
            "-c", f"environment.cwd={job.repo}",
            "-c", f"environment.timeout={MINI_COMMAND_TIMEOUT_S}",
            "--task", job.issue, "--yolo", "--exit-immediately", "--cost-limit", "0",
            "--output", str(job.logs / "mini.traj.json")]


def peer_env(job: Job, home: Path) -> dict[str, str]:
    """A peer's environment: the proxy as its OpenAI base, a home of its own, nothing fetched at start-up.

    The bench's Python comes first on PATH, so `python -m pytest` works in the peer's shell as in the judge's.
    """
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OPENAI_", "AIDER_", "MSWEA_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"))
           and k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    home.mkdir(parents=True, exist_ok=True)
    no_proxy = ",".join(filter(None, [env.get("NO_PROXY", ""), "127.0.0.1,localhost"]))
    path = os.pathsep.join(filter(None, [str(Path(sys.executable).parent), env.get("PATH", "")]))
    env.update(PATH=path, OPENAI_API_KEY=api_key(), OPENAI_API_BASE=job.base_url, OPENAI_BASE_URL=job.base_url,
               HOME=str(home),
               NO_PROXY=no_proxy, no_proxy=no_proxy, LITELLM_LOCAL_MODEL_COST_MAP="True",
               MSWEA_CONFIGURED="true", MSWEA_SILENT_STARTUP="1", MSWEA_COST_TRACKING="ignore_errors",
               MSWEA_GLOBAL_CONFIG_DIR=str(home / "mini-swe-agent"), PYTHONUNBUFFERED="1", NO_COLOR="1")
    return env


@dataclass(frozen=True)
class Peer:
    """A peer agent from the package index, pinned, and how it is run on a job."""

    name: str
    package: str
    version: str
    executable: str
    command: Callable[[Path, Job], list[str]]


PEERS = {
    "aider": Peer("aider", "aider-chat", "0.86.2", "aider", aider_command),
    "mini": Peer("mini", "mini-swe-agent", "2.4.6", "mini", mini_command),
}
AGENTS = (ENGINE, *PEERS)


def install(peer: Peer, venvs: Path, quiet: bool = False) -> Path:
    """The peer's executable, installed into `venvs/<package>-<version>/` the first time."""
    venv = venvs / f"{peer.package}-{peer.version}"
    exe, marker = venv / "bin" / peer.executable, venv / ".installed"
    if marker.is_file() and exe.is_file():
        return exe
    if not quiet:
        print(f"installing {peer.package}=={peer.version} into {venv} (once)", file=sys.stderr, flush=True)
    steps = [[sys.executable, "-m", "venv", "--clear", str(venv)],
             [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", f"{peer.package}=={peer.version}"]]
    for step in steps:
        proc = subprocess.run(step, capture_output=True, text=True)
        if proc.returncode != 0:
            raise PeerInstallError(f"`{' '.join(step)}` failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}\n"
                                   f"Fix the cause (network, Python version) or leave {peer.name} out with --agents.")
    if not exe.is_file():
        raise PeerInstallError(f"{peer.package}=={peer.version} installed no `{peer.executable}` in {venv / 'bin'}")
    marker.write_text(f"{peer.package}=={peer.version}\n", encoding="utf-8")
    return exe


# ---------------------------------------------------------------- running and judging


def run_command(argv: list[str], cwd: Path, env: dict[str, str], budget_s: float, log: Path) -> dict[str, Any]:
    """Run an agent's command with its output in `log`; at the budget its whole process group is killed."""
    started = time.monotonic()
    with log.open("wb") as out, subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                                 stderr=subprocess.STDOUT, start_new_session=True) as proc:
        try:
            code, timed_out = proc.wait(timeout=budget_s), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            code, timed_out = proc.wait(), True
    return {"exit_code": None if timed_out else code, "timed_out": timed_out,
            "wall_s": round(time.monotonic() - started, 1)}


def settle(proxy: Any, args: argparse.Namespace) -> float:
    """Let the model server finish what a stopped agent left it working on, so the next agent starts on an idle
    server: restart it (`--restart-server`) or wait for the requests (each capped at --max-output-tokens).
    The seconds this takes are charged to no agent."""
    if not proxy.in_flight:
        return 0.0
    started = time.monotonic()
    if args.restart_server:
        subprocess.run(args.restart_server, shell=True, check=False, capture_output=True)  # noqa: S602 - the user's
    proxy.settle(limit_s=args.budget_s + 900)
    return round(time.monotonic() - started, 1)


def new_record(task_id: str, agent: str, version: str, task_set: str = real_model.DESIGN) -> dict[str, Any]:
    return {"task": task_id, "set": task_set, "agent": agent, "version": version, "solved": False, "fixed": None,
            "broken": [], "wall_s": 0.0, "timed_out": False, "exit_code": None, "error": None, "usage": {}, "log": ""}


def judged(record: dict[str, Any], task: Mapping[str, Any], tree: Path, before: Any) -> dict[str, Any]:
    """`record` with bench/judge.py's verdict on `tree`; a judge that cannot run is an error, not a crash."""
    try:
        verdict = judge.judge(task["folder"], tree, before=before)
    except Exception as exc:  # noqa: BLE001 - one bad verdict must not end the bench
        record["error"] = record["error"] or f"judge: {type(exc).__name__}: {exc}"
        return record
    record.update(fixed=verdict.fixed, broken=list(verdict.broken), solved=verdict.solved,
                  verdict=verdict.as_dict())
    return record


def counting_proxy(args: argparse.Namespace, exchanges: Path) -> Any:
    """The counting proxy for one agent on one task, on the port the earlier ones had: the engine remembers what
    a server refused by its base URL (bot/llm/refusals.py), and a new port every task would make it learn again."""
    proxy = usage_proxy.CountingProxy(args.base_url, max_output_tokens=args.max_output_tokens, exchanges=exchanges,
                                      port=getattr(args, "proxy_port", 0))
    args.proxy_port = proxy.port
    return proxy


def run_peer(peer: Peer, exe: Path, task: Mapping[str, Any], args: argparse.Namespace, folder: Path,
             before: Any) -> dict[str, Any]:
    """One peer on one task, behind its own counting proxy, judged."""
    record = new_record(task["id"], peer.name, peer.version, task.get("set", real_model.DESIGN))
    repo = real_model.make_repo(task["repo"], folder / "repo")
    with counting_proxy(args, folder / "model.jsonl") as proxy:
        job = Job(task, repo, proxy.url, args.model, args.budget_s, folder)
        log = folder / f"{peer.name}.log"
        record["log"] = str(log)
        try:
            record.update(run_command(peer.command(exe, job), repo, peer_env(job, folder / "home"), args.budget_s, log))
        except OSError as exc:
            record["error"] = f"{type(exc).__name__}: {exc}"
        record["settled_s"] = settle(proxy, args)
    record["usage"] = proxy.usage.as_dict()
    return judged(record, task, repo, before)


def run_engine(task: Mapping[str, Any], args: argparse.Namespace, folder: Path) -> dict[str, Any]:
    """The engine on one task through bench/real_model.py (which judges its branch), behind a counting proxy."""
    record = new_record(task["id"], ENGINE, _engine_version(), task.get("set", real_model.DESIGN))
    with counting_proxy(args, folder / "model.jsonl") as proxy:
        engine_args = real_model.parse_args(["--base-url", proxy.url, "--model", args.model, "--tasks", task["id"],
                                             "--timeout-s", str(args.budget_s), "--quiet",
                                             "--max-output-tokens", str(args.max_output_tokens),
                                             "--edit-format", args.edit_format, "--hidden-check", args.hidden_check])
        outcome = real_model.run_one(dict(task), engine_args, folder)
        record["settled_s"] = settle(proxy, args)
    record["usage"] = proxy.usage.as_dict()
    record.update({k: outcome.get(k) for k in ("solved", "fixed", "wall_s", "timed_out", "verdict") if k in outcome})
    record["broken"] = list(outcome.get("broken") or [])
    record["error"] = outcome.get("crash") or outcome.get("fixed_error")
    record["solved"] = bool(record["solved"])
    record["claimed"] = outcome.get("claimed")
    record.update(stop_reason=outcome.get("stop_reason") or "", stop_detail=outcome.get("stop_detail") or "",
                  duration_s=outcome.get("duration_s"), budget_s=args.budget_s)
    record["log"] = str(outcome.get("trace") or "")
    return record


def _engine_version() -> str:
    try:
        from importlib.metadata import version

        return version("ensemble-bot")
    except Exception:  # noqa: BLE001 - a checkout that is not installed
        return "checkout"


# ---------------------------------------------------------------- report


COLUMNS = ("task", "agent", "solved", "fixed", "broken", "wall s", "requests", "prompt tok", "compl tok", "note")


def budget_left(record: Mapping[str, Any]) -> float | None:
    """The share of its budget an engine run had left when it stopped: the budget less the time it stopped at
    (the engine's own clock, else the wall time), over the budget; None for a record without a budget."""
    budget = float(record.get("budget_s") or 0)
    if budget <= 0:
        return None
    stopped = float(record.get("duration_s") or record.get("wall_s") or 0)
    return max(0.0, budget - stopped) / budget


def stop_of(record: Mapping[str, Any]) -> str:
    """`REASON, L% left`: why an engine run stopped and how much of its budget it left unused."""
    reason = str(record.get("stop_reason") or ("crash" if record.get("error") else "?"))
    left = budget_left(record)
    return reason + ("" if left is None else f", {100 * left:.0f}% left")


def unsolved_line(records: list[Mapping[str, Any]]) -> str | None:
    """`ensemble unsolved: K of U stopped with more than 20% of the budget left; TASK: REASON, L% left, ...`."""
    unsolved = [r for r in records if r.get("agent") == ENGINE and not r.get("solved")]
    if not any(r.get("stop_reason") or r.get("budget_s") for r in unsolved):  # none, or recorded before this
        return None
    early = sum(1 for r in unsolved if (budget_left(r) or 0) > EARLY_STOP_SHARE)
    return (f"{ENGINE} unsolved: {early} of {len(unsolved)} stopped with more than {100 * EARLY_STOP_SHARE:.0f}% "
            "of the budget left; " + "; ".join(f"{r.get('task', '?')}: {stop_of(r)}" for r in unsolved))


def note_of(record: Mapping[str, Any]) -> str:
    """Why a run ended oddly: an error, the time limit, a non-zero exit, unreported usage; for an unsolved engine
    run, why it stopped and the budget it left."""
    notes = []
    if record.get("agent") == ENGINE and not record.get("solved") and record.get("stop_reason"):
        notes.append(f"stop: {stop_of(record)}")
    if record.get("error"):
        notes.append(str(record["error"]).splitlines()[0][:70])
    if record.get("timed_out"):
        notes.append("time limit")
    if record.get("exit_code") not in (None, 0):
        notes.append(f"exit {record['exit_code']}")
    usage = record.get("usage") or {}
    if usage.get("unreported"):
        notes.append(f"{usage['unreported']} without usage")
    if usage.get("estimated"):
        notes.append(f"{usage['estimated']} counted by the tokenizer")
    if usage.get("errors"):
        notes.append(f"{usage['errors']} model errors")
    return "; ".join(notes) or "-"


def table_row(record: Mapping[str, Any]) -> list[str]:
    usage = record.get("usage") or {}
    fixed = record.get("fixed")
    return [str(record.get("task", "?")), str(record.get("agent", "?")), "yes" if record.get("solved") else "no",
            "-" if fixed is None else ("yes" if fixed else "no"),
            "-" if fixed is None else str(len(record.get("broken") or [])),
            f"{float(record.get('wall_s') or 0):.0f}", str(usage.get("requests", 0)),
            str(usage.get("prompt_tokens", 0)), str(usage.get("completion_tokens", 0)), note_of(record)]


def summary_line(agent: str, records: list[Mapping[str, Any]]) -> str:
    """`AGENT: solved N/M, median wall S s, tokens T` over the agent's records, then the median prompt tokens
    per task, the share of prompt tokens the server took from its prefix cache (where it reports that) and the median
    uncached prompt tokens of a solved task."""
    mine = [r for r in records if r.get("agent") == agent]
    solved = sum(1 for r in mine if r.get("solved"))
    wall = statistics.median(float(r.get("wall_s") or 0) for r in mine) if mine else 0.0
    usages = [r.get("usage") or {} for r in mine]
    tokens = sum(int(u.get("prompt_tokens", 0)) + int(u.get("completion_tokens", 0)) for u in usages)
    prompts = statistics.median(int(u.get("prompt_tokens", 0)) for u in usages) if usages else 0
    prompt_total, cached = sum(int(u.get("prompt_tokens", 0)) for u in usages), sum(
        int(u.get("cached_tokens", 0)) for u in usages)
    cache = f"{100 * cached / prompt_total:.0f}%" if cached and prompt_total else "not reported"
    uncached = [int(u.get("prompt_tokens", 0)) - int(u.get("cached_tokens", 0))
                for r, u in zip(mine, usages, strict=True) if r.get("solved")]
    per_solved = f"{statistics.median(uncached):.0f}" if uncached else "-"
    return (f"{agent}: solved {solved}/{len(mine)}, median wall {wall:.0f} s, tokens {tokens}, "
            f"median prompt tokens {prompts:.0f}, prefix cache {cache}, uncached per solved task {per_solved}")


def both_solved_line(peer: str, records: list[Mapping[str, Any]]) -> str | None:
    """`ensemble and PEER both solved K: median wall E s against P s (R x)` over the tasks both solved (None when
    either agent has no record): how long each took to green where both got there."""
    if not {ENGINE, peer} <= {r.get("agent") for r in records}:
        return None
    solved: dict[str, dict[str, float]] = {ENGINE: {}, peer: {}}
    for r in records:
        if r.get("agent") in solved and r.get("solved"):
            solved[str(r["agent"])][str(r.get("task"))] = float(r.get("wall_s") or 0)
    both = sorted(solved[ENGINE].keys() & solved[peer].keys())
    if not both:
        return f"{ENGINE} and {peer} both solved 0"
    mine, theirs = (statistics.median(solved[agent][t] for t in both) for agent in (ENGINE, peer))
    ratio = f"{mine / theirs:.2f}x" if theirs else "-"
    return f"{ENGINE} and {peer} both solved {len(both)}: median wall {mine:.0f} s against {theirs:.0f} s ({ratio})"


def set_lines(records: list[Mapping[str, Any]], agents: list[str]) -> list[str]:
    """`[SET] AGENT: solved N/M, ...` per set and agent, when the records span more than one task set."""
    groups = real_model.split_by_set(records)
    if len(groups) < 2:
        return []
    lines = ["", "per task set (held-out tasks are never used to tune the engine: bench/README.md)"]
    for name, group in groups.items():
        lines += [f"[{name}] {line}" for agent in agents for line in agent_lines(agent, group)]
    return lines


def agent_lines(agent: str, records: list[Mapping[str, Any]]) -> list[str]:
    """The agent's summary line; for the engine the line on its unsolved tasks, for a peer the tasks both solved."""
    extra = unsolved_line(records) if agent == ENGINE else both_solved_line(agent, records)
    return [summary_line(agent, records), *([extra] if extra else [])]


def render(records: Iterable[Mapping[str, Any]], agents: Iterable[str] | None = None) -> str:
    """The task × agent table, a legend, the summary per task set and agent, and last one summary line per agent."""
    records = list(records)
    agents = list(agents or dict.fromkeys(str(r.get("agent")) for r in records))
    rows = [list(COLUMNS), *(table_row(r) for r in records)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines += ["", "judged by bench/judge.py with the task's original tests: solved = fixed (the task's failing tests "
              "pass) and no test that passed broke;",
              "requests and tokens as the counting proxy saw them (prompt and completion tokens the server reported; "
              "where a stream reported none, what the server's tokenizer counted: 'counted by the tokenizer')",
              *set_lines(records, agents), "", *(line for agent in agents for line in agent_lines(agent, records))]
    return "\n".join(lines)


# ---------------------------------------------------------------- entry


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", help="the OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 "
                                           "(required unless --from-json)")
    parser.add_argument("--model", default=real_model.DEFAULT_MODEL,
                        help=f"the model name to ask for (default {real_model.DEFAULT_MODEL})")
    parser.add_argument("--agents", nargs="+", choices=AGENTS, default=list(AGENTS), help="default: all")
    parser.add_argument("--tasks", nargs="+", default=None, help="task ids (default: every task of --set)")
    real_model.add_set_option(parser)
    parser.add_argument("--from-json", type=Path, metavar="FILE",
                        help="run nothing: print the report of the records a run wrote with --json")
    parser.add_argument("--budget-s", type=float, default=900, help="wall seconds per agent and task (default 900)")
    parser.add_argument("--edit-format", choices=("blocks", "whole", "alternate", "auto"), default="alternate",
                        help="the engine coder's edit format (default alternate, the local-model profile's)")
    parser.add_argument("--hidden-check", choices=("on", "early", "off"), default="on",
                        help="the engine's check the coder never sees (default on; early beside the first round; off to "
                             "measure what it costs)")
    parser.add_argument("--max-output-tokens", type=int, default=2048,
                        help="every agent's replies are capped at this many tokens by the proxy (default 2048, "
                             "the local-model profile's)")
    parser.add_argument("--restart-server", metavar="CMD",
                        help="a shell command that restarts the model server, run when an agent was stopped while "
                             "the server still worked for it (e.g. 'scripts/local_model.sh restart'); without it "
                             "the bench waits for those requests")
    parser.add_argument("--json", type=Path, help="write the records to this file (after every run)")
    parser.add_argument("--out-dir", type=Path, help="where repositories and logs go (default: a new temp dir)")
    parser.add_argument("--venvs-dir", type=Path, default=DEFAULT_VENVS,
                        help=f"where the peers' virtual environments go (default {DEFAULT_VENVS})")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    if not args.base_url and not args.from_json:
        parser.error("--base-url is required to run agents (or --from-json FILE to print a recorded run's report)")
    known = real_model.task_ids()
    unknown = [t for t in args.tasks or [] if t not in known]
    if unknown:
        parser.error(f"unknown task(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    args.tasks = args.tasks or real_model.tasks_of_set(args.set)
    args.agents = list(dict.fromkeys(args.agents))
    return args


def run(args: argparse.Namespace, out_dir: Path) -> list[dict[str, Any]]:
    """Every agent on every task (task by task, so a cut-short run still compares like with like)."""
    executables = {name: install(PEERS[name], args.venvs_dir, args.quiet) for name in args.agents if name in PEERS}
    records: list[dict[str, Any]] = []
    for task_id in args.tasks:
        task = real_model.load_task(task_id)
        try:  # the original's outcomes, once per task for every peer
            before = judge.baseline(task["folder"]) if set(args.agents) & set(PEERS) else None
        except judge.JudgeError as exc:  # e.g. its toolchain is missing: spend no budget on it
            records += [{**new_record(task_id, agent, "", task["set"]), "error": f"judge: {exc}"}
                        for agent in args.agents]
            continue
        for agent in args.agents:
            folder = out_dir / task_id / agent
            folder.mkdir(parents=True, exist_ok=True)
            if agent == ENGINE:
                record = run_engine(task, args, folder)
            else:
                record = run_peer(PEERS[agent], executables[agent], task, args, folder, before)
            records.append(record)
            if not args.quiet:
                print(f"  {task_id} {agent}: solved={record['solved']} wall={record['wall_s']}s "
                      f"requests={record['usage'].get('requests', 0)} {note_of(record)}", file=sys.stderr, flush=True)
            if args.json:
                args.json.write_text(json.dumps(records, indent=2, default=str), encoding="utf-8")
    return records


def recorded(path: Path) -> list[dict[str, Any]]:
    """The records a run wrote with --json; ValueError says what is wrong with the file."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{path}: cannot read recorded results ({exc}); pass the file a run wrote with --json") \
            from exc
    if not isinstance(records, list) or not all(isinstance(r, dict) and "agent" in r for r in records):
        raise ValueError(f"{path}: expected a JSON list of per-task records with an \"agent\" each, as --json writes")
    return records


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.from_json:
        try:
            records = recorded(args.from_json)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(render(records, dict.fromkeys(str(r["agent"]) for r in records)))
        return 0
    out_dir = (args.out_dir or Path(tempfile.mkdtemp(prefix="ensemble-peers-"))).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    if not args.quiet:
        print(f"peers bench: {', '.join(args.agents)} with {args.model} at {args.base_url}; {len(args.tasks)} tasks, "
              f"{args.budget_s:.0f} s each; output in {out_dir}", file=sys.stderr, flush=True)
    try:
        records = run(args, out_dir)
    except PeerInstallError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(render(records, args.agents))
    return 0


if __name__ == "__main__":
    sys.exit(main())
