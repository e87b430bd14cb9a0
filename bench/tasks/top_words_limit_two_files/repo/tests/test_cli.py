from cli import main


def test_top_prints_ten(tmp_path, capsys):
    (tmp_path / "t.txt").write_text(" ".join((letter * 3 + " ") * (20 - i) for i, letter in enumerate("abcdefghijklmno")))
    assert main(["top", str(tmp_path / "t.txt")]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 10


def test_top_limit_option(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("b b b a a c")
    assert main(["top", "--limit", "2", str(tmp_path / "t.txt")]) == 0
    assert capsys.readouterr().out.splitlines() == ["    3 b", "    2 a"]


def test_count(tmp_path, capsys):
    (tmp_path / "t.txt").write_text("one two three")
    assert main(["count", str(tmp_path / "t.txt")]) == 0
    assert capsys.readouterr().out == "3\n"
