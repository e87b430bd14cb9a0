#!/usr/bin/env bash
# The demo: create a small sample repository with a real bug and a failing test, then run the
# whole engine on it (retrieval, the Docker sandbox, git worktrees, the planner/coder/critic loop).
#
# With OPENAI_API_KEY, OPENAI_BASE_URL or GEMINI_API_KEY set, live models answer (every role on the
# one provider whose key is there; scripts/demo-models.sh decides). Without them the `scripted`
# provider replays the transcript shipped in bot/ensemble/demo/transcript.jsonl, and the run says
# so at the start and in its summary.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Idempotent and quick once done: Debian packages, the Docker engine, the base image, .venv.
bash "$ROOT/scripts/setup.sh"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ensemble-demo.XXXXXX")"
REPO="$WORK/stats"

"$PYTHON" -c "from pathlib import Path; from bot.ensemble.demo import create_sample_repo; create_sample_repo(Path('$REPO'))"
"$PYTHON" -c "from bot.ensemble.demo import TASK_TITLE, TASK_BODY; print(TASK_TITLE); print(); print(TASK_BODY)" > "$WORK/task.txt"
echo "==> sample repository: $REPO (branch main; tests/test_core.py::test_median_even fails)" >&2

# The base image built by scripts/setup.sh serves when no registry image is available.
if [ -z "${ENSEMBLE_SANDBOX_IMAGE:-}" ] && docker image inspect ensemble-base:bookworm >/dev/null 2>&1; then
  export ENSEMBLE_SANDBOX_IMAGE=ensemble-base:bookworm
fi

# shellcheck source=scripts/demo-models.sh
source "$ROOT/scripts/demo-models.sh"

status=0
"$PYTHON" -m bot.cli run --repo "$REPO" --task-file "$WORK/task.txt" "$@" || status=$?
branch="$(git -C "$REPO" branch --list 'ensemble/*' --format='%(refname:short)' | head -1)"
[ -n "$branch" ] && echo "==> see the change: git -C $REPO log -p main..$branch" >&2
exit "$status"
