"""The edit-format instructions for the coder: the rules, the task's own paths, and a worked example.

Small models copy an example word for word. Shown the placeholder `path/to/file.py` a 1.5B coder
wrote it back in 12 replies of 12; shown a worked example cut from the task's own file, it sent that
example back as its edit, round after round (bench/real_model.py, with the traces' `ensemble.edits`
spans). So the rules name the real paths of the files the coder is shown, and the worked example
is an earlier exchange about a toy file, before the task: a conversation the model imitates in
form and has no reason to repeat. A copy of it is recognised and never applied (coding.py).

A format is an object (`EditFormat`): its rules, its worked example, how a reply in it is read, what a
follow-up says and where a reply should stop. `EditBlocks` asks for SEARCH/REPLACE blocks, `WholeFiles` for each
changed file whole, `MixedFiles` each file in the form that is shorter to write (a small file whole, edit blocks in
a large one); the team's policy picks one for each round from the config's `edit_format` (bot/ensemble/policy.py:
`alternate` and `auto` switch after each round whose change was not good). A round's reply is capped by what
it can need (`reply_tokens`): the files it may send whole, and a bound per file it changes with blocks.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

from bot.ensemble.coder.apply import NO_BLOCKS, describe_failures, parse_edit_blocks
from bot.ensemble.coder.parsing import (
    EditBlock,
    EditFailure,
    ParseResult,
    is_part,
    listing_end,
    parse_whole_files,
    parts_of,
)
from bot.ensemble.workspace_files import Read
from bot.llm.types import STOP_LIMIT, ReplyEnd
from common.testfiles import is_test_path
from common.tokens import estimate_tokens

RULES = """Reply with edit blocks, one per change. A block is the file's path on its own line, then
<<<<<<< SEARCH, the lines to find, =======, the lines that replace them, and >>>>>>> REPLACE.

Rules:
- The path goes on its own line right above <<<<<<< SEARCH: the real path of the file, relative
  to the repository root, exactly as it was shown to you.
- Never write line numbers in a block.
- Copy the SEARCH lines exactly from the file, indentation included; they must match exactly one
  place, so add a line or two of unchanged code around the change if needed.
- An empty SEARCH part creates a new file whose content is the REPLACE part.
- Send several small blocks rather than one big one: each block changes one place.
- Send blocks only for lines you change: no block for a file you leave as it is.
- No prose is needed: the blocks are the answer."""

WHOLE_RULES = """Reply with the whole new content of each file you change: the file's path on its own line,
then the complete file between a line ``` and a line ```.

Rules:
- The path goes on its own line right above the opening ```: the real path of the file, relative
  to the repository root, exactly as it was shown to you.
- Copy every line you do not change exactly as it is: never skip, shorten or elide anything (no
  "..." and no "rest of the code" comments).
- Send only the files you change; a new file is sent the same way.
- A file shown to you in part (an outline with windows of lines) cannot be sent whole: change it with
  an edit block instead: its path on its own line, then <<<<<<< SEARCH, the exact lines to find,
  =======, the lines that replace them, and >>>>>>> REPLACE.
- First say in one or two sentences what is wrong and how you change it, then send the files."""

MIXED_RULES = """Send each file you change in the form that is shorter to write: a small file whole, a large file
with edit blocks.
- A whole file: the file's path on its own line, then the complete file between a line ``` and a line ```. Copy
  every line you do not change exactly as it is: never skip, shorten or elide anything (no "..." and no "rest of
  the code" comments). A new file is sent whole.
- An edit block: the file's path on its own line, then <<<<<<< SEARCH, the exact lines to find, =======, the lines
  that replace them, and >>>>>>> REPLACE. Copy the SEARCH lines exactly from the file, indentation included; they
  must match exactly one place. Never write line numbers. A file shown to you in part is changed this way.

Rules:
- The path goes on its own line right above the opening ``` or <<<<<<< SEARCH: the real path of the file,
  relative to the repository root, exactly as it was shown to you.
