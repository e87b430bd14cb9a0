"""Shared test fixtures: a clean environment, the docker marker's policy, and real git repos."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from docker import DockerClient

# The suite's workers build environment images at once, more than a run keeps (sandbox/docker_env.py prunes all but
# the newest five): a worker's prune must not remove the image another worker's run is between two test runs on.
os.environ.setdefault("ENSEMBLE_KEEP_ENVIRONMENTS", "100")

# Variables that could make a test reach a real service, or change behaviour by accident.
CLEARED_PREFIXES = ("GITHUB_", "RUNNER_", "INPUT_", "OPENAI_", "GEMINI_", "GOOGLE_", "ENSEMBLE_", "ACTIONS_",
                    "OTEL_")


@pytest.fixture(scope="session")
def user_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tests' `$XDG_CACHE_HOME`: never the developer's. One for the whole session (shared by the xdist
    workers), seeded with the developer's distilled embedding models, read only, so the distillation (about
    30 s) runs at most once per session rather than once per test."""
    from common.userdirs import user_cache_dir

    base = tmp_path_factory.getbasetemp()
    root = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "user-cache"
    seeded = root / "ensemble-bot" / "static"
    seeded.mkdir(parents=True, exist_ok=True)
    real = user_cache_dir() / "static"
    for model in sorted(real.glob("*-????????????????.npy")) if real.is_dir() else ():
        if not (seeded / model.name).exists():
            tmp = seeded / f".{model.name}.{os.getpid()}.tmp"
            shutil.copyfile(model, tmp)
            os.replace(tmp, seeded / model.name)  # whole or not at all: other workers read it at once
    return root


# The session's caches each test shares, being slow to build: the distilled embedding models and the local
# sandbox's environments. Everything else in a test's cache (what servers refused, say) is its own.
SHARED_CACHES = ("ensemble-bot/static", "ensemble")


def own_cache(shared: Path, factory: pytest.TempPathFactory) -> Path:
    """A test's own `$XDG_CACHE_HOME`, with the session's `SHARED_CACHES` linked in."""
    own = factory.mktemp("cache")
    for rel in SHARED_CACHES:
        (shared / rel).mkdir(parents=True, exist_ok=True)
        (own / rel).parent.mkdir(parents=True, exist_ok=True)
        (own / rel).symlink_to(shared / rel, target_is_directory=True)
    return own


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, user_cache: Path,
              tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """No test sees the developer's tokens, proxies to real services or Actions variables, or writes in the
    developer's cache, and none sees what another learned (a later fake server may reuse a port)."""
    from bot.llm.local import forget_servers
    from bot.llm.refusals import forget_refusals

    for name in list(os.environ):
        if name.startswith(CLEARED_PREFIXES) and name != "ENSEMBLE_BASE_IMAGE":
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(own_cache(user_cache, tmp_path_factory)))
    forget_refusals()
    forget_servers()
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GIT_AUTHOR_NAME", "Test Author")
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "author@example.com")
    monkeypatch.setenv("GIT_COMMITTER_NAME", "Test Author")
    monkeypatch.setenv("GIT_COMMITTER_EMAIL", "author@example.com")
    yield
    # Remember the secret values this test put in the environment: no trace may hold them.
    SEEN_SECRETS.update(value for name, value in os.environ.items()
                        if _is_secret_name(name) and len(value) >= MIN_SECRET_LENGTH)


def docker_engine_error() -> str | None:
    """None when a Docker engine answers, otherwise why not."""
    from sandbox.engine import docker_client
    from sandbox.errors import EngineUnavailable

    try:
        docker_client(timeout=5).close()
    except EngineUnavailable as exc:
        return str(exc)
    return None


def require_docker() -> None:
    """The Docker policy: without an engine, fail on CI and skip with the way to start one elsewhere."""
    error = docker_engine_error()
    if error is None:
        return
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"CI=true but no Docker engine answers ({error}); .ci/run must start dockerd")
    pytest.skip(f"no Docker engine answers ({error}); run `bash scripts/setup.sh` to start one")


