"""The end-of-session scan that fails the run when a trace holds a secret must itself catch leaks."""

from __future__ import annotations

import tempfile
from pathlib import Path

from tests.conftest import trace_leaks


def test_the_scan_finds_secret_values_and_short_fake_tokens() -> None:
    with tempfile.TemporaryDirectory() as tmp:  # not under pytest's basetemp, which the real scan reads
        check_the_scan(Path(tmp))


def check_the_scan(tmp_path: Path) -> None:
    clean = tmp_path / "a" / "trace.jsonl"
    clean.parent.mkdir()
    clean.write_text('{"name": "llm.call", "attributes": {"key": "[REDACTED]"}}\n')
    leaked = tmp_path / "b" / "trace.jsonl"
    leaked.parent.mkdir()
    leaked.write_text('{"name": "git.push", "attributes": {"url": "x-access-token:deploy-value-123@host"}}\n')
    short = tmp_path / "c" / "trace.jsonl"
    short.parent.mkdir()
    short.write_text('{"error": "bad credentials ghs_faketoken0123456789"}\n')

    leaks = trace_leaks(tmp_path, {"deploy-value-123"})
    assert [line.split(":")[0] for line in leaks] == [str(leaked), str(short)]
