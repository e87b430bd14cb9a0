"""Reasoning blocks: what a model thought out loud, removed before any reply is parsed or applied.

Models that think out loud wrap it in tags (`<think>…</think>`, `<thinking>`, `<reasoning>`,
`<reflection>`). Nothing inside such a block is an answer: a JSON object or an edit block
drafted there is never read. Two sloppy shapes are common and handled too: a chat template
that opened the block in the prompt, so the reply holds only the closing tag (everything
before it is thought), and a reply cut off while thinking (an unclosed block runs to the end).
"""

from __future__ import annotations

import re

# Models that think before they answer, their thoughts counted against the output cap: OpenAI's reasoning models
# (max_completion_tokens holds the reasoning) and Gemini's thinking ones (2.5 and later think by default). A reply
# capped at what its answer needs would be spent on thoughts, so they are asked with the configured cap.
REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")
_GEMINI_THINKING = re.compile(r"gemini-(?:2\.5|[3-9])|thinking")

TAGS = ("think", "thinking", "reasoning", "reflection", "thought")
_NAMES = "|".join(TAGS)
_BLOCK = re.compile(rf"<({_NAMES})\b[^>]*>.*?</\1\s*>", re.IGNORECASE | re.DOTALL)
_OPEN = re.compile(rf"<({_NAMES})\b[^>]*>", re.IGNORECASE)
_CLOSE = re.compile(rf"</({_NAMES})\s*>", re.IGNORECASE)


def thinks(provider: str, model: str) -> bool:
    """Whether `model` is known to think before it answers, its thoughts counted as output (see REASONING_PREFIXES);
    a local model that does is recognised by its replies instead (`reasoned`)."""
    if provider == "openai":
        return model.startswith(REASONING_PREFIXES)
    return provider == "gemini" and bool(_GEMINI_THINKING.search(model))


def reasoned(text: str) -> bool:
    """Whether a reply holds a reasoning block (opened, closed, or opened by the template)."""
    return bool(_OPEN.search(text or "") or _CLOSE.search(text or ""))


def strip_reasoning(text: str) -> str:
    """`text` without its reasoning blocks (closed, opened by the template, or cut off)."""
    text = text or ""
    # A lone closing tag with no opening one before it: the template opened the block.
    first_close, first_open = _CLOSE.search(text), _OPEN.search(text)
    if first_close and (first_open is None or first_open.start() > first_close.start()):
        text = text[first_close.end():]
    text = _BLOCK.sub("", text)
    unclosed = _OPEN.search(text)
    if unclosed:  # cut off while thinking: nothing after the tag is an answer
        text = text[:unclosed.start()]
    return text.strip()
