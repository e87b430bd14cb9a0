"""`scripts/demo.sh --lang`: the language samples, their transcripts, and the choice of language."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from bot.ensemble.demo.languages import SAMPLES, create_language_sample
from bot.llm.scripted import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]


def test_an_unknown_language_is_refused_before_any_set_up() -> None:
    result = subprocess.run(["bash", "scripts/demo.sh", "--lang", "cobol"], cwd=ROOT, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 2
    assert "no demo for --lang 'cobol'; choose python, go, rust, js or c" in result.stderr


@pytest.mark.parametrize("language", sorted(SAMPLES))
def test_each_sample_commits_its_bug_and_its_transcript_loads(language: str, tmp_path: Path) -> None:
    sample = create_language_sample(language, tmp_path / language)
    log = subprocess.run(["git", "log", "--format=%s", "main"], cwd=tmp_path / language, capture_output=True,
                         text=True, check=True).stdout
    assert log.strip() == f"Sample: stats helpers in {language}"
    assert sample.failing_test in sample.task
    entries = ScriptedChatModel.from_file(sample.transcript)._entries
    fix = next(e["reply"] for e in entries if e.get("match") == "Implement the plan")
    path, search = fix.split("\n", 2)[0], fix.split("<<<<<<< SEARCH\n", 1)[1].split("\n=======", 1)[0]
    assert search in (tmp_path / language / path).read_text()  # the scripted fix applies to the sample


def test_the_demo_replays_the_chosen_languages_transcript() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ENSEMBLE_", "OPENAI_", "GEMINI_", "GOOGLE_"))}
    out = subprocess.run(["bash", "-c", "source scripts/demo-models.sh && env"], cwd=ROOT, capture_output=True,
                         text=True, check=True, env={**env, "DEMO_TRANSCRIPT": str(SAMPLES["go"].transcript)}).stdout
    assert f"ENSEMBLE_CODER_MODEL={SAMPLES['go'].transcript}" in out.splitlines()
    assert json.loads(SAMPLES["go"].transcript.read_text().splitlines()[1])["role"] == "planner"
