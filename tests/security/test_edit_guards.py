"""Edit blocks the coder writes are judged in code before a byte reaches the workspace.

The real engine (`run_task`) with scripted models, a file retriever and pytest on the host: a
5 MB edit block and a binary one are refused with a message that says why, the coder hears it,
the fix in the same reply still lands, and memory stays bounded.
"""

from __future__ import annotations

import subprocess
import tracemalloc
from pathlib import Path

from bot.config import Config, PathsSpec
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import RunResult, Task
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import ACCEPT, ENOUGH, FIX
from tests.ensemble.conftest import ScriptedModels

PLAN = {"summary": "Average the two middle values.", "files": ["stats/core.py"],
        "steps": ["Fix median() in stats/core.py"], "questions": []}
TASK = Task("median() is wrong for an even count", "tests/test_core.py::test_median_even fails.")
FIVE_MB = 5 * 1024 * 1024


def create(path: str, content: str) -> str:
    return f"{path}\n<<<<<<< SEARCH\n=======\n{content}\n>>>>>>> REPLACE"


def run(sample: Path, coder_reply: str, config: Config | None = None) -> tuple[RunResult, ScriptedModels]:
    models = ScriptedModels({("planner", "explore"): [ENOUGH], ("planner", "plan"): [PLAN],
                             ("coder", None): [coder_reply, "Nothing more to change."], ("critic", "review"): [ACCEPT]})
    parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest())
    return run_task(sample, TASK, config or Config(ensembles=1, max_iterations=1), {}, parts), models


def on_branch(repo: Path, branch: str, path: str) -> bool:
    return subprocess.run(["git", "cat-file", "-e", f"{branch}:{path}"], cwd=repo, capture_output=True).returncode == 0


def test_a_5_mb_edit_block_is_refused_with_a_clear_message_and_memory_stays_bounded(sample: Path) -> None:
    tracemalloc.start()
    try:
        result, models = run(sample, create("data/table.csv", "1,2,3\n" * (FIVE_MB // 6)) + "\n\n" + FIX)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.success, result.stop_detail
    assert not on_branch(sample, result.branch, "data/table.csv") and on_branch(sample, result.branch, "stats/core.py")
    assert any("data/table.csv: the new content is 5.0 MB, over the 1.0 MB limit (paths.max_file_kb)" in r
               for r in result.refused)
    follow_up = models.prompts[-2][1][-1].content  # the coder's follow-up turn says what was refused
    assert "data/table.csv" in follow_up and "over the 1.0 MB limit" in follow_up
    assert peak < 4 * FIVE_MB, f"peak {peak / 1e6:.0f} MB for a 5 MB block"  # 16 MB here; 128 MB split into lines


def test_the_size_limit_is_the_configs(sample: Path) -> None:
    config = Config(ensembles=1, max_iterations=1, paths=PathsSpec(max_file_kb=8))
    result, _ = run(sample, create("notes.txt", "x" * 10_000) + "\n\n" + FIX, config)
    assert any("notes.txt: the new content is 10 KB, over the 8 KB limit" in r for r in result.refused)
    assert not on_branch(sample, result.branch, "notes.txt")


def test_a_binary_edit_block_is_refused(sample: Path) -> None:
    result, _ = run(sample, create("bin/tool", "\x7fELF\x00\x00\x01payload") + "\n\n" + FIX)
    assert any("bin/tool: the new content is binary" in r for r in result.refused)
    assert not on_branch(sample, result.branch, "bin/tool") and result.success


def test_an_edit_through_a_committed_symbolic_link_is_refused(sample: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (sample / "vendor").symlink_to(outside)
    subprocess.run(["git", "add", "vendor"], cwd=sample, check=True)
    subprocess.run(["git", "commit", "-qm", "a link out of the repository"], cwd=sample, check=True)
    result, _ = run(sample, create("vendor/evil.py", "print('planted')") + "\n\n" + FIX)
    assert any("vendor/evil.py: vendor is a symbolic link" in r for r in result.refused), result.refused
    assert not list(outside.iterdir()) and result.success
