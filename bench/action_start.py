"""Wall time from a clean virtual environment to the bot's reply to `/ensemble help`.

What the Action does on a runner without a cached environment: `python -m venv`, `pip install`
of this package (the core alone, or with torch first and then the `engine` extra), then
`ensemble handle-event` on an `issue_comment` event, answered against the fake GitHub of
fakes/ over localhost HTTP. Four cases: core or full install, with a warm pip cache (one
primed by an untimed full install) or a cold one (a fresh, empty PIP_CACHE_DIR; pip then
fetches everything from its configured indexes, torch from the on-disk CPU wheel).

    .venv/bin/python bench/action_start.py [--runs 1] [--out bench/results/action_start.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# bench/ itself off the path: bench/sandbox.py would shadow the `sandbox` package (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from fakes.github_hub import BUGGY, REPO, Hub  # noqa: E402
from fakes.github_server import FakeGitHub  # noqa: E402

SOURCES = ("pyproject.toml", "README.md", "LICENSE", "bot", "actions", "indexer", "sandbox", "common", "fakes")
TORCH = os.environ.get("ENSEMBLE_TORCH_SPEC", "torch==2.13.0")
KEEP_ENV = ("PATH", "HOME", "LANG", "TMPDIR", "SSL_CERT_FILE", "PIP_CERT", "PIP_FIND_LINKS", "PIP_DEFAULT_TIMEOUT",
            "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE", "PIP_DISABLE_PIP_VERSION_CHECK")


def copy_sources(dest: Path) -> Path:
    """The package's files as the Action checks them out (no caches, no build leftovers)."""
    dest.mkdir(parents=True, exist_ok=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".ensemble", "*.egg-info")
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=ignore)
        elif source.exists():
            shutil.copy2(source, dest / name)
    return dest


def base_env(pip_cache: Path | None = None) -> dict[str, str]:
    """A clean environment for pip and the bot: no GitHub or model variables from this process."""
    env = {k: v for k, v in os.environ.items() if k in KEEP_ENV}
    if pip_cache is not None:
        env["PIP_CACHE_DIR"] = str(pip_cache)
    return env


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    return time.perf_counter() - started


def build_venv(venv: Path, source: Path, engine: bool, env: dict[str, str]) -> dict[str, float]:
    """Create `venv` and install the package into it, as action.yml does; seconds per step."""
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    times = {"venv_s": _timed([sys.executable, "-m", "venv", str(venv)], env)}
    if engine:  # torch first: sentence-transformers would otherwise pull a CUDA build
        times["torch_s"] = _timed([*pip, TORCH], env)
        times["install_s"] = _timed([*pip, f"{source}[engine]"], env)
    else:
        times["install_s"] = _timed([*pip, str(source)], env)
    return times


def populate(fake: FakeGitHub) -> None:
    """One repository with issue #1 and a writer, alice."""
    fake.add_repo(REPO, {"calc.py": BUGGY})
    fake.add_issue(REPO, "add() subtracts", "add(2, 3) returns -1; it should return 5.", user="alice")
    fake.set_permission(REPO, "alice", "write")


def handle_comment(venv: Path, fake: FakeGitHub, work: Path, body: str,
                   env: dict[str, str]) -> tuple[float, subprocess.CompletedProcess[str], Path]:
    """`ensemble handle-event` of the venv on a new comment `body` on issue #1: seconds, the process, outputs."""
    hub = Hub(fake, work, engine=None)  # type: ignore[arg-type] # the venv's own engine, if any, is used
    event_env = env | hub.env("issue_comment", hub.comment(1, body))
    started = time.perf_counter()
    proc = subprocess.run([str(venv / "bin" / "ensemble"), "handle-event"], env=event_env, capture_output=True,
                          text=True, timeout=300)
    return time.perf_counter() - started, proc, hub.outputs


def replied_with_help(fake: FakeGitHub) -> bool:
    comments = fake.comments_on(REPO, 1)
    return bool(comments) and "**ensemble commands**" in comments[-1]["body"]


def one_case(engine: bool, pip_cache: Path, tmp: Path) -> dict[str, float]:
    """One clean venv to one help reply; the figures in seconds."""
    source = copy_sources(tmp / "src")
    env = base_env(pip_cache)
    started = time.perf_counter()
    times = build_venv(tmp / "venv", source, engine, env)
    (tmp / "github").mkdir()
    with FakeGitHub(tmp / "github") as fake:
        populate(fake)
        times["reply_s"], proc, _ = handle_comment(tmp / "venv", fake, tmp, "/ensemble help", env)
        if proc.returncode != 0 or not replied_with_help(fake):
            raise RuntimeError(f"no help reply (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    times["total_s"] = time.perf_counter() - started
    return times


def run_cases(runs: int, scratch: Path) -> dict[str, dict[str, float]]:
    warm_cache = scratch / "warm-pip-cache"
    one_case(True, warm_cache, Path(tempfile.mkdtemp(dir=scratch)))  # primes the warm cache (untimed)
    figures: dict[str, dict[str, float]] = {}
    for cache in ("warm", "cold"):
        for install in ("core", "full"):
            samples = []
            for _ in range(runs):
                pip_cache = warm_cache if cache == "warm" else Path(tempfile.mkdtemp(dir=scratch))
                samples.append(one_case(install == "full", pip_cache, Path(tempfile.mkdtemp(dir=scratch))))
                print(f"  {install:4} / {cache} cache: {samples[-1]['total_s']:.1f} s", file=sys.stderr)
            figures[f"{install}/{cache}"] = {k: round(statistics.median(s[k] for s in samples), 2)
                                             for k in samples[0]}
    return figures


def table(figures: dict[str, dict[str, float]]) -> str:
    lines = ["| install / pip cache | venv s | torch s | pip install s | reply s | total s |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for case, f in figures.items():
        torch = f"{f['torch_s']:.1f}" if "torch_s" in f else "-"
        lines.append(f"| {case} | {f['venv_s']:.1f} | {torch} | {f['install_s']:.1f} | {f['reply_s']:.2f} | "
                     f"{f['total_s']:.1f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="samples per case (the median is reported)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "action_start.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ensemble-action-start-") as scratch:
        figures = run_cases(args.runs, Path(scratch))
    print(table(figures))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"python": platform.python_version(), "cpus": os.cpu_count(), "runs": args.runs,
                                    "torch": TORCH, "figures": figures}, indent=2) + "\n")
    print(f"figures saved to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
