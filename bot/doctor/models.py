"""Checks of the models: each role's provider, key and price, and the local-model profile."""

from __future__ import annotations

from pathlib import Path

from bot.config import ROLES, Config, ModelChoice, RoleModel
from bot.doctor.check import Check, DoctorContext
from bot.llm.local import base_url, is_local

PROVIDER_KEYS = {
    "openai": ("OPENAI_API_KEY", "OPENAI_BASE_URL"),
    "gemini": ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "scripted": (),
}
# The local-model profile (README): one model server answers one request at a time, slowly, with
# the window it was started with (llama.cpp -c, Ollama num_ctx) and little room for long replies.
LOCAL_TIMEOUT_S = 600
LOCAL_MAX_OUTPUT_TOKENS = 2048
LOCAL_EXPLORE_TOKENS = 3000  # tokens of code the planner gathers before planning, in the local profile



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
    critic = config.models.for_role("critic")
    if config.review != "off" and critic.model in models:
        gaps.append("review: off (a small local critic asks for changes to right and wrong changes alike, and its "
                    "call is a fifth of a quick solve's time; the judge's verdict and your review of the pull request "
                    "stay)")
    return gaps
