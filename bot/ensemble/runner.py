"""`run_task`: the one entry to the engine. Index, plan, code and test with two teams, pick the winner.

    result = run_task(repo_dir, Task("Fix the parser"), config, os.environ)

Teams run in threads, each in its own git worktree from the forge; insights flow between
them through an `InsightBoard`. A team that crashes is recorded and the other carries on.
The winner's commits become the branch `ensemble/<slug>`; the run's lesson is appended to
the insight store. Model, retrieval and sandbox components can be passed in (tests, demos).
"""

from __future__ import annotations

import logging
import re
import threading
import time
import traceback
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path

from bot.config import ROLES, Config
from bot.ensemble.adapters import TeamModels
from bot.ensemble.insights import Embed, InsightBoard, InsightStore, Lesson
from bot.ensemble.instructions import Instructions
from bot.ensemble.judge import Candidate, TeamJudge, backing, corroborate, run_base, unchecked
from bot.ensemble.policy import Limits
from bot.ensemble.ports import ModelClient, Retriever, TestRunner
from bot.ensemble.select import choose_winner, describe, is_partial, rank_key
from bot.ensemble.team import Reporter, Team, crashed, run_team
from bot.ensemble.types import (
    CRASHED,
    QUESTIONS,
    STOPPED,
    Phase,
    Progress,
    Reproduction,
    RunResult,
    Task,
    TeamResult,
    TeamSummary,
    TestOutcome,
)
from bot.forge import Forge
from bot.forge.local import LocalForge, slugify
from bot.llm.local import base_url, is_local
from bot.redact import clip, exempt_secret_names, register_secrets, secret_values
from bot.trace import Tracer, new_run_id, propagate, runs_dir, span
from common.testids import file_of_test, matching_tests

log = logging.getLogger(__name__)
TEAM_NAMES = "abcdefgh"


@dataclass
class Components:
    """The parts a run uses; any left as None is built from the config."""

    models: ModelClient | None = None
    retriever: Retriever | None = None
    runner: TestRunner | None = None
    embed: Embed | None = None
    progress: Progress | None = None
    stop: threading.Event = field(default_factory=threading.Event)
    use_cache: bool = True
    # Where the teams' workspaces come from and the winner's commits go; None: a LocalForge on the
    # repository (the CLI's checkout, or the Action's clone). It picks the branch and its base.
    forge: Forge | None = None
    # The commit the repository's instructions (AGENTS.md ...) are read from: the checked-out one
    # by default, never the branch a run continues; the Action names the default branch.
    instructions_ref: str = "HEAD"
    clock: Callable[[], float] = time.monotonic  # what the deadline (deadline_minutes) is read on


def run_task(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str],
             parts: Components | None = None, run_id: str | None = None) -> RunResult:
    """Run the whole ensemble on a local checkout and return what happened."""
    parts = parts or Components()
    repo_dir = Path(repo_dir).resolve()
    run_id = run_id or new_run_id()
    tracer = run_tracer(repo_dir, config, env, run_id)
    started = time.monotonic()
    result = RunResult(run_id, task, trace=str(tracer.path))
    forge = parts.forge or LocalForge(repo_dir, run_id, config.paths.max_file_kb * 1024, config.commit.signoff)
    with tracer.activate(), span("ensemble.run", run_id=run_id, task=clip(task.title, 200),
                                 settings=run_settings(config)) as s:
        try:
            _run(repo_dir, task, config, env, parts, forge, result)
        finally:
            forge.cleanup()
            result.duration_s = round(time.monotonic() - started, 2)
            s.set(stop_reason=result.stop_reason, winner=result.winner, success=result.success,
                  decision=result.decision, branch=result.branch,
                  reproduction_test=bool(result.reproduction and result.reproduction.path))
    return result


def run_tracer(repo_dir: Path, config: Config, env: Mapping[str, str], run_id: str) -> Tracer:
    """The trace of an engine's run (a task, an update, a verification) under `.ensemble/runs/` (or the environment's
    runs folder), with the config's secrets known to every redactor of the process first: `not_secret_env`
    exempted before anything masks (the tracer reads the environment too), then the secrets' values registered."""
    exempt_secret_names(config.not_secret_env)
    tracer = Tracer.for_run(runs_dir(env, repo_dir / ".ensemble" / "runs"), run_id, env,
                            secret_names=config_secret_names(config))
    register_secrets(secret_values(env, config_secret_names(config)))
    return tracer


