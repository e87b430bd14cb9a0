"""Runs in several processes on one checkout keep every lesson; a full disk loses none already kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from bot.ensemble.insights import InsightStore, Lesson

ROOT = Path(__file__).resolve().parents[2]
WRITER = """
import sys
from pathlib import Path
from bot.ensemble.insights import InsightStore, Lesson
store = InsightStore(Path(sys.argv[1]), limit=10_000)
for n in range(int(sys.argv[3])):
    store.add(Lesson(task=f"{sys.argv[2]}-{n}", outcome="accepted", worked="x" * 2000))
"""
# Like the writer above, but every file it writes may hold at most 64 KiB (RLIMIT_FSIZE): a full disk.
FULL_DISK_WRITER = """
import resource, signal, sys
from pathlib import Path
from bot.ensemble.insights import InsightStore, Lesson
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of killing us
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
kept = InsightStore(Path(sys.argv[1])).add(Lesson(task="too big", outcome="accepted", worked="y" * 200_000))
print("kept" if kept else "dropped")
"""


def _python(script: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", script, *args], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_four_processes_adding_lessons_at_once_lose_none(tmp_path: Path) -> None:
    path = tmp_path / ".ensemble" / "insights.jsonl"
    writers = [_python(WRITER, str(path), f"run{w}", "25") for w in range(4)]
    for writer in writers:
        _, err = writer.communicate(timeout=120)
        assert writer.returncode == 0, err
    tasks = [lesson.task for lesson in InsightStore(path).load()]
    assert sorted(tasks) == sorted(f"run{w}-{n}" for w in range(4) for n in range(25))
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_a_full_disk_drops_the_new_lesson_and_keeps_the_old_ones(tmp_path: Path) -> None:
    path = tmp_path / ".ensemble" / "insights.jsonl"
    InsightStore(path).add(Lesson(task="earlier run", outcome="accepted"))
    before = path.read_text()
    writer = _python(FULL_DISK_WRITER, str(path))
    out, err = writer.communicate(timeout=60)
    assert writer.returncode == 0 and out.strip() == "dropped", err
    assert "could not keep this run's lesson" in err
    assert path.read_text() == before
    assert [json.loads(line)["task"] for line in before.splitlines()] == ["earlier run"]
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []
