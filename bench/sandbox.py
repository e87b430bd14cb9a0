#!/usr/bin/env python
"""Sandbox benchmark: container overhead over the bare host, cold vs cached setup, start latency.

Generates a sample repository with a ~5 s pytest suite (50 tests, each busy for 0.1 s) in a
temporary directory, then measures, with the Docker engine the environment points at:
  - the suite in a container (cached environment) vs directly on the host: median of --runs each;
  - `prepare` cold (environment image removed first) vs cached (dependencies unchanged);
  - container start latency: create + start + remove of a bare container, and a full `run` of `true`.
Targets: a cached-environment run adds <= 1.5 s over the bare host; a second `prepare` <= 2 s.

    .venv/bin/python bench/sandbox.py [--runs 5] [--image ensemble-base:bookworm] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# this script's folder off the path: as `sandbox` it would shadow the package it measures (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox import DockerSandbox, SandboxSpec  # noqa: E402
from sandbox.images import BASE_IMAGE  # noqa: E402
from sandbox.ownership import labels, remove_container  # noqa: E402

TEST_MODULE = '''\
import time

import pytest


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.mark.parametrize("n", range(10))
def test_work(n):
    busy(0.1)
    assert n >= 0
'''


def make_sample(root: Path) -> Path:
    """A repository with five test modules of ten 0.1 s tests: about 5 s of pytest."""
    (root / "tests").mkdir(parents=True)
    (root / "requirements.txt").write_text("# no third-party dependencies\n")
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    for i in range(5):
        (root / "tests" / f"test_part{i}.py").write_text(TEST_MODULE)
    return root


def timed(action) -> tuple[float, object]:
    started = time.perf_counter()
    value = action()
    return time.perf_counter() - started, value


def median_of(runs: int, action) -> tuple[float, list[float]]:
    samples = [timed(action)[0] for _ in range(runs)]
    return statistics.median(samples), samples


def host_run(repo: Path) -> None:
    env = {"PATH": os.environ["PATH"], "PYTHONDONTWRITEBYTECODE": "1"}
    code = subprocess.run([sys.executable, "-m", "pytest", "-q"], cwd=repo, env=env, capture_output=True).returncode
    assert code == 0, "the sample suite failed on the host"


def bare_start(client, image: str) -> None:
    container = client.containers.create(image, entrypoint=["true"], labels=labels("bench"), network_mode="none")
    try:
        container.start()
        container.wait()
    finally:
        remove_container(container)


def measure(runs: int, image: str) -> dict[str, object]:
    sandbox = DockerSandbox(env={})
    with tempfile.TemporaryDirectory(prefix="ensemble-bench-") as tmp:
        repo = make_sample(Path(tmp) / "sample")
        spec = SandboxSpec(image=image, cpus=2.0, memory="2g")
        cold = []
        for _ in range(max(1, runs // 2)):
            env = sandbox.prepare(repo, spec)
            if env.image != image:
                sandbox.client.images.remove(env.image, force=True)
            seconds, env = timed(lambda: sandbox.prepare(repo, spec))
            assert not env.cached
            cold.append(seconds)
        cached, cached_samples = median_of(runs, lambda: sandbox.prepare(repo, spec))
        host, host_samples = median_of(runs, lambda: host_run(repo))

        def container_run() -> None:
            result = sandbox.run(env, env.test_command)
            assert result.ok and len(result.tests) == 50, result.stdout[-2000:]

        box, box_samples = median_of(runs, container_run)
        noop, _ = median_of(runs, lambda: sandbox.run(env, "true"))
        start, _ = median_of(runs, lambda: bare_start(sandbox.client, env.image))
    return {
        "runs": runs, "image": image,
        "host_suite_s": round(host, 3), "container_suite_s": round(box, 3),
        "ratio": round(box / host, 3), "added_s": round(box - host, 3),
        "prepare_cold_s": round(statistics.median(cold), 3), "prepare_cached_s": round(cached, 4),
        "container_start_s": round(start, 3), "run_true_s": round(noop, 3),
        "samples": {"host": [round(s, 3) for s in host_samples], "container": [round(s, 3) for s in box_samples],
                    "prepare_cold": [round(s, 3) for s in cold],
                    "prepare_cached": [round(s, 4) for s in cached_samples]},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="samples per figure (median reported; >= 5)")
    parser.add_argument("--image", default=os.environ.get("ENSEMBLE_BASE_IMAGE", BASE_IMAGE))
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    figures = measure(args.runs, args.image)
    if args.json:
        print(json.dumps(figures, indent=2))
        return 0
    print(f"sample: 50 pytest tests x 0.1 s, image {args.image}, median of {args.runs}")
    print(f"suite on the host            {figures['host_suite_s']:>7.2f} s")
    print(f"suite in a container         {figures['container_suite_s']:>7.2f} s   ratio {figures['ratio']:.2f}, "
          f"+{figures['added_s']:.2f} s (target <= 1.5 s)")
    print(f"prepare, cold                {figures['prepare_cold_s']:>7.2f} s")
    print(f"prepare, cached              {figures['prepare_cached_s']:>7.3f} s   (target <= 2 s)")
    print(f"container start (bare)       {figures['container_start_s']:>7.2f} s")
    print(f"sandbox run of `true`        {figures['run_true_s']:>7.2f} s   (create, start, copy in, exec, remove)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
