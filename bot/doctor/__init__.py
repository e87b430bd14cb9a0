"""`ensemble doctor`: what is configured and reachable, and what to do about what is missing.

Each check is a small function returning a `Check`. Essential checks decide the exit code;
the others are advice (the sandbox can fall back to a local runner, the demo can replay
scripted model replies).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from bot.doctor.check import Check, DoctorContext
from bot.doctor.commits import check_signoff
from bot.doctor.github import check_github_actions, check_github_token
from bot.doctor.history import check_history
from bot.doctor.machine import (
    check_base_image,
    check_caches,
    check_config,
    check_docker,
    check_embedding_model,
    check_index,
    check_instructions,
    check_packages,
    check_python,
)
from bot.doctor.models import check_local_profile, check_model_keys
from bot.doctor.recipe import check_recipe
from bot.doctor.spend import check_spend
from bot.doctor.toolchains import check_toolchains

__all__ = ["CHECKS", "Check", "DoctorContext", "check_base_image", "check_caches", "check_config",
           "check_docker", "check_embedding_model", "check_github_actions", "check_github_token", "check_history",
           "check_index", "check_instructions",
           "check_local_profile", "check_model_keys", "check_packages", "check_python", "check_recipe", "check_signoff",
           "check_spend", "check_toolchains", "render", "run_checks"]

CHECKS: tuple[Callable[[DoctorContext], Check | list[Check]], ...] = (
    check_python, check_packages, check_config, check_docker, check_base_image, check_toolchains, check_recipe,
    check_embedding_model, check_index, check_history, check_caches, check_instructions, check_signoff, check_model_keys,
    check_local_profile, check_github_actions, check_github_token, check_spend,
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
