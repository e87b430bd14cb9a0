"""Reading the service's settings from an INI file."""

import configparser
from pathlib import Path

from appconfig.defaults import DEFAULTS


def load(path: str | Path) -> dict[str, object]:
    """The settings in the file at `path`; a key the file does not set comes from DEFAULTS."""
    parser = configparser.ConfigParser()
    parser.read(path, encoding="utf-8")
    section = parser["server"] if parser.has_section("server") else {}
    return {
        "host": section.get("host", DEFAULTS["host"]),
        "port": int(section["port"]),
        "workers": int(section.get("workers", DEFAULTS["workers"])),
        "debug": parser.getboolean("server", "debug", fallback=DEFAULTS["debug"]),
    }
