"""The coder's turns in a round (bot/ensemble/coder/turns.py `next_turn`): after which reply the coder is asked again,
how, and when the round's turns are over."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from bot.ensemble.coder.apply import EditFailure
from bot.ensemble.coder.formats import BLOCKS, WHOLE
from bot.ensemble.coder.turns import Ask, Done, Turn, TurnLimits, next_turn
from bot.llm.manager import warmer

SENT = ("an earlier round's reply",)
MISS = EditFailure("stats/core.py", "no_match", "the SEARCH lines are not in the file")
EXAMPLE = EditFailure("shop/cart.py", "example", "this block is the format example")


def edits(text: str = "blocks", failures: tuple[EditFailure, ...] = (), wrote: bool = True, applied: int = 1,
          cut_off: bool = False) -> Turn:
    originals = (("stats/core.py", "old"),) if wrote else ()
    return Turn("edits", text, text, failures=failures, originals=originals, applied=applied if wrote else 0,
                cut_off=cut_off)


REQUEST = Turn("request", "READ stats/core.py", "READ stats/core.py", answer="<<<BEGIN file stats/core.py>>>...")
REPEAT = Turn("repeat", "an earlier round's reply", SENT[0], repeats=2)


@dataclass(frozen=True)
class Case:
    turns: tuple[Turn, ...]
    asks: bool  # another ask (else the turns are over)
    limits: TurnLimits = TurnLimits(sent=SENT)
    tail: int = 0  # messages after the round's prompt
    temperature: float | None = None
    answers_requests: bool = True
    retries_repeats: bool = True
    follow_up: str = ""  # words the follow-up holds


CASES = {
    "the first ask may ask for code, and a reply sent in an earlier round is set aside": Case((), True),
    "a round of one call (a bought revision) answers no request and retries nothing":
        Case((), True, TurnLimits(0, 0, 0, SENT), answers_requests=False, retries_repeats=False),
    "a reply sent before is asked for again, warmer, once": Case((REPEAT,), True, temperature=warmer(0.0, 2),
                                                                 retries_repeats=False),
    "the code asked for is answered": Case((REQUEST,), True, tail=2),
    "requests are answered twice at most": Case((REQUEST, REQUEST), True, tail=4, answers_requests=False),
    "every change applied: done": Case((edits(),), False),
    "a change that did not apply is followed up, in the round's format":
        Case((edits(failures=(MISS,)),), True, tail=2, follow_up="These blocks did NOT apply"),
    "a whole-file round's follow-up asks for whole files":
        Case((edits(failures=(MISS,)),), True, TurnLimits(sent=SENT, edit_format=WHOLE), tail=2,
             follow_up="Send each file you change again, whole"),
    "a cut-off reply is followed up even when all of it applied":
        Case((edits(cut_off=True),), True, tail=2, follow_up="cut off"),
    "a copy of the example alone buys no follow-up": Case((edits(failures=(EXAMPLE,), wrote=False),), False),
    "two follow-ups at most": Case((edits("1", (MISS,)), edits("2", (MISS,)), edits("3", (MISS,))), False),
    "a follow-up that writes nothing new and fails the same way is a stall":
        Case((edits("1", (MISS,)), edits("2", (MISS,), wrote=False)), False),
    "one that fails the same way but wrote something goes on":
        Case((edits("1", (MISS,)), edits("2", (MISS,))), True, tail=4),
    "a follow-up answered with no change at all ends the turns":
        Case((edits("1", (MISS,)), Turn("empty", "nothing to add", "nothing to add")), False),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_the_next_turn(case: Case) -> None:
    step = next_turn(case.turns, case.limits)
    if not case.asks:
        assert isinstance(step, Done), step
        return
    assert isinstance(step, Ask), step
    assert len(step.tail) == case.tail and step.temperature == case.temperature
    assert step.answer_requests == case.answers_requests
    assert step.set_aside == (frozenset(SENT) if case.retries_repeats else frozenset())
    if case.follow_up:
        assert step.tail[-2].content == case.turns[-1].text and case.follow_up in step.tail[-1].content
        assert step.tail[-1].content.startswith("<<<BEGIN edit results>>>")


def test_a_reply_set_aside_is_no_part_of_the_conversation() -> None:
    """The warmer retry is asked the same messages as the reply it replaces."""
    first = next_turn((REQUEST,), TurnLimits(sent=SENT))
    retry = next_turn((REQUEST, REPEAT), TurnLimits(sent=SENT))
    assert isinstance(first, Ask) and isinstance(retry, Ask) and retry.tail == first.tail


def test_the_blocks_format_is_the_default() -> None:
    assert TurnLimits().edit_format is BLOCKS