- Send only the files you change.
- First say in one or two sentences what is wrong and how you change it, then send the files."""

# The request's last words (EditFormat.closing): the reply's form said again, short, right before the model writes.
# Ended on a long sentence about the tests and a list of files to send whole, the local 1.5B coder's first replies
# wrote that sentence back, or sent back each file named, changed or not: 2 of 9 design tasks' first replies changed
# a file. Ended on the form, 7 of the same 9 did, and 11 of 13 (8 of 13 fixed the bug): each task's first request as
# the engine builds it, replayed at temperature 0 on bench/peers.py's local model (docs/benchmarks.md, s35).
SAY_FIRST = "Reply with one sentence on what is wrong, then"
WHOLE_FORM = "its path on its own line, then the whole file between a line ``` and a line ```"
BLOCK_FORM = ("the file's path on its own line, then <<<<<<< SEARCH, the exact lines to find, =======, the lines that "
              "replace them, and >>>>>>> REPLACE")

# What a change costs to write, in output tokens: on a local server a round's time is mostly its reply's length.
# A whole file costs its own tokens; an edit block costs its path and markers and its SEARCH and REPLACE parts (the
# changed lines and the context that makes SEARCH unique, each written twice): a median of about 120 tokens, one
# block a reply, in the local 1.5B coder's recorded block replies (bench/peers.py's model.jsonl; /tmp/peers-*).
# A SEARCH part that does not match costs the block again in a follow-up turn, which a whole file cannot miss: with
# half of a small model's blocks missing, a block costs twice its length on average, so a file is worth sending whole
# while it costs no more than that (about 25 lines of code); a larger one is cheaper changed in place.
BLOCK_TOKENS = 120
WHOLE_MAX_TOKENS = 2 * BLOCK_TOKENS
# The reply cap (`reply_tokens`): what a reply in the round's format can need. A file sent whole may grow by a new
# function or two; the token estimate can undercount a local tokenizer on code by about a tenth (common/tokens.py).
GROWTH_TOKENS = 256  # what a change may add to a file sent whole
ESTIMATE_SLACK = 1.1
FRAME_TOKENS = 16  # a file's path line and its fences or markers
PROSE_TOKENS = 192  # the sentence or two before the files, or a few READ/FIND requests
NEW_FILE_TOKENS = 1024  # a new file (a reproduction test, a module the plan names): no size to go by
# A file changed with blocks: never more than all of it written twice (SEARCH and REPLACE), and blocks change a few
# places each (the rules ask for small blocks): BLOCKS_PER_FILE blocks of up to four times the median block.
MAX_BLOCK_TOKENS = 4 * BLOCK_TOKENS
BLOCKS_PER_FILE = 3

MAX_NAMED_PATHS = 8
PLAIN_PATH = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_./-]{0,199}")  # a path that can carry no instruction
EXAMPLE_PATHS = ("shop/cart.py", "toybox/prices.py", "demo_store/basket.py")  # the first that names nothing of the task's
EXAMPLE_PATH = EXAMPLE_PATHS[0]
EXAMPLE_FILE = ('def total(prices):\n    """The sum of the prices."""\n    return sum(prices)\n\n\n'
                'def count(items):\n    return len(items)\n')
EXAMPLE_TASK = "total() crashes when a price is None; missing prices should count as 0."
# the whole-file answer opens with what is wrong and the change (as aider's whole-file answers do): said first, a
# 1.5B coder's first replies solved 9 of 17 bench tasks where files alone solved 5 (bench/peers.py's first coder
# calls replayed, temperature 0)
EXAMPLE_WHY = "total() adds None prices, which crashes; count a missing price as 0."
# the fix is in the code, the docstring only copied as context: shown a docstring edited too, a 1.5B coder
# edited only the docstring of the task's file, round after round (bench/peers.py's model.jsonl)
EXAMPLE = (EXAMPLE_PATH, '    """The sum of the prices."""\n    return sum(prices)\n',
           '    """The sum of the prices."""\n    return sum(price or 0 for price in prices)\n')


ECHO_MIN_CHARS = 24  # the shortest opening of a test file sent as a stop sequence (a lone `import x` is too common)
NO_LISTINGS = EditFailure("?", "parse", "the reply holds no file listing: send each file you change whole, its path "
                          "on its own line right above the opening ```")


class EditFormat(Protocol):
    """How the coder writes a change: the rules and worked example it is shown, how its reply is read, what a
    follow-up tells it, and where its reply should end."""

    @property
    def name(self) -> str:
        """The format's name (`edit_format` in the config): "blocks" or "whole"."""
        ...

    @property
    def no_edit(self) -> EditFailure:
        """What a reply that holds no change in this format is told."""
        ...

    def rules(self) -> str:
        """The rules, the same for every task and round (the system prompt's)."""
        ...

    def closing(self, paths: Sequence[str]) -> str:
        """The request's last words on the reply: what it holds, in this format, and the `paths` of the task's
        files (so the coder writes them, not a placeholder)."""
        ...

    def example(self, paths: Sequence[str]) -> tuple[str, str, str]:
        """The worked example as a reply in this format reads once parsed: (path, SEARCH, REPLACE)."""
        ...

    def example_answer(self, paths: Sequence[str]) -> str:
        """The worked example's answer, as the coder is shown it."""
        ...

    def new_file(self, path: str, content: str) -> str:
        """A new file at `path` holding `content`, as a reply in this format writes it."""
        ...

    def shown_whole(self, shown: Mapping[str, str], read: Read) -> frozenset[str]:
        """The files among `shown` (path: what the coder was shown of it) that a reply may send back whole."""
        ...

    def fitted(self, shown: Mapping[str, str], read: Read) -> EditFormat:
        """This format for a round that shows the coder `shown`: one that picks a form per file names its choices."""
        ...

    def written_whole(self, shown: Mapping[str, str], read: Read) -> frozenset[str]:
        """The files among `shown` the coder is asked to send back whole (the rest take edit blocks)."""
        ...

    def parse(self, text: str, read: Read, shown: Mapping[str, str]) -> ParseResult:
        """The changes in a reply, as edit blocks, and what could not be read (`shown`: path, what the coder was
        shown of it)."""
        ...

    def follow_up(self, failures: Sequence[EditFailure], applied: int, cut_off: bool) -> str:
        """What the coder is asked after a reply whose changes did not all apply (`applied`: blocks in place)."""
        ...

    def stops(self, shown: Mapping[str, str], judged: Iterable[str], task_text: str) -> tuple[str, ...]:
        """Stop sequences that end a reply where it starts to copy one of the judge's tests back."""
        ...


