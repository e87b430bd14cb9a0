"""common/ stays a leaf every layer may import, and git runs only through its facade."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("bot", "actions", "indexer", "sandbox", "common")


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imported(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_common_imports_no_other_layer() -> None:
    for path in modules("common"):
        assert not imported(path) & {"bot", "actions", "indexer", "sandbox"}, path


def test_git_runs_only_through_the_facade() -> None:
    offenders = []
    for package in LAYERS:
        for path in modules(package):
            if path == ROOT / "common" / "git.py":
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and node.value == "git" and "subprocess" in imported(path):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
                if isinstance(node, ast.ImportFrom) and node.module == "git":  # GitPython
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == [], "run git through common.git (git, git_bytes, git_succeeds)"
