import pytest

from dirlist import listing, main


@pytest.fixture
def project(tmp_path):
    for name in ("src", "docs", ".git"):
        (tmp_path / name).mkdir()
    for name in ("README.md", "Makefile", "setup.py", ".gitignore"):
        (tmp_path / name).write_text("")
    return tmp_path


def test_entries_are_sorted(project):
    assert listing(project) == ["docs/", "Makefile", "README.md", "setup.py", "src/"]


def test_case_only_breaks_ties_and_folders_first_keeps_the_order(project):
    (project / "Lib").mkdir()
    (project / "readme.md").write_text("")
    assert listing(project) == ["docs/", "Lib/", "Makefile", "README.md", "readme.md", "setup.py", "src/"]
    assert listing(project, dirs_first=True)[:3] == ["docs/", "Lib/", "src/"]


def test_hidden_entries_on_request(project):
    assert ".git/" not in listing(project)
    assert {".git/", ".gitignore"} <= set(listing(project, show_hidden=True))


def test_dirs_first(project):
    assert listing(project, dirs_first=True)[:2] == ["docs/", "src/"]


def test_command_prints_one_name_a_line(project, capsys):
    assert main([str(project), "--dirs-first"]) == 0
    assert capsys.readouterr().out.splitlines()[:2] == ["docs/", "src/"]


def test_command_on_a_missing_folder(tmp_path, capsys):
    assert main([str(tmp_path / "nope")]) == 1
    assert "No such file or directory" in capsys.readouterr().err
