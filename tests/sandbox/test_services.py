"""Services beside the Docker sandbox, for real: PostgreSQL, Redis and MariaDB from images built from Debian packages,
on an internal network made for the run, reached by name and on localhost, with the official images' variables,
the run's limits and nothing of the bot's; removed with the run, reaped after a crash. And `sandbox.setup_env`'s
secret: in the setup phase only, never in the image or the tests."""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import DockerSandbox, SandboxSpec
from sandbox.docker_sandbox import reap
from sandbox.images import BASE_IMAGE
from sandbox.model import Environment
from sandbox.ownership import LABEL, labels, owner_id
from sandbox.services import running_services

pytestmark = [pytest.mark.docker, pytest.mark.slow]
BOT_SECRET = "sk-bot-key-that-no-service-may-see-0123"
WORKFLOW = """on: push
jobs:
  test:
    runs-on: ubuntu-latest
    services:
      pg:
        image: postgres:16
        env: {POSTGRES_USER: alice, POSTGRES_PASSWORD: "it's secret", POSTGRES_DB: shop}
        ports: ["5433:5432"]
      cache:
        image: redis:7
      db:
        image: mysql:8
        env: {MYSQL_ROOT_PASSWORD: root-pw, MYSQL_DATABASE: stock, MYSQL_USER: bob, MYSQL_PASSWORD: bob-pw}
        ports: ["3306:3306"]
    steps:
      - run: python3 -m unittest -v test_reach
"""
CHECK = '''import os, socket, unittest


class Reach(unittest.TestCase):
    def test_services_and_nothing_else(self):
        for host, port in (("localhost", 5433), ("pg", 5432), ("cache", 6379), ("127.0.0.1", 3306), ("db", 3306)):
            socket.create_connection((host, port), 5).close()
        with socket.create_connection(("cache", 6379), 5) as redis:
            redis.sendall(b"PING\\r\\n")
            self.assertEqual(redis.recv(16), b"+PONG\\r\\n")
        for outside in (("1.1.1.1", 53), ("deb.debian.org", 80)):
            with self.assertRaises(OSError, msg=f"{outside}: the tests have a route out"):
                socket.create_connection(outside, 1)
        status = open("/proc/self/status").read()
        self.assertEqual(os.getuid(), 1000)
        self.assertIn("CapEff:\\t0000000000000000", status)
        print("all reached, nothing outside")
'''


@pytest.fixture(scope="module")
def sandbox() -> DockerSandbox:
    return DockerSandbox(env={**os.environ, "OPENAI_API_KEY": BOT_SECRET})


@pytest.fixture(scope="module")
def prepared(sandbox: DockerSandbox, tmp_path_factory: pytest.TempPathFactory) -> Environment:
    repo = tmp_path_factory.mktemp("services")
    (repo / ".github" / "workflows").mkdir(parents=True)
    (repo / ".github" / "workflows" / "ci.yml").write_text(WORKFLOW)
    (repo / "test_reach.py").write_text(CHECK)
    return sandbox.prepare(repo, SandboxSpec(image=BASE_IMAGE, memory="768m", timeout_s=120))


def mine(kind: str) -> list[str]:
    """Ids of this process's containers or networks (`kind`: container, network) that are still there."""
    listing = subprocess.run(["docker", kind, "ls", *(["-a"] if kind == "container" else []), "-q", "--filter",
                              f"label={LABEL}", "--filter", f"label=ensemble.sandbox.owner={owner_id(os.getpid())}"],
                             capture_output=True, text=True, check=True)
    return listing.stdout.split()


def test_the_tests_reach_each_service_by_name_and_on_localhost_and_nothing_else(
        sandbox: DockerSandbox, prepared: Environment) -> None:
    assert [s.service.name for s in prepared.services] == ["pg", "cache", "db"]
    assert all("built from Debian packages" in s.source or "(present)" in s.source for s in prepared.services)

    result = sandbox.run(prepared, prepared.test_command)

    assert result.exit_code == 0, result.stdout + result.stderr
    assert "all reached, nothing outside" in result.stdout
    assert mine("container") == [] and mine("network") == []


@pytest.fixture(scope="module")
def started(sandbox: DockerSandbox, prepared: Environment) -> Iterator[dict[str, str]]:
    """The services of one run, started and healthy: service name -> container id."""
    with running_services(sandbox.client, prepared, 300) as network_mode:
        assert network_mode.startswith("container:")
        found = {}
        for container in sandbox.client.containers.list(filters={"label": f"{LABEL}=service"}, ignore_removed=True):
            if container.labels.get("ensemble.sandbox.owner") == owner_id(os.getpid()):
                aliases = next(iter(container.attrs["NetworkSettings"]["Networks"].values()))["Aliases"] or []
                found[next(a for a in aliases if a in ("pg", "cache", "db"))] = container.id
        yield found


def docker_exec(container: str, *command: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["docker", "exec", container, *command], capture_output=True, text=True, timeout=60)