class EditBlocks:
    """SEARCH/REPLACE blocks, one per change (DESIGN.md)."""

    name = "blocks"
    no_edit = NO_BLOCKS

    def rules(self) -> str:
        """The block rules."""
        return RULES

    def closing(self, paths: Sequence[str]) -> str:
        """An edit block for each change."""
        return _naming(f"Reply with an edit block for each change: {BLOCK_FORM}.", paths)

    def example(self, paths: Sequence[str]) -> tuple[str, str, str]:
        """The worked example's block."""
        return example(paths)

    def example_answer(self, paths: Sequence[str]) -> str:
        """The block that fixes the toy task."""
        return render_block(*example(paths))

    def new_file(self, path: str, content: str) -> str:
        """A block with an empty SEARCH part."""
        return render_block(path, "", content)

    def shown_whole(self, shown: Mapping[str, str], read: Read) -> frozenset[str]:
        """None: blocks change files in place."""
        return frozenset()

    def fitted(self, shown: Mapping[str, str], read: Read) -> EditFormat:
        """The same for every round."""
        return self

    def written_whole(self, shown: Mapping[str, str], read: Read) -> frozenset[str]:
        """None: every file takes blocks."""
        return frozenset()

    def parse(self, text: str, read: Read, shown: Mapping[str, str]) -> ParseResult:
        """The reply's edit blocks."""
        return parse_edit_blocks(text)

    def follow_up(self, failures: Sequence[EditFailure], applied: int, cut_off: bool) -> str:
        """Ask for corrected blocks for what did not apply."""
        fix = "Send corrected blocks for these only, copying SEARCH lines exactly from the file."
        return _follow_up(failures, applied, cut_off, "These blocks did NOT apply:\n", fix)

    def stops(self, shown: Mapping[str, str], judged: Iterable[str], task_text: str) -> tuple[str, ...]:
        """None: a block reply sends no test file back whole."""
        return ()


