"""Execution traces: nesting, errors, threads, and redaction of every secret shape."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.redact import MASK, Redactor
from bot.trace import TRACE_FILE, Tracer, propagate, read_trace, runs_dir, span, traced

SECRETS = {
    "GITHUB_TOKEN": "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
    "OPENAI_API_KEY": "sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    "GEMINI_API_KEY": "AIzaSyA1234567890abcdefghijklmnopqrstuv",
    "GOOGLE_API_KEY": "plain-google-secret-value-42",
    "MY_DEPLOY_KEY": "custom-configured-secret-99",
}
# Token-shaped strings that appear without any variable naming them.
STRAY_TOKENS = [
    "ghp_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "gho_aBcDeFgHiJkLmNoPqRsTuVwXyZ0123456789",
    "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
    "sk-abcdefghijklmnopqrstuvwx",
    "AIzaSyZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZZ",
]


def make_tracer(tmp_path: Path) -> Tracer:
    return Tracer.for_run(tmp_path / "runs", run_id="run-1", env=SECRETS, secret_names=("MY_DEPLOY_KEY",))


def test_spans_nest_and_record_duration_status_and_attributes(tmp_path: Path) -> None:
    tracer = make_tracer(tmp_path)
    with tracer.activate(), span("run", task="fix") as outer:
        with span("model.call", role="planner") as inner:
            inner.set(tokens_in=120)
        outer.set(result="ok")
    records = read_trace(tmp_path / "runs" / "run-1" / TRACE_FILE)
    assert [r["name"] for r in records] == ["model.call", "run"]
    inner_rec, outer_rec = records
    assert inner_rec["parent_id"] == outer_rec["span_id"] and outer_rec["parent_id"] is None
    assert inner_rec["attributes"] == {"role": "planner", "tokens_in": 120}
    assert outer_rec["attributes"] == {"task": "fix", "result": "ok"}
    assert all(r["status"] == "ok" and r["duration_s"] >= 0 and r["run_id"] == "run-1" for r in records)


def test_an_exception_marks_the_span_as_an_error_and_propagates(tmp_path: Path) -> None:
    tracer = make_tracer(tmp_path)

    @traced("sandbox.run")
    def explode() -> None:
        raise RuntimeError("daemon gone")

    with tracer.activate(), pytest.raises(RuntimeError):
        explode()
    (record,) = read_trace(tracer.path)
    assert record["name"] == "sandbox.run"
    assert record["status"] == "error" and record["error"] == "RuntimeError: daemon gone"


def test_no_active_tracer_records_nothing(tmp_path: Path) -> None:
    with span("orphan") as s:
        s.set(x=1)
    assert not (tmp_path / "runs").exists()


def test_two_threads_write_whole_lines_under_their_own_parents(tmp_path: Path) -> None:
    tracer = make_tracer(tmp_path)

    def team(n: int) -> str:
        with span("team", team=n) as t:
            for i in range(200):
                with span("round", i=i, padding="x" * 500):
                    pass
            return t.span_id

    with tracer.activate(), span("run") as run, ThreadPoolExecutor(2) as pool:
        team_ids = list(pool.map(propagate(team), [1, 2]))
    records = read_trace(tracer.path)  # json.loads fails on any interleaved line
    assert len(records) == 2 * 200 + 2 + 1
    rounds = [r for r in records if r["name"] == "round"]
    assert {r["parent_id"] for r in rounds} == set(team_ids)
    teams = [r for r in records if r["name"] == "team"]
    assert {t["parent_id"] for t in teams} == {run.span_id}


def test_no_secret_value_or_token_shape_reaches_the_file(tmp_path: Path) -> None:
    tracer = make_tracer(tmp_path)
    leaky = " ".join([*SECRETS.values(), *STRAY_TOKENS])
    with tracer.activate():
        with span("clone", url=f"https://x-access-token:{SECRETS['GITHUB_TOKEN']}@github.example/o/r.git"):
            pass
        with span("model.call", prompt=leaky, nested={"headers": [f"Bearer {SECRETS['OPENAI_API_KEY']}"]}):
            pass
        with pytest.raises(ValueError), span("boom"):
            raise ValueError(f"bad key {SECRETS['GEMINI_API_KEY']}")
    text = tracer.path.read_text()
    for secret in [*SECRETS.values(), *STRAY_TOKENS]:
        assert secret not in text, secret
    assert text.count(MASK) >= len(SECRETS) + len(STRAY_TOKENS)


def test_redactor_keeps_ordinary_text_and_ignores_short_values() -> None:
    redactor = Redactor(["x", "sk"])
    assert redactor.text("a task about sk and x") == "a task about sk and x"
    assert redactor.value({"n": 3, "ok": True, "none": None}) == {"n": 3, "ok": True, "none": None}


def test_concurrent_tracers_in_threads_do_not_share_state(tmp_path: Path) -> None:
    a = Tracer.for_run(tmp_path / "runs", run_id="a", env={})
    b = Tracer.for_run(tmp_path / "runs", run_id="b", env={})
    barrier = threading.Barrier(2)

    def work(tracer: Tracer) -> None:
        with tracer.activate(), span("x"):
            barrier.wait()

    threads = [threading.Thread(target=work, args=(t,)) for t in (a, b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r["run_id"] for r in read_trace(a.path)] == ["a"]
    assert [r["run_id"] for r in read_trace(b.path)] == ["b"]


def test_redacted_text_holds_nothing_token_shaped_and_redaction_is_idempotent() -> None:
    from bot.redact import TOKEN_PATTERNS

    redactor = Redactor.from_env(SECRETS)
    once = redactor.text(f"https://x-access-token:{SECRETS['GITHUB_TOKEN']}@host/o/r.git {STRAY_TOKENS[0]}")
    assert TOKEN_PATTERNS.search(once) is None
    assert redactor.text(once) == once == f"https://x-access-token:{MASK}@host/o/r.git {MASK}"


def test_secrets_learned_mid_run_are_redacted_from_later_spans(tmp_path: Path) -> None:
    tracer = Tracer.for_run(tmp_path, "r1", env={})
    with tracer.activate():
        tracer.add_secrets(["configured-secret-value-42"])
        with span("github.api", what="read configured-secret-value-42"):
            pass
    text = (tmp_path / "r1" / TRACE_FILE).read_text()
    assert "configured-secret-value-42" not in text and MASK in text


def test_ensemble_runs_dir_moves_the_traces(tmp_path: Path) -> None:
    assert runs_dir({"ENSEMBLE_RUNS_DIR": str(tmp_path / "elsewhere")}, tmp_path / "default") == tmp_path / "elsewhere"
    assert runs_dir({}, tmp_path / "default") == tmp_path / "default"
