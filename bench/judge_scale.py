#!/usr/bin/env python
"""What the judge adds to one test process as a suite grows: a pytest repository of N tests, run three ways.

- `pytest`: the repository's own command on a copy of the tree, outside any sandbox (what its developers wait for);
- `sandboxed`: the same through the local sandbox (a fresh copy, limits, the sandbox's hooks loaded but nothing
  judged): what any run of the bot's costs;
- `judged`: the base run (`run_base`: known-answer checks planted, the judge's files guarded, reads traced, the
  suite listed), the process every judged run of a round is like.

Each suite is N tests in files of 50 (functions and a parametrized test, each an assertion of an equality, as most
suites are), over a small package; one of them fails, as a base's test does before its fix. Prints, per size, the
median wall seconds of each way and what the judge adds per test:

    .venv/bin/python bench/judge_scale.py [--sizes 3 100 1000] [--runs 5] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]  # bench/sandbox.py shadows
sys.path.insert(0, str(ROOT))

from bot.ensemble.adapters import SandboxRunner  # noqa: E402
from bot.ensemble.judge import run_base  # noqa: E402
from bot.forge.local import GitWorkspace  # noqa: E402
from common.git import git  # noqa: E402
from sandbox.local import LocalSandbox  # noqa: E402
from sandbox.model import SandboxSpec  # noqa: E402

COMMAND = "python -m pytest -q -p no:cacheprovider"
PER_FILE = 50
OPS = ("def add(a, b):\n    return a + b\n\n\ndef scale(xs, k):\n    return [x * k for x in xs]\n\n\n"
       "def words(text):\n    return text.split()\n")


def suite(size: int) -> dict[str, str]:
    """The files of a repository whose tests number `size`, the last of them failing."""
    files = {"calc/__init__.py": "", "calc/ops.py": OPS, "tests/__init__.py": ""}
    for start in range(0, size, PER_FILE):
        count = min(PER_FILE, size - start)
        plain, table = (count + 1) // 2, count // 2
        lines = ["import pytest\n\nfrom calc.ops import add, scale, words\n"]
        for i in range(start, start + plain):
            wrong = " + 1" if i == size - 1 else ""
            lines.append(f"\n\ndef test_add_{i}():\n    assert add({i}, 2) == {i + 2}{wrong}\n"
                         f"    assert scale([{i}], 2) == [{2 * i}]\n")
        if table:
            rows = ", ".join(f"({i}, 'w{i} x')" for i in range(start + plain, start + count))
            lines.append(f"\n\n@pytest.mark.parametrize(('n', 'text'), [{rows}])\n"
                         f"def test_words_{start}(n, text):\n    assert words(text) == [f'w{{n}}', 'x']\n")
        files[f"tests/test_part{start // PER_FILE:03d}.py"] = "".join(lines)
    return files


def repository(folder: Path, size: int) -> Path:
    repo = folder / f"suite-{size}"
    for rel, text in suite(size).items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "base")
    return repo


def timed(call) -> float:  # type: ignore[no-untyped-def]
    started = time.perf_counter()
    call()
    return time.perf_counter() - started


def measure(repo: Path, runs: int) -> dict[str, float]:
    local = LocalSandbox(env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    runner = SandboxRunner(local, SandboxSpec(setup="", test=f"PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 {COMMAND}",
                                              timeout_s=600))
    workspace = GitWorkspace(repo, "main")
    copy = repo.parent / f"{repo.name}-copy"
    shutil.copytree(repo, copy)
    bare = [sys.executable, *COMMAND.split()[1:]]
    environment = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1",
                   "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    ways = {
        "pytest": lambda: subprocess.run(bare, cwd=copy, env=environment, capture_output=True),
        "sandboxed": lambda: runner.run_tests(repo),
        "judged": lambda: run_base(runner, workspace),
    }
    for call in ways.values():  # warm: the sandbox's environment, the file cache
        call()
    samples: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(runs):  # interleaved, so a busy moment of the machine falls on every way alike
        for way, call in ways.items():
            samples[way].append(timed(call))
    return {way: round(statistics.median(times), 3) for way, times in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 100, 1000])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="judge-scale-") as tmp:
        for size in args.sizes:
            figures = measure(repository(Path(tmp), size), args.runs)
            per_test = (figures["judged"] - figures["sandboxed"]) / size * 1000
            rows.append({"tests": size, **figures, "judge_ms_per_test": round(per_test, 2)})
            print(f"{size:5d} tests: pytest {figures['pytest']:.2f} s, sandboxed {figures['sandboxed']:.2f} s, "
                  f"judged {figures['judged']:.2f} s; the judge adds {figures['judged'] - figures['sandboxed']:.2f} s "
                  f"({per_test:.2f} ms a test)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
