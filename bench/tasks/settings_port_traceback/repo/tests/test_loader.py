from appconfig.loader import load


def write(tmp_path, text):
    path = tmp_path / "settings.ini"
    path.write_text(text)
    return path


def test_all_keys_from_file(tmp_path):
    path = write(tmp_path, "[server]\nhost = 0.0.0.0\nport = 9000\nworkers = 8\ndebug = yes\n")
    assert load(path) == {"host": "0.0.0.0", "port": 9000, "workers": 8, "debug": True}


def test_port_defaults(tmp_path):
    path = write(tmp_path, "[server]\nhost = 0.0.0.0\nworkers = 4\n")
    assert load(path) == {"host": "0.0.0.0", "port": 8000, "workers": 4, "debug": False}


def test_empty_file_gives_defaults(tmp_path):
    assert load(write(tmp_path, "")) == {"host": "127.0.0.1", "port": 8000, "workers": 2, "debug": False}
