#!/usr/bin/env python
"""How far a reader walks to follow one team: the project functions a team's run enters, from `run_team`.

    .venv/bin/python bench/team_walk.py [--runs 3] [--only bot/ensemble] [--halls] [--list | --json] [--merges N]

A scripted one-team run of the sample median() task (`bot.ensemble.demo.create_sample_repo`): the
planner explores once and plans, the coder writes the reproduction test and then the fix, pytest runs
on the host (`fakes.engine_parts.HostPytest`), and the critic accepts, so the team ends after round 1.
`sys.settrace` (and `threading.settrace`, since the team runs in its own thread) records every call from
the moment `bot.ensemble.team.run_team` is entered until it returns.

The walk is what a reader following the team reads: every function the team's run enters, each once, in the
order the run first enters it, over the project's own packages (bot, actions, indexer, sandbox, common; not
fakes, bench or tests, and not code Python generates: comprehensions, lambdas, dataclass methods). Counted:
- functions: the distinct functions on the walk;
- stops: the times the walk enters a module, i.e. the next function lies in another module than the last one:
  each stop is a file the reader opens (or opens again);
- modules: the distinct modules, the first stop in each;
- returns: the stops in a module the walk had been in before and left (stops = modules + returns).

Why dynamic and not a static call graph: a static graph from `run_team` counts every branch the code could
take (a crash, a re-plan, a deadline) and depends on how far names are resolved (methods, Protocols,
callbacks); the dynamic walk counts what one ordinary team does, with no choices made by the measurer, and
gives the same figures on every run (the scripted replies and the host's pytest leave nothing to chance).
`--halls` walks the team's own path with the roles as halls: every function first entered below a role's entry
(a call into the planner, the coder, the judge or the critic from outside them, `ROLES`) counts as that role's
module, so the path is what the team's loop reads, and each role's inner walk (the functions below its entries,
in their own modules) is printed apart. A function first entered outside any role stays in its module; a leak,
code outside a role calling into a role's inner code or a role's helpers called from the loop, shows as a stop.
`--only bot/ensemble` restricts the count to one folder. `--merges N` answers what-if: the N module merges, one
at a time, each the pair of modules whose merging shortens the walk most, and the figures after each, to show
what a target for the walk would cost in structure.
"""

from __future__ import annotations

