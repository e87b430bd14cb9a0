#!/usr/bin/env python
"""The engine against a real model on small real bugs: how many it solves, and where it fails.

    scripts/local_model.sh                          # a local Qwen2.5-Coder-1.5B on 127.0.0.1:8080
    .venv/bin/python bench/real_model.py --base-url http://127.0.0.1:8080/v1 \\
        --model qwen2.5-coder-1.5b-instruct [--tasks ID ...] [--set design] [--ensembles 1] [--max-iterations 4] \\
        [--timeout-s 900] [--json results.json] [--out-dir DIR]

Each task in bench/tasks/<id>/ is a tiny repository (`repo/`) with a real bug and a failing test,
an issue text (`task.md`: title line, then body) and `task.json` (the kind of bug, the tests the
fix must make pass, the tests that already fail for unrelated reasons). The repository is copied
to a fresh git repository under the output folder and `run_task` runs on it with every role on
provider `openai` and the given model, served at `--base-url` (OPENAI_BASE_URL). An exception out
of the engine is a result too (`crash`), so every failure is shown to be the model's or the
engine's. The bot's branch is judged independently of the engine by bench/judge.py (the task's
original tests over the branch's tree, the whole suite run): `fixed` (the `fail_to_pass` tests
pass), `broken` (tests that passed before and fail or are gone after), `solved` = fixed and
nothing broken; `claimed` is what the engine itself reported. The table ends with `solved N/M`,
after `solved by set: design N/M, held_out K/L` when the tasks span both sets: task.json's `set` is
`design` (the default) or `held_out`, tasks written before an engine change and never used to tune
it (bench/README.md); `--set` picks the tasks when `--tasks` names none (design by default).

Only names that exist in older versions of the engine are imported (config, runner, task), and
every result field is read defensively, so the same script measures an engine before and after
a change (`PYTHONPATH=/path/to/old/checkout python bench/real_model.py ...`).
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
ROLES = ("planner", "coder", "critic")
DEFAULT_MODEL = "qwen2.5-coder-1.5b-instruct"
# task.json's "set": the design tasks (the default) are the ones the engine is developed on; the held-out
# ones are written before an engine change and never used to tune it (bench/README.md)
DESIGN, HELD_OUT = "design", "held_out"
SETS = (DESIGN, HELD_OUT)

# bench/ itself must not be on the path: bench/sandbox.py would shadow the `sandbox` package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != TASKS_DIR.parent]
if not os.environ.get("PYTHONPATH"):  # an explicit PYTHONPATH picks the engine under test
    sys.path.insert(0, str(TASKS_DIR.parents[1]))


def _bench_module(name: str) -> Any:
    """A sibling module of bench/, loaded by its file (bench/ is kept off sys.path, see above)."""
    key = f"bench_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, TASKS_DIR.parent / f"{name}.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[key] = module
        spec.loader.exec_module(module)
    return sys.modules[key]


judge = _bench_module("judge")


# ---------------------------------------------------------------- tasks


def task_ids(task_set: str | None = None) -> list[str]:
    """Every task under bench/tasks (of `task_set` when given), sorted."""
    ids = sorted(p.name for p in TASKS_DIR.iterdir() if (p / "task.md").is_file() and (p / "repo").is_dir())
    return ids if task_set is None else [t for t in ids if task_set_of(t) == task_set]


def task_set_of(task_id: str) -> str:
    """The set a task belongs to (task.json's "set", design when absent); ValueError names a wrong value."""
    meta_file = TASKS_DIR / task_id / "task.json"
    meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.is_file() else {}
    value = meta.get("set", DESIGN)
    if value not in SETS:
        raise ValueError(f"{meta_file}: \"set\" is {value!r}; use one of {', '.join(SETS)} (or leave it out for "
                         f"{DESIGN})")
    return str(value)


def load_task(task_id: str) -> dict[str, Any]:
    """A task's text, title, body and checks."""
    folder = TASKS_DIR / task_id
    text = (folder / "task.md").read_text(encoding="utf-8").strip()
    title, _, body = text.partition("\n")
    meta_file = folder / "task.json"
    meta = json.loads(meta_file.read_text(encoding="utf-8")) if meta_file.is_file() else {}
    return {"id": task_id, "title": title.strip(), "body": body.strip(), "repo": folder / "repo", "folder": folder,
            "kind": meta.get("kind", ""), "fail_to_pass": list(meta.get("fail_to_pass", [])),
            "preexisting_failures": list(meta.get("preexisting_failures", [])), "set": task_set_of(task_id)}


def git(repo: Path, *args: str) -> str:
    """Run git in `repo` with a fixed identity; return stdout."""
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@example.com",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@example.com")
    return subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True).stdout