def config_secret_names(config: Config) -> tuple[str, ...]:
    """The variables whose values the config makes secret: `secret_env`, every model's `api_key_env` and the
    secrets `sandbox.setup_env` gives the setup phase."""
    from sandbox.recipe import secret_name

    roles = [config.models.for_role(r) for r in ROLES]
    roles += [m for i in range(len(config.team_models)) for r in ROLES if (m := config.team_role(i, r)) is not None]
    keys = [m.api_key_env for role in roles for m in (role, *role.fallback) if m.api_key_env]
    setup = [secret_name(reference) for reference in config.sandbox.setup_env.values()]
    return tuple(dict.fromkeys([*config.secret_env, *keys, *setup]))


def run_settings(config: Config) -> dict[str, object]:
    """The settings an A/B comparison of runs tells apart (`ensemble report` reads them)."""
    models = {role: f"{config.models.for_role(role).provider}/{config.models.for_role(role).model}" for role in ROLES}
    return {"models": models, "ensembles": config.ensembles, "max_iterations": config.max_iterations,
            "embedder": config.index.embedding_model or "default"}


def _run(repo_dir: Path, task: Task, config: Config, env: Mapping[str, str], parts: Components,
         forge: Forge, result: RunResult) -> None:
    report = Reporter("-", parts.progress, parts.stop)  # the run's own steps; each team reports through its own
    # The deadline counts from here, as the model manager's does: indexing and the base run spend it too.
    began = parts.clock()
    deadline = began + config.deadline_minutes * 60 if config.deadline_minutes else None
    result.branch = forge.start(task.slug or slugify(task.title))
    first = forge.workspace(TEAM_NAMES[0])  # the committed base: what the index and every team read
    report.tell(Phase.INDEXING, 0, str(repo_dir))
    models, retriever, runner = _components(repo_dir, config, env, parts, first.path)
    store = InsightStore(repo_dir / ".ensemble" / "insights.jsonl", parts.embed or retriever.embed)
    with span("insights.recall") as s:  # the first embedding: this is where the embedding model loads
        relevant = store.relevant(task.text)
        s.set(lessons=len(relevant))
    lessons = "\n".join(x.text() for x in relevant)
    report.tell(Phase.BASELINE)
    with span("ensemble.baseline") as s:
        base = run_base(runner, first)
        result.tests_before = base.tests
        result.environment = runner.environment
        hosts = ", ".join(base.calibration.hosts)
        result.sentinels = f"run beside {hosts} in every judged run" if hosts else f"unavailable: {base.calibration.note}"
        result.unchecked = unchecked(file_of_test(name, lambda p: first.base_text(p) is not None)
                                     for name, _ in base.tests.results)
        s.set(passed=result.tests_before.passed, failing=list(result.tests_before.failing[:20]),
              sentinel_hosts=list(base.calibration.hosts), exit_counts=base.calibration.exit_counts,
              test_data=sorted(base.data)[:50])
    common = Team(name=TEAM_NAMES[0], task=task, models=models, retriever=retriever, runner=runner,
                  workspace=first, board=InsightBoard(), limits=_limits(config, env, deadline, began),
                  deny=tuple(config.paths.deny), lessons=lessons, max_file_bytes=config.paths.max_file_kb * 1024,
                  stop=parts.stop, progress=parts.progress, explore_budget=config.explore,
                  judge=TeamJudge.of(task.text, base, named_tests(task.text, base.tests)),
                  instructions=_instructions(repo_dir, config, parts.instructions_ref), clock=parts.clock)
    teams = [_team(i, common, config, forge, result.run_id) for i in range(config.ensembles)]
    outcomes = _run_teams(teams, parts.stop, deadline, config.deadline_minutes, parts.clock)
    if len(teams) > 1 and not parts.stop.is_set():  # a stopped run delivers what it has without another test run
        with span("ensemble.corroborate") as s:
            outcomes = corroborate([Candidate(_final_judge(team, outcome), team.workspace, outcome)
                                    for team, outcome in zip(teams, outcomes, strict=True)], runner)
            s.set(cross=[f"{o.name}<-{c.team}: {c.passed}" for o in outcomes for c in o.cross])
    winner, result.decision = choose_winner(outcomes)
    log.info("%s", result.decision)
    _fill(result, outcomes, winner, models)
    if winner is not None and (winner.passed or is_partial(winner)):  # partial work is kept, marked as such
        result.commits = forge.publish(next(t.workspace for t in teams if t.name == winner.name))
    result.notes = common.board.all_notes()
    store.add(_lesson(task, result, winner))