class WholeFiles:
    """Each changed file sent whole (a file shown only in part is changed with an edit block)."""

    name = "whole"
    no_edit = NO_LISTINGS

    def rules(self) -> str:
        """The whole-file rules."""
        return WHOLE_RULES

    def closing(self, paths: Sequence[str]) -> str:
        """What is wrong, then each file changed, whole."""
        return _naming(f"{SAY_FIRST} each file you change: {WHOLE_FORM}.", paths)

    def example(self, paths: Sequence[str]) -> tuple[str, str, str]:
        """The worked example as the whole-file answer reads once parsed: (path, "" as for a new file, the fixed
        file); the toy file does not exist in the task's repository, so a copy of the answer would create it."""
        path, search, replace = example(paths)
        return path, "", EXAMPLE_FILE.replace(search, replace)

    def example_answer(self, paths: Sequence[str]) -> str:
        """What is wrong with the toy file, then the whole fixed toy file."""
        path, _, content = self.example(paths)
        return f"{EXAMPLE_WHY}\n\n{path}\n```\n{content}```"

    def new_file(self, path: str, content: str) -> str:
        """The file whole under its path."""
        return f"{path}\n```\n{_body(content)}\n```"

    def shown_whole(self, shown: Mapping[str, str], read: Read) -> frozenset[str]:
        """The files the coder was shown as they are, not in part."""
        return frozenset(p for p, view in shown.items() if view == read(p))

    def fitted(self, shown: Mapping[str, str], read: Read) -> EditFormat:
        """The same for every round."""
        return self

    def written_whole(self, shown: Mapping[str, str], read: Read) -> frozenset[str]:
        """Every file shown whole."""
        return self.shown_whole(shown, read)

    def parse(self, text: str, read: Read, shown: Mapping[str, str]) -> ParseResult:
        """The reply's edit blocks and its whole-file listings as blocks: a listing replaces a file the coder was
        shown whole or creates a new one; one without a path is the file to change it keeps most of, or is a part
        of (parsing.parse_whole_files), and one under a path that does not exist is the one file shown whole it names
        with a folder too many or too few (`task/words.py` for `words.py`), as a block's path is read
        (apply.resolve_path). A listing that is a part of its file (a function sent as the file: `parts_of`)
        replaces the part it begins and ends like, not the file, indented as that part is; in a file shown in part,
        only a part the coder was shown as it is. A part that matches no place, and any other listing of a file
        shown in part, would drop lines the coder never meant to, so it is refused with a word on how to send it."""
        parsed = parse_edit_blocks(text)
        blocks, failures = list(parsed.blocks), list(parsed.failures)
        whole = self.shown_whole(shown, read)
        owners = {p: read(p) or "" for p in shown if not is_test_path(p)}
        for listed, content in parse_whole_files(text, owners):
            path = listed if read(listed) is not None else _meant(listed, whole)
            current = read(path)
            parts = parts_of(current, content) if current is not None and path in shown else None
            if parts and (path in whole or all(span in shown[path] for span, _ in parts)):
                blocks += [EditBlock(path, span, new) for span, new in parts]
            elif current is not None and path in whole and is_part(current, content):
                failures.append(EditFailure(path, "parse", f"what you sent as {path} is a part of that file (it leaves "
                                            "out the file's first lines) that matches no one place in it: send the "
                                            "whole file from its first line, or change it with edit blocks"))
            elif current is None or path in whole:
                blocks.append(EditBlock(path, current or "", content))
            else:
                failures.append(EditFailure(path, "parse", f"{path} was shown to you in part, so it cannot be sent "
                                            "whole: change it with SEARCH/REPLACE edit blocks"))
        return ParseResult(tuple(blocks), tuple(failures))

    def follow_up(self, failures: Sequence[EditFailure], applied: int, cut_off: bool) -> str:
        """Ask for the files whose changes did not apply, whole again."""
        fix = "Send each file you change again, whole, its path on the line above the opening ```."
        return _follow_up(failures, applied, cut_off, "These changes were NOT applied:\n", fix)

    def stops(self, shown: Mapping[str, str], judged: Iterable[str], task_text: str) -> tuple[str, ...]:
        """Where a whole-file reply starts to copy one of the judge's tests back: the opening of each test file in
        `shown` (the files shown whole: path, text) that is `judged`, i.e. its first two lines that are not blank
        and what lies between them. Sent as stop sequences, they end the reply there.

        After its change, a small coder often sends the unchanged tests back whole (27 of the 27 such copies in
        the bench's recorded replies of the local 1.5B model came after the changed file, none before), which
        costs a CPU server seconds for nothing: the judge runs the base's tests whatever comes back. An opening
        that the files the coder may change, the example or the task also hold is left out: the reply must not
        end there.
        """
        judged = set(judged)
        if not any(p not in judged for p in shown):
            return ()  # nothing the coder may change is shown: leave its reply alone
        others = "\n".join([task_text, EXAMPLE_FILE, *(text for p, text in shown.items() if p not in judged)])
        stops: list[str] = []
        for path in sorted(judged & set(shown)):
            opening = _opening(shown[path])
            if len(opening) >= ECHO_MIN_CHARS and opening not in others and opening not in stops:
                stops.append(opening)
        return tuple(stops[:STOP_LIMIT])


