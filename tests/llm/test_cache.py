"""The reply cache: content addressing, atomic writes across processes, and the size cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

from bot.llm import Message, ReplyCache
from bot.llm.cache import CachedReply, cache_key

MESSAGES = [Message("user", "hello")]


def reply(text: str) -> CachedReply:
    return CachedReply(text=text, data=None, request_id="req-1", provider="openai", model="gpt-4o")


def test_key_changes_with_every_input():
    base = cache_key("openai", "gpt-4o", MESSAGES, None, {"temperature": 0})
    assert base == cache_key("openai", "gpt-4o", list(MESSAGES), None, {"temperature": 0})
    variants = [
        cache_key("gemini", "gpt-4o", MESSAGES, None, {"temperature": 0}),
        cache_key("openai", "gpt-4o-mini", MESSAGES, None, {"temperature": 0}),
        cache_key("openai", "gpt-4o", [Message("system", "hello")], None, {"temperature": 0}),
        cache_key("openai", "gpt-4o", MESSAGES, "plan", {"temperature": 0}),
        cache_key("openai", "gpt-4o", MESSAGES, None, {"temperature": 0, "max_output_tokens": 5}),
    ]
    assert len({base, *variants}) == 6


WRITER = """
import sys
from pathlib import Path
from bot.llm import ReplyCache
cache = ReplyCache(Path(sys.argv[1]))
for i in range(500):
    cache.put("ab" + "0" * 62, {"text": sys.argv[2] * 5000, "data": {"i": i}, "request_id": None, "provider": "openai",
                                "model": "gpt-4o"})
"""


def test_concurrent_processes_never_leave_a_torn_entry(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path), letter], env=env) for letter in "xy"]
    cache = ReplyCache(tmp_path)
    reads = 0
    while any(w.poll() is None for w in writers):
        entry = cache.get("ab" + "0" * 62)
        if entry is None:
            assert reads == 0, "an entry that existed went missing or was read half-written"
            continue
        reads += 1
        assert entry["text"] in ("x" * 5000, "y" * 5000)  # whole, never a mix or a fragment
    assert all(w.wait() == 0 for w in writers) and reads > 0
    assert list(tmp_path.glob("*/.tmp-*")) == []


def test_size_cap_evicts_least_recently_used(tmp_path):
    cache = ReplyCache(tmp_path, max_bytes=3 * 1100)
    for i in range(3):
        cache.put(f"{i:064x}", reply("z" * 1000))
        time.sleep(0.01)
    cache.get(f"{0:064x}")  # touch the oldest: now the most recently used
    time.sleep(0.01)
    cache.put(f"{3:064x}", reply("z" * 1000))
    assert cache.get(f"{1:064x}") is None
    assert all(cache.get(f"{i:064x}") for i in (0, 2, 3))


def test_unreadable_entry_is_a_miss(tmp_path):
    cache = ReplyCache(tmp_path)
    key = "cd" + "1" * 62
    (tmp_path / "cd").mkdir()
    (tmp_path / "cd" / f"{key}.json").write_text("{truncated")
    assert cache.get(key) is None


def test_an_entry_without_a_reply_is_a_miss(tmp_path, caplog):
    # another version's entry, or one edited by hand: the manager would have nothing to answer with
    cache = ReplyCache(tmp_path)
    key = "cd" + "2" * 62
    (tmp_path / "cd").mkdir()
    (tmp_path / "cd" / f"{key}.json").write_text(json.dumps({"reply": "old shape", "provider": "openai"}))
    assert cache.get(key) is None
    assert "ignoring unreadable cache entry" in caplog.text and "text" in caplog.text
    cache.put(key, reply("new"))
    assert cache.get(key) == reply("new")


def test_pruning_never_removes_a_write_in_progress(tmp_path):
    cache = ReplyCache(tmp_path, max_bytes=10)
    (tmp_path / "ab").mkdir()
    in_progress = tmp_path / "ab" / ".tmp-123abc.json"
    in_progress.write_text("x" * 1000)  # another process is still writing this one
    cache.put("ab" + "2" * 62, reply("y" * 100))
    assert in_progress.exists()


def test_an_entry_that_cannot_be_touched_is_still_a_hit(tmp_path, monkeypatch):
    # another user's entry in a shared cache: readable, but its mtime is not ours to set (root can, so
    # the refusal is simulated at the one call that meets it)
    cache = ReplyCache(tmp_path)
    key = "ab" + "2" * 62
    cache.put(key, reply("cached reply"))

    def refuse(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr("bot.llm.cache.os.utime", refuse)
    assert cache.get(key) == reply("cached reply")


def test_a_request_repeated_in_the_same_run_is_sent_warmer_not_served_again(openai_server, make_manager, tmp_path,
                                                                             tracer):
    from tests.llm.conftest import spans

    openai_server.set_default("an answer")
    manager = make_manager(None, tmp_path / "cache")
    for _ in range(5):
        assert not manager.complete("coder", MESSAGES).cached
    assert [r.body["temperature"] for r in openai_server.requests] == [0.0, 0.3, 0.6, 0.9, 1.0]
    assert [s["attributes"].get("repeat") for s in spans(tracer)] == [None, 1, 2, 3, 4]
    later = make_manager(None, tmp_path / "cache")  # the next run: the first answer is a cache hit again
    assert later.complete("coder", MESSAGES).cached and not later.complete("coder", MESSAGES).cached
    assert openai_server.requests[-1].body["temperature"] == 0.3


def test_a_warm_request_repeated_is_never_cooled(openai_server, make_manager):
    openai_server.set_default("an answer")
    manager = make_manager()
    manager.complete("coder", MESSAGES, temperature=1.2)
    manager.complete("coder", MESSAGES, temperature=1.2)
    assert [r.body["temperature"] for r in openai_server.requests] == [1.2, 1.2]
