from pathlib import Path

import pytest

from todo.cli import main
from todo.store import Item, load, save


@pytest.fixture
def todo_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "todo.json"
    monkeypatch.setenv("TODO_FILE", str(path))
    return path


def test_no_file_is_no_items(tmp_path: Path):
    assert load(tmp_path / "missing.json") == []


def test_save_and_load(tmp_path: Path):
    path = tmp_path / "sub" / "todo.json"
    save(path, [Item("milk"), Item("taxes", done=True)])
    assert load(path) == [Item("milk"), Item("taxes", done=True)]


def test_an_empty_file_is_no_items(tmp_path: Path):
    path = tmp_path / "todo.json"
    path.write_text("")
    assert load(path) == []
    path.write_text("\n  \n")
    assert load(path) == []


def test_add_then_list(todo_file: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["add", "buy", "milk"]) == 0
    assert main(["add", "call", "Sam"]) == 0
    assert main(["done", "2"]) == 0
    capsys.readouterr()
    assert main(["list"]) == 0
    assert capsys.readouterr().out == "  1. [ ] buy milk\n  2. [x] call Sam\n"


def test_done_out_of_range(todo_file: Path, capsys: pytest.CaptureFixture[str]):
    assert main(["done", "1"]) == 1
    assert "no item #1" in capsys.readouterr().err


def test_list_and_add_with_an_empty_file(todo_file: Path, capsys: pytest.CaptureFixture[str]):
    todo_file.write_text("")
    assert main(["list"]) == 0
    assert capsys.readouterr().out == "nothing to do\n"
    assert main(["add", "water", "plants"]) == 0
    assert load(todo_file) == [Item("water plants")]