import argparse
import importlib
import json
import re
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import CodeType, FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/ itself off the path: bench/sandbox.py would shadow the `sandbox` package (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bot.config import Config  # noqa: E402
from bot.ensemble.demo import create_sample_repo  # noqa: E402
from bot.ensemble.runner import Components, run_task  # noqa: E402
from bot.ensemble.types import RunResult, Task  # noqa: E402
from bot.llm.budget import SpendSummary, no_spend  # noqa: E402
from bot.llm.types import Message, ReplyEnd, cut_at_stop  # noqa: E402
from fakes.engine_parts import FileRetriever, HostPytest  # noqa: E402
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO  # noqa: E402

PACKAGES = ("bot", "actions", "indexer", "sandbox", "common")
# The roles the team's loop calls through one face each: the module or package whose functions are the role's.
ROLES = ("bot.ensemble.planner", "bot.ensemble.coder", "bot.ensemble.judge", "bot.ensemble.critic")
TASK = Task("median() is wrong for an even number of values", "median([1, 2, 3, 4]) returns 3; expected 2.5.",
            slug="median")
SCRIPT: dict[tuple[str, str | None], list[Any]] = {
    ("planner", "explore"): ['{"search": ["median"], "open": ["stats/core.py"], "symbols": ["median"]}', ENOUGH],
    ("planner", "plan"): [PLAN], ("coder", None): [REPRO, FIX], ("critic", "review"): [ACCEPT]}


@dataclass(frozen=True)
class _Reply:
    text: str
    data: dict[str, Any] | None = None
    finish_reason: str = "stop"
    truncated: bool = False


class ScriptedClient:
    """The replies of `SCRIPT` in order, per role and schema (the last one repeats)."""

    def __init__(self, script: dict[tuple[str, str | None], list[Any]]):
        self.script = {k: list(v) for k, v in script.items()}
        self.lock = threading.Lock()

    def complete(self, role: str, messages: Sequence[Message], schema: str | None = None,
                 temperature: float | None = None, stop: Sequence[str] = (), by: float | None = None,
                 max_tokens: int | None = None, until: ReplyEnd | None = None) -> _Reply:
        with self.lock:
            queue = self.script[(role, schema)]
            reply = queue.pop(0) if len(queue) > 1 else queue[0]
        if isinstance(reply, dict):
            return _Reply(json.dumps(reply), reply)
        return _Reply(cut_at_stop(reply, tuple(stop)))

    def prompt_budget(self, role: str) -> int:
        return 24_000

    def has_role(self, role: str) -> bool:
        return "@" not in role  # one model for the whole run, no team's own

    def spend(self) -> SpendSummary:
        return no_spend()


@dataclass
class Walk:
    """The functions entered, in first-entry order, as (module, qualified name, hall): the hall is the role (one of
    `ROLES`) whose entry the function was first entered below, '' for none."""

    functions: list[tuple[str, str, str]] = field(default_factory=list)

    def only(self, prefix: str) -> Walk:
        """The walk restricted to modules under `prefix` (a folder, `bot/ensemble`)."""
        dotted = prefix.strip("/").replace("/", ".")
        return Walk([s for s in self.functions if s[0] == dotted or s[0].startswith(dotted + ".")])

    def halls(self) -> Walk:
        """The team's path with the roles as halls: each function first entered below a role's entry in the role's
        module."""
        return Walk([(hall or module, name, hall) for module, name, hall in self.functions])

    def inner(self, role: str) -> Walk:
        """One role's inner walk: the functions first entered below its entries, in their own modules."""
        return Walk([s for s in self.functions if s[2] == role])

    @property
    def modules(self) -> list[str]:
        return list(dict.fromkeys(m for m, _, _ in self.functions))

    @property
    def returns(self) -> int:
        """Stops in a module the walk had left before (entered again after another module)."""
        seen: set[str] = set()
        back, last = 0, None
        for module, _, _ in self.functions:
            if module != last and module in seen:
                back += 1
            seen.add(module)
            last = module
        return back

    def figures(self) -> dict[str, object]:
        return {"stops": len(self.modules) + self.returns, "modules": len(self.modules), "returns": self.returns,
                "functions": len(self.functions)}

    def merged(self, into: str, other: str) -> Walk:
        """The walk as it would be with module `other`'s functions in module `into`."""
        return Walk([(into if m == other else m, q, h) for m, q, h in self.functions])

    def best_merges(self, count: int) -> list[tuple[str, str, Walk]]:
        """`count` merges, each of the two modules whose merging leaves the fewest stops in the walk so far (fewest
        returns, then names, on a tie), with the walk after it: what a walk target costs in module structure."""
        merges: list[tuple[str, str, Walk]] = []
        walk = self
        for _ in range(count):
            options = [(walk.merged(a, b), a, b) for i, a in enumerate(walk.modules) for b in walk.modules[i + 1:]]
            if not options:
                break
            walk, a, b = min(options, key=lambda o: (len(o[0].modules) + o[0].returns, o[0].returns, o[1], o[2]))
            merges.append((a, b, walk))
        return merges


def _package_dirs() -> dict[str, Path]:
    """Where each project package was imported from (the checkout, or an installed copy)."""
    dirs = {}
    for name in PACKAGES:
        module = importlib.import_module(name)
        if module.__file__:
            dirs[name] = Path(module.__file__).resolve().parent
    return dirs


def _module(code: CodeType, packages: dict[str, Path]) -> str | None:
    """The project module a code object belongs to, or None for any other code."""
    path = Path(code.co_filename)
    if path.suffix != ".py":
        return None
    for name, folder in packages.items():
        try:
            rel = path.resolve().relative_to(folder)
        except ValueError:
            continue
        return ".".join([name, *rel.with_suffix("").parts]).removesuffix(".__init__")
    return None


def role_of(module: str) -> str:
    """The role (one of `ROLES`) whose code `module` is, '' for none."""
    return next((r for r in ROLES if module == r or module.startswith(r + ".")), "")


def walk_team() -> tuple[Walk, RunResult]:
    """Run the scripted one-team task with the tracer on; the walk from `run_team` (each function with the role it
    was first entered below) and the run's result."""
    walk = Walk()
    packages = _package_dirs()
    modules: dict[str, str | None] = {}  # a code file's module, looked up once
    seen: set[tuple[str, str]] = set()
    lock = threading.Lock()
    local = threading.local()

    def tracer(frame: FrameType, event: str, arg: object) -> Any:
        if event != "call":
            return None
        code = frame.f_code
        if code.co_filename not in modules:
            modules[code.co_filename] = _module(code, packages)
        module = modules[code.co_filename]
        entering = module == "bot.ensemble.team" and code.co_name == "run_team"
        if entering:
            local.depth = getattr(local, "depth", 0) + 1
        if getattr(local, "depth", 0) == 0 or module is None:
            return leave if entering else None
        hall = getattr(local, "hall", "")
        opens = "" if hall else role_of(module)  # a call into a role from outside every role: its entry
        if opens:
            local.hall = opens
        if not code.co_name.startswith("<"):
            key = (module, code.co_qualname)
            with lock:
                if key not in seen:
                    seen.add(key)
                    walk.functions.append((*key, hall or opens))
        return leave if entering else leave_hall if opens else None

    def leave(frame: FrameType, event: str, arg: object) -> Any:
        if event == "return":
            local.depth -= 1
        return leave

    def leave_hall(frame: FrameType, event: str, arg: object) -> Any:
        if event == "return":  # also where an exception leaves it, or a generator yields (its resumption enters again)
            local.hall = ""
        return leave_hall

    with tempfile.TemporaryDirectory() as tmp:
        sample = create_sample_repo(Path(tmp) / "sample")
        parts = Components(models=ScriptedClient(SCRIPT), retriever=FileRetriever(sample), runner=HostPytest(),
                           use_cache=False)
        threading.settrace(tracer)
        sys.settrace(tracer)
        try:
            result = run_task(sample, TASK, Config(ensembles=1), {}, parts)
        finally:
            sys.settrace(None)
            threading.settrace(None)  # type: ignore[arg-type]
    return walk, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=3, help="walks to take (each on a fresh sample): the figures vary "
                        "by one where the file listing's cache meets a tree changed within its clock's resolution")
    parser.add_argument("--only", default="", help="count only modules under this folder (e.g. bot/ensemble)")
    parser.add_argument("--list", action="store_true", help="print every function of the first walk, in order")
    parser.add_argument("--json", action="store_true", help="print each walk's figures and functions as JSON")
    parser.add_argument("--merges", type=int, default=0, metavar="N",
                        help="also print the N module merges that would shorten the first walk most, in turn")
    parser.add_argument("--halls", action="store_true", help="the team's path with the roles (planner, coder, judge, "
                        "critic) as halls, each role's inner walk apart")
    args = parser.parse_args(argv)
    walks = []
    for _ in range(max(args.runs, 1)):
        walk, result = walk_team()
        if not result.success or result.stop_reason != "accepted":
            print(f"the scripted run did not end as scripted: {result.stop_reason} {result.stop_detail}",
                  file=sys.stderr)
            return 1
        walks.append(walk)
    paths = [w.halls() if args.halls else w for w in walks]
    paths = [w.only(args.only) if args.only else w for w in paths]
    inner = {role: [w.inner(role) for w in walks] for role in ROLES} if args.halls else {}
    if args.json:
        print(json.dumps([{**p.figures(), "walk": [f"{m}:{q}" for m, q, _ in p.functions],
                           **({"halls": {r: {**w[i].figures(), "walk": [f"{m}:{q}" for m, q, _ in w[i].functions]}
                                         for r, w in inner.items()}} if inner else {})}
                          for i, p in enumerate(paths)], indent=1))
        return 0
    if args.list:
        for module, name, _ in paths[0].functions:
            print(f"{module}:{name}")
    what = f"{args.only or 'the project'}{', the roles as halls' if args.halls else ''}"
    print(f"one team from run_team ({what}, {len(walks)} walks): {_figures(paths)}")
    by_package: dict[str, int] = {}
    for module, _, _ in walks[0].functions:
        package = re.sub(r"^((?:bot\.)?[^.]+)\..*$", r"\1", module)
        by_package[package] = by_package.get(package, 0) + 1
    print("functions by package: " + ", ".join(f"{p} {n}" for p, n in sorted(by_package.items(), key=lambda i: -i[1])))
    for role, walked in inner.items():
        print(f"inside {role}: {_figures(walked)}")
        if args.list:
            print("".join(f"  {m}:{q}\n" for m, q, _ in walked[0].functions), end="")
    for a, b, merged in paths[0].best_merges(args.merges):
        after = merged.figures()
        print(f"merging {b} into {a}: {after['stops']} stops in {after['modules']} modules, {after['returns']} returns")
    return 0


def _figures(walks: Sequence[Walk]) -> str:
    """The walks' figures in words, each a range where the walks differ."""
    figures = [w.figures() for w in walks]

    def spread(key: str) -> str:
        low, high = min(int(str(f[key])) for f in figures), max(int(str(f[key])) for f in figures)
        return str(low) if low == high else f"{low}-{high}"

    return (f"{spread('stops')} stops in {spread('modules')} modules, {spread('returns')} returns; "
            f"{spread('functions')} functions")


if __name__ == "__main__":
    raise SystemExit(main())
