"""Load: many issues labelled at once, duplicate deliveries, and commands queued behind running jobs.

    .venv/bin/python bench/load.py [--issues 20] [--duplicates 5] [--queued 3] [--json]

The fake GitHub (fakes/) holds a repository with the seeded median() bug and `--issues`
issues. Every issue is labelled `ensemble` at the same moment, and the label event of issue #1
is delivered `--duplicates` more times. Each delivery is handled by `actions.app.handle_event`,
the `ensemble handle-event` entry, with the real ensemble engine: its models answer from a fake
OpenAI server on localhost (through the OpenAI SDK and the model manager), tests run with
pytest on this machine. GitHub's part is played as GitHub plays it: jobs of one concurrency
group (one issue) run one after another, jobs of different groups at once.

Then, on `--queued` of the new pull requests, two `/ensemble revise` comments are posted while
a revision runs, and only the newest one's job is delivered (GitHub cancels the older pending
job of a group).

Checks (the exit status is 1 when one fails): every delivery is answered (an outcome, no
crash), one pull request and one progress comment per issue, duplicates run nothing twice,
and every queued command is answered by a commit of its own. Prints the GitHub API requests by
kind (GraphQL by operation; the stop watcher's polls, which grow with the wall time, and the 304s apart), the wall time
and the peak memory (RSS) of the process.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
# bench/ itself off the path: bench/sandbox.py would shadow the `sandbox` package (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from actions.app import handle_event  # noqa: E402
from actions.context import Outcome  # noqa: E402
from actions.engine import ensemble_engine, ensemble_planner  # noqa: E402
from actions.markers import read_marker  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.ensemble.demo import create_sample_repo  # noqa: E402
from bot.ensemble.runner import Components  # noqa: E402
from bot.ensemble.types import RunResult, Task  # noqa: E402
from bot.llm.manager import ModelManager  # noqa: E402
from fakes.engine_parts import FileRetriever, HostPytest  # noqa: E402
from fakes.github_hub import REPO, Hub  # noqa: E402
from fakes.github_server import FakeGitHub  # noqa: E402
from fakes.github_server import Logged as ApiRequest  # noqa: E402
from fakes.median_replies import ACCEPT, ENOUGH, FIX, PLAN, REPRO  # noqa: E402
from fakes.model_server import Logged, Rule  # noqa: E402
from fakes.openai_server import FakeOpenAI  # noqa: E402
from fakes.scripted_engine import ScriptedEngine  # noqa: E402

CONFIG = """ensembles: 1
max_iterations: 2
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: openai, model: gpt-4o-mini}
heal: {workflows: [ci.yml]}
"""
NOTE = re.compile(r"write the file (notes/[a-z0-9-]+\.md)")


class LoadModel(FakeOpenAI):
    """The fake model, answering each request from what it asks (many runs share it at once)."""

    def _take(self, request: Logged) -> Rule | None:
        asked = "\n".join(m["content"] for m in request.messages)
        if request.schema == "plan":
            text = json.dumps(PLAN | {"steps": PLAN["steps"][1:]}) if NOTE.search(asked) else json.dumps(PLAN)
        elif request.schema == "review":
            text = json.dumps(ACCEPT)
        elif "You are the planner" in request.system:
            text = ENOUGH
        elif note := NOTE.search(asked):  # a revision: a new file of its own
            text = f"{note.group(1)}\n<<<<<<< SEARCH\n=======\n{note.group(1)}\n>>>>>>> REPLACE\n"
        else:
            text = REPRO if "Write ONLY the reproduction test" in request.last_user else FIX
        return Rule("reply", text=text, times=0)


def real_engine(model: LoadModel, sample: Path) -> Callable[..., RunResult]:
    """The ensemble engine with the fake model, a file retriever and pytest on this machine."""
    def engine(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], **kwargs: Any) -> RunResult:
        models = ModelManager.from_config(config, model.env(), None, use_cache=False)
        parts = Components(models=models, retriever=FileRetriever(repo_dir), runner=HostPytest(), use_cache=False)
        return ensemble_engine(repo_dir, task, config, {**env, **model.env()}, components=parts, **kwargs)
    return engine


class Load:
    """The fake GitHub, the event queue per concurrency group, and what each delivery answered."""

    def __init__(self, fake: FakeGitHub, tmp: Path, engine: Callable[..., RunResult]):
        self.hub = Hub(fake, tmp, ScriptedEngine())
        self.engine = engine
        self.answers: list[tuple[str, Outcome | BaseException]] = []
        self._lock = threading.Lock()

    def deliver(self, groups: Mapping[str, list[tuple[str, dict[str, Any]]]]) -> None:
        """Handle each group's events in order, all groups at once."""
        with ThreadPoolExecutor(max_workers=max(1, len(groups))) as pool:
            for _ in pool.map(self._group, groups.items()):
                pass

    def _group(self, item: tuple[str, list[tuple[str, dict[str, Any]]]]) -> None:
        group, events = item
        for name, payload in events:
            try:
                env = self.hub.env(name, payload)
                answer: Outcome | BaseException = handle_event(env, engine=self.engine, planner=ensemble_planner)
            except Exception as exc:  # noqa: BLE001 - a crash is a finding, reported below
                answer = exc
            with self._lock:
                self.answers.append((group, answer))