def _limits(config: Config, env: Mapping[str, str], deadline: float | None, began: float) -> Limits:
    """The limits on each team's loop: the rounds (a cap only when set, else the budget bounds them), the deadline
    and when the run began, the edit format, independent samples (`samples: auto`: on for a coder on this
    machine, a small local model), whether the critic reviews a good change (`review`) and when the hidden check
    is written (`hidden_check`)."""
    coder = config.models.for_role("coder")
    samples = config.samples == "on" or (config.samples == "auto" and is_local(base_url(coder, env)))
    return Limits(config.round_cap(), deadline, config.edit_format, started=began, samples=samples,
                  review=config.review == "always", hidden_check=config.hidden_check != "off",
                  hidden_early=config.hidden_check == "early")


def _final_judge(team: Team, outcome: TeamResult) -> TeamJudge:
    """The judge of a team's final change: the base's, with the team's own frozen reproduction test."""
    judge = team.judge
    for path, text in outcome.frozen.items():
        judge = judge.with_reproduction(path, text)
    return judge


def _components(repo_dir: Path, config: Config, env: Mapping[str, str], parts: Components,
                tree: Path | None = None) -> tuple[ModelClient, Retriever, TestRunner]:
    from bot.ensemble import assemble

    models = parts.models or assemble.model_manager(repo_dir, config, env, parts.use_cache)
    retriever = parts.retriever or assemble.retriever(repo_dir, config, env, tree=tree)
    runner = parts.runner or assemble.test_runner(config, env)
    return models, retriever, runner


def _team(i: int, common: Team, config: Config, forge: Forge, run_id: str) -> Team:
    """Team number `i`: what all teams share (`common`), with its own name, models, workspace and commit trailers."""
    name = TEAM_NAMES[i]
    temps = config.team_temperatures
    label = "/".join((config.team_role(i, r) or config.models.for_role(r)).model for r in ("planner", "coder", "critic"))
    temperature = temps[i] if i < len(temps) else None
    return replace(common, name=name, models=TeamModels(common.models, temperature, name), temperature=temperature,
                   workspace=common.workspace if i == 0 else forge.workspace(name),
                   trailers={"Ensemble-Run": run_id, "Ensemble-Model": label}, direct_first=direct_first(config, i))


def direct_first(config: Config, team: int) -> bool:
    """Whether team number `team` makes a direct attempt first (`first_attempt`).

    `auto`: when its planner is its coder's model, whose plan would buy little before an attempt; never for a
    scripted transcript, a recorded conversation that is replayed in the order it was recorded.
    """
    if config.first_attempt != "auto":
        return config.first_attempt == "direct"
    planner, coder = (config.team_role(team, r) or config.models.for_role(r) for r in ("planner", "coder"))
    same = (planner.provider, planner.model, planner.base_url) == (coder.provider, coder.model, coder.base_url)
    return same and planner.provider != "scripted"


def _instructions(repo_dir: Path, config: Config, ref: str) -> Instructions:
    from bot.ensemble import assemble

    with span("ensemble.instructions", ref=ref) as s:
        found = assemble.instructions(repo_dir, config, ref)
        s.set(files=list(found.found), config_text=bool(found.config_text))
    return found


def _run_teams(teams: list[Team], stop: threading.Event, deadline: float | None = None,
               deadline_minutes: float | None = None, clock: Callable[[], float] = time.monotonic) -> list[TeamResult]:
    """Run the teams in threads. Ctrl-C, or the deadline (a `clock()` time) passing, asks them to stop
    at their next step and waits for their results (each keeps its best judged change)."""
    pool = ThreadPoolExecutor(max_workers=len(teams), thread_name_prefix="team")
    futures: list[Future[TeamResult]] = []
    late = False
    try:  # from the first team's start: a Ctrl-C as the teams start is this run's stop too, not a traceback
        for team in teams:
            futures.append(pool.submit(propagate(_safe_team), team))
        while not all(f.done() for f in futures):
            wait(futures, timeout=0.5)  # short waits keep the main thread able to take a KeyboardInterrupt
            if deadline is not None and not late and clock() > deadline:
                late = True
                log.warning("the deadline passed (deadline_minutes: %s): the teams stop after their current step",
                            deadline_minutes)
                stop.set()
    except KeyboardInterrupt:
        log.warning("interrupted: the teams stop after their current step (Ctrl-C again to quit at once)")
        stop.set()
        # a team not started yet still starts, and stops at its first step: every team reports
        futures += [pool.submit(propagate(_safe_team), team) for team in teams[len(futures):]]
        wait(futures)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    late = late or (deadline is not None and clock() > deadline)  # the model calls stop at it too
    return [_deadline_noted(f.result(), deadline_minutes) if late else f.result() for f in futures]