def make_repo(source: Path, dest: Path) -> Path:
    """`source`'s files as a fresh git repository at `dest`, one commit on `main`."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc"))
    git(dest, "init", "-q", "-b", "main")
    git(dest, "add", "-A")
    git(dest, "commit", "-q", "-m", "Initial commit")
    return dest


def judge_branch(task: Mapping[str, Any], repo: Path, branch: str, commits: list[Any]) -> dict[str, Any]:
    """bench/judge.py's verdict on the bot's branch: fixed, broken (test ids), solved."""
    if not branch or not commits:  # the tree is the original: nothing fixed, nothing broken
        return {"fixed": False, "broken": [], "solved": False}
    git(repo, "checkout", "-q", "-f", branch)
    verdict = judge.judge(task["folder"], repo)
    return {"fixed": verdict.fixed, "broken": list(verdict.broken), "solved": verdict.solved,
            "verdict": verdict.as_dict()}


# ---------------------------------------------------------------- configuration


def config_text(model: str, ensembles: int, max_iterations: int | None, n_ctx: int, llm_timeout_s: float,
                max_output_tokens: int, explore_tokens: int | None = None, explore_rounds: int = 3,
                deadline_s: float | None = None, edit_format: str = "blocks", hidden_check: str = "on") -> str:
    """The `.github/ensemble.yml` of the local-model profile, every role on `model`.

    `explore_tokens` caps what the planner gathers before planning (an engine without the
    `explore` setting gets none: its config would refuse the key); `deadline_s` is the task's
    wall budget, which the engine's own deadline keeps (no model call waits past it); `edit_format` is the
    coder's (`blocks`, the profile's, or `whole`), left out for an engine that has no such setting; `review: off`
    is the profile's too (an engine without the key reviews every good change); `hidden_check: off` turns the check
    the coder never sees off (to measure what it costs; an engine without the key has none).
    """
    import bot.config

    roles = "\n".join(f"  {role}: {{provider: openai, model: {json.dumps(model)}}}" for role in ROLES)
    explore = f"explore: {{max_rounds: {explore_rounds}, max_tokens: {explore_tokens}}}\n" if explore_tokens else ""
    return (f"models:\n{roles}\n{explore}"
            f"ensembles: {ensembles}\n"
            + (f"max_iterations: {max_iterations}\n" if max_iterations is not None else "")
            + (f"deadline_minutes: {deadline_s / 60:.4f}\n" if deadline_s else "")
            + (f"edit_format: {edit_format}\n" if hasattr(bot.config.Config, "edit_format") else "")
            + ("review: off\n" if hasattr(bot.config.Config, "review") else "")
            + (f"hidden_check: {hidden_check}\n" if hidden_check != "on" and hasattr(bot.config.Config, "hidden_check")
               else "")
            + "llm:\n"
            f"  timeout_s: {llm_timeout_s}\n"
            "  max_attempts: 2\n"
            "  cache: false\n"
            f"  max_output_tokens: {max_output_tokens}\n"
            "  prices:\n"
            f"    - {{model: {json.dumps(model)}, input: 0, cached_input: 0, output: 0, context_window: {n_ctx}}}\n")


def _explore_tokens(args: argparse.Namespace) -> int | None:
    import bot.config

    return args.explore_tokens if hasattr(bot.config, "ExploreSpec") else None


def run_env(base_url: str, out_dir: Path) -> dict[str, str]:
    """The environment `run_task` gets: the local server as OPENAI_BASE_URL, traces kept under `out_dir`."""
    env = dict(os.environ)
    env["OPENAI_BASE_URL"] = base_url
    # never send a real key to the local server; LOCAL_MODEL_API_KEY when it was started with one
    env["OPENAI_API_KEY"] = os.environ.get("LOCAL_MODEL_API_KEY", "sk-no-key-required")
    env["ENSEMBLE_RUNS_DIR"] = str(out_dir / "runs")
    env.setdefault("HF_HUB_OFFLINE", "1")
    for role in ROLES:  # the profile decides the models, not the caller's shell
        env.pop(f"ENSEMBLE_{role.upper()}_PROVIDER", None)
        env.pop(f"ENSEMBLE_{role.upper()}_MODEL", None)
    return env


# ---------------------------------------------------------------- one task


class PhaseLog:
    """The progress callback: keeps (seconds, team, phase, round) and echoes them to stderr."""

    def __init__(self, task_id: str, quiet: bool = False):
        self.task_id, self.quiet = task_id, quiet
        self.started = time.monotonic()
        self.phases: list[tuple[float, str, str, int]] = []

    def __call__(self, team: str, phase: str, rnd: int, detail: str) -> None:
        at = round(time.monotonic() - self.started, 1)
        self.phases.append((at, team, phase, rnd))
        if not self.quiet:
            print(f"  [{self.task_id} {at:6.1f}s] team {team} round {rnd}: {phase} {detail[:60]}",
                  file=sys.stderr, flush=True)

    def coder_rounds_without_tests(self) -> int:
        """Coder rounds that never reached the tests (edits did not parse or apply, or did not compile)."""
        count, pending = 0, set()
        for _, team, phase, _ in self.phases:
            if phase in ("coding", "reproducing"):
                count += team in pending
                pending.add(team)
            elif phase == "testing":
                pending.discard(team)
            elif phase in ("reviewing", "re-planning") and team in pending:
                count += 1
                pending.discard(team)
        return count + len(pending)


def trace_stats(path: str | Path | None) -> dict[str, Any]:
    """Parse failures and model-call errors per role, and the span errors, from a run's trace JSONL."""
    stats: dict[str, Any] = {"schema_errors": {}, "llm_errors": {}, "llm_calls": 0, "span_errors": []}
    if not path or not Path(path).is_file():
        return stats
    for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            span = json.loads(line)
        except ValueError:
            continue
        attrs = span.get("attributes") or {}
        if span.get("name") == "llm.complete":
            stats["llm_calls"] += 1
            role = str(attrs.get("role", "?"))
            if attrs.get("schema_error"):
                stats["schema_errors"][role] = stats["schema_errors"].get(role, 0) + 1
            if span.get("status") == "error":
                stats["llm_errors"][role] = stats["llm_errors"].get(role, 0) + 1
        if span.get("status") == "error" and span.get("error"):
            stats["span_errors"].append(f"{span.get('name')}: {str(span['error'])[:300]}")
    return stats


