"""The shell both backends run: the setup script, the run wrapper, and the environment they get.

Setup runs the setup command in a copy of the repository, then keeps what it produced at the top
level (`node_modules`, ...) under `$ENSEMBLE_ENV/seed` and throws the copy away. Each run links
those seeds into a fresh copy of the repository. Only the variables built here reach a command:
nothing is inherited from the host, so no secret can leak in.
"""

from __future__ import annotations

import functools
import importlib.util
import marshal
import secrets
import shlex
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from sandbox.model import ProjectInfo

SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
RESULTS_DIR = ".ensemble-results"
PLUGINS_DIR = ".ensemble-plugins"  # the sandbox's own modules, copied beside the repository's files
# The files a run's runners are told to write into its own folder, `$ENSEMBLE_RESULTS`
# (`.ensemble-results/<nonce>`): only these are read back, nothing else the run leaves anywhere.
PYTEST_JUNIT = "pytest-junit.xml"
PYTEST_PROGRESS = "pytest-progress.log"  # sandbox/pytest_progress.py
JEST_JUNIT = "jest-junit.xml"  # through JEST_JUNIT_OUTPUT_DIR and JEST_JUNIT_OUTPUT_NAME (detect.py)
CTEST_JUNIT = "ctest-junit.xml"  # the detected CTest command's --output-junit (detect.py)
READS_LOG = "reads.log"  # sandbox/run_hooks.py, when the run traces reads
OWNED_LOG = "owned.log"  # sandbox/run_hooks.py: the changes to the judge's files the run's Python processes tried
OWNED_LIST = f"{PLUGINS_DIR}/ensemble_owned.txt"  # the judge's files, for sandbox/run_hooks.py
PATCHES_LOG = "patches.log"  # sandbox/run_hooks.py: the runner's and the standard library's classes patched in the run
HONESTY_LOG = "honesty.log"  # sandbox/run_hooks.py: forged values compared by the tests, tests read by the code
BUILD_CACHE = "build-cache"  # under $ENSEMBLE_ENV: a compiler cache setup warmed (detect.py), copied into each run
BUILD_CACHE_COPY = "ENSEMBLE_BUILD_CACHE_COPY"  # the variable naming where a run's copy goes
RUN_FILES = (PYTEST_JUNIT, PYTEST_PROGRESS, JEST_JUNIT, CTEST_JUNIT, READS_LOG, OWNED_LOG, PATCHES_LOG, HONESTY_LOG)
CA_VARIABLES = ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "CURL_CA_BUNDLE",
                "GIT_SSL_CAINFO")

SETUP_SCRIPT = r"""
cd "$ENSEMBLE_WORKSPACE" || exit 90
mkdir -p "$ENSEMBLE_ENV/seed" || exit 91
sh -c "$1"
rc=$?
[ "$rc" -eq 0 ] || exit "$rc"
for entry in * .[!.]* ..?*; do
  { [ -e "$entry" ] || [ -L "$entry" ]; } || continue
  grep -qxF -- "$entry" "$2" || mv -- "$entry" "$ENSEMBLE_ENV/seed/" || exit 92
done
chmod -R a+rX "$ENSEMBLE_ENV" 2>/dev/null
exit 0
"""

RUN_SCRIPT = r"""
cd "$ENSEMBLE_WORKSPACE" || exit 90
if [ -d "$ENSEMBLE_ENV/seed" ]; then
  for entry in "$ENSEMBLE_ENV"/seed/* "$ENSEMBLE_ENV"/seed/.[!.]* "$ENSEMBLE_ENV"/seed/..?*; do
    { [ -e "$entry" ] || [ -L "$entry" ]; } || continue
    name=${entry##*/}
    { [ -e "$name" ] || [ -L "$name" ]; } || ln -s "$entry" "$name" 2>/dev/null
  done
fi
mkdir -p "$ENSEMBLE_RESULTS" || exit 93
# a build cache the setup warmed (Go's): this run's own copy, so nothing one run writes there reaches another
if [ -n "${@COPY@:-}" ] && [ -d "$ENSEMBLE_ENV/@CACHE@" ]; then
  cp -R "$ENSEMBLE_ENV/@CACHE@" "$@COPY@" 2>/dev/null
fi
# each test's start and outcome as it happens, so a run killed half-way still says how far it got; and
# sitecustomize (sandbox/run_hooks.py) in every Python process: traced reads, unittest's skips and listing
export PYTHONPATH="$ENSEMBLE_WORKSPACE/.ensemble-plugins${PYTHONPATH:+:$PYTHONPATH}"
export PYTEST_PLUGINS=ensemble_pytest_progress
# a judged run (the judge's files listed): every Node process first freezes the assertion modules (node_guard.js)
if [ -f "$ENSEMBLE_WORKSPACE/.ensemble-plugins/ensemble_owned.txt" ]; then
  export NODE_OPTIONS="--require \"$ENSEMBLE_WORKSPACE/.ensemble-plugins/ensemble_node_guard.js\"${NODE_OPTIONS:+ $NODE_OPTIONS}"
fi
exec sh -c "$1"
""".replace("@CACHE@", BUILD_CACHE).replace("@COPY@", BUILD_CACHE_COPY)


