#!/usr/bin/env bash
# Run the test suite on a fresh Debian/Ubuntu machine: provision everything, then pytest.
# Extra arguments go to pytest (e.g. `bash scripts/test.sh tests/bot -k config`).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$ROOT/scripts/setup.sh" --dev
cd "$ROOT"
exec "${ENSEMBLE_VENV:-$ROOT/.venv}/bin/python" -m pytest "$@"