def seed(fake: FakeGitHub, issues: int) -> None:
    sample = create_sample_repo(Path(tempfile.mkdtemp(prefix="load-sample-")) / "stats")
    files = {str(p.relative_to(sample)): p.read_text() for p in sample.rglob("*") if p.is_file() and ".git" not in p.parts}
    fake.add_repo(REPO, files | {".github/ensemble.yml": CONFIG})
    fake.add_workflow(REPO, "ci.yml")
    fake.set_permission(REPO, "alice", "write")
    for n in range(1, issues + 1):
        fake.add_issue(REPO, f"median() is wrong for an even count ({n})", "median([1, 2, 3, 4]) returns 3; "
                       "it should return 2.5.", user="alice")


def check(load: Load, issues: int, duplicates: int, queued: dict[int, list[int]]) -> list[str]:
    """What went wrong, in words (empty when all is well)."""
    fake, problems = load.hub.fake, []
    crashes = [f"{group}: {type(a).__name__}: {a}" for group, a in load.answers if isinstance(a, BaseException)]
    problems += [f"a delivery crashed: {c}" for c in crashes]
    expected = issues + duplicates + len(queued)
    if len(load.answers) != expected:
        problems.append(f"{len(load.answers)} deliveries answered, expected {expected}")
    pulls = defaultdict(list)
    for pull in fake.repos[REPO].pulls.values():
        pulls[pull["head_ref"]].append(pull["number"])
    for n in range(1, issues + 1):
        if len(pulls[f"ensemble/issue-{n}"]) != 1:
            problems.append(f"issue #{n} has {len(pulls[f'ensemble/issue-{n}'])} pull requests, expected 1")
        runs = [c for c in fake.comments_on(REPO, n) if read_marker(c["body"], "progress") is not None]
        if len(runs) != 1:
            problems.append(f"issue #{n} has {len(runs)} progress comments, expected 1")
    for pr, comment_ids in queued.items():
        triggers = {str((read_marker(c["body"], "progress") or {}).get("trigger")) for c in fake.comments_on(REPO, pr)}
        for comment_id in comment_ids:
            if f"comment:{comment_id}" not in triggers:
                problems.append(f"the queued command {comment_id} on PR #{pr} was never answered")
        branch = fake.repos[REPO].pulls[pr]["head_ref"]
        for comment_id, note in zip(comment_ids, ("first", "second"), strict=True):
            try:
                fake.file_at(REPO, branch, f"notes/pr-{pr}-{note}.md")
            except RuntimeError:
                problems.append(f"the queued command {comment_id} on PR #{pr} left no commit")
    return problems


