"""The to-do items on disk: a JSON list of {"text": ..., "done": ...} objects."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

DEFAULT_PATH = Path.home() / ".todo.json"


@dataclass
class Item:
    text: str
    done: bool = False


def store_path() -> Path:
    """Where the list lives: $TODO_FILE, else ~/.todo.json."""
    return Path(os.environ["TODO_FILE"]) if os.environ.get("TODO_FILE") else DEFAULT_PATH


def load(path: Path) -> list[Item]:
    """The items saved at `path`; no file yet means no items."""
    if not path.exists():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Item(entry["text"], bool(entry.get("done", False))) for entry in data]


def save(path: Path, items: list[Item]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([asdict(item) for item in items], indent=2) + "\n", encoding="utf-8")
