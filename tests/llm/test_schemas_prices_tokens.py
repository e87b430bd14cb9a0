"""Prices and token counting: the pure parts of the model query manager."""

from __future__ import annotations

import pytest

from bot.config import PriceSpec
from bot.llm import ContextPiece, PriceTable, Usage, count_tokens, fit_context
from bot.llm.tokens import estimate_tokens


def test_prices_by_family_with_overrides_and_unknown_models():
    table = PriceTable([PriceSpec("my-local", 1.0, 0.5, 2.0), PriceSpec("gpt-4o", 5.0, 2.5, 20.0)])
    assert table.lookup("gpt-4o-mini-2024-07-18").input == 0.15  # longest prefix, not gpt-4o
    assert table.lookup("models/gemini-2.5-flash").output == 2.50
    assert table.cost("gpt-4o", Usage(1_000_000, 1_000_000, 0)) == pytest.approx(25.0)
    assert table.cost("my-local", Usage(2_000_000, 0, 1_000_000)) == pytest.approx(1.5)
    assert table.lookup("gpt-4o").context_window == 128_000 and table.lookup("my-local").context_window == 8192
    assert PriceTable([PriceSpec("qwen", context_window=32_768)]).lookup("qwen").context_window == 32_768
    assert not table.lookup("llama3.1:8b").known and table.cost("llama3.1:8b", Usage(10**6, 10**6)) == 0


def test_only_snapshots_take_their_familys_price():
    table = PriceTable()
    assert table.lookup("gpt-4o-2024-08-06").input == 2.50 and table.lookup("gemini-1.5-pro-002").output == 5.00
    assert table.lookup("gemini-2.5-flash-preview-05-20").output == 2.50 and table.lookup("gpt-4o-latest").known
    for other in ("o3-pro", "gpt-5-pro", "gpt-4o-audio-preview-x", "gemini-2.5-flash-image"):
        assert not table.lookup(other).known, other  # priced differently: unknown, so doctor flags it


def test_an_override_of_some_prices_keeps_the_built_in_rest():
    table = PriceTable([PriceSpec("gpt-4o", input=3.0)])
    info = table.lookup("gpt-4o")
    assert (info.input, info.cached_input, info.output, info.context_window) == (3.0, 1.25, 10.00, 128_000)
    assert table.cost("gpt-4o", Usage(0, 1_000_000)) == pytest.approx(10.0)  # output is not free
    assert PriceTable([PriceSpec("my-local", input=1.0)]).lookup("my-local").output == 0.0


def test_token_counts_work_offline():
    assert estimate_tokens("x" * 35) == 10
    assert count_tokens("hello world", "llama3") == estimate_tokens("hello world")
    assert 1 <= count_tokens("hello world", "gpt-4o") <= 4  # tiktoken if its file is local, else the estimate


def test_fit_context_cuts_lowest_priority_first_with_markers():
    task = ContextPiece("task", "Fix the failing test.", 100)
    plan = ContextPiece("plan", "1. read\n2. fix\n", 90)
    files = ContextPiece("files", "".join(f"line {i}\n" for i in range(400)), 50)
    output = ContextPiece("test output", "".join(f"log {i}\n" for i in range(400)) + "FAILED test_x", 10, keep="tail")
    budget = sum(count_tokens(p.text) for p in (task, plan, files)) + 300  # room for part of the output
    fitted = fit_context([task, plan, files, output], budget)
    assert [p.name for p in fitted] == ["task", "plan", "files", "test output"]
    assert fitted[0] == task and fitted[1] == plan and fitted[2] == files
    assert "tokens cut to fit" in fitted[3].text and fitted[3].text.endswith("FAILED test_x")
    assert budget - 20 <= sum(count_tokens(p.text) for p in fitted) <= budget
    tight = fit_context([task, plan, files, output], 150)
    assert [p.name for p in tight] == ["task", "plan", "files", "test output"]
    assert "tokens cut to fit" in tight[2].text and tight[2].text.startswith("line 0\n")
    assert "test output: left out whole" in tight[3].text and "log 0" not in tight[3].text  # says what is missing
    assert sum(count_tokens(p.text) for p in tight) <= 150
    tiny = fit_context([task, plan, files, output], count_tokens(task.text) + 6)
    assert [p.name for p in tiny] == ["task"]  # not even the notes fit


def test_openai_counts_are_exact_from_the_installed_encodings_never_fetched(tmp_path, monkeypatch):
    import tiktoken.load

    from common import tokens

    def no_network(url: str) -> bytes:
        raise AssertionError(f"tried to download {url}")

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    tokens.exact_encoding.cache_clear()
    try:
        assert count_tokens("hello world", "gpt-4o") == 2  # o200k_base, from bpe-openai's copy
        assert count_tokens("hello world", "gpt-4") == 2  # cl100k_base
        assert count_tokens("hello world", "llama3") == estimate_tokens("hello world")
        assert list(tmp_path.iterdir()) == []  # nothing fetched into tiktoken's cache, nothing written
    finally:
        tokens.exact_encoding.cache_clear()


def test_fit_context_leaves_a_fitting_prompt_alone():
    pieces = [ContextPiece("task", "short", 100)]
    assert fit_context(pieces, 1000) == pieces
