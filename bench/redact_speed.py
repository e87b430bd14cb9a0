"""How fast the one redactor masks 1 MB of text, against an earlier revision of it and detect-secrets.

The redactor runs on every trace line, log record, cached reply and comment, so its speed is a
run's speed. The text is what a run writes down: source lines, pytest output and model prose,
with a few secrets (token shapes and the values of secret variables) sprinkled in. Timed:

- `bot/redact.py` as it is now (the environment holds three secret variables, as a run's does);
- `bot/redact.py` at `--baseline REV` (loaded from git), when given;
- detect-secrets' default plugins scanning the same text as a file (`--detect-secrets PYTHON`: a
  Python that has `detect-secrets` installed, kept out of the project's environment). It only
  finds secrets; masking them would come on top, so its figure is a lower bound.

    .venv/bin/python bench/redact_speed.py [--baseline main] [--detect-secrets /tmp/ds/bin/python] [--runs 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SIZE = 1024 * 1024
ENV = {"DEPLOY_SECRET": "quietly7harbor2lantern9meadow", "SLACK_BOT_TOKEN": "cobalt4river8summit1willow",
       "DATABASE_PASSWORD": "amber6forest3tunnel5violet"}
LINES = (
    "def resolve(self, request, *args, **kwargs):  # follow redirects up to max_redirects",
    "tests/test_core.py::test_median_even FAILED                                  [ 40%]",
    "E       assert 3 == 2.5",
    "The plan: average the two middle values when the list has an even length, then test it.",
    "2024-05-01T12:00:00Z INFO bot.ensemble.team round 2: tests fail: test_median_even",
    "    return sorted(values)[len(values) // 2]",
    "url = 'https://api.example.com/v1/items?page=2&per_page=100'",
)
SECRETS = ("ghp_" + "A1b2" * 9, "sk-proj-" + "x9Y8" * 8, "xoxb-1234567890-abcdefABCDEF123456", *ENV.values(),
           "postgres://app:hunter2hunter2@db.internal:5432/app")


def sample_text(size: int = SIZE, seed: int = 7) -> str:
    """About `size` characters of run output with a secret every ~200 lines."""
    rng = random.Random(seed)
    lines: list[str] = []
    total = 0
    while total < size:
        line = rng.choice(LINES) if rng.random() > 0.005 else f"token = {rng.choice(SECRETS)!r}"
        lines.append(line)
        total += len(line) + 1
    return "\n".join(lines)[:size]


def load_redact(revision: str | None) -> ModuleType:
    """`bot/redact.py` as it is now, or at a git revision."""
    if revision is None:
        import bot.redact

        return bot.redact
    source = subprocess.run(["git", "show", f"{revision}:bot/redact.py"], cwd=ROOT, check=True, capture_output=True,
                            text=True).stdout
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(source)
    spec = importlib.util.spec_from_file_location(f"redact_at_{revision}", fh.name)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    os.unlink(fh.name)
    return module


def time_redactor(module: ModuleType, text: str, runs: int) -> tuple[float, int]:
    """Median seconds of `scrub(text)` over `runs`, and how many masks it put in."""
    times = []
    masked = ""
    for _ in range(runs):
        start = time.perf_counter()
        masked = module.scrub(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times), masked.count(module.MASK)


DETECT_SECRETS = """
import sys, time
from detect_secrets import SecretsCollection
from detect_secrets.settings import default_settings
with default_settings():
    times = []
    for _ in range(int(sys.argv[2])):
        secrets = SecretsCollection()
        start = time.perf_counter()
        secrets.scan_file(sys.argv[1])
        times.append(time.perf_counter() - start)
found = sum(len(v) for v in secrets.data.values())
print(sorted(times)[len(times) // 2], found)
"""


def time_detect_secrets(python: str, text: str, runs: int) -> tuple[float, int]:
    """Median seconds detect-secrets takes to scan `text` as a file, and how many secrets it found."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "sample.txt"
        path.write_text(text)
        out = subprocess.run([python, "-c", DETECT_SECRETS, str(path), str(runs)], check=True, capture_output=True,
                             text=True, cwd=tmp).stdout.split()
    return float(out[0]), int(out[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="a git revision whose bot/redact.py is timed too (e.g. main)")
    parser.add_argument("--detect-secrets", metavar="PYTHON", help="a Python with detect-secrets installed")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    os.environ.update(ENV)
    text = sample_text()
    print(f"text: {len(text):,} characters, {text.count(chr(10)) + 1:,} lines; median of {args.runs} runs")
    rows = [("bot/redact.py (this tree)", time_redactor(load_redact(None), text, args.runs))]
    if args.baseline:
        rows.append((f"bot/redact.py at {args.baseline}", time_redactor(load_redact(args.baseline), text, args.runs)))
    if args.detect_secrets:
        rows.append(("detect-secrets (scan only)", time_detect_secrets(args.detect_secrets, text, args.runs)))
    for name, (seconds, found) in rows:
        print(f"{name:<32} {seconds * 1000:9.1f} ms   {found:5d} found/masked")


if __name__ == "__main__":
    main()
