"""The CLI's exit codes and error reporting."""

from __future__ import annotations

import subprocess
import sys

import pytest

from bot.cli import main, report_error


def test_no_command_prints_usage_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: ensemble" in capsys.readouterr().err


def test_unknown_command_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["frobnicate"]) == 2
    assert "invalid choice: 'frobnicate'" in capsys.readouterr().err


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "doctor" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert "ensemble-bot" in capsys.readouterr().out


def test_errors_become_annotations_inside_github_actions(monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    report_error("a.yml:1: x: bad\na.yml:2: y: 100% bad")
    captured = capsys.readouterr()
    assert captured.err.startswith("error: a.yml:1: x: bad")
    assert captured.out == "::error::a.yml:1: x: bad%0Aa.yml:2: y: 100%25 bad\n"


def test_console_script_is_installed_and_runs() -> None:
    result = subprocess.run([sys.executable, "-m", "bot.cli", "--version"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("ensemble-bot ")