def _deadline_noted(result: TeamResult, deadline_minutes: float | None) -> TeamResult:
    """A team the deadline stopped, its stop said to be the deadline's (a new result; the team's is left alone)."""
    if result.stop_reason != STOPPED:
        return result
    return replace(result, stop_detail=f"the deadline passed (deadline_minutes: {deadline_minutes})"
                   + (f"; {result.kept}" if result.kept else ""))


def named_tests(text: str, baseline: TestOutcome | None) -> tuple[str, ...]:
    """Tests of the base run that the task names (by test name or full id): they must pass after."""
    results = baseline.results if baseline else ()
    words = set(re.findall(r"[\w.:/\[\]-]+", text))
    named = [name for name, _ in results
             if name in words or name.rsplit("::", 1)[-1].split("[")[0] in words]
    return tuple(dict.fromkeys(named))


def _safe_team(team: Team) -> TeamResult:
    """One team's run, in its span (beside the run's other steps' spans): the team's result, or a crashed team's
    when the run failed outside the team's loop (going back to its best round, say), so the other team carries on.
    The span carries the result either way, and ends as an error when the team crashed."""
    with span("ensemble.team", team=team.name) as s:
        try:
            result = run_team(team)
        except Exception as exc:  # noqa: BLE001 - one team's crash must not end the other's work
            log.warning("team %s crashed: %s", team.name, exc)
            log.debug("%s", traceback.format_exc())
            result = crashed(team, exc)
        if result.error:
            s.fail(result.error)
        s.set(stop_reason=result.stop_reason, rounds=len(result.rounds), passed=result.passed,
              accepted=result.accepted, diff_lines=result.diff_size, refused=[str(r) for r in result.refused],
              kept=result.kept)
    return result


def _fill(result: RunResult, outcomes: list[TeamResult], winner: TeamResult | None, models: ModelClient) -> None:
    ranks = {t.name: i for i, t in enumerate(sorted(outcomes, key=rank_key, reverse=True), 1)}
    result.teams = [TeamSummary(t.name, ranks[t.name], describe(t), t.stop_reason, len(t.rounds), t.passed, t.accepted,
                                t.diff_size, t.error, t.kept, tuple(map(str, t.refused)), t.models, t.judgement,
                                tuple(t.cross))
                   for t in outcomes]
    result.refused = [f"team {t.name}: {r}" for t in outcomes for r in t.refused]
    result.usage = models.spend()
    result.replayed = result.usage["replayed"] > 0
    if winner is None:
        result.stop_reason, result.stop_detail = CRASHED, result.decision
        return
    result.winner = winner.name
    result.plan, result.stop_reason, result.stop_detail = winner.plan, winner.stop_reason, winner.stop_detail
    if winner.kept:
        result.stop_detail = f"{winner.stop_detail}; {winner.kept}".strip("; ")
    result.tests_after, result.reproduction, result.retrieved = winner.tests_after, winner.reproduction, winner.retrieved
    result.judgement = winner.judgement
    result.diff = winner.diff
    result.test_changes = list(winner.test_changes)
    result.corroboration = backing(winner, len(outcomes))
    result.runner_hooks = list(winner.runner_hooks)
    if winner.stop_reason == QUESTIONS and winner.plan:
        result.questions = winner.plan.questions
    if result.reproduction and result.reproduction.path and result.tests_after:
        result.reproduction = _after(result.reproduction, winner)


def _after(repro: Reproduction, winner: TeamResult) -> Reproduction:
    tests = winner.tests_after
    if tests is None or not winner.rounds:
        return replace(repro, passed_after=False)
    outcomes = dict(tests.results)
    names = matching_tests(outcomes, [repro.path]) if repro.path else []
    return replace(repro, passed_after=all(outcomes[n] == "pass" for n in names) if names else tests.passed)


def _lesson(task: Task, result: RunResult, winner: TeamResult | None) -> Lesson:
    worked = result.plan.summary if result.success and result.plan else ""
    failed = "" if result.success else f"{result.stop_words}: {clip(result.stop_detail, 200)}"
    return Lesson(task=clip(task.text, 500), outcome="passed" if result.success else result.stop_reason or "",
                  worked=worked, failed=failed)