def parse_failures(usage: Mapping[str, Any], traced: Mapping[str, Any], coder_no_tests: int) -> dict[str, int]:
    """Per role: the engine's own count when it keeps one, else what the trace shows."""
    by_role = usage.get("by_role") if isinstance(usage, Mapping) else None
    out: dict[str, int] = {}
    for role in ROLES:
        own = (by_role or {}).get(role) or {}
        counted = own.get("parse_failures") if isinstance(own, Mapping) else None
        out[role] = int(counted) if counted is not None else int(traced.get("schema_errors", {}).get(role, 0))
    out["coder_rounds_without_tests"] = coder_no_tests
    return out


def rounds_of(result: Any) -> int:
    """Refine rounds of the winning team, else the most any team made."""
    teams = teams_of(result)
    winner = getattr(result, "winner", "")
    for team in teams:
        if winner and team.get("name") == winner:
            return int(team.get("rounds") or 0)
    return max((int(t.get("rounds") or 0) for t in teams), default=0)


def teams_of(result: Any) -> list[Mapping[str, Any]]:
    """The result's teams as mappings: dataclasses (`TeamSummary`) in this engine, dicts in older ones."""
    teams = getattr(result, "teams", None) or []
    return [dataclasses.asdict(t) if dataclasses.is_dataclass(t) and not isinstance(t, type) else t
            for t in teams if isinstance(t, Mapping) or dataclasses.is_dataclass(t)]


