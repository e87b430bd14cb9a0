#!/usr/bin/env bash
# The demo: create a small sample repository with a real bug and a failing test, then run the
# whole engine on it (retrieval, the Docker sandbox, git worktrees, the planner/coder/critic loop).
#
# With OPENAI_API_KEY, OPENAI_BASE_URL or GEMINI_API_KEY set, live models answer (every role on the
# one provider whose key is there; scripts/demo-models.sh decides). Without them the `scripted`
# provider replays the transcript shipped in bot/ensemble/demo/transcript.jsonl, and the run says
# so at the start and in its summary.
#
# --lang go|rust|js|c runs the same bug in that language instead of Python: its tests run in the
# language's registry image where one can be pulled, else in a toolchain image the sandbox builds
# once from the base image and Debian's packages (a minute or two the first time). Replies are
# replayed from bot/ensemble/demo/transcript-<lang>.jsonl without keys. Other arguments go to
# `ensemble run` (e.g. --json).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LANG_CHOICE=python
if [ "${1:-}" = "--lang" ]; then
  LANG_CHOICE="${2:-}"
  shift 2 || { echo "usage: bash scripts/demo.sh [--lang python|go|rust|js|c] [ensemble run options]" >&2; exit 2; }
fi
case "$LANG_CHOICE" in
  python|go|rust|js|c) ;;
  *) echo "demo.sh: no demo for --lang '$LANG_CHOICE'; choose python, go, rust, js or c" >&2; exit 2 ;;
esac
# Idempotent and quick once done: Debian packages, the Docker engine, the base image, .venv.
bash "$ROOT/scripts/setup.sh"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/ensemble-demo.XXXXXX")"
REPO="$WORK/stats"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"

if [ "$LANG_CHOICE" = python ]; then
  "$PYTHON" -c "from pathlib import Path; from bot.ensemble.demo import create_sample_repo; create_sample_repo(Path('$REPO'))"
  "$PYTHON" -c "from bot.ensemble.demo import TASK_TITLE, TASK_BODY; print(TASK_TITLE); print(); print(TASK_BODY)" > "$WORK/task.txt"
  FAILING=tests/test_core.py::test_median_even
  TRANSCRIPT="$ROOT/bot/ensemble/demo/transcript.jsonl"
  # The base image built by scripts/setup.sh serves Python when no registry image is available.
  if [ -z "${ENSEMBLE_SANDBOX_IMAGE:-}" ] && docker image inspect ensemble-base:bookworm >/dev/null 2>&1; then
    export ENSEMBLE_SANDBOX_IMAGE=ensemble-base:bookworm
  fi
else
  FAILING=$("$PYTHON" -c "
from pathlib import Path
from bot.ensemble.demo.languages import create_language_sample
sample = create_language_sample('$LANG_CHOICE', Path('$REPO'))
Path('$WORK/task.txt').write_text(sample.task)
print(sample.failing_test)")
  TRANSCRIPT="$ROOT/bot/ensemble/demo/transcript-$LANG_CHOICE.jsonl"
fi
echo "==> sample repository ($LANG_CHOICE): $REPO (branch main; $FAILING fails)" >&2

# shellcheck source=scripts/demo-models.sh
DEMO_TRANSCRIPT="$TRANSCRIPT" source "$ROOT/scripts/demo-models.sh"

status=0
"$PYTHON" -m bot.cli run --repo "$REPO" --task-file "$WORK/task.txt" "$@" || status=$?
branch="$(git -C "$REPO" branch --list 'ensemble/*' --format='%(refname:short)' | head -1)"
[ -n "$branch" ] && echo "==> see the change: git -C $REPO log -p main..$branch" >&2
exit "$status"