class MixedFiles(WholeFiles):
    """Each file in the form that is shorter to write: whole when it costs no more than WHOLE_MAX_TOKENS, else edit
    blocks. A reply is read as a whole-file reply is (listings and blocks are told apart by their markers), so a
    large file the coder sends whole anyway still applies; only the rules, and the reply's cap, differ."""

    name = "mixed"
    no_edit = EditFailure("?", "parse", "the reply holds no change: send each small file you change whole under its "
                          "path, and edit blocks for the large ones")

    def __init__(self, whole: Sequence[str] = (), blocks: Sequence[str] = ()):
        self.whole = tuple(whole)  # the files of the round to send whole, once fitted
        self.blocks = tuple(blocks)  # those to change with edit blocks

    def fitted(self, shown: Mapping[str, str], read: Read) -> EditFormat:
        """The format naming which of `shown` go whole and which take blocks."""
        whole = self.written_whole(shown, read)
        return MixedFiles(sorted(whole), sorted(p for p in shown if p not in whole))

    def written_whole(self, shown: Mapping[str, str], read: Read) -> frozenset[str]:
        """The files shown whole whose whole costs no more than WHOLE_MAX_TOKENS."""
        return frozenset(p for p in self.shown_whole(shown, read) if estimate_tokens(shown[p]) <= WHOLE_MAX_TOKENS)

    def rules(self) -> str:
        """The rules: which form suits which file."""
        return MIXED_RULES

    def closing(self, paths: Sequence[str]) -> str:
        """What is wrong, then each file changed in its form: the form named per file only where the task's files
        take both (naming the files to send whole, a small coder sent each of them, changed or not)."""
        whole = [p for p in self.whole if p in paths and PLAIN_PATH.fullmatch(p)][:MAX_NAMED_PATHS]
        blocks = [p for p in self.blocks if p in paths and PLAIN_PATH.fullmatch(p)][:MAX_NAMED_PATHS]
        if not blocks:
            return _naming(f"{SAY_FIRST} each file you change: {WHOLE_FORM}.", paths)
        if not whole:
            return _naming(f"{SAY_FIRST} an edit block for each change: {BLOCK_FORM}.", paths)
        return _naming(f"{SAY_FIRST} each file you change: {', '.join(whole)} whole ({WHOLE_FORM}); "
                       f"{', '.join(blocks)} with an edit block for each change ({BLOCK_FORM}).", paths)

    def follow_up(self, failures: Sequence[EditFailure], applied: int, cut_off: bool) -> str:
        """Ask for the changes that did not apply again, each file in its form."""
        fix = ("Send these changes again: a small file whole, its path on the line above the opening ```; a large "
               "file with edit blocks, copying SEARCH lines exactly from the file.")
        return _follow_up(failures, applied, cut_off, "These changes were NOT applied:\n", fix)


BLOCKS: EditFormat = EditBlocks()
WHOLE: EditFormat = WholeFiles()
MIXED: EditFormat = MixedFiles()
FORMATS: dict[str, EditFormat] = {f.name: f for f in (BLOCKS, WHOLE, MIXED)}


def reply_tokens(edit_format: EditFormat, shown: Mapping[str, str], read: Read, editable: Iterable[str],
                 new_files: int = 0) -> int:
    """The output tokens a reply in `edit_format` can need to change the `editable` files of `shown` (path: what
    the coder was shown of it) and write `new_files` new ones: each file it is asked to send whole at its size and
    room to grow; each file it changes with blocks BLOCKS_PER_FILE blocks, or the file written twice if less, and
    no more than the file whole where the format reads it whole too; a new file NEW_FILE_TOKENS; a few sentences.
    A reply that needs more is continued (bot/llm/manager.py)."""
    whole, readable = edit_format.written_whole(shown, read), edit_format.shown_whole(shown, read)
    need = PROSE_TOKENS + new_files * NEW_FILE_TOKENS
    for path in dict.fromkeys(editable):
        if path not in shown:
            continue
        size = estimate_tokens(shown[path])
        blocks = min(2 * size + GROWTH_TOKENS, BLOCKS_PER_FILE * MAX_BLOCK_TOKENS)
        if path in readable:
            blocks = min(blocks, size + GROWTH_TOKENS)
        need += FRAME_TOKENS + (size + GROWTH_TOKENS if path in whole else blocks)
    return int(need * ESTIMATE_SLACK)


