"""Files shown to the coder as windows: an outline plus verbatim code around what matters.

A file that fits the budget is shown whole. A larger one becomes its outline (classes and
functions with their lines) followed by windows of verbatim code around the focus ranges, each
grown to its enclosing function, headed by an `@@ lines A-B of N @@` anchor and cut to the budget
in focus order. Code lines are never prefixed or altered, so a model can copy them into SEARCH
blocks. `focus_from_text` finds focus ranges in tracebacks, test output and names. No I/O.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

from common.languages import is_language
from common.testids import matching_tests
from sandbox.summary import failing_tests

CONTEXT = 3
MAX_OUTLINE_SHARE = 4  # the outline takes at most a quarter of the budget
MODIFIERS = (r"(?:export|default|pub(?:\([^)]*\))?|async|static|public|private|protected|abstract|final|unsafe"
             r"|override|open|data|sealed|internal|inline|extern(?:[ \t]+\"C\")?|type[ \t]+\w+)")
DEFINITION = re.compile(rf"^(?P<indent>[ \t]*)(?:{MODIFIERS}[ \t]+)*(?:func|fn|function|def|class|struct|impl"
                        r"|interface|trait)\b[ \t]*(?:\([^)]*\)[ \t]*)?(?P<name>[\w$]*)")
PATH_LINE = re.compile(r"(?P<path>[\w./\\-]+):(?P<line>\d+)|File \"(?P<tpath>[^\"]+)\", line (?P<tline>\d+)")
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@dataclass(frozen=True)
class Definition:
    """A class or function of a file with its 1-based inclusive line range and nesting depth."""

    name: str
    kind: str
    start: int
    end: int
    depth: int
    label: str


def outline(path: str, text: str) -> list[Definition]:
    """The file's definitions in line order: by `ast` for Python, else by common definition keywords."""
    if is_language(path, "python"):
        try:
            return _python_outline(ast.parse(text).body, 0)
        except (SyntaxError, ValueError):
            pass
    return _regex_outline(text.splitlines())


def failing_tests_only(path: str, text: str, failing: str) -> str:
    """A Python test file of the judge's as the coder reads it beside `failing` (the base's failures, which name
    their tests): without its tests that pass there, its imports, helpers, fixtures and classes kept. The failures
    and the code they call are what a fix needs, and on a local model every prompt token is read anew (a test file
    is a fifth of a first request). The file as it is where it names no failing test, or is not Python."""
    if not is_language(path, "python"):
        return text
    definitions = outline(path, text)
    tests = [d for d in definitions if d.kind == "def" and d.depth <= 1 and d.name.startswith("test")]
    failing_here = matching_tests(failing_tests(failing), [path])
    passing = [d for d in tests if not any(re.search(rf"::{re.escape(d.name)}(?![\w.])", t) for t in failing_here)]
    if not tests or len(passing) == len(tests):
        return text
    lines = text.splitlines(keepends=True)
    dropped: set[int] = set()
    for d in passing:
        dropped.update(_with_blanks_after(lines, d))
    for d in definitions:  # a class left with none of its lines goes too
        if d.kind == "class" and all(i in dropped for i in range(d.start, d.end) if lines[i].strip()):
            dropped.update(_with_blanks_after(lines, d))
    return "".join(line for i, line in enumerate(lines) if i not in dropped)


def _with_blanks_after(lines: list[str], d: Definition) -> range:
    """The indices of the lines of `d` and of the blank lines after it."""
    end = d.end
    while end < len(lines) and not lines[end].strip():
        end += 1
    return range(d.start - 1, end)


def _python_outline(body: list[ast.stmt], depth: int) -> list[Definition]:
    found: list[Definition] = []
    for node in body:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "class" if isinstance(node, ast.ClassDef) else "def"
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            end = node.end_lineno or node.lineno
            label = f"{'  ' * depth}{kind} {node.name} (lines {start}-{end})"
            found.append(Definition(node.name, kind, start, end, depth, label))
            if kind == "class":
                found += _python_outline(node.body, depth + 1)
    return found


def _regex_outline(lines: list[str]) -> list[Definition]:
    """Definition lines; each ends before the next definition that is indented no deeper."""
    hits = [(i + 1, m) for i, line in enumerate(lines) if (m := DEFINITION.match(line))]
    indents = [len(m["indent"].expandtabs(4)) for _, m in hits]
    ends = [len(lines)] * len(hits)
    open_hits: list[int] = []  # indices of definitions not yet closed, indents increasing
    for k, (number, _) in enumerate(hits):
        while open_hits and indents[open_hits[-1]] >= indents[k]:
            ends[open_hits.pop()] = number - 1
        open_hits.append(k)
    found = []
    for k, (number, m) in enumerate(hits):
        end = ends[k]
        while end > number and _outdented(lines[end - 1], indents[k]):
            end -= 1  # blank lines and the closing braces of an enclosing definition
        label = f"{m['indent']}line {number}: {lines[number - 1].strip()[:100]}"
        found.append(Definition(m["name"], "definition", number, end, indents[k], label))
    return found