def run(issues: int, duplicates: int, queued_prs: int) -> dict[str, Any]:
    """One load run; the figures and the problems found."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ensemble-load-") as tmp, FakeGitHub(Path(tmp) / "github") as fake, \
            LoadModel() as model:
        seed(fake, issues)
        load = Load(fake, Path(tmp), real_engine(model, Path(tmp)))
        load.hub.extra_env = {"ENSEMBLE_STOP_POLL_S": "15"}  # the action's default
        label = load.hub.labeled
        groups = {f"issue-{n}": [("issues", label(n))] for n in range(1, issues + 1)}
        groups["issue-1"] += [("issues", groups["issue-1"][0][1])] * duplicates  # the same delivery again
        load.deliver(groups)
        labelled_s = time.perf_counter() - started
        queued = queue_revisions(load, min(queued_prs, issues))
        problems = check(load, issues, duplicates, queued)
        calls = requests_by_kind(fake)
        results: dict[str, int] = defaultdict(int)
        for _, answer in load.answers:
            results[answer.result if isinstance(answer, Outcome) else "crashed"] += 1
        figures = {"issues": issues, "duplicates": duplicates, "queued_prs": len(queued),
                   "deliveries": len(load.answers), "results": dict(results),
                   "pull_requests": len(fake.repos[REPO].pulls), "model_requests": len(model.requests),
                   "github_requests": len(fake.requests),
                   "github_not_modified": sum(1 for logged in fake.requests if logged.status == 304),
                   "github_stop_polls": sum(1 for logged in fake.requests if is_stop_poll(logged)),
                   "github_requests_by_kind": calls,
                   "labelled_s": round(labelled_s, 1),
                   "wall_s": round(time.perf_counter() - started, 1), "peak_rss_mb": peak_rss_mb(),
                   "problems": problems}
    return figures


def requests_by_kind(fake: FakeGitHub) -> dict[str, int]:
    """The API requests counted by method and path (numbers and the bot's branch names as N), most first; the
    stop watcher's polls (comments `since` the run began) and the requests GitHub answered 304 Not Modified
    (no cost against the rate limit) count apart."""
    calls: dict[str, int] = defaultdict(int)
    for logged in fake.requests:
        path = re.sub(r"(?<=/)[0-9]+(?=/|$)|(?<=/issue-)[0-9]+$", "N", logged.path)
        calls[f"{logged.method} {path}" + ("?since=" if is_stop_poll(logged) else "") + graphql_operation(logged) +
              (" (304)" if logged.status == 304 else "")] += 1
    return dict(sorted(calls.items(), key=lambda kv: (-kv[1], kv[0])))


def graphql_operation(logged: ApiRequest) -> str:
    """For a GraphQL request, its operation's name (` EventSnapshot`, ` ReactAndComment`), else ''."""
    if not logged.path.endswith("/graphql") or not isinstance(logged.body, dict):
        return ""
    named = re.match(r"\s*(query|mutation)\s+(\w+)", str(logged.body.get("query", "")))
    return f" {named[2]}" if named else f" ({str(logged.body.get('query', '')).split('(')[0].strip() or 'query'})"


def is_stop_poll(logged: ApiRequest) -> bool:
    """A look for `/ensemble stop`: the comments written since the run began (actions/progress.py)."""
    return logged.method == "GET" and logged.path.endswith("/comments") and "since" in logged.query


def queue_revisions(load: Load, count: int) -> dict[int, list[int]]:
    """On `count` PRs, two revise comments posted while a revision runs; only the newest is delivered."""
    fake = load.hub.fake
    pulls = sorted(fake.repos[REPO].pulls)[:count]
    queued: dict[int, list[int]] = {}
    groups = {}
    for pr in pulls:
        first = load.hub.comment(pr, f"/ensemble revise write the file notes/pr-{pr}-first.md")
        second = load.hub.comment(pr, f"/ensemble revise write the file notes/pr-{pr}-second.md")
        queued[pr] = [first["comment"]["id"], second["comment"]["id"]]
        groups[f"pr-{pr}"] = [("issue_comment", second)]  # the first one's job was cancelled by GitHub
    load.deliver(groups)
    return queued


def peak_rss_mb() -> float:
    """The peak resident memory of this process (every job's thread), in MiB."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)  # Linux reports KiB


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--issues", type=int, default=20)
    parser.add_argument("--duplicates", type=int, default=5)
    parser.add_argument("--queued", type=int, default=3, help="PRs that get two queued revise commands")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    figures = run(args.issues, args.duplicates, args.queued)
    if args.json:
        print(json.dumps(figures, indent=1))
    else:
        print(f"{figures['deliveries']} deliveries ({figures['issues']} issues, {figures['duplicates']} duplicates, "
              f"{figures['queued_prs']} PRs with 2 queued revisions): {figures['results']}")
        print(f"pull requests: {figures['pull_requests']}; model requests: {figures['model_requests']}; "
              f"GitHub API requests: {figures['github_requests']} ({figures['github_not_modified']} of them "
              "answered 304 Not Modified, which GitHub does not count against the rate limit; "
              f"{figures['github_stop_polls']} of them were looks for /ensemble stop, one per run every 15 s)")
        print(f"GitHub API requests that count against the rate limit: "
              f"{figures['github_requests'] - figures['github_not_modified']}; not counting the stop watcher's polls, "
              f"whose number grows with the wall time: {figures['github_requests'] - figures['github_stop_polls']}")
        for kind, count in figures["github_requests_by_kind"].items():
            print(f"  {count:5d}  {kind}")
        print(f"wall time: {figures['wall_s']} s (labels {figures['labelled_s']} s); "
              f"peak memory (RSS): {figures['peak_rss_mb']} MiB")
        for problem in figures["problems"]:
            print(f"PROBLEM: {problem}")
    return 1 if figures["problems"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
