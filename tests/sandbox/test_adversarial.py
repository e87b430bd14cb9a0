"""Hostile commands in the Docker sandbox: each is contained, the host is unharmed, and the result
says clearly what happened. Every test also checks that no labelled container or volume remains."""

from __future__ import annotations

import resource
import subprocess
from pathlib import Path

import pytest

from sandbox import DockerSandbox, Environment, SandboxSpec
from tests.sandbox.conftest import write_sample

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


def test_fork_bomb_hits_the_pids_limit_and_times_out(hostile) -> None:
    result = run(hostile, "bomb() { bomb | bomb & }; bomb; sleep 30", timeout=4)
    assert result.timed_out and result.exit_code == 124
    assert 3.5 < result.duration_s < 15
    assert subprocess.run(["true"]).returncode == 0  # the host can still fork


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


def test_100_mb_of_output_is_capped_and_host_memory_stays_flat(hostile) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    result = run(hostile, "head -c 100000000 /dev/zero | tr '\\0' x; echo; echo the end", timeout=60)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert result.exit_code == 0
    assert len(result.stdout) < 70_000 and "truncated by the ensemble sandbox" in result.stdout
    assert result.stdout.rstrip().endswith("the end")
    assert grown_mb < 40, f"host process grew by {grown_mb:.0f} MB"


def test_network_is_unreachable(hostile) -> None:
    result = run(hostile, "python3 probe.py")
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert set(lines) == {"dns", "gateway", "metadata", "public"}
    assert all(value.startswith("blocked") for value in lines.values()), result.stdout


def test_host_secrets_do_not_reach_the_container(hostile, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-should-not-leak")
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_should_not_leak")
    result = run(hostile, "env; cat /proc/1/environ | tr '\\0' '\\n'")
    assert result.exit_code == 0
    assert "should-not-leak" not in result.stdout and "should_not_leak" not in result.stdout
    assert "OPENAI_API_KEY" not in result.stdout and "GITHUB_TOKEN" not in result.stdout


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


def test_result_symlinks_are_never_followed(hostile) -> None:
    junit = ('<testsuite><testcase classname="t" name="real"><failure message="boom">trace</failure>'
             '</testcase></testsuite>')
    result = run(hostile, f"mkdir -p .ensemble-results && echo '{junit}' > .ensemble-results/real.xml && "
                          "ln -s /etc/shadow .ensemble-results/shadow.xml && ln -s /etc .ensemble-results/etc.xml")
    assert [(t.name, t.outcome) for t in result.tests] == [("t::real", "fail")]
    assert "root:" not in repr(result)


def test_results_dir_symlinked_out_of_the_workspace_is_ignored(hostile) -> None:
    result = run(hostile, "rm -rf .ensemble-results; ln -s /etc .ensemble-results")
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
