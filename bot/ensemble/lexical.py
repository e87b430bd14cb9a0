"""A plain lexical retriever over the repository's files: the fallback when the index cannot be opened."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from bot.ensemble.types import Retrieved

WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
MAX_BYTES = 200_000
TEXT_SUFFIXES = (".py", ".js", ".ts", ".go", ".rs", ".java", ".c", ".h", ".cpp", ".rb", ".md", ".toml", ".cfg",
                 ".ini", ".txt", ".yml", ".yaml", ".json")


class LexicalRetriever:
    """Scores tracked text files by shared words with the query; whole files, no index on disk."""

    def __init__(self, root: Path):
        self.root = root
        out = subprocess.run(["git", "ls-files"], cwd=root, capture_output=True, text=True, check=False).stdout
        self.files = {}
        for rel in out.splitlines():
            path = root / rel
            if rel.endswith(TEXT_SUFFIXES) and path.is_file() and path.stat().st_size <= MAX_BYTES:
                self.files[rel] = path.read_text(encoding="utf-8", errors="replace")

    def search(self, query: str, k: int = 8) -> list[tuple[Retrieved, str]]:
        """Files sharing the most words with `query`."""
        words = {w.lower() for w in WORD.findall(query)}
        scored = []
        for rel, text in self.files.items():
            score = len(words & {w.lower() for w in WORD.findall(text + " " + rel)})
            if score:
                scored.append((score, rel))
        scored.sort(key=lambda item: (-item[0], item[1]))
        return [(Retrieved(rel, "search", float(score), 1, self.files[rel].count("\n") + 1, query[:80]),
                 self.files[rel]) for score, rel in scored[:k]]

    def lookup_symbol(self, name: str) -> list[tuple[Retrieved, str]]:
        """Files that define `name` (def/class/function/func)."""
        pattern = re.compile(rf"^\s*(?:async\s+def|def|class|function|func|fn)\s+{re.escape(name)}\b", re.M)
        return [(Retrieved(rel, "symbol", 1.0, 1, text.count("\n") + 1, name), text)
                for rel, text in self.files.items() if pattern.search(text)]

    def repo_map(self, query: str, max_tokens: int = 1500) -> str:
        """File names with their top-level definitions, cut to about `max_tokens`."""
        lines = []
        for rel, text in sorted(self.files.items()):
            defs = re.findall(r"^(?:def|class|async def)\s+(\w+)", text, re.M)
            lines.append(f"{rel}: {', '.join(defs[:12])}" if defs else rel)
        return "\n".join(lines)[: max_tokens * 4]
