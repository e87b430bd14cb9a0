"""Commands that need the engine extra say in one line how to install it (exit 2) when it is missing."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.cli import main
from bot.extras import engine_missing_message, missing_engine_modules


def test_the_full_install_has_the_engine() -> None:
    assert missing_engine_modules() == [] and engine_missing_message() == ""


@pytest.mark.parametrize("argv", [["index"], ["search", "--query", "add"], ["run", "--task", "fix add"]])
def test_engine_commands_without_the_extra_exit_2_with_the_install_line(
        argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.setattr("bot.extras.ENGINE_MODULES", ("json", "no_such_engine_module"))
    assert main([*argv, "--repo", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("error: the engine extra is not installed (no no_such_engine_module): "
                   "pip install 'ensemble-bot[engine]' (from a clone: bash scripts/setup.sh)")
