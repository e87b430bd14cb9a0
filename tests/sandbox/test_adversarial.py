"""Hostile commands in the Docker sandbox: each is contained, the host is unharmed, and the result
says clearly what happened. Every test also checks that no labelled container or volume remains."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import DockerSandbox, Environment, SandboxSpec
from sandbox.errors import SetupFailed
from tests.sandbox.conftest import base_image, labelled, write_sample

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]

NETWORK_PROBE = r"""
import socket
def attempt(label, action):
    try:
        action()
        print(label, "REACHED")
    except OSError as exc:
        print(label, "blocked", type(exc).__name__)
attempt("dns", lambda: socket.getaddrinfo("pypi.org", 443))
for label, host in (("gateway", "172.17.0.1"), ("metadata", "169.254.169.254"), ("public", "1.1.1.1")):
    attempt(label, lambda: socket.create_connection((host, 80), timeout=2).close())
"""


@pytest.fixture(scope="module")
def hostile(docker_client: object, tmp_path_factory: pytest.TempPathFactory, tight_spec: SandboxSpec
            ) -> tuple[DockerSandbox, Environment]:
    sandbox = DockerSandbox(docker_client, env={})
    repo = write_sample(tmp_path_factory.mktemp("hostile"))
    (repo / "probe.py").write_text(NETWORK_PROBE)
    return sandbox, sandbox.prepare(repo, tight_spec)


def run(hostile: tuple[DockerSandbox, Environment], command: str, timeout: float = 20):
    sandbox, env = hostile
    return sandbox.run(env, command, timeout=timeout)


def test_limits_from_the_spec_are_applied(hostile) -> None:
    files = ("memory/memory.limit_in_bytes memory/memory.memsw.limit_in_bytes pids/pids.max cpu/cpu.cfs_quota_us "
             "cpu/cpu.cfs_period_us memory.max memory.swap.max pids.max cpu.max")
    result = run(hostile, f"cd /sys/fs/cgroup && for f in {files}; do [ -r $f ] && echo $f $(cat $f); done; true")
    found = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    memory = found.get("memory/memory.limit_in_bytes") or found.get("memory.max")
    assert memory == str(256 << 20)
    assert found.get("memory/memory.memsw.limit_in_bytes", str(256 << 20)) == str(256 << 20)  # no swap on top
    assert found.get("memory.swap.max", "0") == "0"
    assert (found.get("pids/pids.max") or found.get("pids.max")) == "64"
    quota = found.get("cpu.max") or f"{found.get('cpu/cpu.cfs_quota_us')} {found.get('cpu/cpu.cfs_period_us')}"
    assert quota == "100000 100000"  # cpus: 1.0


def test_fork_bomb_hits_the_pids_limit_and_times_out(hostile, docker_client: object) -> None:
    # the shell then waits in a loop of builtins: under the pids limit even `sleep` may fail to fork
    result = run(hostile, "bomb() { bomb | bomb & }; bomb; while :; do :; done", timeout=4)
    assert "Cannot fork" in result.stderr  # the pids limit stopped it, not only the clock
    assert result.timed_out and result.exit_code == 124
    assert 3.5 < result.duration_s < 15
    assert subprocess.run(["true"]).returncode == 0  # the host can still fork
    assert labelled(docker_client) == []  # this process's containers: a concurrent run's are not ours


def test_memory_balloon_is_reported_as_out_of_memory(hostile) -> None:
    result = run(hostile, "python3 -c \"x = [bytearray(10**6) for _ in range(2000)]\"")
    assert result.oom_killed and result.exit_code == 137 and not result.ok


def test_disk_fill_stops_at_the_workspace_and_tmp_caps(hostile) -> None:
    result = run(hostile, "dd if=/dev/zero of=big bs=1M count=200; dd if=/dev/zero of=/tmp/big bs=1M count=100; "
                          "df -k . /tmp")
    assert result.stderr.count("No space left on device") == 2
    assert not result.timed_out


def test_many_small_files_stop_at_the_inode_cap(hostile) -> None:
    script = ("import os\nn = 0\ntry:\n    for n in range(100000):\n        open(f'f{n}', 'w').close()\n"
              "except OSError as exc:\n    print('stopped after', n, exc.strerror)\n")
    result = run(hostile, f"python3 -c \"{script}\"")
    assert "stopped after" in result.stdout and "No space left on device" in result.stdout
    assert int(result.stdout.split()[2]) < 10000


def test_infinite_loop_is_killed_at_the_timeout(hostile) -> None:
    result = run(hostile, "python3 -c 'while True: pass'", timeout=2)
    assert result.timed_out and not result.ok and result.duration_s < 10


BIG_OUTPUT = """
import resource, sys
from pathlib import Path
from sandbox import DockerSandbox, SandboxSpec
sandbox = DockerSandbox(env={})
env = sandbox.prepare(Path(sys.argv[1]), SandboxSpec(image=sys.argv[2], setup="", output_limit=64_000))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = sandbox.run(env, "head -c 100000000 /dev/zero | tr '\\\\0' x; echo; echo the end", timeout=60)
grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
print(result.exit_code, len(result.stdout), grown // 1024, "truncated by the ensemble sandbox" in result.stdout,
      result.stdout.rstrip().endswith("the end"))
