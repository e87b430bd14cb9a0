"""The configuration: `.github/ensemble.yml` in the target repository, typed and frozen.

Every key has a default, so the file is optional. The loader checks the file against the
dataclasses below and reports every problem at once, each with the file, line, key path, the
bad value and what was expected. Secrets never live here: they come from the environment.

Environment variables that override the file (documented in docs/configuration.md):
    ENSEMBLE_{PLANNER,CODER,CRITIC}_PROVIDER   a role's provider (openai, gemini, scripted)
    ENSEMBLE_{PLANNER,CODER,CRITIC}_MODEL      a role's model name
    ENSEMBLE_BUDGET_USD                        the per-run budget in USD (`budget.run_usd`, alias `budget_usd`)
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import yaml

from bot.config_check import build_checked, key_lines
from bot.errors import ConfigError, ConfigIssue
from sandbox.model import SandboxSpec

CONFIG_PATH = ".github/ensemble.yml"
PROVIDERS = ("openai", "gemini", "scripted")
ROLES = ("planner", "coder", "critic")

Provider = Literal["openai", "gemini", "scripted"]


EditFormatName = Literal["blocks", "whole", "alternate", "auto"]  # see Config.edit_format

@dataclass(frozen=True)
class ModelChoice:
    """One provider and model, as used by a role or as an entry of its fallback chain."""

    provider: Provider = "openai"
    model: str = "gpt-4o-mini"
    temperature: float = field(default=0.0, metadata={"min": 0.0, "max": 2.0})
    # A server of the role's own (a local llama.cpp, Ollama or vLLM for the coder, say); None: the
    # provider's default (OPENAI_BASE_URL, GOOGLE_GEMINI_BASE_URL, else the hosted API).
    base_url: str | None = field(default=None, kw_only=True, metadata={
        "pattern": r"^https?://\S+$", "hint": "like http://127.0.0.1:8080/v1"})
    # The environment variable holding this model's key; None: OPENAI_API_KEY or GEMINI_API_KEY.
    api_key_env: str | None = field(default=None, kw_only=True, metadata={
        "pattern": r"^[A-Za-z_][A-Za-z0-9_]*$", "hint": "naming an environment variable, like LOCAL_KEY"})


@dataclass(frozen=True)
class RoleModel(ModelChoice):
    """A role's model, with the models that take over when it fails for good."""

    fallback: tuple[ModelChoice, ...] = ()


@dataclass(frozen=True)
class Models:
    """The model behind each role: planner is the slow thinker, coder and critic are fast."""

    planner: RoleModel = RoleModel("openai", "gpt-4o")
    coder: RoleModel = RoleModel("openai", "gpt-4o-mini")
    critic: RoleModel = RoleModel("gemini", "gemini-2.5-flash")

    def for_role(self, role: str) -> RoleModel:
        """The model configured for `role` (one of ROLES)."""
        roles = {"planner": self.planner, "coder": self.coder, "critic": self.critic}
        if role not in roles:
            raise KeyError(f"unknown role {role!r}; expected one of {', '.join(roles)}")
        return roles[role]


@dataclass(frozen=True)
class TeamModelsSpec:
    """One team's own models (an entry of `team_models`); a role not given uses `models`."""

    planner: RoleModel | None = None
    coder: RoleModel | None = None
    critic: RoleModel | None = None


@dataclass(frozen=True)
class PriceSpec:
    """A model's price in USD per million tokens; overrides or extends the built-in table."""

    model: str = ""
    # None keeps the built-in figure for a known model (0 for an unknown one)
    input: float | None = field(default=None, metadata={"min": 0.0})
    cached_input: float | None = field(default=None, metadata={"min": 0.0})
    output: float | None = field(default=None, metadata={"min": 0.0})
    context_window: int | None = field(default=None, metadata={"min": 1})  # tokens


