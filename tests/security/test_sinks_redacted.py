"""Each place the bot writes to masks secrets: the reply cache, lessons, the index, traces, logs and errors.

The one redactor (bot/redact.py) knows the secret variables of the environment, the values the
entry points register (a config's `secret_env`, a model's `api_key_env`) and every token shape.
"""

from __future__ import annotations

import logging
import subprocess
from pathlib import Path

import pytest

from bot.redact import MASK, RedactingFilter, Redactor, register_secrets
from tests.security.conftest import leaks
from tests.security.test_commit_policy import SHAPES

CANARY = "registered-canary-secret-5521"
GHP = "ghp_" + "K" * 36


@pytest.mark.parametrize("name", list(SHAPES))
def test_token_shapes_are_masked_whatever_variable_they_came_from(name: str) -> None:
    secret, _kind = SHAPES[name]
    masked = Redactor().text(f"before {secret} after")
    assert secret.splitlines()[-1] not in masked or name == "aws-secret-key"
    assert MASK in masked and "before" in masked and "after" in masked
    assert "wJalrXUtnFEMI" not in masked


def test_the_reply_cache_stores_a_reply_that_echoes_a_secret_masked(tmp_path: Path) -> None:
    from bot.llm.cache import ReplyCache

    register_secrets([CANARY])
    cache = ReplyCache(tmp_path / "llm")
    cache.put("ab" * 32, {"text": f"the key is {CANARY} and {GHP}", "data": {"feedback": CANARY}, "request_id": None,
                          "provider": "openai", "model": "gpt-4o"})
    assert leaks([tmp_path], [CANARY, GHP]) == []
    assert cache.get("ab" * 32) == {"text": f"the key is {MASK} and {MASK}", "data": {"feedback": MASK},
                                    "request_id": None, "provider": "openai", "model": "gpt-4o"}


def test_lessons_are_stored_masked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.ensemble.insights import InsightStore, Lesson

    monkeypatch.setenv("GEMINI_API_KEY", "gemini-key-in-a-lesson-0042")
    store = InsightStore(tmp_path / "insights.jsonl")
    store.add(Lesson(task="deploy", outcome="passed", worked="used gemini-key-in-a-lesson-0042 and " + GHP))
    assert leaks([tmp_path], ["gemini-key-in-a-lesson-0042", GHP]) == []
    assert store.load()[0].worked == f"used {MASK} and {MASK}"


@pytest.mark.slow
def test_the_index_stores_no_secret_committed_in_the_repository(repo: Path) -> None:
    from bot.config import Config
    from bot.ensemble.assemble import open_configured_index

    (repo / "settings.py").write_text(f"TOKEN = '{GHP}'\n\n\ndef connect():\n    return TOKEN\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "settings"], cwd=repo, check=True)
    index = open_configured_index(repo, Config(), {}, tree=repo)
    assert any(c.path == "settings.py" for c in index.stored.chunks)
    assert leaks([repo / ".ensemble"], [GHP]) == []


def test_the_history_cache_keeps_no_secret_pasted_into_a_commit_message(repo: Path) -> None:
    from bot.config import Config
    from bot.ensemble.assemble import open_configured_index

    (repo / "client.py").write_text("def connect():\n    return None\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", f"Fix the client login\n\nworks with {GHP} now"], cwd=repo, check=True)
    index = open_configured_index(repo, Config(), {}, tree=repo)
    assert index.history is not None and (loaded := index.history.load()) is not None
    assert "Fix the client login" in [c.subject for c in loaded.commits]
    assert leaks([repo / ".ensemble"], [GHP, GHP.lower()]) == []


def test_traces_mask_the_values_registered_at_run_time(tmp_path: Path) -> None:
    from bot.trace import Tracer, span

    tracer = Tracer.for_run(tmp_path, "r1", env={})
    register_secrets(["secret-learned-from-the-config-88"])
    with tracer.activate(), span("llm.call", reply="the password is secret-learned-from-the-config-88"):
        pass
    assert leaks([tmp_path], ["secret-learned-from-the-config-88"]) == []


def test_log_lines_are_masked_at_the_handler(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli import configure_logging

    monkeypatch.setenv("OPENAI_API_KEY", "openai-key-in-a-log-line-19")
    root = logging.getLogger()
    handler = logging.StreamHandler()
    root.addHandler(handler)
    try:
        configure_logging(False)
        assert any(isinstance(f, RedactingFilter) for f in handler.filters)
        record = logging.LogRecord("bot.x", logging.WARNING, __file__, 1, "model said %s", ("openai-key-in-a-log-line-19",),
                                   None)
        handler.filter(record)
        assert record.getMessage() == f"model said {MASK}"
    finally:
        root.removeHandler(handler)


def test_errors_printed_at_the_cli_are_masked(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.cli import report_error

    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    report_error(f"bad credentials {GHP}")
    out, err = capsys.readouterr()
    assert GHP not in out + err and MASK in err and MASK in out


def test_a_secret_value_pasted_into_a_task_is_not_sent_on_to_the_model_provider(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.config import parse_config
    from bot.llm.manager import ModelManager
    from bot.llm.types import Message
    from fakes.openai_server import FakeOpenAI

    monkeypatch.setenv("GITHUB_TOKEN", "pasted-github-token-value-6047")
    with FakeOpenAI() as openai:
        openai.reply("ok", times=0)
        models = ModelManager.from_config(parse_config("models: {coder: {provider: openai, model: m}}\n"),
                                          openai.env(), None, use_cache=False)
        models.complete("coder", [Message("system", "You are the coder"),
                                  Message("user", "the CI token is pasted-github-token-value-6047, use it")])
        sent = str(openai.requests[-1].messages)
    assert "pasted-github-token-value-6047" not in sent and MASK in sent
