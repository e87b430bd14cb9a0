import pytest

import envfile


def test_plain_values_and_comments():
    text = "# settings\nDB_HOST=db.internal\n\nDB_PORT = 5432\n"
    assert envfile.parse(text) == {"DB_HOST": "db.internal", "DB_PORT": "5432"}


def test_export_prefix():
    assert envfile.parse("export TOKEN=abc\n") == {"TOKEN": "abc"}


def test_comment_after_a_value():
    assert envfile.parse("WORKERS=4   # one per core\n") == {"WORKERS": "4"}


def test_double_quotes_understand_escapes():
    assert envfile.parse('GREETING="Hello,\\nworld \\"you\\""\n') == {"GREETING": 'Hello,\nworld "you"'}


def test_single_quotes_keep_the_text():
    assert envfile.parse("RAW='a\\nb $HOME'\n") == {"RAW": "a\\nb $HOME"}


def test_later_lines_win():
    assert envfile.parse("A=1\nA=2\n") == {"A": "2"}


def test_hash_inside_double_quotes():
    text = 'DB_USER=app\nDB_PASSWORD="hunter2#prod"   # rotated in May\n'
    assert envfile.parse(text) == {"DB_USER": "app", "DB_PASSWORD": "hunter2#prod"}


def test_hash_inside_single_quotes():
    assert envfile.parse("COLOR='#ff8800'\nNEXT=1\n") == {"COLOR": "#ff8800", "NEXT": "1"}


def test_a_line_without_equals_names_the_file_and_line(tmp_path):
    env = tmp_path / ".env"
    env.write_text("A=1\nnot a setting\n")
    with pytest.raises(envfile.EnvFileError) as info:
        envfile.load(env, environ={})
    assert info.value.lineno == 2
    assert str(info.value).startswith(f"{env}:2:")


def test_load_keeps_what_is_set_unless_told(tmp_path):
    env = tmp_path / ".env"
    env.write_text("A=from-file\nB=from-file\n")
    environ = {"A": "already"}
    envfile.load(env, environ=environ)
    assert environ == {"A": "already", "B": "from-file"}
    envfile.load(env, environ=environ, override=True)
    assert environ == {"A": "from-file", "B": "from-file"}