@dataclass(frozen=True)
class LLMSpec:
    """How model calls are made: timeouts, retries, the reply cache and price overrides."""

    timeout_s: float = field(default=120.0, metadata={"min": 0.01})
    max_attempts: int = field(default=5, metadata={"min": 1})
    max_retry_wait_s: float = field(default=120.0, metadata={"min": 0.0})
    cache: bool = True
    cache_max_mb: int = field(default=200, metadata={"min": 1})
    # The output cap sent with every request (max_tokens, Gemini's max_output_tokens), and the room
    # kept for the reply in the model's window; never more than half the window. Raise it for long
    # edit replies; a reply cut off is continued (plain text) or repaired shorter (JSON).
    max_output_tokens: int = field(default=4096, metadata={"min": 1})
    prices: tuple[PriceSpec, ...] = ()


# Never edited by the bot, whatever `paths.deny` says: CI, the bot's own configuration, code owners,
# and files that hold keys. The configured list is added on top of these; its `!` lines cannot take
# them back.
ALWAYS_DENIED = (".github/workflows/**", ".github/ensemble.yml", "CODEOWNERS",
                 "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "id_rsa*", "id_dsa*", "id_ecdsa*",
                 "id_ed25519*", ".env", ".env.*", ".netrc", ".pypirc", ".npmrc")


@dataclass(frozen=True)
class PathsSpec:
    """Paths the bot must never edit: .gitignore-style patterns (`common.globs`), on top of ALWAYS_DENIED;
    and the largest file it may write."""

    deny: tuple[str, ...] = ALWAYS_DENIED
    # The largest file the bot may write or commit; a bigger edit is refused and reported to the coder.
    max_file_kb: int = field(default=1024, metadata={"min": 1})


@dataclass(frozen=True)
class IndexSpec:
    """What the retrieval index covers; globs are relative to the repository root."""

    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    max_file_kb: int = field(default=512, metadata={"min": 1})
    embedding_model: str | None = None
    # The history channel: past commits like the issue vote for the files they changed (off in a shallow clone).
    history: bool = True


@dataclass(frozen=True)
class ExploreSpec:
    """How far the planner explores before planning: rounds of requests, tokens of code gathered."""

    max_rounds: int = field(default=4, metadata={"min": 0, "max": 20})
    max_tokens: int = field(default=12_000, metadata={"min": 500})


@dataclass(frozen=True)
class HealSpec:
    """Self-healing: the workflows to dispatch on the bot's branch when pushes start none; whether a red default
    branch opens an issue (`default_branch: issue`), and whether that issue mentions the suspect commits' authors."""

    workflows: tuple[str, ...] = ()
    default_branch: Literal["off", "issue"] = "off"
    mention_authors: bool = False


@dataclass(frozen=True)
class CommitSpec:
    """How the bot's commits are made: `signoff` adds `Signed-off-by:` for the committer (git commit --signoff),
    for repositories that require a DCO sign-off; `verified` pushes them by making them anew through GitHub's Git
    Data API, which signs them, for repositories that require signed commits."""

    signoff: bool = False
    verified: bool = False


@dataclass(frozen=True)
class BudgetSpec:
    """Spend caps in USD. `run_usd` caps one run (None: `budget_usd`, its older spelling); `issue_usd` caps all the
    runs on one issue (retries, revisions, fixes, any day) and `day_usd` the repository's runs on one UTC day, counted
    in the ledger on the bot's branch `ensemble/ledger` (actions/ledger.py). None: no cap."""

    run_usd: float | None = field(default=None, metadata={"min": 0.0})
    issue_usd: float | None = field(default=None, metadata={"min": 0.0})
    day_usd: float | None = field(default=None, metadata={"min": 0.0})

    @property
    def across_runs(self) -> bool:
        """Whether a cap across runs is set, so runs are counted in the ledger."""
        return self.issue_usd is not None or self.day_usd is not None


@dataclass(frozen=True)
class VerifySpec:
    """`/ensemble verify`, the judge's evidence on anyone's pull request (docs/github.md): `auto` also verifies the
    pull requests of people outside the repository's writers when they are opened or pushed to (`verify: auto` for
    short); `review: on` has the critic add a few findings tied to lines, as one review that only comments."""

    when: Literal["off", "auto"] = field(default="off", metadata={"shorthand": True})
    review: Literal["off", "on"] = "off"


