"""The slash-command grammar: `/ensemble <verb> [argument]` in a comment. Pure: text in, data out.

A command counts only when it stands on its own line, outside block quotes, fenced or
indented code blocks, and is spelled in plain ASCII: lookalike letters (Cyrillic `е`,
fullwidth `／`), zero-width or non-breaking spaces make the line not a command at all.
The first command line of a comment wins. An unknown verb or a missing argument parses
to `BadCommand`, whose answer is the help text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PREFIX = "/ensemble"
VERBS = ("run", "retry", "revise", "update", "verify", "stop", "status", "help", "approve-plan")
NEEDS_ARGUMENT = {"revise": "instructions"}

HELP_TEXT = """\
**ensemble commands** (each on its own line, by someone with write access):

| command | what it does |
| --- | --- |
| `/ensemble run` | start a run on this issue |
| `/ensemble retry` | run again; after a human pushed to the bot's branch, let the bot push there again |
| `/ensemble revise <instructions>` | on the bot's pull request: change it as instructed and push a new commit |
| `/ensemble update` | on the bot's pull request (or its issue): bring its branch onto the default branch as it is now, resolve conflicts, judge it again there |
| `/ensemble verify` | on any open pull request: judge its head against its merge base in the sandbox and post what its tests prove (fixed, broken, new tests that fail without it, test edits) |
| `/ensemble stop` | stop the run in progress at its next checkpoint |
| `/ensemble status` | say what the bot is doing on this issue or pull request |
| `/ensemble approve-plan` | with `require_plan_approval: true`: let the bot code the posted plan, as its comment reads now (edit the steps first if you like) |
| `/ensemble help` | show this help |
"""

_SPACE = "[ \t]"
_LINE = re.compile(rf"^ {{0,3}}(?P<prefix>/\S*)(?:{_SPACE}+(?P<verb>\S+))?(?:{_SPACE}+(?P<rest>.*?))?{_SPACE}*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_QUOTE = re.compile(r"^ {0,3}>")


@dataclass(frozen=True)
class Command:
    """A recognised command: its verb and argument text (instructions for `revise`)."""

    verb: str
    argument: str = ""


@dataclass(frozen=True)
class BadCommand:
    """A `/ensemble` line that is not a valid command; answered with the help text."""

    reason: str


def parse_command(body: str) -> Command | BadCommand | None:
    """The first command in a comment body, a BadCommand, or None when there is none."""
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    fence: str | None = None
    for index, line in enumerate(lines):
        fence_match = _FENCE.match(line)
        if fence is not None:
            if fence_match and fence_match.group(1)[0] == fence[0] and len(fence_match.group(1)) >= len(fence):
                fence = None
            continue
        if fence_match:
            fence = fence_match.group(1)
            continue
        if _QUOTE.match(line) or line.startswith(("    ", "\t")):
            continue
        match = _LINE.match(line)
        if not match or not line.isascii() or match["prefix"].lower() != PREFIX:
            continue
        return _command(match["verb"], match["rest"] or "", lines[index + 1:])
    return None


def _command(verb: str | None, rest: str, following: list[str]) -> Command | BadCommand:
    if not verb:
        return BadCommand("no verb after /ensemble")
    verb = verb.lower()
    if verb not in VERBS:
        shown = f" `{verb}`" if re.fullmatch(r"[a-z0-9_.-]{1,30}", verb) else ""  # never echo mentions or markup
        return BadCommand(f"unknown verb{shown}")
    if verb in NEEDS_ARGUMENT:
        argument = "\n".join([rest, *following]).strip()
        if not argument:
            return BadCommand(f"`/ensemble {verb}` needs {NEEDS_ARGUMENT[verb]}")
        return Command(verb, argument)
    return Command(verb)


def help_reply(reason: str = "") -> str:
    """The help text, prefixed with what was wrong with the command, if anything."""
    return (f"I did not understand that: {reason}.\n\n" if reason else "") + HELP_TEXT