def outcome_of(tests: Any) -> dict[str, Any] | None:
    """A test outcome as plain data: passed and the failing tests."""
    if tests is None:
        return None
    return {"passed": bool(getattr(tests, "passed", False)), "failing": list(getattr(tests, "failing", []) or [])[:20]}


def run_one(task: dict[str, Any], args: argparse.Namespace, out_dir: Path) -> dict[str, Any]:
    """Run the engine on one task; every exception, an import error included, becomes part of the record."""
    record: dict[str, Any] = {"task": task["id"], "set": task.get("set", DESIGN), "kind": task["kind"],
                              "solved": False, "fixed": None, "broken": [], "claimed": False,
                              "stop_reason": "", "stop_detail": "", "rounds": 0,
                              "tokens": {"input": 0, "output": 0}, "wall_s": 0.0, "parse_failures": {},
                              "crash": None, "team_errors": [], "model": args.model, "base_url": args.base_url,
                              "settings": settings(args), "trace": "", "branch": "", "commits": 0}
    repo = make_repo(task["repo"], out_dir / "repos" / task["id"])
    phases = PhaseLog(task["id"], args.quiet)
    stop = threading.Event()
    timer = threading.Timer(args.timeout_s, stop.set)
    started = time.monotonic()
    result = None
    try:
        from bot.config import parse_config
        from bot.ensemble.runner import Components, run_task
        from bot.ensemble.types import Task

        config = parse_config(config_text(args.model, args.ensembles, args.max_iterations, args.n_ctx,
                                          args.llm_timeout_s, args.max_output_tokens, _explore_tokens(args),
                                          args.explore_rounds, args.timeout_s, args.edit_format, args.hidden_check),
                              "bench profile")
        timer.start()
        result = run_task(repo, Task(task["title"], task["body"]), config, run_env(args.base_url, out_dir),
                          Components(progress=phases, stop=stop, use_cache=False))
    except BaseException as exc:  # noqa: BLE001 - a crash is a result; Ctrl-C still ends the bench
        if isinstance(exc, KeyboardInterrupt):
            raise
        record["crash"] = f"{type(exc).__name__}: {exc}"
        record["traceback"] = traceback.format_exc()[-4000:]
    finally:
        timer.cancel()
        record["wall_s"] = round(time.monotonic() - started, 1)
        record["timed_out"] = stop.is_set()
        record["settings"] = settings(args)  # after the import, so it names the engine measured
    fill_record(record, result, phases, task, repo)
    return record


def fill_record(record: dict[str, Any], result: Any, phases: PhaseLog, task: dict[str, Any], repo: Path) -> None:
    """Copy what the run produced into `record`, reading every field defensively."""
    record["phases"] = phases.phases
    if result is None:
        record["parse_failures"] = parse_failures({}, {}, phases.coder_rounds_without_tests())
        return
    usage = getattr(result, "usage", None) or {}
    traced = trace_stats(getattr(result, "trace", ""))
    record.update(
        claimed=bool(getattr(result, "success", False)),
        stop_reason=str(getattr(result, "stop_reason", "") or ""),
        stop_detail=str(getattr(result, "stop_detail", "") or "")[:500],
        rounds=rounds_of(result),
        duration_s=float(getattr(result, "duration_s", 0) or 0) or None,  # on the clock its deadline is kept on
        tokens={"input": int(usage.get("input_tokens", 0) or 0), "output": int(usage.get("output_tokens", 0) or 0)},
        parse_failures=parse_failures(usage, traced, phases.coder_rounds_without_tests()),
        llm_errors=traced["llm_errors"], llm_calls=traced["llm_calls"], span_errors=traced["span_errors"][:10],
        team_errors=[f"team {t.get('name')}: {t.get('error')}" for t in teams_of(result) if t.get("error")],
        trace=str(getattr(result, "trace", "") or ""), branch=str(getattr(result, "branch", "") or ""),
        commits=len(getattr(result, "commits", []) or []),
        tests_before=outcome_of(getattr(result, "tests_before", None)),
        tests_after=outcome_of(getattr(result, "tests_after", None)),
    )
    try:
        record.update(judge_branch(task, repo, record["branch"], getattr(result, "commits", []) or []))
    except Exception as exc:  # noqa: BLE001 - the independent check must not end the bench
        record["fixed"] = None
        record["fixed_error"] = f"{type(exc).__name__}: {exc}"


