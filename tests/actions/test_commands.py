"""The slash-command grammar: what counts as a command and what does not."""

from __future__ import annotations

import pytest

from actions.commands import HELP_TEXT, BadCommand, Command, help_reply, parse_command


@pytest.mark.parametrize(("body", "expected"), [
    ("/ensemble run", Command("run")),
    ("/ensemble run\n", Command("run")),
    ("  /ensemble status  ", Command("status")),
    ("Thanks!\n\n/ensemble retry\n\nmore words", Command("retry")),
    ("/ensemble stop\r\n", Command("stop")),
    ("/ensemble help", Command("help")),
    ("/ensemble approve-plan", Command("approve-plan")),
    ("/ensemble update", Command("update")),
    ("/Ensemble RUN", Command("run")),
    ("/ensemble\trun", Command("run")),
    ("/ensemble revise use a dict instead of a list", Command("revise", "use a dict instead of a list")),
    ("/ensemble revise rename it\nand keep the old name as an alias", Command("revise", "rename it\nand keep the old name as an alias")),
    ("first /ensemble stop, then\n/ensemble run", Command("run")),
    ("/ensemble run\n/ensemble stop", Command("run")),
])
def test_commands_on_their_own_line_are_recognised(body: str, expected: Command) -> None:
    assert parse_command(body) == expected


@pytest.mark.parametrize("body", [
    "",
    "please /ensemble run this",
    "> /ensemble run",
    "  > /ensemble stop",
    "```\n/ensemble run\n```",
    "~~~\n/ensemble run\n~~~",
    "````\n```\n/ensemble run\n```\n````",
    "    /ensemble run",
    "\t/ensemble run",
    "`/ensemble run`",
    "/ensembles run",
    "/ensemble-run",
    "\uff0fensemble run",          # fullwidth solidus
    "/\u0435nsemble run",          # Cyrillic ie
    "/ensemble\u200b run",         # zero-width space
    "/ensemble\u00a0run",          # non-breaking space
    "/ensembl\u0435 run",
])
def test_lines_that_are_not_commands(body: str) -> None:
    assert parse_command(body) is None


def test_text_after_a_closed_fence_is_read_again() -> None:
    assert parse_command("```\n/ensemble stop\n```\n/ensemble status") == Command("status")


@pytest.mark.parametrize(("body", "reason"), [
    ("/ensemble", "no verb"),
    ("/ensemble deploy", "unknown verb `deploy`"),
    ("/ensemble revise", "needs instructions"),
    ("/ensemble revise   ", "needs instructions"),
    ("/ensemble r\u0443n", None),  # a lookalike letter in the verb: the whole line is not a command
])
def test_bad_commands_get_the_help_text(body: str, reason: str | None) -> None:
    result = parse_command(body)
    if reason is None:
        assert result is None
        return
    assert isinstance(result, BadCommand)
    assert reason in result.reason
    reply = help_reply(result.reason)
    assert reason in reply and HELP_TEXT in reply


def test_a_strange_verb_is_not_echoed() -> None:
    result = parse_command("/ensemble `@org/everyone`")
    assert isinstance(result, BadCommand) and "@" not in result.reason


def test_help_lists_every_verb() -> None:
    for verb in ("run", "retry", "revise", "update", "stop", "status", "help", "approve-plan"):
        assert f"/ensemble {verb}" in HELP_TEXT