DEFAULT_ROUNDS = 4  # rounds per team when neither `max_iterations` nor a budget bounds them


@dataclass(frozen=True)
class Config:
    """The whole configuration, loaded once and passed down."""

    trigger_label: str = "ensemble"
    models: Models = Models()
    ensembles: int = field(default=2, metadata={"min": 1, "max": 8})
    # Temperature of every role per team (team a, team b, ...); teams beyond the list use the roles' own.
    team_temperatures: tuple[float, ...] = (0.0, 0.6)
    # Models of each team (team a, team b, ...) where they differ from `models`.
    team_models: tuple[TeamModelsSpec, ...] = ()
    # Rounds per team. Unset, a run bounded by `deadline_minutes` or `budget_tokens` keeps trying until that budget
    # is spent (the budget bounds the rounds), and one without either plays DEFAULT_ROUNDS; set, it is a cap.
    max_iterations: int | None = field(default=None, metadata={"min": 1})
    max_heal_attempts: int = field(default=3, metadata={"min": 0})
    # Runs the bot starts on one issue or pull request within an hour; past it, it stops to break a loop.
    max_runs_per_hour: int = field(default=6, metadata={"min": 1})
    budget_usd: float = field(default=2.0, metadata={"min": 0.0})  # the per-run cap; `budget.run_usd` sets it too
    budget: BudgetSpec = BudgetSpec()
    budget_tokens: int | None = field(default=None, metadata={"min": 1})
    # Wall-clock minutes for the run, from its start; when they run out no model call waits past them, the teams
    # stop and the best judged change is kept.
    deadline_minutes: float | None = field(default=None, metadata={"min": 0.01})
    # Before exploring and planning, one direct coding round when the base's tests already fail: `auto` when
    # the planner is the coder's own model (its plan would buy little before an attempt), or always / never.
    first_attempt: Literal["auto", "direct", "plan"] = "auto"
    # How the coder writes a change: `blocks` (SEARCH/REPLACE edit blocks), `whole`: each file it was shown
    # whole comes back whole (files shown in part still take blocks), or `alternate`: whole in a team's first
    # round, and the other format after each round whose change was not good (a small model that repeats a
    # wrong change in one format often writes a different one in the other), or `auto`: as `alternate`, but in its
    # whole-file rounds only the files that are shorter to write whole come back whole, larger ones take blocks.
    edit_format: EditFormatName = "blocks"
    # Independent samples: after a failed attempt, later attempts include fresh ones (a clean context, the coder's
    # reply sampled at a temperature above 0), each judged like any candidate; the judge keeps the best. `auto`: on
    # when the coder's server is on this machine (a small local model, whose attempts are close to coin tosses).
    samples: Literal["auto", "on", "off"] = "auto"
    # The critic's review of a change the judge found good: `always`, or `off`: the judge's verdict is final (the
    # maintainer's review of the pull request stays). The local-model profile sets `off`: a small local critic asks
    # for changes to right and wrong changes alike (bench/critic.py: 0 of 18 right changes accepted) and its call is
    # a fifth of a quick solve's time.
    review: Literal["always", "off"] = "always"
    # A check the coder never sees: the coder writes, in a request of its own, the reproduction test again on other
    # inputs; a change that leaves those failing exactly as the bug had them is refused as special-cased to the tests
    # it was shown (bot/ensemble/judge/hidden.py). `on`: written once a team's change first passes; `early`: written
    # beside the team's first round, in a request sent with the round's own, so a good change does not wait for it
    # (for a server that answers requests side by side, as the hosted APIs do; a local server takes them in turn,
    # and a team that never passes has spent the request for nothing). `off` saves the request.
    hidden_check: Literal["on", "early", "off"] = "on"
    llm: LLMSpec = LLMSpec()
    sandbox: SandboxSpec = SandboxSpec()
    paths: PathsSpec = PathsSpec()
    index: IndexSpec = IndexSpec()
    explore: ExploreSpec = ExploreSpec()
    heal: HealSpec = HealSpec()
    commit: CommitSpec = CommitSpec()
    on_approval: Literal["ready_for_review", "merge"] = "ready_for_review"
    # Keeping the bot's pull requests on a moving default branch: `auto` updates one when a push to the default
    # branch touches files it changed (`/ensemble update` does it on request whatever this says), by a merge of
    # the default branch into it (safe for branches people have pulled) or a rebase onto it; an open pull request
    # is updated automatically at most `max_updates_per_pr` times between two reviews.
    update: Literal["off", "auto"] = "off"
    update_strategy: Literal["merge", "rebase"] = "merge"
    max_updates_per_pr: int = field(default=3, metadata={"min": 1})
    # Verifying pull requests (`/ensemble verify` on any open one): `auto` for those from outside the writers, and
    # the critic's line-tied review on or off.
    verify: VerifySpec = VerifySpec()
    require_plan_approval: bool = False
    # Who may run the bot (label, `/ensemble run`, `retry`), revise its PRs and approve a plan: `write` (write,
    # maintain or admin permission), `codeowners` (writers run; approving a plan needs an owner in CODEOWNERS of
    # the files it touches), or a list of logins and org/team slugs, who also need write permission.
    approvers: Literal["write", "codeowners"] | tuple[str, ...] = field(default="write", metadata={
        "also": "or a list of logins and org/team slugs, like [alice, octo-org/maintainers]", "min_items": 1,
        "items": {"pattern": r"^@?[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:/[A-Za-z0-9][A-Za-z0-9_.-]*)?$",
                  "hint": "naming a GitHub login like alice, or a team like octo-org/maintainers"}})
    # Names of further environment variables whose values are secrets, redacted like GITHUB_TOKEN (variables
    # named like secrets, *TOKEN*, *SECRET*, *PASSWORD*, *API_KEY* ..., are already: bot/redact.is_secret_name).
    secret_env: tuple[str, ...] = ()
    # Variables named like secrets that are not (a false positive of the name sweep, whose value would be
    # blanked all over the run's output); secret_env and the bot's own keys cannot be exempted.
    not_secret_env: tuple[str, ...] = ()
    # The repository's conventions for every role, after AGENTS.md (bot/ensemble/instructions.py).
    instructions: str = ""
    source: str = field(default="(defaults)", metadata={"internal": True})

    def round_cap(self) -> int | None:
        """The most rounds a team plays: `max_iterations` when set; else none when a budget (`deadline_minutes`,
        `budget_tokens`) bounds the run, and DEFAULT_ROUNDS when nothing does."""
        if self.max_iterations is not None:
            return self.max_iterations
        return None if self.deadline_minutes or self.budget_tokens else DEFAULT_ROUNDS

    def team_role(self, team: int, role: str) -> RoleModel | None:
        """Team number `team`'s own model for `role`, or None when it uses `models`."""
        if team >= len(self.team_models):
            return None
        own = self.team_models[team]
        return {"planner": own.planner, "coder": own.coder, "critic": own.critic}[role]