def plugin_files(owned: Iterable[str] = ()) -> dict[str, bytes]:
    """The sandbox's own files every test run gets beside the repository's: the pytest progress plugin, the
    hooks every Python process of the run loads as `sitecustomize`, Node's preload; with `owned` (the files the run may not
    change), their list, which those hooks guard (with these files themselves)."""
    plugins = dict(_plugins())
    names = sorted({*owned, *plugins, OWNED_LIST}) if owned else []
    return {**plugins, OWNED_LIST: "".join(f"{name}\n" for name in names).encode()} if names else plugins


@functools.cache
def _plugins() -> tuple[tuple[str, bytes], ...]:
    """The sandbox's own files of every run, with the Python modules' bytecode beside them: every Python process of a
    run loads both modules, and runs write no bytecode (PYTHONDONTWRITEBYTECODE), so each would compile them again."""
    here = Path(__file__).parent
    sources = {"ensemble_pytest_progress.py": here / "pytest_progress.py", "sitecustomize.py": here / "run_hooks.py"}
    files = [(f"{PLUGINS_DIR}/ensemble_node_guard.js", (here / "node_guard.js").read_bytes())]
    for name, source in sources.items():
        data = source.read_bytes()
        files.append((f"{PLUGINS_DIR}/{name}", data))
        files.append((f"{PLUGINS_DIR}/__pycache__/{name[:-3]}.{sys.implementation.cache_tag}.pyc", _bytecode(data, name)))
    return tuple(files)


def _bytecode(source: bytes, name: str) -> bytes:
    """A hash-checked .pyc of `source` (PEP 552): an interpreter loads it only if its magic number is this one's and
    the source beside it hashes the same, so another Python, or a changed source, compiles the source as before."""
    code = compile(source, name, "exec", dont_inherit=True)
    checked_hash = 0b11  # hash-based, and checked against the source
    return (importlib.util.MAGIC_NUMBER + checked_hash.to_bytes(4, "little") + importlib.util.source_hash(source)
            + marshal.dumps(code))


def new_nonce() -> str:
    """A fresh, unpredictable name for one run's results folder."""
    return secrets.token_hex(16)


def results_folder(nonce: str) -> str:
    """The repository-relative folder a run's runners write their results into."""
    return f"{RESULTS_DIR}/{nonce}"


def run_variables(trace_reads: bool) -> dict[str, str]:
    """What a test run asks of sandbox/run_hooks.py in its Python processes."""
    return {"ENSEMBLE_TRACE_READS": "1"} if trace_reads else {}


def toplevel_listing(names: Iterable[str]) -> bytes:
    """The repository's top-level names, one per line, so setup can tell its own products apart."""
    return "".join(f"{name}\n" for name in sorted(set(names))).encode()


def command_env(project: ProjectInfo, *, env_dir: str, workspace: str, tmp: str, base_path: str | None,
                results: str | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The complete environment of a setup or test command; `results` is a test run's own results folder
    (absolute), where the runners are told to write."""
    path = base_path or SYSTEM_PATH
    results = results or f"{workspace}/{RESULTS_DIR}"
    env = {
        "PATH": f"{env_dir}/venv/bin:{path}",
        "HOME": tmp,
        "TMPDIR": tmp,
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "CI": "true",
        "ENSEMBLE_ENV": env_dir,
        "ENSEMBLE_WORKSPACE": workspace,
        "ENSEMBLE_RESULTS": results,
        "PYTEST_ADDOPTS": f"--junitxml={results}/{PYTEST_JUNIT} -o junit_family=xunit1 --continue-on-collection-errors",
    }
    for name, value in project.env:
        env[name] = value.format(env=env_dir, tmp=tmp, workspace=workspace, results=results)
    env.update(extra or {})
    return env


def ca_env(bundle_path: str) -> dict[str, str]:
    """Variables that make pip, requests, node, curl and git trust a CA bundle (setup phase only)."""
    return {name: bundle_path for name in CA_VARIABLES}


def export_lines(env: Mapping[str, str]) -> str:
    """Shell lines exporting `env`: setup's variables go in its script, not in the container config,
    because `docker commit` would bake the container's variables (the proxy's CA among them) into the image."""
    return "".join(f"export {name}={shlex.quote(value)}\n" for name, value in sorted(env.items()))
