"""Fitting requests to model windows: the output cap, the prompt room, and the refusal of what cannot fit.

A model's window comes from the price table (its `context_window`, or `llm.prices[].context_window`
for a model the table lacks, else the cautious DEFAULT_CONTEXT_WINDOW). The output cap sent is
`llm.max_output_tokens`, but never more than half the window, so a small local model still has
room for a prompt. A request whose estimated prompt plus output cap passes the window is never
sent: it raises `PromptTooLong`, which names the setting to raise.
"""

from __future__ import annotations

from bot.errors import PromptTooLong
from bot.llm.prices import DEFAULT_CONTEXT_WINDOW

__all__ = ["DEFAULT_CONTEXT_WINDOW", "SCRIPTED_WINDOW", "check_fits", "output_cap", "prompt_room"]

SCRIPTED_WINDOW = 1_048_576  # a replayed transcript has no window: prompts are built as for a large hosted model
MIN_MARGIN_TOKENS = 64


def output_cap(window: int, configured: int) -> int:
    """The output cap to send: the configured one, at most half the window."""
    return max(1, min(configured, window // 2))


def margin(window: int) -> int:
    """Tokens kept free beyond prompt and reply: the token estimate's error, chat templates, a schema note."""
    return max(MIN_MARGIN_TOKENS, window // 32)


def prompt_room(window: int, cap: int) -> int:
    """Tokens a prompt may take in `window` with `cap` kept for the reply, less the margin."""
    return max(window - cap - margin(window), 0)


def check_fits(prompt_tokens: int, cap: int, window: int, model: str) -> None:
    """Raise PromptTooLong when `prompt_tokens` plus the output cap pass `model`'s window."""
    if prompt_tokens + cap <= window:
        return
    raise PromptTooLong(
        f"the prompt is about {prompt_tokens:,} tokens and the reply may take {cap:,} more (the output cap, "
        f"llm.max_output_tokens), which passes {model}'s context window of {window:,} tokens, so it was not sent. "
        f"If the model's server has a larger window, say so under llm.prices in .github/ensemble.yml "
        f"([{{model: {model}, context_window: N}}], llm.prices[].context_window); else lower "
        "llm.max_output_tokens or send less context")