def load_config(repo_dir: str | Path, env: Mapping[str, str] | None = None, path: str | None = None) -> Config:
    """Load `path` (default `.github/ensemble.yml`) under `repo_dir`, then apply env overrides."""
    env = os.environ if env is None else env
    config_file = Path(repo_dir) / (path or CONFIG_PATH)
    if config_file.is_file():
        config = parse_config(config_file.read_text(encoding="utf-8", errors="replace"), str(config_file))
    elif path:
        raise ConfigError([ConfigIssue(str(config_file), None, "", "file not found; fix the path or remove it")])
    else:
        config = Config()
    return apply_env_overrides(config, env)


def parse_config(text: str, filename: str = CONFIG_PATH) -> Config:
    """Parse and validate config text; raise ConfigError listing every problem."""
    try:
        data = yaml.safe_load(text)
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        marked = exc if isinstance(exc, yaml.MarkedYAMLError) else None  # a parse error knows where it is
        line = marked.problem_mark.line + 1 if marked and marked.problem_mark else None
        problem = (marked.problem if marked else None) or str(exc)
        raise ConfigError([ConfigIssue(filename, line, "", f"invalid YAML: {problem}; check indentation and quoting")]) from None
    if data is None:
        return Config(source=filename)
    config, issues = build_checked(Config, data, filename, root)
    if not issues:
        config, issues = _run_budget(config, data, filename, key_lines(root))
    if issues:
        raise ConfigError(issues)
    return dataclasses.replace(config, source=filename)