def reply_end(edit_format: EditFormat, shown: Mapping[str, str], read: Read, targets: Sequence[str]) -> ReplyEnd | None:
    """Where a reply is complete in a round that asks for one file (`targets`: the files the round may change) in a
    form sent whole: once it holds that file's listing closed. None when the round may change several files, or
    changes its one with edit blocks (which may come one after another, and end with no mark of the last).

    What a small coder writes after its listing is never needed: a word on the change, or a test nobody asked for
    (the local 1.5B coder went on for 32 and 133 tokens after its listing in two of its first three whole-file
    replies on the design set, 4 and 17 s on two cores: bench/peers.py's model.jsonl). A new file the listing's
    code needs would be cut too; a round asks for one file's change when the task's files are that one."""
    if len(targets) != 1 or edit_format.name == BLOCKS.name:
        return None
    path, whole = targets[0], edit_format.shown_whole(shown, read)
    if path not in edit_format.written_whole(shown, read) and read(path) is not None:
        return None
    owners = {path: shown[path]} if path in whole and not is_test_path(path) else {}
    return ReplyEnd(f"the listing of {path}", functools.partial(listing_end, paths=(path,), owners=owners))


def _meant(path: str, shown_whole: frozenset[str]) -> str:
    """The one file shown whole that `path` (no file of the repository) names under a folder too many or too few;
    `path` itself when none or several do. Read as a new file instead, a whole listing of `words.py` sent as
    `task/words.py` was refused as an attempt to create a file that exists (the local 1.5B coder, bench/peers.py)."""
    near = [p for p in shown_whole if path.endswith("/" + p) or p.endswith("/" + path)]
    return near[0] if len(near) == 1 else path


def _naming(text: str, paths: Sequence[str]) -> str:
    """`text`, then the sentence naming the task's `paths` as they are to be written."""
    plain = [p for p in paths if PLAIN_PATH.fullmatch(p)]
    if not plain:
        return text
    named = ", ".join(plain[:MAX_NAMED_PATHS]) + (" …" if len(plain) > MAX_NAMED_PATHS else "")
    return f"{text}\nThe files of this task are named exactly like this: {named}."


def _follow_up(failures: Sequence[EditFailure], applied: int, cut_off: bool, heading: str, fix: str) -> str:
    parts = []
    if applied:
        parts.append(f"{applied} of your edit blocks applied and are now in the files; do not send them again.")
    if cut_off:
        parts.append("Your reply was cut off because it was too long. Send the remaining changes as smaller "
                     "blocks (only the lines that change, with two or three lines around them).")
    if failures:
        parts += [heading + describe_failures(failures), fix]
    return "\n\n".join(parts)


def _opening(text: str) -> str:
    """The text from the first line that is not blank through the second one."""
    lines = text.splitlines()
    filled = [i for i, line in enumerate(lines) if line.strip()][:2]
    return "\n".join(lines[filled[0]:filled[-1] + 1]) if filled else ""


def render_block(path: str, search: str, replace: str) -> str:
    """One edit block as the coder should write it."""
    parts = [path, "<<<<<<< SEARCH", _body(search), "=======", _body(replace), ">>>>>>> REPLACE"]
    return "\n".join(part for part in parts if part)


def example(paths: Sequence[str] = ()) -> tuple[str, str, str]:
    """The worked example's (path, SEARCH, REPLACE), on a toy path that shares no file or folder name with the
    task's `paths`: a model shown two different `shop/cart.py`, the toy one and the task's, mixes them up."""
    names = {part for path in paths for part in path.split("/")}
    path = next((p for p in EXAMPLE_PATHS if not set(p.split("/")) & names), EXAMPLE_PATHS[-1])
    return path, EXAMPLE[1], EXAMPLE[2]


def _body(text: str) -> str:
    return text.replace("\r\n", "\n").removesuffix("\n")
