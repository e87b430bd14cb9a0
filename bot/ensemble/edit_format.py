"""The edit-format instructions for the coder: the rules, the task's own paths, and a worked example.

Small models copy an example word for word. Shown the placeholder `path/to/file.py` a 1.5B coder
wrote it back in 12 replies of 12; shown a worked example cut from the task's own file, it sent that
example back as its edit, round after round (bench/real_model.py, with the traces' `ensemble.edits`
spans). So the rules name the real paths of the files the coder is shown, and the worked example
is an earlier exchange about a toy file, before the task: a conversation the model imitates in
form and has no reason to repeat. A copy of it is recognised and never applied (coding.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

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


def edit_rules(paths: Sequence[str], whole: bool = False) -> str:
    """The rules (edit blocks, or `whole` files), naming the paths of the files the coder is shown (so it writes
    them, not a placeholder)."""
    rules = WHOLE_RULES if whole else RULES
    plain = [p for p in paths if PLAIN_PATH.fullmatch(p)]
    if not plain:
        return rules
    named = ", ".join(plain[:MAX_NAMED_PATHS]) + (" …" if len(plain) > MAX_NAMED_PATHS else "")
    return f"{rules}\n\nThe files of this task are named exactly like this: {named}."


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


def example_answer(paths: Sequence[str] = (), whole: bool = False) -> str:
    """The worked example's answer: the block that fixes the toy task, or (`whole`) the whole fixed toy file."""
    if whole:
        path, _, content = whole_example(paths)
        return f"{EXAMPLE_WHY}\n\n{path}\n```\n{content}```"
    return render_block(*example(paths))


def whole_example(paths: Sequence[str] = ()) -> tuple[str, str, str]:
    """The worked example as the whole-file answer reads once parsed: (path, "" as for a new file, the fixed file);
    the toy file does not exist in the task's repository, so a copy of the answer would create it."""
    path, search, replace = example(paths)
    return path, "", EXAMPLE_FILE.replace(search, replace)


def _body(text: str) -> str:
    return text.replace("\r\n", "\n").removesuffix("\n")
