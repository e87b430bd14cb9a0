"""Settings read before any clone: the repository's config file from its default branch, via the API."""

from __future__ import annotations

from actions.context import Context
from bot.config import CONFIG_PATH, Config, apply_env_overrides, parse_config
from bot.redact import exempt_secret_names, secret_values
from bot.trace import current_tracer


def remote_config(ctx: Context) -> Config:
    """The config on the default branch (the trusted one), with environment overrides applied."""
    path = ctx.config_path or CONFIG_PATH
    text = ctx.github.read_file(path, ctx.github.default_branch())
    config = apply_env_overrides(parse_config(text, path) if text is not None else Config(), ctx.env)
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
