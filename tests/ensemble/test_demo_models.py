"""scripts/demo-models.sh: the demo's model choice from the keys present, so every role has a usable provider."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.config import apply_env_overrides, load_config

ROOT = Path(__file__).resolve().parents[2]


def chosen(**keys: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENSEMBLE_", "OPENAI_", "GEMINI_", "GOOGLE_"))}
    out = subprocess.run(["bash", "-c", 'source scripts/demo-models.sh && env'], cwd=ROOT, env={**env, **keys},
                         capture_output=True, text=True, check=True)
    return dict(line.split("=", 1) for line in out.stdout.splitlines() if line.startswith("ENSEMBLE_"))


@pytest.mark.parametrize("keys", [{"OPENAI_API_KEY": "sk-x"}, {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1"}])
def test_only_an_openai_key_or_server_puts_every_role_on_openai(keys: dict[str, str], tmp_path: Path) -> None:
    env = chosen(**keys)
    config = apply_env_overrides(load_config(tmp_path, env={}), env)
    assert {config.models.for_role(r).provider for r in ("planner", "coder", "critic")} == {"openai"}
    assert config.models.critic.model == "gpt-4o-mini"


def test_only_a_gemini_key_puts_every_role_on_gemini(tmp_path: Path) -> None:
    config = apply_env_overrides(load_config(tmp_path, env={}), chosen(GEMINI_API_KEY="AIza-x"))
    assert {config.models.for_role(r).provider for r in ("planner", "coder", "critic")} == {"gemini"}


def test_both_keys_keep_the_configured_roles_and_no_keys_replay(tmp_path: Path) -> None:
    assert chosen(OPENAI_API_KEY="sk-x", GEMINI_API_KEY="AIza-x") == {}
    replay = chosen()
    assert {replay[f"ENSEMBLE_{r}_PROVIDER"] for r in ("PLANNER", "CODER", "CRITIC")} == {"scripted"}
    assert replay["ENSEMBLE_CRITIC_MODEL"].endswith("bot/ensemble/demo/transcript.jsonl")


def test_a_role_the_user_chose_is_left_alone() -> None:
    env = chosen(OPENAI_API_KEY="sk-x", ENSEMBLE_CRITIC_PROVIDER="gemini", ENSEMBLE_CRITIC_MODEL="gemini-2.5-pro")
    assert env["ENSEMBLE_CRITIC_PROVIDER"] == "gemini" and env["ENSEMBLE_CRITIC_MODEL"] == "gemini-2.5-pro"
    assert env["ENSEMBLE_CODER_PROVIDER"] == "openai"
