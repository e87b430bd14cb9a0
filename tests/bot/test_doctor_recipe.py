"""`ensemble doctor` shows the test recipe derived from the CI: where from, the steps in each phase, the services,
what was taken and what was skipped; the config's commands win; a workflow that cannot be read is an essential
problem with the fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import load_config
from bot.doctor import DoctorContext, check_recipe, render
from tests.ensemble.service_samples import MATRIX, POSTGRES, REDIS, SAMPLES, ServiceSample

NO_ENGINE = {"DOCKER_HOST": "unix:///nonexistent/docker.sock"}


def doctor(repo: Path, sample: ServiceSample, config: str = "") -> dict[str, str]:
    for rel, text in {**sample.files, **({".github/ensemble.yml": config} if config else {})}.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    checks = check_recipe(DoctorContext(repo, NO_ENGINE, load_config(repo, NO_ENGINE)))
    assert "Test recipe" in render(checks)
    return {c.name: f"{'ok' if c.ok else 'not ok'}: {c.detail} {c.fix}" for c in checks}


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.name for s in SAMPLES])
def test_the_recipe_derived_from_each_samples_ci_is_shown(sample: ServiceSample, tmp_path: Path) -> None:
    shown = doctor(tmp_path, sample)
    workflow = next(iter(sample.files))
    assert shown["Test recipe"].startswith(f"ok: from {workflow}, job ")
    assert sample.service in shown[f"Service {sample.service}"]
    assert "start a Docker engine" in shown[f"Service {sample.service}"]  # no engine: how to get one


def test_the_postgres_samples_phases_and_what_was_skipped(tmp_path: Path) -> None:
    shown = doctor(tmp_path, POSTGRES, "sandbox: {setup_env: {PIP_CANARY: PRIVATE_INDEX}}\n")
    assert "`Install dependencies`: python -m pip install -r requirements.txt" in shown["Test recipe: setup step"]
    assert "`Migrate the database`: python migrate.py" in shown["Test recipe: before the tests"]
    assert "`Run the tests`: python -m pytest -q" in shown["Test recipe: tests"]
    assert "PIP_CANARY" in shown["Test recipe: setup-only variables"]
    assert "actions/setup-python@v5: the sandbox's Python" in shown["Test recipe: taken"]
    assert "1 step(s) after the test step" in shown["Test recipe: skipped"]
    assert "localhost:5432 -> 5432" in shown["Service postgres"]


def test_the_matrix_entry_and_the_redis_step_by_name(tmp_path: Path) -> None:
    assert "matrix entry os=ubuntu-latest, python-version=3.11" in doctor(tmp_path / "m", MATRIX)["Test recipe"]
    redis = doctor(tmp_path / "r", REDIS)
    assert "Start from an empty database" in redis["Test recipe: before the tests"]
    assert "`pip install redis pytest`" in redis["Test recipe: setup step"]


def test_the_configs_commands_and_services_win(tmp_path: Path) -> None:
    shown = doctor(tmp_path, POSTGRES, "sandbox:\n  test: pytest -x\n  services: {}\n")
    assert "the CI workflows are not read" in shown["Test recipe"] and "pytest -x" in shown["Test recipe"]
    assert "from sandbox.services" in shown["Services"] and "Service postgres" not in shown


def test_a_workflow_that_cannot_be_read_is_an_essential_problem(tmp_path: Path) -> None:
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "ci.yml").write_text("jobs: [\n")
    check, = check_recipe(DoctorContext(tmp_path, NO_ENGINE, load_config(tmp_path, NO_ENGINE)))
    assert not check.ok and check.essential
    assert ".github/workflows/ci.yml (line 2) is not valid YAML" in check.detail and "sandbox.test" in check.fix
