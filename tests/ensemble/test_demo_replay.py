"""The demo without keys: `ensemble run` replays the shipped transcript and says so, never passing it off as live."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from bot.ensemble.demo import TASK_BODY, TASK_TITLE, TRANSCRIPT, create_sample_repo

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def test_the_shipped_transcript_fixes_the_sample_and_is_labelled_replayed(tmp_path: Path, monkeypatch,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    repo = create_sample_repo(tmp_path / "stats")
    task = tmp_path / "task.txt"
    task.write_text(f"{TASK_TITLE}\n\n{TASK_BODY}\n")
    monkeypatch.setenv("ENSEMBLE_SANDBOX_IMAGE", "ensemble-base:bookworm")
    for role in ("PLANNER", "CODER", "CRITIC"):
        monkeypatch.setenv(f"ENSEMBLE_{role}_PROVIDER", "scripted")
        monkeypatch.setenv(f"ENSEMBLE_{role}_MODEL", str(TRANSCRIPT))

    assert main(["run", "--repo", str(repo), "--task-file", str(task), "--json", "--no-cache"]) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)
    assert result["success"] and result["replayed"] is True and result["branch"].startswith("ensemble/")
    assert "REPLAYED from a scripted transcript" in err
    assert "Loading weights" not in err  # the model loader's own progress bar stays out of the live view
    assert main(["report", result["trace"]]) == 0  # the summary names the trace, and the report reads it
    assert "sandbox.run" in capsys.readouterr().out

    assert main(["run", "--repo", str(repo), "--task-file", str(task), "--no-cache"]) in (0, 1)
    summary = capsys.readouterr().out
    assert "REPLAYED from a scripted transcript, not live" in summary
