"""Secrets never enter the sandbox: a test command that prints its whole environment shows no key or token.

The local sandbox (the weaker fallback; the Docker backend builds its environment the same way,
from `sandbox.scripts.command_env`, and is covered in tests/sandbox) started from an environment
that holds the model keys, the GitHub token and a config-declared secret.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import LocalSandbox, SandboxSpec
from tests.sandbox.conftest import write_sample
from tests.security.conftest import CANARIES

SECRETS = {**CANARIES, "GEMINI_API_KEY": "AIzaCanaryGeminiKey0123456789abcdefghij", "GH_TOKEN": "ghs_" + "C" * 36}


def test_no_secret_variable_reaches_a_test_commands_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    local = LocalSandbox(cache_dir=tmp_path / "envs")
    env = local.prepare(write_sample(tmp_path / "repo"), SandboxSpec(setup="env", timeout_s=30, memory="1g"))
    result = local.run(env, "env; echo printed")
    assert "printed" in result.stdout and "PATH=" in result.stdout
    assert not [name for name, value in SECRETS.items() if value in result.stdout + result.stderr]
