"""Query analysis of issue text: the concrete handles an issue gives for exact-match boosts.

Pure functions: file paths, stack-trace frames, dotted names, identifiers (in backticks or shaped
like code), and error messages. The text is data: nothing in it is followed, only matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.(?:py|pyi|js|jsx|ts|tsx|go|rs|java|c|h|cc|cpp|hpp|rb|"
                  r"php|cs|kt|swift|scala|sh|toml|cfg|ini|yaml|yml|json|rst|md|txt))\b")
FRAMES = (
    re.compile(r'File "([^"]+)", line (\d+), in ([\w<>]+)'),  # CPython tracebacks
    re.compile(r"File (\S+\.py):(\d+), in ([\w<>]+)"),  # IPython and Jupyter
    re.compile(r"^(\S+\.py):(\d+): in ([\w<>]+)", re.MULTILINE),  # pytest's long tracebacks
)
URL_SCHEME = re.compile(r"\b[a-z][a-z0-9+.-]*://")
DOTTED = re.compile(r"\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\b")
BACKTICK = re.compile(r"`{1,3}([^`\n]{1,200})`{1,3}")
IDENT = re.compile(r"\b([A-Za-z_]\w*)\b")
ERROR = re.compile(r"^\s*(?:[\w.]+\.)?([A-Z]\w*(?:Error|Exception|Warning|[a-z][A-Z]\w*)):\s+([^\n]{8,200})$",
                   re.MULTILINE)
QUOTED = re.compile(r"['\"]([^'\"\n]{12,120})['\"]")


@dataclass
class QueryAnalysis:
    """What an issue names explicitly."""

    paths: list[str] = field(default_factory=list)
    frames: list[tuple[str, int, str]] = field(default_factory=list)
    dotted: list[str] = field(default_factory=list)
    identifiers: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)


def _code_like(word: str) -> bool:
    """snake_case, camelCase, CamelCase with an inner capital, or dunder names; not plain English words."""
    inner = word.strip("_")
    if len(word) < 3 or len(inner) < 2:
        return False
    return "_" in inner or (any(c.isupper() for c in inner[1:]) and any(c.islower() for c in inner)) or \
        word.startswith("__")


def _unique(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))


def analyze_query(text: str) -> QueryAnalysis:
    """Extract paths, frames, dotted names, code identifiers and error messages from issue text."""
    found = sorted((m.start(), m.group(1), int(m.group(2)), m.group(3)) for frame in FRAMES
                   for m in frame.finditer(text))
    frames = [(path, line, name) for _, path, line, name in found]
    # a path inside a link (a blob URL naming the file and line) counts as a mention
    scan = URL_SCHEME.sub(" ", text)
    paths = _unique([m.group(1).lstrip("./") for m in PATH.finditer(scan)] + [f[0] for f in frames])
    dotted = _unique([d for d in DOTTED.findall(text) if not PATH.fullmatch(d) and not d[0].isdigit()])
    identifiers: list[str] = []
    for snippet in BACKTICK.findall(text):
        identifiers.extend(IDENT.findall(snippet))
    identifiers.extend(w for w in IDENT.findall(text) if _code_like(w))
    identifiers.extend(part for d in dotted for part in d.split("."))
    identifiers.extend(f[2] for f in frames if not f[2].startswith("<"))
    quoted = [q.strip() for q in QUOTED.findall(text) if not PATH.search(q) and " " in q.strip() and q.strip()[0].isalnum()]
    messages = [m.group(2).strip().strip("'\"") for m in ERROR.finditer(text)] + quoted
    return QueryAnalysis(paths=paths, frames=frames, dotted=dotted,
                         identifiers=_unique([i for i in identifiers if len(i) > 2]),
                         messages=_unique([m for m in messages if len(m) >= 12])[:5])


def match_paths(mentioned: list[str], indexed: list[str]) -> set[str]:
    """Indexed files a mention points at: same path, or a path ending with the mention (site-packages, /abs/...)."""
    by_name: dict[str, list[str]] = {}
    for path in indexed:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    found: set[str] = set()
    for mention in mentioned:
        parts = mention.replace("\\", "/").split("/")
        for candidate in by_name.get(parts[-1], []):
            tail = candidate.split("/")
            # the mention and the file agree on the file name and at least one folder, or the mention is bare
            common = 0
            while common < min(len(parts), len(tail)) and parts[-1 - common] == tail[-1 - common]:
                common += 1
            if common >= min(2, len(tail)) or (len(parts) == 1 and len(by_name[parts[-1]]) <= 2):
                found.add(candidate)
    return found


def module_candidates(dotted: str) -> list[str]:
    """`a.b.c` -> module names it may refer to: `a.b.c` and `a.b` (when `c` is an attribute)."""
    parts = dotted.split(".")
    return [".".join(parts[:n]) for n in range(len(parts), 0, -1) if n >= 2 or len(parts) == 1]
