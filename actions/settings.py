"""Settings read before any clone: the repository's config file from its default branch, via the API (or from a
named commit: a pull request is verified with its base's config)."""

from __future__ import annotations

from collections.abc import Callable

from actions.context import Context
from bot.config import CONFIG_PATH, Config, apply_env_overrides, parse_config
from bot.redact import exempt_secret_names, secret_values
from bot.trace import current_tracer


def remote_config(ctx: Context) -> Config:
    """The config on the default branch (the trusted one), with environment overrides applied."""
    return config_at(ctx, ctx.github.default_branch())


def config_at(ctx: Context, ref: str, read: Callable[[str], str | None] | None = None) -> Config:
    """The config as commit or branch `ref` holds it (read through the API, or by `read` from a clone's objects, never
    from a checkout), with environment overrides applied and its secrets registered."""
    path = ctx.config_path or CONFIG_PATH
    text = read(path) if read is not None else ctx.github.read_file(path, ref)
    config = apply_env_overrides(parse_config(text, path) if text is not None else Config(),
                                 ctx.env)
    register_secrets(ctx, config)
    return config


def register_secrets(ctx: Context, config: Config) -> None:
    """Mask the values of the variables the config names in `secret_env` and `sandbox.setup_env`, and of those named
    like secrets but for `not_secret_env`, in comments and in the trace."""
    from sandbox.recipe import secret_name

    exempt_secret_names(config.not_secret_env)
    setup = [secret_name(reference) for reference in config.sandbox.setup_env.values()]
    configured = secret_values(ctx.env, [*config.secret_env, *setup])
    ctx.github.add_secrets(configured)
    current_tracer().add_secrets(configured)
