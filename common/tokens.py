"""Token counts, the one counter of the project: exact where the model's encoding is known, else one estimate.

Exact: OpenAI models (`gpt-*`, `o1`/`o3`/`o4`, `chatgpt-*`, `text-embedding-*`) are counted with
tiktoken. tiktoken names the model's encoding (`encoding_name_for_model`) and encodes with its own
`tiktoken.Encoding`; the encoding's files come from the installed `bpe-openai` package (part of the
engine extra), which ships o200k_base and cl100k_base with their split patterns and special tokens.
Nothing is downloaded and nothing is written to tiktoken's cache.

Estimate, for every other model and when those packages are absent: one token per 3.5 characters,
rounded up. It suits code and over-counts English prose a little; some local tokenizers (Qwen's on
code) take a little more, which the model manager absorbs with the margin it keeps free in each window
(`bot/llm/window.py`) and by building a refused prompt again smaller.
"""

from __future__ import annotations

import functools
import logging
import math
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

log = logging.getLogger(__name__)

__all__ = ["CHARS_PER_TOKEN", "chars_for_tokens", "count_tokens", "estimate_tokens", "exact_encoding"]

CHARS_PER_TOKEN = 3.5
OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt-", "text-embedding-")
BUNDLED_ENCODINGS = ("o200k_base", "cl100k_base")  # the files bpe-openai ships (its other names would download)


def estimate_tokens(text: str) -> int:
    """The documented estimate: ceil(characters / 3.5)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def chars_for_tokens(tokens: int) -> int:
    """About how many characters `tokens` tokens hold, by the same estimate (for budgets kept in characters)."""
    return max(int(tokens * CHARS_PER_TOKEN), 0)


def count_tokens(text: str, model: str = "") -> int:
    """Tokens in `text` for `model`: exact when its encoding is known and installed, else the estimate."""
    encode = exact_encoding(model) if model.startswith(OPENAI_PREFIXES) else None
    return len(encode(text)) if encode else estimate_tokens(text)


@functools.lru_cache(maxsize=16)
def exact_encoding(model: str) -> Callable[[str], list[int]] | None:
    """The model's tiktoken encoder built from installed files, or None when it cannot be had offline."""
    try:
        import tiktoken

        name = tiktoken.encoding_name_for_model(model)
        if name not in BUNDLED_ENCODINGS:
            return None
        with _BUILDING:  # concurrent first calls (one per team or job thread) share one build
            encoding = _encoding(name)
    except Exception as exc:  # noqa: BLE001 - any failure (package missing, unknown model) means "estimate"
        log.debug("no installed tiktoken encoding for %s (%s); estimating", model, exc)
        return None
    return functools.partial(encoding.encode, disallowed_special=())


_BUILDING = threading.Lock()


@functools.lru_cache(maxsize=len(BUNDLED_ENCODINGS))
def _encoding(name: str) -> tiktoken.Encoding:
    """One `tiktoken.Encoding` per encoding name (tens of MB each), however many models use it."""
    import tiktoken
    from bpe_openai.registry import ENCODING_CONSTRUCTORS  # importing it loads no native code

    spec = ENCODING_CONSTRUCTORS[name]()
    return tiktoken.Encoding(name, pat_str=spec["pat_str"], mergeable_ranks=spec["mergeable_ranks"],
                             special_tokens=spec["special_tokens"])
