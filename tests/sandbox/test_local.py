"""The local fallback: a limited subprocess on a copy of the repository, and choosing it."""

from __future__ import annotations

import ctypes
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import EngineUnavailable, LocalSandbox, SandboxSpec, select_sandbox
from sandbox.local import network_isolation
from tests.sandbox.conftest import write_sample

SPEC = SandboxSpec(setup="", timeout_s=30, memory="1g", output_limit=20_000)


@pytest.fixture
def local(tmp_path: Path) -> LocalSandbox:
    return LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})


def test_runs_tests_on_a_copy_and_parses_results(local: LocalSandbox, tmp_path: Path,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    repo = write_sample(tmp_path / "repo", correct=False)
    with caplog.at_level(logging.WARNING):
        env = local.prepare(repo, SPEC)
    assert "WEAKER local sandbox" in caplog.text
    result = local.run(env, "python -m pytest -q -p no:cacheprovider && touch made-in-sandbox")
    assert result.exit_code == 1 and [t.outcome for t in result.tests] == ["fail", "fail"]
    assert not (repo / "made-in-sandbox").exists() and not (repo / ".ensemble-results").exists()
    assert "ensemble-run-" not in result.stdout  # paths read as in a container: relative to the workspace


def test_timeout_kills_the_process_group_with_its_daemons(local: LocalSandbox, tmp_path: Path) -> None:
    env = local.prepare(write_sample(tmp_path / "repo"), SPEC)
    marker = "ensemble-local-daemon-4711"
    result = local.run(env, f"sh -c 'exec -a {marker} sleep 300' & sleep 300", timeout=1)
    assert result.timed_out and result.exit_code == 124 and result.duration_s < 10
    host = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert marker not in host


def test_output_is_capped_and_secrets_stay_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak-0123456789")
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_shouldnotleak0123456789abcdef")
    local = LocalSandbox(cache_dir=tmp_path / "envs")  # from the real environment, secrets included
    env = local.prepare(write_sample(tmp_path / "repo"), SPEC)
    result = local.run(env, "env; head -c 5000000 /dev/zero | tr '\\0' x; echo; echo done")
    assert "sk-should-not-leak" not in result.stdout and "ghs_shouldnotleak" not in result.stdout
    assert "PATH=" in result.stdout  # it did print its environment
    assert "truncated by the ensemble sandbox" in result.stdout
    assert result.stdout.rstrip().endswith("done") and len(result.stdout) < 25_000


def test_the_bots_own_environment_is_closed_to_the_commands_it_starts(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parent-secret-0123456789")
    local = LocalSandbox(cache_dir=tmp_path / "envs")
    env = local.prepare(write_sample(tmp_path / "repo"), SPEC)
    result = local.run(env, "cat /proc/$PPID/environ 2>&1 | tr '\\0' '\\n'; echo read-done")
    assert "read-done" in result.stdout
    libc = ctypes.CDLL(None)
    assert libc.prctl(3, 0, 0, 0, 0) == 0  # PR_GET_DUMPABLE: /proc/<bot>/environ is root's now
    if os.geteuid() != 0:  # root may read any process's environment; the warning says so
        assert "sk-parent-secret" not in result.stdout


def test_runs_happen_where_the_setup_ran_so_editable_installs_hold(local: LocalSandbox, tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    env = local.prepare(repo, SandboxSpec(setup='pwd > "$ENSEMBLE_ENV/setup-dir"', timeout_s=30, memory="1g"))
    first = local.run(env, 'test "$(cat "$ENSEMBLE_ENV/setup-dir")" = "$(pwd)" && echo SAME-PLACE; touch leftover')
    assert "SAME-PLACE" in first.stdout, first.stdout + first.stderr
    second = local.run(env, "test -e leftover && echo DIRTY || echo CLEAN")
    assert "CLEAN" in second.stdout  # each run still starts from a fresh copy


def test_no_network_where_unshare_is_permitted(local: LocalSandbox, tmp_path: Path) -> None:
    if network_isolation() is None:
        pytest.skip("unshare -n is not permitted here; the local sandbox then runs WITH network")
    env = local.prepare(write_sample(tmp_path / "repo"), SPEC)
    probe = "import socket\ntry:\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n    print('REACHED')\n" \
            "except OSError as exc:\n    print('blocked', exc)\n"
    (env.repo_dir / "probe.py").write_text(probe)
    assert local.run(env, "python probe.py").stdout.startswith("blocked")


def test_setup_runs_once_per_dependency_set(local: LocalSandbox, tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    (repo / "requirements.txt").write_text("# none\n")
    spec = SandboxSpec(setup="mkdir vendored && echo 7 > vendored/lucky && echo ran >> $ENSEMBLE_ENV/../setup-log")
    first = local.prepare(repo, spec)
    second = local.prepare(repo, spec)
    assert not first.cached and second.cached and first.env_dir == second.env_dir
    assert (tmp_path / "envs" / "setup-log").read_text() == "ran\n"
    assert local.run(second, "cat vendored/lucky").stdout == "7\n"


def test_select_falls_back_loudly_or_refuses(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    with caplog.at_level(logging.WARNING):
        assert isinstance(select_sandbox(False, cache_dir=tmp_path), LocalSandbox)
    assert "WEAKER local sandbox" in caplog.text
    with pytest.raises(EngineUnavailable, match="require_docker"):
        select_sandbox(True)


def test_a_test_command_with_its_own_pythonpath_still_runs_and_reports(local: LocalSandbox, tmp_path: Path) -> None:
    from sandbox.suite import run_suite

    env = local.prepare(write_sample(tmp_path / "repo", correct=False), SPEC)
    result = run_suite(local, env, "PYTHONPATH=/nowhere python -m pytest -q -p no:cacheprovider")
    assert [t.outcome for t in result.tests] == ["fail", "fail"] and result.exit_code == 1
    assert "unset PYTEST_PLUGINS" in result.command


LIMITS = ("import resource as r; print(*(r.getrlimit(getattr(r, 'RLIMIT_' + n))[0] for n in ('AS', 'CPU', 'FSIZE', "
          "'CORE')))")


@pytest.mark.parametrize("prlimit", [True, False], ids=["prlimit", "without prlimit"])
def test_the_tests_run_under_the_specs_memory_time_and_file_size_limits(local: LocalSandbox, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch,
                                                                         prlimit: bool) -> None:
    """Set by util-linux's prlimit where it is installed, else in the child before it runs the command (macOS);
    a file past the workspace's size stops the process that writes it either way."""
    if not prlimit:
        monkeypatch.setenv("PATH", str(Path(sys.executable).parent))  # the bot's own PATH has no prlimit
    env = local.prepare(write_sample(tmp_path / "repo"), SandboxSpec(setup="", timeout_s=20, memory="512m",
                                                                     workspace_size="8m"))
    result = local.run(env, f"python -c \"{LIMITS}\"; head -c 9000000 /dev/zero > big; echo wrote=$?; "
                            "ls -l big | awk '{print \"size=\" $5}'")
    assert result.stdout.split()[:4] == [str(512 << 20), "25", str(8 << 20), "0"], result.stdout + result.stderr
    assert "wrote=0" not in result.stdout and f"size={8 << 20}" in result.stdout
