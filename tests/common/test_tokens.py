"""The token counter: exact for OpenAI models from installed files, one documented estimate otherwise."""

from __future__ import annotations

from common.tokens import CHARS_PER_TOKEN, chars_for_tokens, count_tokens, estimate_tokens


def test_the_estimate_is_one_token_per_three_and_a_half_characters() -> None:
    assert CHARS_PER_TOKEN == 3.5
    assert (estimate_tokens(""), estimate_tokens("x"), estimate_tokens("x" * 35), estimate_tokens("x" * 36)) == (0, 1, 10, 11)
    assert chars_for_tokens(10) == 35 and chars_for_tokens(-3) == 0
    assert count_tokens("def f(x):\n    return x\n", "qwen2.5-coder-1.5b-instruct") == estimate_tokens(
        "def f(x):\n    return x\n")


def test_openai_models_are_counted_exactly() -> None:
    text = "The quick brown fox jumps over the lazy dog. " * 20
    exact = count_tokens(text, "gpt-4o")
    assert exact == 201  # o200k_base: 10 tokens a sentence, and the last one's space
    assert exact != estimate_tokens(text)
    assert count_tokens("<|endoftext|>", "gpt-4o-mini") > 1  # special tokens are plain text here, never refused