@contextlib.contextmanager
def docker_engine() -> Iterator[DockerClient]:
    """A client of the Docker engine under the Docker policy, for fixtures that set up before a test's own policy
    check (images built once per module or session)."""
    from sandbox.engine import docker_client

    require_docker()
    client = docker_client()
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(autouse=True)
def _docker_policy(request: pytest.FixtureRequest) -> None:
    """Tests marked `docker` fail on CI when no engine answers, and skip with a reason elsewhere."""
    if request.node.get_closest_marker("docker") is not None:
        require_docker()


def git(cwd: Path, *args: str) -> str:
    """Run git in `cwd` and return its stdout; fail the test loudly on error."""
    result = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"git {' '.join(args)} failed: {result.stderr}"
    return result.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh git repository with one commit."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("sample\n")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    return path


MIN_SECRET_LENGTH = 6
# Secret values tests may put in the environment; none may appear in any trace file (checked at the end).
SEEN_SECRETS: set[str] = set()
FAKE_SECRETS = {
    "GITHUB_TOKEN": "ghs_FakeInstallationToken0123456789abcdef",
    "OPENAI_API_KEY": "sk-test-FakeOpenAIKey0123456789abcdef",
    "GEMINI_API_KEY": "AIzaFakeGeminiKey0123456789abcdefghijk",
}


def _is_secret_name(name: str) -> bool:
    from bot.redact import SECRET_ENV_VARS

    return name in SECRET_ENV_VARS or bool(re.search(r"(TOKEN|API_KEY|SECRET|PASSWORD)$", name))


# Wider than bot.redact.TOKEN_PATTERNS on purpose: also the short fake tokens tests use.
LOOSE_TOKEN = re.compile(r"\b(gh[pousr]_|github_pat_|sk-|AIza)[A-Za-z0-9_\-]{8,}")


def trace_leaks(basetemp: Path, secrets: set[str]) -> list[str]:
    """Each trace file under `basetemp` that holds a secret value or a token-shaped string, with what."""
    leaks = []
    for trace in sorted(Path(basetemp).rglob("trace.jsonl")):
        text = trace.read_text(errors="replace")
        found = [v for v in secrets if v in text]
        if match := LOOSE_TOKEN.search(text):
            found.append(match.group())
        if found:
            leaks.append(f"{trace}: {', '.join(v[:6] + '…' for v in found)}")
    return leaks


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto`: a worker per core and one more (at most `--maxprocesses`). A worker waits on containers, servers
    and time limits for about an eighth of its time; a worker more fills that (the whole suite on 2 cores: 681 to
    740 s with two workers, 620 and 653 s with three; four only contend). `PYTEST_XDIST_AUTO_NUM_WORKERS` still
    decides where it is set."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    try:
        cores = len(os.sched_getaffinity(0))  # the cores this process may use (a container's, a CI job's)
    except AttributeError:  # macOS
        cores = os.cpu_count() or 1
    return cores + 1


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files in the order xdist hands them out whole (`--dist loadfile --no-loadscope-reorder`): those holding
    `slow` or `docker` tests first, then the rest, each group with the files of more tests first. A minute-long
    file (mypy on a cold cache, a virtual environment built, a language's toolchain image) that starts last leaves
    the other workers idle; xdist's own order, by number of tests alone, put those last. (`--dist loadgroup`, tests
    handed out one at a time with those sharing a module's fixture kept together, does not work here: xdist 3.8
    names a test's group by rewriting `item._nodeid`, which pytest 9 no longer reads, so every group is split and a
    module's fixture, the core install's virtual environment say, is built on each worker that runs one of its
    tests; the whole suite took 958 s so against 930 s by file on the same machine.)"""
    heavy = {item.path for item in items if item.get_closest_marker("slow") or item.get_closest_marker("docker")}
    tests = Counter(item.path for item in items)
    items.sort(key=lambda item: (item.path not in heavy, -tests[item.path]))  # stable: a file's tests stay in order


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run if any trace file a test wrote holds a secret value or a token-shaped string."""
    basetemp = session.config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    leaks = trace_leaks(Path(basetemp), SEEN_SECRETS | set(FAKE_SECRETS.values()))
    if leaks:
        session.config.get_terminal_writer().line(f"secret found in trace files: {leaks}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
