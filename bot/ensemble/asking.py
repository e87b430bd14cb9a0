"""Asking a role with a prompt that shrinks when the model says it does not fit.

Prompts are sized with a token estimate; a model whose tokenizer packs code more densely
than the estimate (a small local model, say) can still refuse one as longer than its window.
Then the prompt is built again for a smaller budget and asked again, a bounded number of times,
instead of losing the round.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from bot.ensemble.ports import ModelClient, ModelReply
from bot.errors import ContextTooLong, PromptTooLong
from bot.llm.types import Message, ReplyEnd

log = logging.getLogger(__name__)
SHRINK = 0.7  # each retry's budget, as a share of the last one
ATTEMPTS = 3


def ask(models: ModelClient, role: str, build: Callable[[int], list[Message]], budget: int,
        schema: str | None = None, temperature: float | None = None, stop: Sequence[str] = (),
        by: float | None = None, max_tokens: int | None = None, until: ReplyEnd | None = None) -> ModelReply:
    """`models.complete(role, build(budget))`, built again smaller while the prompt does not fit."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return models.complete(role, build(budget), schema=schema, temperature=temperature, stop=stop, by=by,
                                   max_tokens=max_tokens, until=until)
        except (ContextTooLong, PromptTooLong) as exc:
            if attempt == ATTEMPTS:
                raise
            log.warning("%s: the prompt did not fit (%s); asking again with %d%% of the budget", role, exc,
                        int(SHRINK * 100))
            budget = int(budget * SHRINK)
    raise AssertionError("unreachable")
