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


def test_a_bad_config_is_exit_2_with_every_problem_named(repo, capsys: pytest.CaptureFixture[str]) -> None:
    (repo / ".github").mkdir()
    (repo / ".github" / "ensemble.yml").write_text("max_iteratons: 3\nensembles: two\nbudget_usd: -1\n")
    assert main(["run", "--repo", str(repo), "--task", "fix the bug"]) == 2
    err = capsys.readouterr().err
    assert "ensemble.yml:1: max_iteratons: unknown key; did you mean 'max_iterations'?" in err
    assert "ensemble.yml:2: ensembles: expected a whole number, got a string 'two'" in err
    assert "ensemble.yml:3: budget_usd: -1 is below the minimum 0.0" in err


def test_run_outside_a_git_checkout_is_bad_usage(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--repo", str(tmp_path), "--task", "x"]) == 2
    assert "is not a git checkout" in capsys.readouterr().err
