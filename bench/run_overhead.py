"""Wall time of `ensemble run` on the sample repository with an instant scripted model.

Everything except model latency: index, sandbox (Docker when an engine answers), git and
orchestration. "cold" is a fresh sample repository (no index, no insight store); "warm" re-runs on a
copy of it that keeps its index, insight store and the cached sandbox image.
Targets on the project's CI machine: cold <= 30 s, warm <= 10 s.

    .venv/bin/python bench/run_overhead.py [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.ensemble.demo import TASK_BODY, TASK_TITLE, TRANSCRIPT, create_sample_repo  # noqa: E402
from common.git import git  # noqa: E402


def one_run(repo: Path, env: dict[str, str]) -> float:
    """Seconds for one `ensemble run` (a new process, as a user runs it) on `repo`."""
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bot.cli", "run", "--repo", str(repo), "--task",
                           f"{TASK_TITLE}\n\n{TASK_BODY}", "--json"], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"ensemble run failed (exit {proc.returncode}):\n{proc.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="warm runs to take the median of")
    args = parser.parse_args()
    env = dict(os.environ, HF_HUB_OFFLINE="1")
    env.setdefault("ENSEMBLE_SANDBOX_IMAGE", "ensemble-base:bookworm")
    for role in ("PLANNER", "CODER", "CRITIC"):
        env[f"ENSEMBLE_{role}_PROVIDER"] = "scripted"
        env[f"ENSEMBLE_{role}_MODEL"] = str(TRANSCRIPT)
    with tempfile.TemporaryDirectory(prefix="ensemble-bench-") as tmp:
        first = create_sample_repo(Path(tmp) / "stats")
        cold = one_run(first, env)
        warm = []
        for i in range(args.runs):  # a copy of the checkout with its index, without the bot's branch
            repo = Path(tmp) / f"stats-{i}"
            shutil.copytree(first, repo, symlinks=True)
            for branch in git(repo, "branch", "--list", "ensemble/*", "--format=%(refname:short)").split():
                git(repo, "branch", "-D", branch)
            git(repo, "worktree", "prune", check=False)
            warm.append(one_run(repo, env))
    print(f"ensemble run on the sample repository (scripted model, 2 teams, {os.cpu_count()} CPUs)")
    print(f"  cold: {cold:6.2f} s   (target <= 30 s)")
    print(f"  warm: {statistics.median(warm):6.2f} s   median of {len(warm)}: "
          f"{', '.join(f'{w:.2f}' for w in warm)}   (target <= 10 s)")


if __name__ == "__main__":
    main()
