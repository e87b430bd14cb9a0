"""Context fitting: prompts packed into a token budget, counted by the one counter in `common.tokens`.

`fit_context` packs prioritized pieces (task, plan, files, retrieved chunks, test output)
into a token budget, cutting the lowest-priority pieces first and marking where it cut; a piece
left out whole is replaced by a one-line note, so the model knows something is missing.
Token counts are exact for OpenAI models and the documented estimate otherwise (see `common.tokens`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.llm.types import Message
from common.tokens import CHARS_PER_TOKEN, chars_for_tokens, count_tokens, estimate_tokens

__all__ = ["CHARS_PER_TOKEN", "ContextPiece", "count_message_tokens", "count_tokens", "estimate_tokens",
           "fit_context", "join_context"]

MESSAGE_OVERHEAD_TOKENS = 4  # role and separators per chat message
CUT_MARKER = "\n[… {name}: {dropped} tokens cut to fit the context window …]\n"
DROP_MARKER = "[… {name}: left out whole ({dropped} tokens) to fit the context window …]"


def count_message_tokens(messages: Sequence[Message], model: str = "") -> int:
    """Tokens of a chat prompt: each message's content plus a small per-message overhead."""
    return sum(count_tokens(m.content, model) + MESSAGE_OVERHEAD_TOKENS for m in messages)


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
    chars = chars_for_tokens(tokens)
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
