#!/usr/bin/env bash
# Which models the demo uses, from the keys in the environment; sourced by scripts/demo.sh.
# Prints one line saying so on stderr and exports ENSEMBLE_<ROLE>_PROVIDER/_MODEL where needed:
#   - OpenAI key or OPENAI_BASE_URL and a Gemini key: the configured defaults (critic on Gemini);
#   - only OpenAI (or an OpenAI-compatible server): every role on the openai provider;
#   - only Gemini: every role on Gemini;
#   - no keys: the scripted provider REPLAYS the transcript shipped with the project (DEMO_TRANSCRIPT
#     names another, as `demo.sh --lang` does).
# Roles the user already set through ENSEMBLE_<ROLE>_PROVIDER are left alone.
ROOT="${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"

demo_role() {  # role provider model
  if [ -z "$(printenv "ENSEMBLE_$1_PROVIDER")" ]; then
    export "ENSEMBLE_$1_PROVIDER=$2" "ENSEMBLE_$1_MODEL=$3"
  fi
}

openai="${OPENAI_API_KEY:-}${OPENAI_BASE_URL:-}"
gemini="${GEMINI_API_KEY:-}${GOOGLE_API_KEY:-}"
if [ -n "$openai" ] && [ -n "$gemini" ]; then
  echo "==> live models: OpenAI (or the server at OPENAI_BASE_URL) plans and codes, Gemini reviews" >&2
elif [ -n "$openai" ]; then
  echo "==> live models through the OpenAI API (or the server at OPENAI_BASE_URL) for every role" >&2
  demo_role PLANNER openai "${ENSEMBLE_OPENAI_SLOW_MODEL:-gpt-4o}"
  demo_role CODER openai "${ENSEMBLE_OPENAI_FAST_MODEL:-gpt-4o-mini}"
  demo_role CRITIC openai "${ENSEMBLE_OPENAI_FAST_MODEL:-gpt-4o-mini}"
elif [ -n "$gemini" ]; then
  echo "==> live models through the Gemini API for every role" >&2
  for role in PLANNER CODER CRITIC; do
    demo_role "$role" gemini "${ENSEMBLE_GEMINI_MODEL:-gemini-2.5-flash}"
  done
else
  transcript="${DEMO_TRANSCRIPT:-$ROOT/bot/ensemble/demo/transcript.jsonl}"
  echo "==> NO MODEL KEYS: the model replies are REPLAYED from $transcript (not live)" >&2
  for role in PLANNER CODER CRITIC; do
    export "ENSEMBLE_${role}_PROVIDER=scripted" "ENSEMBLE_${role}_MODEL=$transcript"
  done
fi
