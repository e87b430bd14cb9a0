"""`ensemble handle-event` through the real CLI: exit codes, one log line, outputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.cli import main
from fakes.github_hub import Hub, webhook_payload


def set_env(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)


def test_nothing_to_do_exits_0_with_one_log_line(hub: Hub, monkeypatch: pytest.MonkeyPatch,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    set_env(monkeypatch, hub.env("issues", hub.labeled(1) | {"action": "closed"}))
    with caplog.at_level("INFO"):
        assert main(["handle-event"]) == 0
    lines = [r.getMessage() for r in caplog.records if r.name == "actions.cli"]
    assert lines == ["nothing-to-do: nothing to do for issues.closed"]
    assert not hub.fake.requests  # decided without a single API call
    assert "result<<" in hub.outputs_text() and "nothing-to-do" in hub.outputs_text()


def test_a_truncated_payload_exits_2_naming_the_problem(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "event.json"
    path.write_text(json.dumps(webhook_payload("issue_comment"))[:500])
    set_env(monkeypatch, {"GITHUB_EVENT_NAME": "issue_comment", "GITHUB_EVENT_PATH": str(path),
                          "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")})
    assert main(["handle-event"]) == 2
    assert "not valid JSON" in capsys.readouterr().err
    assert "ensemble: error" in (tmp_path / "summary").read_text()


def test_a_missing_field_exits_2_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    payload = webhook_payload("workflow_run")
    del payload["workflow_run"]["head_sha"]
    path = tmp_path / "event.json"
    path.write_text(json.dumps(payload))
    set_env(monkeypatch, {"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(path)})
    assert main(["handle-event"]) == 2
    assert "`workflow_run.head_sha`" in capsys.readouterr().err


def test_a_missing_token_is_a_usage_error(hub: Hub, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    env = hub.env("issues", hub.labeled(1))
    del env["GITHUB_TOKEN"]
    set_env(monkeypatch, env)
    assert main(["handle-event"]) == 2
    assert "GITHUB_TOKEN is not set" in capsys.readouterr().err
