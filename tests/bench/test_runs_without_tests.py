"""bench/ runs from the installed package alone: with bench/'s files and no tests/, every benchmark starts.

The fakes the benchmarks share with the tests live in `fakes/`, packaged with the others (pyproject.toml).
Here the package is installed by pip into a folder of its own, as a user's environment would hold it,
and bench/ is copied alone beside nothing: an import of `tests`, a package pyproject leaves out, a data
file it does not ship or a bench module shadowing an installed package fails here (the import graph in
tests/test_imports.py says the first without running anything).
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
SOURCES = ("pyproject.toml", "README.md", "bot", "actions", "sandbox", "indexer", "common", "fakes")
SCRIPTS = sorted(p.name for p in (ROOT / "bench").glob("*.py") if "__main__" in p.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(site, checkout): the package installed by pip in `site`; bench/'s modules alone in `checkout`."""
    root = tmp_path_factory.mktemp("installed")
    source, site, checkout = root / "source", root / "site", root / "checkout"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ensemble", "*.egg-info", "build")
    source.mkdir()
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        copy(ROOT / name, source / name, **({"ignore": ignore} if (ROOT / name).is_dir() else {}))
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
                          "--no-index", "--target", str(site), str(source)], capture_output=True, text=True,
                         timeout=300)
    assert pip.returncode == 0, pip.stdout[-2000:] + pip.stderr[-2000:]
    (checkout / "bench").mkdir(parents=True)
    for module in (ROOT / "bench").glob("*.py"):  # the scripts and the modules they load by file
        shutil.copy2(module, checkout / "bench" / module.name)
    return site, checkout


def bench(installed: tuple[Path, Path], script: str, *args: str, timeout: int = 60) -> subprocess.CompletedProcess[str]:
    """`python bench/<script> ARGS` in the checkout of bench/ alone, the installed package on the path."""
    site, checkout = installed
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"PYTHONPATH": str(site)}
    return subprocess.run([sys.executable, f"bench/{script}", *args], cwd=checkout, env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_the_package_ships_the_fakes_and_the_checkout_has_no_tests(installed: tuple[Path, Path]) -> None:
    site, checkout = installed
    assert (site / "fakes" / "github_server.py").is_file()
    assert (site / "fakes" / "webhooks" / "issue_comment.json").is_file()  # the hub's payloads are package data
    assert not (site / "tests").exists() and not (checkout / "tests").exists()
    assert {"load.py", "action_start.py"} <= set(SCRIPTS)


@pytest.mark.parametrize("script", SCRIPTS)
def test_every_benchmark_starts_without_tests(installed: tuple[Path, Path], script: str) -> None:
    result = bench(installed, script, "--help")
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.startswith(f"usage: {script}")


@pytest.mark.slow
def test_the_load_benchmark_runs_without_tests(installed: tuple[Path, Path]) -> None:
    result = bench(installed, "load.py", "--issues", "1", "--duplicates", "1", "--queued", "1", "--json",
                   timeout=300)
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    figures = json.loads(result.stdout)
    assert figures["problems"] == [] and figures["results"] == {"pr-opened": 1, "exists": 1, "revised": 1}
    assert figures["pull_requests"] == 1
