"""Posts, permalinks, search and headlines for the team blog."""

__version__ = "0.9.0"
