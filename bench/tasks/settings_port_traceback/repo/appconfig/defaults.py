"""Settings used when the settings file does not give them."""

DEFAULTS: dict[str, object] = {"host": "127.0.0.1", "port": 8000, "workers": 2, "debug": False}
