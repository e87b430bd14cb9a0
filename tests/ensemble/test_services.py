"""Repositories whose tests need their CI's services, fixed end to end by `ensemble run` with the models behind the
fake OpenAI server: the recipe comes from the workflow (setup steps, a migration, variables, a matrix entry), the
services run beside the sandbox from images built from Debian packages, the failing test goes red -> green; a
service that cannot be reached, or a workflow that cannot be read, stops the run before any model request; a setup
secret never reaches the tests, a trace or the output.

The service images are built once per machine (scripts/setup.sh --dev builds them before the suite on CI).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.ensemble.demo import commit_sample
from fakes.openai_server import FakeOpenAI
from sandbox.images import BASE_IMAGE
from sandbox.ownership import LABEL, owner_id
from tests.ensemble.service_samples import MATRIX, POSTGRES, REDIS, SAMPLES, ServiceSample

pytestmark = [pytest.mark.docker, pytest.mark.slow]
KEY = "sk-services-e2e-0123456789abcdef"
CANARY = "canary-index-7f3a9c1e5b2d"  # the value of the secret the setup phase gets
MODELS = """ensembles: 1
max_iterations: 2
models:
  planner: {provider: openai, model: gpt-4o-mini}
  coder: {provider: openai, model: gpt-4o-mini}
  critic: {provider: openai, model: gpt-4o-mini}
"""
SANDBOX = "sandbox:\n  require_docker: true\n  timeout_s: 180\n"
ACCEPT = {"verdict": "accept", "feedback": "The change fixes the failing test and breaks none."}


@pytest.fixture(scope="module")
def service_images() -> Iterator[None]:
    """The service images, built from the base image when this machine has none yet (minutes, once)."""
    from sandbox.service_images import KINDS, ensure_service_image
    from tests.conftest import docker_engine

    with docker_engine() as client:
        for kind in KINDS.values():
            ensure_service_image(client, kind, BASE_IMAGE)
        yield


@pytest.fixture
def openai(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("ENSEMBLE_RUNS_DIR", str(tmp_path / "traces"))
        monkeypatch.setenv("PRIVATE_INDEX", CANARY)
        yield server


def sample_repo(sample: ServiceSample, root: Path, config: str) -> Path:
    """The sample committed in `root`, with `config` as its .github/ensemble.yml."""
    files = {**sample.files, ".github/ensemble.yml": config}
    if sample is POSTGRES:
        files["tests/expected_proof.txt"] = hashlib.sha256(CANARY.encode()).hexdigest() + "\n"
    return commit_sample(root / sample.name, files, f"{sample.name} sample")


def setup_env(sample: ServiceSample) -> str:
    """The PostgreSQL sample's setup proves it got a secret: `sandbox.setup_env` gives it one (in every test, so the
    environment image, keyed by the names, is built once)."""
    return "  setup_env: {PIP_CANARY: PRIVATE_INDEX}\n" if sample is POSTGRES else ""


def run(repo: Path, sample: ServiceSample, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code = main(["run", "--repo", str(repo), "--task", sample.task, "--json", "--no-cache"])
    out, err = capsys.readouterr()
    return code, json.loads(out), out + err


def leftovers() -> list[str]:
    """Containers and networks this process's sandbox made that are still there."""
    owner = f"label=ensemble.sandbox.owner={owner_id(os.getpid())}"
    found = []
    for kind in ("container ls -a", "network ls"):
        listed = subprocess.run(["docker", *kind.split(), "-q", "--filter", f"label={LABEL}", "--filter", owner],
                                capture_output=True, text=True, check=True).stdout
        found += listed.split()
    return found


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_a_bug_is_fixed_with_the_services_the_ci_workflow_names(
        sample: ServiceSample, service_images: None, openai: FakeOpenAI, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = sample_repo(sample, tmp_path, MODELS + SANDBOX + setup_env(sample))
    openai.reply(data=ACCEPT, schema="review", times=0)
    openai.reply(sample.fix, marker="You are the coder", times=0)

    code, result, output = run(repo, sample, capsys)

    assert code == 0 and result["success"], json.dumps(result, indent=1)[:6000]
    assert result["tests_before"]["failing"] == [sample.failing_test]  # only the bug: the services were up
    assert sample.failing_test in result["judgement"]["fixed"] and not result["judgement"]["broken"]
    environment = result["environment"]
    assert f"recipe from .github/workflows/{next(iter(sample.files)).rsplit('/', 1)[-1]}" in environment
    assert f"{sample.service}: " in environment
    assert "built from Debian packages" in environment or "(pulled)" in environment or "(present)" in environment
    assert leftovers() == []
    traces = "".join(p.read_text(errors="replace") for p in (tmp_path / "traces").rglob("*") if p.is_file())
    prepared = [json.loads(line) for line in traces.splitlines() if '"sandbox.prepare"' in line]
    assert any(f"{sample.service}: " in str(span) for span in prepared)  # the trace says where its image came from
    if sample is MATRIX:
        assert "matrix entry os=ubuntu-latest, python-version=3.11" in environment
    if sample is POSTGRES:  # the canary reached the setup phase (a test checks its proof) and nothing else
        assert CANARY not in traces and CANARY not in output


UNREACHABLE = {  # a health check that reaches nothing where the service listens
    "postgres": "pg_isready -h 127.0.0.1 -p 5999",
    "redis": "redis-cli -p 6999 ping",
    "db": "mariadb-admin ping -h 127.0.0.1 -P 3999",
}


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_a_service_that_cannot_be_reached_stops_the_run_before_any_model_request(
        sample: ServiceSample, service_images: None, openai: FakeOpenAI, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    image = {"postgres": "postgres:16", "redis": "redis:7-alpine", "db": "mariadb:11"}[sample.service]
    services = (f"  services:\n    {sample.service}:\n      image: {image}\n"
                f"      options: --health-cmd '{UNREACHABLE[sample.service]}' --health-interval 1s --health-retries 2 "
                "--health-timeout 1s\n")
    repo = sample_repo(sample, tmp_path, MODELS + SANDBOX + setup_env(sample) + services)

    code, result, output = run(repo, sample, capsys)

    assert code == 1 and result["stop_reason"] == "environment" and result["error_type"] == "ServiceFailed"
    assert f"service `{sample.service}`" in result["error"] and "did not become healthy" in result["error"]
    assert UNREACHABLE[sample.service] in result["error"] and "sandbox.services" in result["error"]
    assert openai.requests == []  # no spend on a run that cannot judge
    assert leftovers() == []


def test_a_workflow_that_cannot_be_read_stops_the_run_before_any_model_request(
        openai: FakeOpenAI, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = {**REDIS.files, ".github/workflows/ci.yml": "on: push\njobs:\n  test:\n    steps: [\n",
             ".github/ensemble.yml": MODELS + SANDBOX}
    repo = commit_sample(tmp_path / "broken", files, "a broken workflow")

    code, result, _ = run(repo, REDIS, capsys)

    assert code == 2 and result["error_type"] == "RecipeError"
    assert ".github/workflows/ci.yml (line " in result["error"] and "is not valid YAML" in result["error"]
    assert "sandbox.setup" in result["error"] and "sandbox.test" in result["error"]
    assert openai.requests == []
