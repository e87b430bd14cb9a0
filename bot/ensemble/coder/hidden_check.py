"""The coder's request for the judge's hidden check (bot/ensemble/judge/hidden.py): a new test of the behaviour a
test checks, on other inputs, written apart from the change. Its own module, and read before the rest of the coder's
face, because the judge's face imports it while the coder's prompts import the judge's."""

from __future__ import annotations

from collections.abc import Mapping

from bot.ensemble.coder.formats import BLOCKS, EXAMPLE_TASK, render_block
from bot.ensemble.prompt_parts import (
    CODER_CONTEXT_TOKENS,
    CODER_ROLE,
    DATA_RULE,
    conventions_piece,
    conventions_rule,
    data,
    fitted_messages,
    signed,
)
from bot.llm.tokens import ContextPiece
from bot.llm.types import Message
from common.tokens import estimate_tokens

HIDDEN_CHECK_ROLE = "Here you write one new test file, and change nothing else."
HIDDEN_CHECK_GOAL = "Write ONLY the new test file {path}: the behaviour the test {source} checks, on OTHER inputs"
TOY_TEST = "from {module} import total\n\n\ndef test_none_counts_as_zero():\n    assert total([1, None]) == 1\n"
TOY_HIDDEN = ("from {module} import total\n\n\ndef test_none_among_prices():\n    assert total([None, 2, 3]) == 5\n\n\n"
              "def test_only_none():\n    assert total([None, None]) == 0\n")
SUFFIX_EXAMPLE = "_hidden"


def _module(toy: str) -> str:
    """The toy file's module name, as a test imports it."""
    return toy.rsplit("/", 1)[-1].removesuffix(".py")


def _toy_name(toy: str, prefix: str, suffix: str = "") -> str:
    """A test file's name for the toy file of the worked example (`cart.py` -> `test_cart.py`)."""
    return f"{prefix}{_module(toy)}{suffix}.py"


def hidden_check_messages(task_text: str, source: str, source_text: str, path: str, code: Mapping[str, str],
                          team: str = "a", budget: int | None = None, conventions: str = "") -> list[Message]:
    """Ask the coder for a hidden check (bot/ensemble/judge/hidden.py): a new test of the behaviour `source` (shown as
    `source_text`) checks, on other inputs, with the code under test as the base has it (`code`). The coder of the
    change never sees it, so this request stands alone: no plan, no change, no feedback."""
    toy = BLOCKS.example([path])[0]
    shown, written = _toy_name(toy, "test_"), _toy_name(toy, "test_", SUFFIX_EXAMPLE)
    example = [Message("user", f"{data(f'test {shown}', TOY_TEST.format(module=_module(toy)))}\n\nAn example, to "
                       f"show the format (not your task): {EXAMPLE_TASK} "
                       + HIDDEN_CHECK_GOAL.format(path=written, source=shown) + "."),
               Message("assistant", render_block(written, "", TOY_HIDDEN.format(module=_module(toy))))]
    system = (f"{CODER_ROLE}{HIDDEN_CHECK_ROLE} " + DATA_RULE + conventions_rule(conventions) + "\n\n"
              + BLOCKS.rules([path]))
    pieces = [
        conventions_piece(conventions),
        ContextPiece(f"test {source}", data(f"test {source}", source_text), 90),
        *[ContextPiece(f"file {p}", data(f"file {p}", text), 60) for p, text in code.items()],
        ContextPiece("task", data("task", task_text), 100),
    ]
    goal = (HIDDEN_CHECK_GOAL.format(path=path, source=source) + " than that test and the task use (two or three "
            "cases), each expecting the value the task says is right. It must fail on the current code because of "
            "the bug and pass once the bug is fixed in general. Import what that test imports, and name its tests "
            "and helpers apart from that test's (a Go test file shares its package with them); create only this "
            "file, with an empty SEARCH part.")
    room = (budget or CODER_CONTEXT_TOKENS) - sum(estimate_tokens(m.content) for m in example)
    system_message, user = fitted_messages(system, pieces, signed(goal, "coder", team), room)
    return [system_message, *example, user]
