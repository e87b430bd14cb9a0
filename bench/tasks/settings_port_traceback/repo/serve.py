"""Start the shop service with the settings file named on the command line."""

import sys

from appconfig.loader import load


def main() -> None:
    """Load the settings and report what would be served."""
    settings = load(sys.argv[1])
    print(f"serving on {settings['host']}:{settings['port']} with {settings['workers']} workers")


if __name__ == "__main__":
    main()
