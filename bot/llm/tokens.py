"""Token counting and context fitting.

OpenAI models are counted with tiktoken. Its encodings come from tiktoken's own cache
(`TIKTOKEN_CACHE_DIR`), seeded from the installed `bpe-openai` package, which ships the same
files; nothing is ever downloaded at run time. Every other case uses a documented estimate: one token per 3.5 characters, rounded up, which
over-counts English prose a little and suits code, so the fitted context errs on the short side.

`fit_context` packs prioritized pieces (task, plan, files, retrieved chunks, test output)
into a token budget, cutting the lowest-priority pieces first and marking where it cut; a piece
left out whole is replaced by a one-line note, so the model knows something is missing.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.util
import inspect
import logging
import math
import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

CHARS_PER_TOKEN = 3.5
MESSAGE_OVERHEAD_TOKENS = 4  # role and separators per chat message
CUT_MARKER = "\n[… {name}: {dropped} tokens cut to fit the context window …]\n"
DROP_MARKER = "[… {name}: left out whole ({dropped} tokens) to fit the context window …]"

OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt-", "text-embedding-")


def estimate_tokens(text: str) -> int:
    """The documented estimate: ceil(characters / 3.5)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def count_tokens(text: str, model: str = "") -> int:
    """Tokens in `text` for `model`: exact for OpenAI models with a local encoding, else estimated."""
    encoder = _local_encoder(model) if model.startswith(OPENAI_PREFIXES) else None
    return len(encoder(text)) if encoder else estimate_tokens(text)


def count_message_tokens(messages: Sequence[Any], model: str = "") -> int:
    """Tokens of a chat prompt: each message's content plus a small per-message overhead."""
    return sum(count_tokens(m.content, model) + MESSAGE_OVERHEAD_TOKENS for m in messages)


@functools.lru_cache(maxsize=16)
def _local_encoder(model: str) -> Callable[[str], list[int]] | None:
    try:
        import tiktoken

        name = tiktoken.encoding_name_for_model(model)
        if not _encoding_on_disk(name):
            return None
        encoding = tiktoken.get_encoding(name)
    except Exception as exc:  # noqa: BLE001 - any failure means "estimate instead"
        log.debug("no local tiktoken encoding for %s (%s); estimating", model, exc)
        return None
    return functools.partial(encoding.encode, disallowed_special=())


def _encoding_on_disk(name: str) -> bool:
    """Whether tiktoken can load encoding `name` from its cache, seeding the cache from an installed package.

    tiktoken fetches its BPE files on first use; here they come from the `bpe-openai` package
    (a dependency) instead, checked against the hash tiktoken itself expects. Never a download.
    """
    import tiktoken_ext.openai_public as public

    found = re.search(r'"(https://[^"]+/' + re.escape(name) + r'\.tiktoken)",\s*expected_hash="([0-9a-f]{64})"',
                      inspect.getsource(public))
    if not found:
        return False
    url, expected = found.groups()
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR") or \
        os.path.join(tempfile.gettempdir(), "data-gym-cache")
    cached = os.path.join(cache_dir, hashlib.sha1(url.encode()).hexdigest())
    if os.path.exists(cached):
        return True
    spec = importlib.util.find_spec("bpe_openai")  # located, not imported: its native library is large
    bundled = os.path.join(next(iter(spec.submodule_search_locations or [])), "data", f"{name}.tiktoken.gz") \
        if spec else ""
    if not bundled or not os.path.exists(bundled):
        return False
    with gzip.open(bundled) as fh:
        data = fh.read()
    if hashlib.sha256(data).hexdigest() != expected:
        log.debug("the bundled %s differs from tiktoken's; estimating", name)
        return False
    os.makedirs(cache_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache_dir, prefix=".seed-")
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    os.replace(tmp, cached)
    return True


@dataclass(frozen=True)
class ContextPiece:
    """A named piece of prompt text; higher `priority` is kept longer (task 100 … test output 10)."""

    name: str
    text: str
    priority: int = 50
    keep: str = "head"  # which end survives a cut: "head" (files, plans) or "tail" (test output, logs)


def fit_context(pieces: Sequence[ContextPiece], max_tokens: int, model: str = "",
                separator: str = "\n\n") -> list[ContextPiece]:
    """`pieces` (in their order) cut to fit `max_tokens`: lowest priority first, then left out with a note.

    The one-line note of a piece left out whole costs a few tokens; it is kept unless making room
    for the notes would leave out a further piece.
    """
    noted, dropped_noted, over = _fit(pieces, max_tokens, model, separator, notes=True)
    plain, dropped_plain, _ = _fit(pieces, max_tokens, model, separator, notes=False)
    return noted if dropped_noted == dropped_plain and over <= 0 else plain


def _fit(pieces: Sequence[ContextPiece], max_tokens: int, model: str, separator: str,
         notes: bool) -> tuple[list[ContextPiece], set[int], int]:
    """The fitted pieces, the indices of those left out whole, and the tokens still over the budget."""
    sizes = [count_tokens(p.text, model) for p in pieces]
    overhead = count_tokens(separator, model) * max(len(pieces) - 1, 0)
    excess = sum(sizes) + overhead - max(max_tokens, 0)
    result = list(pieces)
    dropped: set[int] = set()
    for i in sorted(range(len(pieces)), key=lambda i: (pieces[i].priority, -i)):
        if excess <= 0:
            break
        piece = pieces[i]
        marker = CUT_MARKER.format(name=piece.name, dropped="{dropped}")
        room = sizes[i] - excess - count_tokens(marker, model) - 4
        if room <= 0:
            note = DROP_MARKER.format(name=piece.name, dropped=sizes[i]) if notes else ""
            result[i] = ContextPiece(piece.name, note, piece.priority, piece.keep)
            excess -= sizes[i] - count_tokens(note, model)
            dropped.add(i)
            continue
        kept = _truncate(piece.text, room, model, piece.keep)
        note = marker.format(dropped=sizes[i] - count_tokens(kept, model))
        text = kept + note if piece.keep == "head" else note + kept
        result[i] = ContextPiece(piece.name, text, piece.priority, piece.keep)
        excess -= sizes[i] - count_tokens(text, model)
    return [p for p in result if p.text], dropped, excess


def join_context(pieces: Sequence[ContextPiece], separator: str = "\n\n") -> str:
    """The fitted pieces as one prompt string."""
    return separator.join(p.text for p in pieces)


def _truncate(text: str, tokens: int, model: str, keep: str) -> str:
    """The head or tail of `text` holding at most `tokens` tokens, cut on a line boundary when possible."""
    chars = int(tokens * CHARS_PER_TOKEN)
    while chars > 0:
        part = text[:chars] if keep == "head" else text[-chars:]
        if count_tokens(part, model) <= tokens:
            break
        chars = int(chars * 0.9)
    if chars <= 0:
        return ""
    if keep == "head":
        cut = part.rfind("\n")
        return part[:cut + 1] if cut > len(part) // 2 else part
    cut = part.find("\n")
    return part[cut + 1:] if 0 <= cut < len(part) // 2 else part