def settings(args: argparse.Namespace) -> dict[str, Any]:
    """The knobs of this bench run, kept with every record."""
    engine = getattr(sys.modules.get("bot"), "__file__", None)
    return {"engine": str(Path(engine).parent) if engine else None, "ensembles": args.ensembles,
            "max_iterations": args.max_iterations, "timeout_s": args.timeout_s, "n_ctx": args.n_ctx, "llm_timeout_s": args.llm_timeout_s, "max_output_tokens": args.max_output_tokens,
            "explore_tokens": getattr(args, "explore_tokens", None),
            "explore_rounds": getattr(args, "explore_rounds", None)}


# ---------------------------------------------------------------- report


COLUMNS = ("task", "solved", "fixed", "broken", "claimed", "stop", "rounds", "tok in", "tok out", "wall s", "parse p/c/r", "no-test", "crash")


def _yes(value: Any) -> str:
    return "-" if value is None else ("yes" if value else "no")


def table_row(record: Mapping[str, Any]) -> list[str]:
    """One record as the table's cells."""
    pf = record.get("parse_failures") or {}
    tokens = record.get("tokens") or {}
    stop = str(record.get("stop_reason") or ("crash" if record.get("crash") else "-"))
    if record.get("timed_out"):
        stop += " (time limit)"
    crash = record.get("crash") or "; ".join(record.get("team_errors") or [])
    broken = "-" if record.get("fixed") is None else str(len(record.get("broken") or []))
    return [str(record.get("task", "?")), _yes(record.get("solved")), _yes(record.get("fixed")), broken,
            _yes(record.get("claimed")), stop,
            str(record.get("rounds", 0)), str(tokens.get("input", 0)), str(tokens.get("output", 0)),
            f"{float(record.get('wall_s') or 0):.0f}",
            "/".join(str(pf.get(r, 0)) for r in ROLES), str(pf.get("coder_rounds_without_tests", 0)),
            (crash[:70] + "…") if len(crash) > 70 else (crash or "-")]