def test_the_official_images_variables_make_the_users_and_databases(started: dict[str, str]) -> None:
    pg = docker_exec(started["pg"], "env", "PGPASSWORD=it's secret", "psql", "-h", "127.0.0.1", "-U", "alice",
                     "-d", "shop", "-tAc", "select current_user || '@' || current_database()")
    assert pg.stdout.strip() == "alice@shop", pg.stderr
    refused = docker_exec(started["pg"], "env", "PGPASSWORD=wrong", "psql", "-h", "127.0.0.1", "-U", "alice",
                          "-d", "shop", "-c", "select 1")
    assert refused.returncode != 0 and "password authentication failed" in refused.stderr
    db = docker_exec(started["db"], "mariadb", "-h", "127.0.0.1", "-ubob", "-pbob-pw", "stock", "-Nse",
                     "select database()")
    assert db.stdout.strip() == "stock", db.stderr
    root = docker_exec(started["db"], "mariadb", "-h", "127.0.0.1", "-uroot", "-proot-pw", "-Nse", "select 1")
    assert root.stdout.strip() == "1", root.stderr


def test_services_get_their_own_variables_and_the_runs_limits_and_nothing_of_the_bots(
        started: dict[str, str]) -> None:
    environment = docker_exec(started["pg"], "env").stdout
    assert "POSTGRES_USER=alice" in environment and BOT_SECRET not in environment
    assert "OPENAI_API_KEY" not in docker_exec(started["cache"], "env").stdout
    for container in started.values():
        inspected = subprocess.run(["docker", "inspect", "-f", "{{.HostConfig.Memory}} {{.HostConfig.CapDrop}} "
                                    "{{.Config.User}}", container], capture_output=True, text=True, check=True)
        memory, caps, user = inspected.stdout.split(" ", 2)
        assert int(memory) == 768 << 20 and caps == "[ALL]" and user.strip() in ("postgres", "redis", "mysql")


def test_a_crashed_runs_network_is_reaped(sandbox: DockerSandbox) -> None:
    network = sandbox.client.networks.create("ensemble-run-leftover", internal=True, labels={
        **labels("network", 0), "ensemble.sandbox.expires": str(int(time.time()) - 1)})
    try:
        reap(sandbox.client)
        assert "ensemble-run-leftover" not in [n.name for n in sandbox.client.networks.list()]
    finally:
        with contextlib.suppress(Exception):  # reaped, as it should be
            network.remove()


CANARY = "setup-only-canary-5d1e8a"


def test_a_setup_secret_reaches_the_setup_only(tmp_path: Path) -> None:
    (tmp_path / "proof.py").write_text("import os\nprint(sorted(os.environ))\n")
    sandbox = DockerSandbox(env={**os.environ, "PRIVATE_INDEX": CANARY})
    spec = SandboxSpec(image=BASE_IMAGE, setup='python3 -c "import hashlib, os; print(hashlib.sha256(os.environ['
                       '\'INDEX_URL\'].encode()).hexdigest(), file=open(\'proof.txt\', \'w\'))"',
                       test="cat proof.txt && env && python3 proof.py", setup_env={"INDEX_URL": "PRIVATE_INDEX"})
    env = sandbox.prepare(tmp_path, spec)
    try:
        result = sandbox.run(env, env.test_command)
        assert result.exit_code == 0, result.stderr
        assert hashlib.sha256(CANARY.encode()).hexdigest() in result.stdout  # the setup had it
        assert CANARY not in result.stdout + result.stderr and "INDEX_URL" not in result.stdout
        inspected = subprocess.run(["docker", "image", "inspect", env.image], capture_output=True, text=True)
        assert CANARY not in inspected.stdout
        files = subprocess.run(["docker", "run", "--rm", "--network", "none", env.image, "sh", "-c",
                                f"grep -rls {CANARY} /opt /root /etc /tmp /workspace 2>/dev/null; true"],
                               capture_output=True, text=True, check=True)
        assert files.stdout == ""
    finally:
        subprocess.run(["docker", "image", "rm", "-f", env.image], capture_output=True)


def test_a_failing_ci_step_is_named_with_what_to_set_instead(tmp_path: Path) -> None:
    from sandbox.environment import check_base_run
    from sandbox.errors import StepFailed

    def repo(name: str, steps: str) -> Path:
        folder = tmp_path / name / ".github" / "workflows"
        folder.mkdir(parents=True)
        (folder / "ci.yml").write_text(f"on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n{steps}")
        (tmp_path / name / "test_x.py").write_text("import unittest\n\n\nclass X(unittest.TestCase):\n"
                                                   "    def test_x(self):\n        pass\n")
        return tmp_path / name

    sandbox = DockerSandbox()
    install = repo("install", "      - name: Install tools\n        run: pip install --no-index no-such-package\n"
                              "      - run: python3 -m unittest\n")
    with pytest.raises(StepFailed) as setup:
        sandbox.prepare(install, SandboxSpec(image=BASE_IMAGE))
    assert "the CI step `Install tools` of .github/workflows/ci.yml, job `test` exited with 1 in setup" in str(setup.value)
    assert "`sandbox.setup` for the installs" in str(setup.value) and "no-such-package" in str(setup.value)

    migrate = repo("migrate", "      - name: Migrate\n        run: exit 4\n      - run: python3 -m unittest\n")
    env = sandbox.prepare(migrate, SandboxSpec(image=BASE_IMAGE))
    result = sandbox.run(env, env.test_command)
    with pytest.raises(StepFailed, match="the CI step `Migrate` of .github/workflows/ci.yml, job `test` exited "
                                         "with 4 before the tests, at the base"):
        check_base_run(env, result)
