"""The edit-format instructions for the coder, with one worked example cut from the task's own files.

Small models copy an example's shape word for word: given the placeholder `path/to/file.py`
they write it back. So the instructions show no placeholder, only a worked example with a real
path and real lines (`example_from` picks them from the files the coder will see), and the
example parses back, with bot/ensemble/edit_parsing.py, to exactly that block.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from bot.ensemble.matching import count_matches

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
- No prose is needed: the blocks are the answer."""

NEUTRAL_EXAMPLE = ("src/module.py", 'def greet(name):\n    return "Hello " + name\n',
                   'def greet(name):\n    return f"Hello, {name}!"\n')
COMMENT_MARKS = {
    "#": (".py", ".pyi", ".rb", ".sh", ".bash", ".yml", ".yaml", ".toml", ".r", ".pl", ".cfg", ".ex", ".exs",
          ".jl", ".nim", ".cr", "Makefile", "Dockerfile", "Containerfile", "Gemfile", "Rakefile"),
    "//": (".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".go", ".java", ".c", ".h", ".cc", ".cpp", ".hpp",
           ".cs", ".rs", ".kt", ".kts", ".swift", ".scala", ".dart", ".php", ".zig", ".groovy"),
    "--": (".sql", ".lua", ".hs", ".elm"),
}
DEFINITION = re.compile(r"^\s*(?:export\s+|pub\s+|public\s+|private\s+|protected\s+|static\s+|async\s+)*"
                        r"(?:def|class|function|func|fn|sub|module|interface|struct|impl)\b")
TEST_PATH = re.compile(r"(^|/)(tests?|spec|__tests__)/|(^|/)test_[^/]*$|[._-](test|spec)\.\w+$|Tests?\.\w+$")
EXAMPLE_LINES = 2
MAX_EXAMPLE_WIDTH = 100  # longer lines make a poor example
SCAN_LINES = 400  # how far into a file to look for example lines


def edit_instructions(example_path: str, example_search: str, example_replace: str) -> str:
    """The edit-format rules and one worked example that edits `example_path` (real lines, real path)."""
    parts = [example_path, "<<<<<<< SEARCH", _body(example_search), "=======", _body(example_replace),
             ">>>>>>> REPLACE"]
    block = "\n".join(part for part in parts if part)
    return f"{RULES}\n\nFor example, this block edits {example_path}:\n\n{block}"


def _body(text: str) -> str:
    return text.replace("\r\n", "\n").removesuffix("\n")


def example_from(files: Mapping[str, str]) -> tuple[str, str, str]:
    """(path, search, replace) for the worked example: a few real lines of a shown file, a comment added.

    Non-test files are preferred, and lines at a definition; with no usable file, a neutral
    example in src/module.py.
    """
    for path in sorted(files, key=lambda p: bool(TEST_PATH.search(p))):
        mark = _comment_mark(path)
        lines = _example_lines(files[path]) if mark else []
        if lines:
            search = "".join(line + "\n" for line in lines)
            indent = lines[0][:len(lines[0]) - len(lines[0].lstrip())]
            return path, search, f"{indent}{mark} a new comment line\n{search}"
    return NEUTRAL_EXAMPLE


def _comment_mark(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    suffix = name[name.rfind("."):].lower() if "." in name else name
    return next((mark for mark, kinds in COMMENT_MARKS.items() if suffix in kinds), "")


def _example_lines(text: str) -> list[str]:
    """A few consecutive non-blank lines that match once, starting at a definition if there is one."""
    lines = text.replace("\r\n", "\n").split("\n")[:SCAN_LINES]
    starts = [i for i, line in enumerate(lines) if DEFINITION.match(line)]
    for i in [*starts, *range(len(lines))]:
        chunk = lines[i:i + EXAMPLE_LINES]
        if len(chunk) == EXAMPLE_LINES and all(line.strip() and len(line) <= MAX_EXAMPLE_WIDTH for line in chunk) \
                and count_matches(text, "".join(line + "\n" for line in chunk)) == 1:
            return chunk
    return []
