"""The coder: one round's change, asked of the fast-thinker model and applied to the team's workspace. Its one face.

The loop calls `write_change(coder, brief, ...)` once per round and gets `RoundEdits` back (what applied, what was
refused, whether it compiles, what the replies cost), and `write_hidden_check` once a change first passes;
everything between is inside this package:

| what                                                                  | module        |
| ---                                                                   | ---           |
| the round's turns: ask, apply, follow up on what did not apply        | `turns.py`    |
| how the coder writes a change (edit blocks, whole files, each by its cost): rules, examples, follow-ups, caps | `formats.py` |
| reading a reply: edit blocks and whole-file listings                  | `parsing.py`  |
| applying blocks to files, refusing denied paths, links and escapes; the syntax check of what was written | `apply.py` |
| finding where a SEARCH part that does not match exactly was meant     | `matching.py` |
| what the coder is shown of a file (outline and windows)               | `fileview.py` |
| its prompt: the round's request, or the last round's conversation going on | `prompts.py` |
| the hidden check's request, which opens as a round's request does      | `hidden_check.py` |

The parts every role's prompt shares (the data fence, the order) are bot/ensemble/prompt_parts.py; the guards its
edits pass are the judge's (bot/ensemble/judge). Nothing outside this package imports its inner modules
(tests/test_imports.py).
"""

from __future__ import annotations

from bot.ensemble.coder.apply import denial, describe_failures
from bot.ensemble.coder.fileview import DEFINITION, PATH_LINE
from bot.ensemble.coder.formats import (
    BLOCKS,
    EXAMPLE_FILE,
    EXAMPLE_TASK,
    FORMATS,
    MIXED,
    WHOLE,
    EditFormat,
    render_block,
)
from bot.ensemble.coder.hidden_check import (
    HIDDEN_CHECK_GOAL,
    HIDDEN_CHECK_ROLE,
    hidden_check_messages,
    write_hidden_check,
)
from bot.ensemble.coder.parsing import parse_edit_blocks, parse_whole_files
from bot.ensemble.coder.turns import Brief, Coder, RoundEdits, write_change

__all__ = ["BLOCKS", "DEFINITION", "EXAMPLE_FILE", "EXAMPLE_TASK", "FORMATS", "HIDDEN_CHECK_GOAL", "HIDDEN_CHECK_ROLE", "MIXED", "PATH_LINE",
           "WHOLE", "Brief", "Coder", "EditFormat", "RoundEdits", "denial", "describe_failures", "hidden_check_messages",
           "parse_edit_blocks", "parse_whole_files", "render_block", "write_change", "write_hidden_check"]