def render_table(records: Iterable[Mapping[str, Any]]) -> str:
    """The per-task table, a legend, and last the line `solved N/M`."""
    records = list(records)
    rows = [list(COLUMNS), *(table_row(r) for r in records)]
    widths = [max(len(row[i]) for row in rows) for i in range(len(COLUMNS))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    def count(key: str) -> int:
        return sum(1 for r in records if r.get(key))

    lines += ["", "judged outside the engine (bench/judge.py, the task's original tests): fixed = the task's failing "
              "tests pass on the bot's branch; broken = tests that passed before and fail or are gone;",
              "solved = fixed and nothing broken; claimed = the engine reports a passing change; "
              "parse p/c/r = invalid structured replies of planner/coder/critic;",
              "no-test = coder rounds whose edits never reached the tests",
              f"fixed {count('fixed')}/{len(records)}, broke tests {count('broken')}, claimed {count('claimed')}",
              *per_set_lines(records), f"solved {count('solved')}/{len(records)}"]
    return "\n".join(lines)


def set_of(record: Mapping[str, Any]) -> str:
    """A record's task set: its own "set", else its task's (records written before sets existed), else design
    (a task that is no longer under bench/tasks)."""
    if record.get("set"):
        return str(record["set"])
    task_id = str(record.get("task") or "")
    return task_set_of(task_id) if task_id and (TASKS_DIR / task_id).is_dir() else DESIGN


def split_by_set(records: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    """The records per task set, design first, then held-out, then any other."""
    groups: dict[str, list[Mapping[str, Any]]] = {}
    for record in records:
        groups.setdefault(set_of(record), []).append(record)
    order = {name: i for i, name in enumerate(SETS)}
    return dict(sorted(groups.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))


def per_set_lines(records: list[Mapping[str, Any]]) -> list[str]:
    """`solved by set: design N/M, held_out K/L`, when the records span more than one set."""
    groups = split_by_set(records)
    if len(groups) < 2:
        return []
    return ["solved by set: " + ", ".join(f"{name} {sum(1 for r in group if r.get('solved'))}/{len(group)}"
                                          for name, group in groups.items())]


# ---------------------------------------------------------------- entry


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1")
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"the model name to ask for (default {DEFAULT_MODEL})")
    parser.add_argument("--tasks", nargs="*", default=None, help="task ids (default: every task of --set)")
    add_set_option(parser)
    parser.add_argument("--ensembles", type=int, default=1, help="teams per run (default 1)")
    parser.add_argument("--max-iterations", type=int, default=None,
                        help="a cap on refine rounds per team (default: none, the task's wall budget bounds them)")
    parser.add_argument("--timeout-s", type=float, default=900,
                        help="per task: a stop is requested after this many seconds (default 900)")
    parser.add_argument("--llm-timeout-s", type=float, default=600, help="per model request (default 600)")
    parser.add_argument("--n-ctx", type=int, default=16384, help="the server's context window (default 16384)")
    parser.add_argument("--max-output-tokens", type=int, default=2048, help="room kept for replies (default 2048)")
    parser.add_argument("--edit-format", choices=("blocks", "whole", "alternate", "auto"), default="alternate",
                        help="the coder's edit format (default alternate, the local-model profile's)")
    parser.add_argument("--hidden-check", choices=("on", "early", "off"), default="on",
                        help="the check the coder never sees (default on, the engine's; early to ask for it beside "
                             "the first round, as a server with two slots answers at once; off to measure its cost)")
    parser.add_argument("--explore-tokens", type=int, default=3000,
                        help="tokens of code the planner gathers before planning (default 3000: prompts stay quick)")
    parser.add_argument("--explore-rounds", type=int, default=3,
                        help="the planner's exploration rounds before planning (default 3)")
    parser.add_argument("--json", type=Path, help="write the per-task records to this file")
    parser.add_argument("--out-dir", type=Path, help="where repositories and traces go (default: a new temp dir)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    args = parser.parse_args(argv)
    known = task_ids()
    unknown = [t for t in args.tasks or [] if t not in known]
    if unknown:
        parser.error(f"unknown task(s) {', '.join(unknown)}; choose from {', '.join(known)}")
    args.tasks = args.tasks or tasks_of_set(args.set)
    return args


def add_set_option(parser: argparse.ArgumentParser) -> None:
    """`--set`: which tasks run when --tasks names none."""
    parser.add_argument("--set", choices=(*SETS, "all"), default=DESIGN,
                        help=f"the tasks to run when --tasks names none (default {DESIGN}; {HELD_OUT} only to measure "
                             "an engine change that is done, see bench/README.md)")


def tasks_of_set(name: str) -> list[str]:
    """The task ids `--set NAME` stands for."""
    return task_ids(None if name == "all" else name)


def main(argv: list[str] | None = None) -> int:
    import tempfile

    args = parse_args(argv)
    out_dir = (args.out_dir or Path(tempfile.mkdtemp(prefix="ensemble-real-model-"))).resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    print(f"real-model bench: {args.model} at {args.base_url}; {len(args.tasks)} tasks; output in {out_dir}",
          file=sys.stderr, flush=True)
    records = []
    for task_id in args.tasks:
        record = run_one(load_task(task_id), args, out_dir)
        records.append(record)
        print(f"  {task_id}: solved={record['solved']} fixed={record['fixed']} broken={len(record['broken'])} "
              f"claimed={record['claimed']} stop={record['stop_reason']} "
              f"wall={record['wall_s']}s crash={record['crash']}", file=sys.stderr, flush=True)
        if args.json:  # after every task, so a long bench that dies keeps what it measured
            args.json.write_text(json.dumps(records, indent=2, default=str), encoding="utf-8")
    print(render_table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
