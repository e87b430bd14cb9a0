"""bench/ runs from the packages alone: a copy of the tree without tests/ starts every benchmark and runs one.

The fakes the benchmarks share with the tests live in `fakes/`, a package like the others; an import of
`tests` in a bench script fails here as it would from an installed package (the import graph in
tests/test_imports.py says the same without running anything).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("bot", "actions", "sandbox", "indexer", "common", "fakes")
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if "__main__" in p.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def without_tests(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The packages and bench/'s modules, copied without tests/ (and without the benchmark's task repositories)."""
    root = tmp_path_factory.mktemp("no-tests")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ensemble")
    for package in PACKAGES:
        shutil.copytree(ROOT / package, root / package, ignore=ignore)
    (root / "bench").mkdir()
    for module in (ROOT / "bench").glob("*.py"):  # the scripts and the modules they load by file
        shutil.copy2(module, root / "bench" / module.name)
    return root


def bench(root: Path, script: str, *args: str, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    """`python bench/<script> ARGS` in `root`, with nothing of this checkout on the import path."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run([sys.executable, f"bench/{script}", *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_copy_has_the_benchmarks_and_no_tests(without_tests: Path) -> None:
    assert {"load.py", "action_start.py"} <= set(SCRIPTS)
    assert not (without_tests / "tests").exists()


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_starts_without_tests(without_tests: Path, script: str) -> None:
    result = bench(without_tests, script, "--help")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith(f"usage: {script}")


@pytest.mark.slow
def test_the_load_benchmark_runs_without_tests(without_tests: Path) -> None:
    result = bench(without_tests, "load.py", "--issues", "1", "--duplicates", "0", "--queued", "0", "--json",
                   timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    figures = json.loads(result.stdout)
    assert figures["problems"] == [] and figures["results"] == {"pr-opened": 1}
    assert figures["pull_requests"] == 1
