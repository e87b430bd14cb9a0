"""The Docker backend against the real engine: cached environments, fresh copies, results, errors."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sandbox import (
    DockerSandbox,
    ImageMissing,
    SandboxSpec,
    SetupFailed,
    reap,
    select_sandbox,
    summarize_failures,
)
from sandbox.docker_sandbox import leftover
from sandbox.ownership import labels, owner_id, remove_container
from tests.sandbox.conftest import base_image, write_sample

pytestmark = [pytest.mark.docker, pytest.mark.usefixtures("no_leftovers")]


@pytest.fixture
def sandbox(docker_client: object) -> DockerSandbox:
    return DockerSandbox(docker_client, env={})


def remove_image(client: object, tag: str) -> None:
    with contextlib.suppress(Exception):  # already gone
        client.images.remove(tag, force=True)


def test_failing_tests_are_data_with_per_test_results(sandbox: DockerSandbox, tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo", correct=False)
    env = sandbox.prepare(repo, SandboxSpec(image=base_image(), setup=""))
    result = sandbox.run(env, env.test_command, timeout=60)
    assert result.exit_code == 1 and not result.timed_out and not result.oom_killed
    outcomes = {t.name: t.outcome for t in result.tests}
    assert outcomes == {"tests/test_calc.py::test_adds": "fail", "tests/test_calc.py::test_adds_negative": "fail"}
    summary = summarize_failures(result, max_tokens=200)
    assert "FAILED tests/test_calc.py::test_adds_negative" in summary and "negative numbers" in summary
    assert "/workspace/" not in summary


def test_each_run_copies_the_current_worktree(sandbox: DockerSandbox, tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo", correct=False)
    env = sandbox.prepare(repo, SandboxSpec(image=base_image(), setup=""))
    assert not sandbox.run(env, env.test_command, timeout=60).ok
    write_sample(repo, correct=True)  # the ensemble edits the worktree between runs
    (repo / "stale.txt").write_text("x")
    result = sandbox.run(env, f"{env.test_command} && ls", timeout=60)
    assert result.ok, result.stdout + result.stderr
    assert [t.outcome for t in result.tests] == ["pass", "pass"]
    assert "stale.txt" in result.stdout
    assert not (repo / ".ensemble-results").exists()  # nothing comes back into the host's checkout


@pytest.mark.slow
def test_detected_python_setup_builds_a_venv_once(sandbox: DockerSandbox, docker_client: object,
                                                  tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    (repo / "requirements.txt").write_text("# nothing yet\n")
    spec = SandboxSpec(image=base_image())
    first = sandbox.prepare(repo, spec)
    try:
        assert first.project.setup and "requirements.txt" in first.project.setup
        again = sandbox.prepare(repo, spec)
        assert again.cached and again.image == first.image
        result = sandbox.run(again, "python3 -c 'import sys; print(sys.prefix)' && " + again.test_command, timeout=60)
        assert result.ok and result.stdout.startswith("/opt/ensemble/venv")
    finally:
        if not first.cached:
            remove_image(docker_client, first.image)


@pytest.mark.slow
def test_setup_installs_from_the_package_index_through_the_host_ca_bundle(
        sandbox: DockerSandbox, docker_client: object, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "requirements.txt").write_text("iniconfig\n")
    (repo / "test_dep.py").write_text("import iniconfig\n\n\ndef test_dep():\n    assert iniconfig.IniConfig\n")
    env = sandbox.prepare(repo, SandboxSpec(image=base_image()))
    try:
        result = sandbox.run(env, f"{env.test_command} && env", timeout=60)
        assert result.ok and [t.outcome for t in result.tests] == ["pass"]
        assert "SSL_CERT_FILE" not in result.stdout  # the proxy's CA is for setup only
    finally:
        if not env.cached:
            remove_image(docker_client, env.image)


def test_only_dependency_changes_invalidate_the_environment(sandbox: DockerSandbox, docker_client: object,
                                                            tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    (repo / "requirements.txt").write_text(f"# {tmp_path.name}\n")  # a key no earlier run built
    spec = SandboxSpec(image=base_image(), setup="echo installing")
    first = sandbox.prepare(repo, spec)
    images = [first.image]
    try:
        assert not first.cached and first.setup_s > 0
        config = docker_client.images.get(first.image).attrs["Config"]
        base = docker_client.images.get(base_image()).attrs["Config"]
        assert (config["Entrypoint"] or None, config["Cmd"]) == (base["Entrypoint"], base["Cmd"])
        assert config["Env"] == base["Env"]  # nothing of setup's environment is baked in
        (repo / "calc.py").write_text("def add(a, b):\n    return a + b  # code is not a dependency\n")
        assert sandbox.prepare(repo, spec).image == first.image
        (repo / "requirements.txt").write_text(f"# {tmp_path.name} changed\n")
        changed = sandbox.prepare(repo, spec)
        images.append(changed.image)
        assert not changed.cached and changed.image != first.image
    finally:
        for image in images:
            remove_image(docker_client, image)


def test_setup_products_are_seeded_into_each_run(sandbox: DockerSandbox, docker_client: object,
                                                 tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    spec = SandboxSpec(image=base_image(), setup="mkdir vendored && echo 42 > vendored/answer")
    env = sandbox.prepare(repo, spec)
    try:
        result = sandbox.run(env, "cat vendored/answer && ls", timeout=30)
        assert result.stdout.startswith("42")
    finally:
        remove_image(docker_client, env.image)


def test_failed_setup_raises_with_the_log(sandbox: DockerSandbox, tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    with pytest.raises(SetupFailed) as caught:
        sandbox.prepare(repo, SandboxSpec(image=base_image(), setup="echo resolving deps; exit 3"))
    message = str(caught.value)
    assert "exited with 3" in message and "resolving deps" in message and "sandbox.setup" in message


def test_missing_image_raises_with_the_fix(sandbox: DockerSandbox, tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    with pytest.raises(ImageMissing, match="ENSEMBLE_SANDBOX_IMAGE"):
        sandbox.prepare(repo, SandboxSpec(image="ensemble-missing-image:never", setup=""))


def test_an_image_removed_after_prepare_is_reported_as_missing(sandbox: DockerSandbox, docker_client: object,
                                                               tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    spec = SandboxSpec(image=base_image(), setup=f"echo {tmp_path.name}")
    env = sandbox.prepare(repo, spec)
    remove_image(docker_client, env.image)
    with pytest.raises(ImageMissing, match="prepare the environment again"):
        sandbox.run(env, "true")


def test_select_prefers_docker_when_an_engine_answers(docker_client: object) -> None:
    assert isinstance(select_sandbox(True, client=docker_client), DockerSandbox)


INTERRUPTED_RUN = """
import signal
import sys
from pathlib import Path
signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in a terminal, even if started in the background
from sandbox import DockerSandbox, reap, SandboxSpec
sandbox = DockerSandbox(env={})
env = sandbox.prepare(Path(sys.argv[1]), SandboxSpec(image=sys.argv[2], setup=""))
print("running", flush=True)
sandbox.run(env, "sleep 60")
"""


def test_ctrl_c_removes_the_container(docker_client: object, tmp_path: Path) -> None:
    repo = write_sample(tmp_path / "repo")
    child = subprocess.Popen([sys.executable, "-c", INTERRUPTED_RUN, str(repo), base_image()],
                             cwd=Path(__file__).resolve().parents[2], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "running\n"
        owner = f"ensemble.sandbox.owner={owner_id(child.pid)}"
        deadline = time.monotonic() + 20
        while not docker_client.containers.list(filters={"label": owner}, ignore_removed=True) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert docker_client.containers.list(filters={"label": owner}, ignore_removed=True), "the run never started a container"
        child.send_signal(signal.SIGINT)
        # the removal waits out a daemon busy with the other workers' containers (remove_container's patience, 60 s)
        child.wait(90)
        assert docker_client.containers.list(all=True, filters={"label": owner}, ignore_removed=True) == []
        assert docker_client.volumes.list(filters={"label": owner}) == []
    finally:
        child.kill()


def test_reap_removes_containers_whose_owner_is_gone(docker_client: object) -> None:
    gone = subprocess.Popen(["true"])  # a process id that no longer exists
    gone.wait()
    owner = {"ensemble.sandbox": "test", "ensemble.sandbox.owner": owner_id(os.getpid()).rsplit(":", 2)[0]
             + f":{gone.pid}:12345"}
    container = docker_client.containers.create(base_image(), ["true"], labels=owner)
    try:
        assert reap(docker_client) >= 1
        assert docker_client.containers.list(all=True, filters={"id": container.id}, ignore_removed=True) == []
    finally:
        remove_container(container)


def test_reap_leaves_live_runs_of_other_namespaces_alone_until_they_expire(docker_client: object) -> None:
    # A run in another container on the same engine: same hostname, its own pid namespace,
    # and a pid that means nothing here (it may even be a live process of ours).
    foreign = f"{socket.gethostname()}:4026599999:{os.getpid()}:1"
    live = docker_client.containers.create(base_image(), ["true"], labels={
        "ensemble.sandbox": "test", "ensemble.sandbox.owner": foreign,
        "ensemble.sandbox.expires": str(int(time.time()) + 3600)})
    expired = docker_client.containers.create(base_image(), ["true"], labels={
        "ensemble.sandbox": "test", "ensemble.sandbox.owner": foreign,
        "ensemble.sandbox.expires": str(int(time.time()) - 1)})
    reused = docker_client.containers.create(base_image(), ["true"], labels={  # our pid, another start time
        "ensemble.sandbox": "test", "ensemble.sandbox.owner": owner_id(os.getpid()).rsplit(":", 1)[0] + ":1"})
    try:
        reap(docker_client)
        left = {c.id for c in docker_client.containers.list(all=True, filters={"label": "ensemble.sandbox"}, ignore_removed=True)}
        assert live.id in left and expired.id not in left and reused.id not in left
    finally:
        for container in (live, expired, reused):
            remove_container(container)


def test_labels_name_the_owner_precisely_and_carry_an_expiry() -> None:
    found = labels("test", lifetime_s=60)
    host, namespace, pid, start = found["ensemble.sandbox.owner"].split(":")
    assert (host, pid) == (socket.gethostname(), str(os.getpid())) and namespace and start.isdigit()
    assert time.time() + 60 < int(found["ensemble.sandbox.expires"]) < time.time() + 60 + 3600
    assert not leftover(found, time.time())  # this very process owns it


class _EngineView:
    """What `exec_inspect` answers: the command runs for `running` polls, then exits with `code`."""

    def __init__(self, running: int, code: int | None) -> None:
        self.running, self.code, self.polls = running, code, 0

    def exec_inspect(self, exec_id: str) -> dict:
        self.polls += 1
        done = self.polls > self.running
        return {"Running": not done, "ExitCode": self.code if done else None}


def test_a_broken_output_stream_is_not_the_end_of_the_command() -> None:
    from sandbox.docker_sandbox import _wait_for_exec

    dead_reader = threading.Thread(target=lambda: None)
    dead_reader.start()
    dead_reader.join()  # the stream broke at once, but the command still runs for a while
    engine = _EngineView(running=3, code=1)
    assert _wait_for_exec(engine, "x", dead_reader, time.monotonic() + 10)
    assert engine.polls == 4  # it waited for the engine to say the command exited
    engine = _EngineView(running=10**6, code=None)
    assert not _wait_for_exec(engine, "x", dead_reader, time.monotonic() + 0.6)  # still running: a timeout


def test_old_environment_images_are_pruned_newest_kept(docker_client: object) -> None:
    from sandbox.docker_env import prune_environments

    repository = "ensemble-env-prune-test"
    made = []
    for n in range(3):
        container = docker_client.containers.create(base_image(), ["true"], labels={"ensemble.sandbox": "test"})
        try:
            container.commit(repository=repository, tag=f"k{n}")
        finally:
            remove_container(container)
        made.append(f"{repository}:k{n}")
        time.sleep(1.1)  # distinct creation times
    try:
        removed = prune_environments(docker_client, keep=1, spare=f"{repository}:k0", repository=repository)
        left = sorted(t for i in docker_client.images.list(name=repository) for t in i.tags)
        assert removed == [f"{repository}:k1"] and left == [f"{repository}:k0", f"{repository}:k2"]
    finally:
        for tag in made:
            with contextlib.suppress(Exception):
                docker_client.images.remove(tag)