def _outdented(line: str, indent: int) -> bool:
    return not line.strip() or len(line.expandtabs(4)) - len(line.expandtabs(4).lstrip()) < indent


def render_file(path: str, text: str, focus: Sequence[tuple[int, int]], budget_chars: int) -> str:
    """The whole file when it fits; else its outline and verbatim windows around `focus`, within budget."""
    if len(text) <= budget_chars:
        return text
    lines = text.splitlines()
    definitions = outline(path, text)
    wanted = [_clip(s, e, len(lines)) for s, e in focus] or [(1, len(lines))]
    head = _render_outline(path, len(lines), definitions, wanted, budget_chars // MAX_OUTLINE_SHARE)
    room = budget_chars - len(head) - 2
    windows: list[tuple[int, int]] = []
    for start, end in wanted:
        options = _candidates(start, end, len(lines), definitions)
        for lo, hi in options:
            if len(_render_windows(lines, _merge([*windows, (lo, hi)]))) <= room:
                windows = _merge([*windows, (lo, hi)])
                break
        else:
            windows = _trimmed(lines, windows, *options[-1], room) or windows
    body = _render_windows(lines, windows)
    return f"{head}\n\n{body}" if body else head[:budget_chars]


def _clip(start: int, end: int, total: int) -> tuple[int, int]:
    start = min(max(1, start), total)
    return start, min(max(start, end), total)


def _candidates(start: int, end: int, total: int, definitions: list[Definition]) -> list[tuple[int, int]]:
    """Windows to try, largest first: the enclosing definition, then the focus with some context."""
    inner = [d for d in definitions if d.start <= start and end <= d.end]
    plain = (max(1, start - CONTEXT), min(total, end + CONTEXT))
    if not inner:
        return [plain]
    enclosing = min(inner, key=lambda d: d.end - d.start)
    return [(max(1, enclosing.start - CONTEXT), min(total, enclosing.end + CONTEXT)), plain]


def _trimmed(lines: list[str], windows: list[tuple[int, int]], lo: int, hi: int,
             room: int) -> list[tuple[int, int]] | None:
    """The windows with as many lines from `lo` on as fit in `room`, or None when not even one does."""
    best, low, high = None, lo, hi
    while low <= high:  # binary search on the last line
        middle = (low + high) // 2
        candidate = _merge([*windows, (lo, middle)])
        if len(_render_windows(lines, candidate)) <= room:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


def _merge(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(windows):
        if merged and start <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _render_windows(lines: list[str], windows: list[tuple[int, int]]) -> str:
    return "\n\n".join(f"@@ lines {s}-{e} of {len(lines)} @@\n" + "\n".join(lines[s - 1:e]) for s, e in windows)


def _render_outline(path: str, total: int, definitions: list[Definition], focus: Sequence[tuple[int, int]],
                    budget: int) -> str:
    """The outline in line order; when cut, definitions around the focus and top-level ones stay."""
    head = f"{path} ({total} lines) is shown in parts. Outline:"
    near = {k for k, d in enumerate(definitions) if any(d.start <= e and s <= d.end for s, e in focus)}
    order = sorted(range(len(definitions)),
                   key=lambda k: (k not in near, definitions[k].depth, definitions[k].kind != "class", k))
    kept: set[int] = set()
    size = len(head) + 40  # room for the "more definitions" line
    for k in order:
        size += len(definitions[k].label) + 1
        if size > budget:
            break
        kept.add(k)
    shown = [head, *(d.label for k, d in enumerate(definitions) if k in kept)]
    if len(kept) < len(definitions):
        shown.append(f"... {len(definitions) - len(kept)} more definitions not listed")
    return "\n".join(shown)


def focus_from_text(path: str, text: str, hints: str) -> list[tuple[int, int]]:
    """Focus ranges named in `hints`: `path:LINE` mentions, then functions, then classes defined in the file."""
    total = len(text.splitlines())
    ranges: list[tuple[int, int]] = []
    for m in PATH_LINE.finditer(hints):
        mentioned = (m["path"] or m["tpath"]).replace("\\", "/")
        line = int(m["line"] or m["tline"])
        if _same_file(mentioned, path) and 1 <= line <= total:
            ranges.append((line, line))
    by_name: dict[str, Definition] = {}
    for definition in outline(path, text):
        by_name.setdefault(definition.name, definition)
    named = [by_name[word] for word in IDENTIFIER.findall(hints) if word in by_name and len(word) > 2]
    ranges += [(d.start, d.end) for d in named if d.kind != "class"]
    ranges += [(d.start, d.start) for d in named if d.kind == "class"]  # its header; the whole when it fits
    return list(dict.fromkeys(ranges))


def _same_file(mentioned: str, path: str) -> bool:
    mentioned, path = mentioned.lstrip("./"), path.lstrip("./")
    return mentioned == path or mentioned.endswith("/" + path) or path.endswith("/" + mentioned)
