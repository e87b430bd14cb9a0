"""The coder's request for the judge's hidden check (bot/ensemble/judge/hidden.py): a new test of the behaviour a
test checks, on other inputs, written apart from the change.

The request opens as the coder's round requests open (`Opening`: the same system prompt, worked example,
conventions and files, byte for byte), with every file read from the base and the judge's frozen tests, never from
the workspace that holds the change; its own part (the task, an example of such a test, what to write) comes
last. So where the round's files are still the base's (the first round, which is when most changes first pass), a
server that caches prompt prefixes reads only that last part anew."""

from __future__ import annotations

import logging
from collections.abc import Mapping

from bot.ensemble.asking import ask
from bot.ensemble.coder.formats import BLOCKS, EditFormat, reply_end
from bot.ensemble.coder.parsing import parse_edit_blocks, parse_whole_files
from bot.ensemble.coder.prompts import coder_opening
from bot.ensemble.coder.turns import Brief, Coder, shown_files
from bot.ensemble.judge import HiddenCheck, no_hidden_check
from bot.ensemble.prompt_parts import data, signed
from bot.ensemble.types import Plan, Task
from bot.ensemble.workspace_files import Read, WorkspaceFiles
from bot.errors import BudgetExceeded, ModelError
from bot.llm.tokens import ContextPiece
from bot.llm.types import Message
from bot.redact import clip
from common.testfiles import fresh_test_path

log = logging.getLogger(__name__)
HIDDEN_CHECK_ROLE = "Here you write one new test file, and change nothing else."
HIDDEN_CHECK_GOAL = "Write ONLY the new test file {path}: the behaviour the test {source} checks, on OTHER inputs"
TOY_TEST = "from {module} import total\n\n\ndef test_none_counts_as_zero():\n    assert total([1, None]) == 1\n"
TOY_HIDDEN = ("from {module} import total\n\n\ndef test_none_among_prices():\n    assert total([None, 2, 3]) == 5\n\n\n"
              "def test_only_none():\n    assert total([None, None]) == 0\n")
SUFFIX = "_hidden"  # a hidden check's file name: the test it varies, with this before the extension


def _module(toy: str) -> str:
    """The toy file's module, as a test imports it (`shop/cart.py` -> `shop.cart`)."""
    return toy.removesuffix(".py").replace("/", ".")


def _toy_name(toy: str, suffix: str = "") -> str:
    """A test file's name for the toy file of the worked example (`shop/cart.py` -> `test_cart.py`)."""
    return f"test_{_module(toy).rsplit('.', 1)[-1]}{suffix}.py"


def hidden_check_messages(task: Task, plan: Plan, files: Mapping[str, str], source: str, source_text: str, path: str,
                          team: str = "a", budget: int | None = None, conventions: str = "", nearby: str = "",
                          edit_format: EditFormat = BLOCKS, failing: str = "") -> list[Message]:
    """Ask the coder for a hidden check at `path`: a new test of the behaviour `source` (`source_text`) checks, on
    other inputs. It opens as a round's request on the same `files` (path: what the coder is shown of it, as the
    base has it), related code (`nearby`), `conventions`, `edit_format` and base's `failing` tests does, through
    the task (`coder_opening`); then come the source test where the opening does not show it whole, and what to
    write: no plan, no change, no feedback."""
    opening = coder_opening(task, plan, files, nearby, False, conventions, edit_format, failing.strip())
    shown, written = _toy_name(opening.toy), _toy_name(opening.toy, SUFFIX)
    rest = [ContextPiece(f"test {source}", data(f"test {source}", source_text), 90)
            if files.get(source) != source_text else None]
    example = (f"{HIDDEN_CHECK_ROLE} An example (not your task): shown the test {shown} of the toy file above,\n"
               f"{data(f'test {shown}', TOY_TEST.format(module=_module(opening.toy)))}\n"
               f"the new test file {written} of the same behaviour on other inputs is:\n"
               f"{edit_format.new_file(written, TOY_HIDDEN.format(module=_module(opening.toy)))}")
    goal = (HIDDEN_CHECK_GOAL.format(path=path, source=source) + " than that test and the task use (two or three "
            "cases), each expecting the value the task says is right. It must fail on the current code because of "
            "the bug and pass once the bug is fixed in general. Import what that test imports, and name its tests "
            "and helpers apart from that test's (a Go test file shares its package with them); reply with this new "
            "file only, written as in the example (no other file, no READ or FIND).")
    return opening.messages(rest, signed(f"{example}\n\n{goal}", "coder", team), budget)


def write_hidden_check(coder: Coder, brief: Brief, source: str, source_text: str, base: Read) -> HiddenCheck:
    """Ask the coder, in a request of its own, for a test of `source`'s behaviour (`source_text`) on other inputs.
    It opens as the round's request of `brief` opens, every file read from `base` (the base's tree with the judge's
    frozen tests), never from the workspace, which holds the change; what `brief.found` holds must be the base's too
    (what exploring found before any round). The check's text, not yet run."""
    files = WorkspaceFiles(coder.workspace.path)
    path = fresh_test_path(source, lambda p: base(p) is not None or files.read(p) is not None, SUFFIX)
    shown = shown_files(coder, brief.plan, brief.found, brief.failing, base)
    nearby = brief.found.text_outside(shown)
    try:
        reply = ask(coder.models, "coder", lambda room: hidden_check_messages(
            coder.task, brief.plan, shown, source, source_text, path, coder.team, room, coder.conventions(brief.plan),
            nearby, brief.edit_format, brief.failing), coder.prompt_budget,
            until=reply_end(brief.edit_format, shown, base, [path]))
    except BudgetExceeded:
        raise
    except ModelError as exc:  # the check is extra evidence: a model that cannot write it leaves the team as it was
        log.warning("team %s: the hidden check could not be written: %s", coder.team, exc)
        return no_hidden_check(f"the hidden check could not be written: {clip(str(exc), 200)}")
    text = _written(reply.text, path)
    if not text:
        return no_hidden_check("the coder's reply held no test file for the hidden check")
    return HiddenCheck(path, text, source)


def _written(reply: str, path: str) -> str:
    """The new file a reply writes, at `path` where it writes several (a copy of the example is not the check): a
    file-creating edit block, else a whole-file listing."""
    created = [(b.path, b.replace) for b in parse_edit_blocks(reply).blocks if not b.search.strip()]
    listed = created or parse_whole_files(reply, {path: ""})
    if not listed:
        return ""
    return next((text for p, text in listed if p == path), listed[0][1]).rstrip("\n") + "\n"