def _run_budget(config: Config, data: Mapping[str, Any], filename: str,
                lines: Mapping[str, int]) -> tuple[Config, list[ConfigIssue]]:
    """`budget.run_usd` made the per-run cap (`budget_usd`, its alias), and the problems of the caps together:
    both spellings given with different values, or a cap across runs below one run's (no run could ever start)."""
    run = config.budget.run_usd
    if run is not None and "budget_usd" in data and run != config.budget_usd:
        return config, [ConfigIssue(filename, lines.get("budget.run_usd"), "budget.run_usd",
                                    f"{run!r} differs from budget_usd {config.budget_usd!r}; both set the cap of one "
                                    "run (budget_usd is the older spelling), so keep only budget.run_usd")]
    if run is not None:
        config = dataclasses.replace(config, budget_usd=run)
    return config, [ConfigIssue(filename, lines.get(f"budget.{name}"), f"budget.{name}",
                                f"{cap!r} is below the per-run cap {config.budget_usd!r}, so every run would be "
                                f"refused; raise budget.{name} or lower budget.run_usd")
                    for name, cap in caps_below_run(config)]


def caps_below_run(config: Config) -> list[tuple[str, float]]:
    """The caps across runs (name, value) below the per-run cap: a run reserves its whole cap before it starts, so
    under such a cap no run could ever start."""
    caps = (("issue_usd", config.budget.issue_usd), ("day_usd", config.budget.day_usd))
    return [(name, cap) for name, cap in caps if cap is not None and cap < config.budget_usd]


def apply_env_overrides(config: Config, env: Mapping[str, str]) -> Config:
    """Apply the ENSEMBLE_* overrides documented in the module docstring."""
    issues: list[ConfigIssue] = []
    models = config.models
    for role in ROLES:
        changes: dict[str, Any] = {}
        provider = env.get(f"ENSEMBLE_{role.upper()}_PROVIDER")
        if provider:
            if provider in PROVIDERS:
                changes["provider"] = provider
            else:
                issues.append(ConfigIssue("environment", None, f"ENSEMBLE_{role.upper()}_PROVIDER",
                                          f"unknown provider {provider!r}; expected one of {', '.join(PROVIDERS)}"))
        if model := env.get(f"ENSEMBLE_{role.upper()}_MODEL"):
            changes["model"] = model
        if changes:
            models = dataclasses.replace(models, **{role: dataclasses.replace(models.for_role(role), **changes)})
    budget = config.budget_usd
    if raw_budget := env.get("ENSEMBLE_BUDGET_USD"):
        try:
            budget = float(raw_budget)
            if budget < 0 or not math.isfinite(budget):
                raise ValueError
        except ValueError:
            issues.append(ConfigIssue("environment", None, "ENSEMBLE_BUDGET_USD",
                                      f"{raw_budget!r} is not a non-negative number of dollars, like 2.50"))
    if raw_budget and not issues:
        run = None if config.budget.run_usd is None else budget
        config = dataclasses.replace(config, budget_usd=budget, budget=dataclasses.replace(config.budget, run_usd=run))
        issues += [ConfigIssue("environment", None, "ENSEMBLE_BUDGET_USD",
                               f"{budget!r} is above budget.{name} ({cap!r} in {config.source}), so every run would "
                               f"be refused; lower it (the action's budget-usd) or raise budget.{name}")
                   for name, cap in caps_below_run(config)]
    if issues:
        raise ConfigError(issues)
    return dataclasses.replace(config, models=models, budget_usd=budget)
