"""`ensemble verify` on a local checkout: a branch judged against its merge base in the Docker sandbox, as
`/ensemble verify` judges a pull request (tests/actions/test_verify.py), printed for a terminal or as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from sandbox.images import BASE_IMAGE
from tests.conftest import git

CALC = "def add(a, b):\n    return a - b\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def branch(repo: Path) -> None:
    """A repository whose main has a bug, and a branch `fix` that fixes it with a test that passes without the fix."""
    for name, text in {"calc.py": CALC, "tests/test_calc.py": TESTS,
                       ".github/ensemble.yml": f"sandbox: {{image: {BASE_IMAGE}, require_docker: true}}\n"}.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "checkout", "-qb", "fix")
    (repo / "calc.py").write_text(CALC.replace("a - b", "a + b"))
    (repo / "tests/test_zero.py").write_text("from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "fix add")
    git(repo, "checkout", "-q", "main")


@pytest.mark.docker
@pytest.mark.slow
def test_a_branch_is_verified_against_its_merge_base_and_the_checkout_is_left_alone(
        repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    branch(repo)
    assert main(["verify", "--repo", str(repo), "--base", "main", "--head", "fix", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["judgement"]["fixed"] == ["tests/test_calc.py::test_add"]
    assert result["new"] == [{"name": "tests/test_zero.py::test_zero", "at_base": "pass", "at_head": "pass"}]
    assert result["usage"]["calls"] == 0 and result["test_runs"] >= 3
    assert git(repo, "status", "--porcelain") == "" and git(repo, "branch", "--show-current").strip() == "main"
    assert git(repo, "worktree", "list").count("\n") == 1  # its worktrees are gone


def test_an_unknown_branch_is_bad_usage_that_says_how_to_fetch_it(repo: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", "--repo", str(repo), "--base", "main", "--head", "their-branch"]) == 2
    assert "--head their-branch: no such branch or commit" in capsys.readouterr().err
