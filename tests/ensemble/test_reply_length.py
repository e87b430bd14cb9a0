"""The coder's reply no longer than its change: under `auto` each file in the form that is shorter to write (a small
file whole, edit blocks in a large one), and each reply capped by what its round can need (bot/ensemble/coder)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.ensemble.coder import BLOCKS, MIXED, WHOLE, Brief, Coder, write_change
from bot.ensemble.coder.formats import WHOLE_MAX_TOKENS
from bot.ensemble.policy import for_round, other_format
from bot.ensemble.types import Exploration, Plan, Task
from bot.forge.local import LocalForge
from common.tokens import estimate_tokens
from tests.ensemble.conftest import ScriptedModels

SMALL = "def double(x):\n    return x + x\n"
BIG = "".join(f"def value_{n}(x):\n    \"\"\"Value number {n}.\"\"\"\n    return x * {n}\n\n\n" for n in range(150))
SMALL_FIXED = "def double(x):\n    return 2 * x\n\n\ndef triple(x):\n    return 3 * x\n"
BIG_BLOCK = ("pkg/big.py\n<<<<<<< SEARCH\ndef value_7(x):\n    \"\"\"Value number 7.\"\"\"\n    return x * 7\n=======\n"
             "def value_7(x):\n    \"\"\"Value number 7.\"\"\"\n    return 7 * x\n>>>>>>> REPLACE\n")
TASK = Task("double and value_7", "Write 2 * x in double, add triple, and 7 * x in value_7.", slug="values")
PLAN = Plan("Change both files.", files=("pkg/small.py", "pkg/big.py"), steps=("edit double", "edit value_7"))


def test_the_files_are_one_small_and_one_large_by_the_cost_rule() -> None:
    assert estimate_tokens(SMALL) <= WHOLE_MAX_TOKENS < estimate_tokens(BIG)


@pytest.fixture
def workspace(tmp_path: Path):  # noqa: ANN201 - a GitWorkspace
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    (repo / "pkg" / "small.py").write_text(SMALL)
    (repo / "pkg" / "big.py").write_text(BIG)
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base"]):
        subprocess.run(["git", *args], cwd=repo, check=True)
    forge = LocalForge(repo, "reply-length")
    forge.start("values")
    try:
        yield forge.workspace("a")
    finally:
        forge.cleanup()


def _round(workspace, edit_format, reply: str) -> ScriptedModels:  # noqa: ANN001
    models = ScriptedModels({("coder", None): [reply]})
    edits = write_change(Coder(models, "a", TASK, workspace), Brief(PLAN, Exploration(), edit_format=edit_format), {})
    assert not edits.failures, edits.failures
    return models


def test_under_auto_a_small_file_comes_back_whole_a_large_one_as_blocks_and_both_apply(workspace) -> None:  # noqa: ANN001
    reply = f"double adds, value_7 multiplies the other way.\n\npkg/small.py\n```python\n{SMALL_FIXED}```\n\n{BIG_BLOCK}"
    models = _round(workspace, MIXED, reply)
    assert (workspace.path / "pkg" / "small.py").read_text() == SMALL_FIXED
    assert (workspace.path / "pkg" / "big.py").read_text() == BIG.replace("return x * 7\n", "return 7 * x\n")
    system, asked = models.prompts[0][1][0].content, models.prompts[0][1][-1].content
    # the split names the round's files, so it is said after the task, not in the system prompt every round shares
    assert "pkg/small.py whole (its path on its own line" in asked
    assert "pkg/big.py with an edit block for each change (" in asked
    assert "pkg/small.py" not in system


def test_a_large_file_sent_whole_anyway_still_applies(workspace) -> None:  # noqa: ANN001
    """The rules ask for blocks, but a whole listing of a file shown whole is a correct change: it is not refused."""
    big_fixed = BIG.replace("return x * 7\n", "return 7 * x\n")
    _round(workspace, MIXED, f"pkg/big.py\n```python\n{big_fixed}```\n")
    assert (workspace.path / "pkg" / "big.py").read_text() == big_fixed


def test_a_reply_is_capped_by_what_its_round_can_need(workspace) -> None:  # noqa: ANN001
    """Whole files: both files at their size, with room to grow; `auto`: the large file at a bound for its blocks,
    less than its size; blocks: each file at a bound for its blocks. Each is more than the change it asks for, and
    all are below the configured output cap (the scripted model's 4096)."""
    caps = {}
    for fmt, reply in ((WHOLE, f"pkg/small.py\n```python\n{SMALL_FIXED}```\n"), (MIXED, BIG_BLOCK), (BLOCKS, BIG_BLOCK)):
        workspace.discard()
        caps[fmt.name] = _round(workspace, fmt, reply).caps[0]
    assert caps["mixed"] < estimate_tokens(BIG) < caps["whole"]
    assert estimate_tokens(BIG_BLOCK) + estimate_tokens(SMALL_FIXED) < caps["mixed"]
    assert caps["blocks"] < caps["whole"] < 4096


def test_auto_alternates_between_files_by_their_cost_and_edit_blocks() -> None:
    assert [for_round("auto", misses).name for misses in range(4)] == ["mixed", "blocks", "mixed", "blocks"]
    assert other_format(BLOCKS, "auto") is MIXED and other_format(MIXED, "auto") is BLOCKS
    assert [for_round("alternate", misses).name for misses in range(2)] == ["whole", "blocks"]  # as before