"""


def test_100_mb_of_output_is_capped_and_host_memory_stays_flat(tmp_path: Path) -> None:
    # A fresh process: ru_maxrss is a lifetime peak, which the test session's own peak would hide.
    repo = write_sample(tmp_path / "repo")
    child = subprocess.run([sys.executable, "-c", BIG_OUTPUT, str(repo), base_image()], capture_output=True,
                           text=True, cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert child.returncode == 0, child.stderr[-2000:]
    code, length, grown_mb, marked, ends = child.stdout.split()
    assert code == "0" and int(length) < 70_000 and marked == "True" and ends == "True"
    assert int(grown_mb) < 40, f"the process grew by {grown_mb} MB while reading 100 MB of output"


def test_network_is_unreachable(hostile) -> None:
    result = run(hostile, "python3 probe.py")
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert set(lines) == {"dns", "gateway", "metadata", "public"}
    assert all(value.startswith("blocked") for value in lines.values()), result.stdout


SECRETS = {"OPENAI_API_KEY": "sk-test-should-not-leak-0123456789", "GITHUB_TOKEN": "ghs_shouldnotleak0123456789abcd",
           "GEMINI_API_KEY": "AIzaShouldNotLeak0123456789abcdefghijk", "GOOGLE_API_KEY": "AIzaAlsoNotLeak0123456789"}


def test_host_secrets_reach_neither_setup_nor_tests(docker_client: object, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    sandbox = DockerSandbox(docker_client)  # built after the secrets are set, from the real environment
    repo = write_sample(tmp_path / "repo")
    dump = "env; cat /proc/1/environ | tr '\\0' '\\n'; cat /proc/$PPID/environ | tr '\\0' '\\n'"
    with pytest.raises(SetupFailed) as failed:  # the setup phase prints its environment, then fails on purpose
        sandbox.prepare(repo, SandboxSpec(image=base_image(), setup=f"{dump}; echo SETUP-RAN; exit 3"))
    setup_output = str(failed.value)
    assert "SETUP-RAN" in setup_output
    env = sandbox.prepare(repo, SandboxSpec(image=base_image(), setup=""))
    result = sandbox.run(env, f"{dump}; echo TEST-RAN", timeout=20)
    assert "TEST-RAN" in result.stdout
    for text in (setup_output, result.stdout):
        for name, value in SECRETS.items():
            assert value not in text and f"{name}=" not in text


def test_privilege_escalation_is_denied(hostile) -> None:
    result = run(hostile, "id -u; grep -E 'CapEff|NoNewPrivs' /proc/self/status; "
                          "mount -t tmpfs none /tmp && echo MOUNTED; su -c id root </dev/null && echo ROOT; "
                          "sudo id && echo SUDO; unshare -r id && echo USERNS; true")
    assert result.stdout.splitlines()[0] == "1000"
    assert "CapEff:\t0000000000000000" in result.stdout and "NoNewPrivs:\t1" in result.stdout
    assert not {"MOUNTED", "ROOT", "SUDO", "USERNS"} & set(result.stdout.split())


def test_writes_outside_the_workspace_fail(hostile) -> None:
    result = run(hostile, "for p in /etc/x /usr/x /x /opt/x /home/x; do touch $p 2>/dev/null && echo WROTE $p; done; "
                          "touch /workspace/ok /tmp/ok && echo inside-ok")
    assert "WROTE" not in result.stdout and "inside-ok" in result.stdout


OUTSIDE_JUNIT = ('<testsuite><testcase classname="outside" name="escaped"><failure message="x">y</failure>'
                 '</testcase></testsuite>')


def test_result_symlinks_are_never_followed(hostile) -> None:
    junit = ('<testsuite><testcase classname="t" name="real"><failure message="boom">trace</failure>'
             '</testcase></testsuite>')
    # The links point at a valid JUnit file outside the workspace: following one would add a test.
    result = run(hostile, f"echo '{OUTSIDE_JUNIT}' > /tmp/outside.xml && "
                          f"echo '{junit}' > \"$ENSEMBLE_RESULTS/ctest-junit.xml\" && "
                          "ln -s /tmp/outside.xml \"$ENSEMBLE_RESULTS/jest-junit.xml\" && "
                          "ln -s /etc/shadow \"$ENSEMBLE_RESULTS/pytest-junit.xml\"")
    assert [(t.name, t.outcome) for t in result.tests] == [("t::real", "fail")]
    assert "root:" not in repr(result)


def test_the_runs_results_folder_symlinked_out_of_the_workspace_is_ignored(hostile) -> None:
    result = run(hostile, f"mkdir -p /tmp/res && echo '{OUTSIDE_JUNIT}' > /tmp/res/ctest-junit.xml && "
                          "rm -rf \"$ENSEMBLE_RESULTS\" && ln -s /tmp/res \"$ENSEMBLE_RESULTS\"")
    assert result.tests == []


def test_result_files_anywhere_but_where_the_runner_was_told_are_ignored(hostile) -> None:
    """A JUnit file in the collected folder, beside the run's own folder or deeper in it, is not read."""
    forged = ('<testsuite><testcase classname="t" name="forged"/></testsuite>')
    result = run(hostile, f"echo '{forged}' > .ensemble-results/forged.xml && "
                          f"mkdir -p \"$ENSEMBLE_RESULTS/deeper\" && "
                          f"echo '{forged}' > \"$ENSEMBLE_RESULTS/deeper/ctest-junit.xml\" && "
                          f"echo '{forged}' > \"$ENSEMBLE_RESULTS/forged.xml\" && echo '{forged}' > junit.xml")
    assert result.tests == []


def test_daemons_die_with_the_container(hostile, docker_client: object) -> None:
    result = run(hostile, "nohup sleep 1000 >/dev/null 2>&1 & sleep 1000 & echo started", timeout=15)
    assert result.exit_code == 0 and not result.timed_out and result.duration_s < 10
    assert "started" in result.stdout
    host = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "sleep 1000" not in host


def test_the_host_checkout_is_never_written(hostile) -> None:
    _, env = hostile
    before = sorted(p.relative_to(env.repo_dir) for p in Path(env.repo_dir).rglob("*"))
    run(hostile, "rm -rf ./* && mkdir .git && echo '[core]' > .git/config && touch evil")
    assert sorted(p.relative_to(env.repo_dir) for p in Path(env.repo_dir).rglob("*")) == before
