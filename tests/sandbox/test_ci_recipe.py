"""The repository's CI read as the sandbox's recipe: which job, which matrix entry, which steps where, what is
substituted and what is named as skipped; and the commands it makes, run in a real shell."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sandbox.ci_expressions import condition, evaluate, substitute
from sandbox.ci_recipe import expand_matrix, load_workflow, read_recipe
from sandbox.detect import detect_project
from sandbox.errors import RecipeError
from sandbox.model import SandboxSpec, ServiceSpec
from sandbox.recipe import STEPS_VARIABLE, parse_options, parse_port, step_failure

WORKFLOW = """name: CI
on:
  push:
  pull_request:
env:
  APP_MODE: strict
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - run: pip install ruff && ruff check .
  windows:
    runs-on: windows-latest
    steps:
      - run: pytest
  test:
    runs-on: ${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest, macos-latest]
        python: ["3.9", "3.12", "3.13-dev", "3.10"]
        exclude:
          - os: macos-latest
            python: "3.9"
        include:
          - python: "3.12"
            extras: full
    services:
      postgres:
        image: postgres:${{ matrix.python == '3.12' && '16' || '15' }}
        env:
          POSTGRES_PASSWORD: pw
          TOKEN: ${{ secrets.DB_TOKEN }}
        ports: ["5433:5432", 22:22]
        options: --health-cmd "pg_isready -U postgres" --health-interval 2s --health-retries 4 --name db
      unused:
        image: ${{ matrix.nothing }}
    env:
      DATABASE_URL: postgres://postgres:pw@localhost:${{ job.services.postgres.ports[5432] }}/app
      PIP_INDEX_URL: ${{ secrets.PRIVATE_INDEX }}
      DATA: ${{ github.workspace }}/data
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python }}
      - uses: actions/cache@v4
      - uses: docker/login-action@v3
      - name: Install
        run: |
          python -m pip install -r requirements.txt
          pip install --extra-index-url ${{ secrets.PRIVATE_INDEX }} internal-lib
      - name: Migrate
        working-directory: ./db
        run: python migrate.py --mode ${{ env.APP_MODE }}
      - name: Only on macOS
        if: runner.os == 'macOS'
        run: brew install thing
      - name: Upload
        run: curl -T x https://example.invalid/${{ secrets.UPLOAD_KEY }}
      - name: Tests
        run: python -m pytest -q --extras ${{ matrix.extras }}
        env:
          SHARD: ${{ strategy.job-index }}
      - run: echo done
"""


def repo_with(tmp_path: Path, workflow: str, name: str = "ci.yml") -> Path:
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(workflow)
    return tmp_path


def test_the_test_job_is_read_with_the_newest_linux_entry_and_its_substitutions(tmp_path: Path) -> None:
    recipe = read_recipe(repo_with(tmp_path, WORKFLOW))
    assert recipe is not None
    assert recipe.source == ".github/workflows/ci.yml, job `test`"
    assert dict(recipe.matrix) == {"os": "ubuntu-latest", "python": "3.12", "extras": "full"}
    assert (recipe.language, recipe.version) == ("python", "3.12")
    assert recipe.test.script == "python -m pytest -q --extras full"
    env = dict(recipe.env)
    assert env["APP_MODE"] == "strict" and env["DATA"] == "{workspace}/data"
    assert env["DATABASE_URL"] == "postgres://postgres:pw@localhost:5433/app"
    assert [(s.name, s.directory, s.script) for s in recipe.before_tests] == [
        ("Migrate", "db", "python migrate.py --mode strict")]
    postgres, = recipe.services
    assert postgres.image == "postgres:16" and dict(postgres.env) == {"POSTGRES_PASSWORD": "pw"}
    assert postgres.ports == ((5433, 5432), (22, 22))  # `22:22` is a string, not YAML 1.1's base-60 number
    assert postgres.health.command == "pg_isready -U postgres" and postgres.health.patience_s == 2 * 4 + 30


def test_what_was_taken_and_skipped_is_named(tmp_path: Path) -> None:
    recipe = read_recipe(repo_with(tmp_path, WORKFLOW))
    assert recipe is not None
    text = "\n".join(recipe.lines())
    for expected in ("taken: actions/checkout@v4", "taken: actions/setup-python@v5: the sandbox's Python",
                     "taken: actions/cache@v4", "step `docker/login-action@v3` (docker/login-action@v3: no local",
                     "step `Install` (it needs secrets.PRIVATE_INDEX", "variable PIP_INDEX_URL (it needs "
                     "secrets.PRIVATE_INDEX", "step `Only on macOS` (its `if:` is false",
                     "step `Upload` (it needs secrets.UPLOAD_KEY", "service postgres's variable TOKEN (it needs",
                     "service unused (its image is empty", "service postgres's option --name db",
                     "strategy.job-index in step `Tests`'s variable SHARD", "1 step(s) after the test step"):
        assert expected in text, expected
    assert recipe.setup == ()  # the one install step needs a secret no one gave it


def test_setup_env_gives_a_secret_to_the_setup_phase_as_a_variable_never_its_value(tmp_path: Path) -> None:
    recipe = read_recipe(repo_with(tmp_path, WORKFLOW), {"PIP_INDEX_URL": "${{ secrets.PRIVATE_INDEX }}"})
    assert recipe is not None
    install, = recipe.setup
    assert "pip install --extra-index-url ${PIP_INDEX_URL} internal-lib" in install.script
    assert "PIP_INDEX_URL" not in dict(recipe.env) and [n for n, _ in recipe.setup_env] == ["PIP_INDEX_URL"]
    assert any("Upload" in s for s in recipe.skipped)  # a step that runs with the tests never gets one


def test_yaml_is_read_as_github_reads_it() -> None:
    data = load_workflow("on: push\nyes: no\nport: 22:22\nmode: 0755\nversion: 3.10\n")
    assert data == {"on": "push", "yes": "no", "port": "22:22", "mode": 755, "version": 3.1}


def test_a_matrix_expands_as_github_expands_it() -> None:
    entries = expand_matrix({"os": ["a", "b"], "v": [1, 2], "exclude": [{"os": "b", "v": 1}],
                             "include": [{"v": 2, "extra": "x"}, {"os": "c", "v": 9}]})
    assert entries == [{"os": "a", "v": 1}, {"os": "a", "v": 2, "extra": "x"}, {"os": "b", "v": 2, "extra": "x"},
                       {"os": "c", "v": 9}]


def test_an_include_that_matches_nothing_is_a_combination_of_its_own_and_the_next_include_still_applies() -> None:
    entries = expand_matrix({"python": ["3.11", "3.12"],
                             "include": [{"python": "3.13", "experimental": True}, {"python": "3.12", "extra": "x"}]})
    assert entries == [{"python": "3.11"}, {"python": "3.12", "extra": "x"}, {"python": "3.13", "experimental": True}]


def test_expressions() -> None:
    contexts = {"matrix": {"node": 20}, "env": {"A": "x"}, "runner": {"os": "Linux"}}
    assert substitute("node-${{ matrix.node }}-${{ env.A }}-${{ matrix['node'] }}", contexts) == "node-20-x-20"
    assert evaluate("format('{0}/{1}', env.A, matrix.node)", contexts) == "x/20"
    assert condition("runner.os == 'linux' && !contains(env.A, 'y')", contexts) is True
    assert condition("${{ steps.build.outcome == 'success' }}", contexts) is None  # not known here
    assert substitute("${{ secrets.TOKEN }}", contexts) == ""  # never looked up


def test_options_and_ports() -> None:
    health, env, ignored = parse_options("--health-cmd='redis-cli ping' --health-interval 500ms -e A=1 --rm")
    assert (health.command, health.interval_s, env, ignored) == ("redis-cli ping", 0.5, (("A", "1"),), ["option --rm"])
    assert [parse_port(p) for p in ("6379", 6379, "127.0.0.1:6380:6379/tcp", "53/udp")] == [
        (6379, 6379), (6379, 6379), (6380, 6379), None]
    with pytest.raises(ValueError, match="--health-interval '10' is not a duration"):
        parse_options("--health-interval 10")


def test_no_test_job_leaves_detection_alone(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "on: push\njobs:\n  build:\n    runs-on: ubuntu-latest\n    steps:\n"
                               "      - run: pip install build && python -m build\n")
    (repo / "test_x.py").write_text("def test_x():\n    assert True\n")
    assert read_recipe(repo) is None
    project = detect_project(repo)
    assert project.recipe is None and project.test == "python3 -m pytest -q"


def test_an_unreadable_workflow_names_the_file_the_line_and_the_fix(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, "on: push\njobs:\n  test:\n    steps: [\n")
    with pytest.raises(RecipeError, match=r"\.github/workflows/ci\.yml \(line 5\) is not valid YAML") as caught:
        detect_project(repo)
    assert "sandbox.setup" in str(caught.value) and caught.value.exit_code == 2
    repo = repo_with(tmp_path, "on: push\njobs:\n  test:\n    steps: {run: pytest}\n")
    with pytest.raises(RecipeError, match="job `test`: `steps:` must be a list"):
        detect_project(repo)


def test_the_config_wins_over_the_workflow(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, WORKFLOW)
    chosen = detect_project(repo, SandboxSpec(test="make check"))
    assert chosen.recipe is None and chosen.test == "make check" and chosen.services == ()
    stated = detect_project(repo, SandboxSpec(services={"cache": ServiceSpec("redis:7", ports=("6379:6379",))}))
    assert stated.recipe is not None and [(s.name, s.image, s.ports) for s in stated.services] == [
        ("cache", "redis:7", ((6379, 6379),))]
    assert detect_project(repo, SandboxSpec(services={})).services == ()


def test_the_commands_run_the_steps_as_github_does_and_name_the_one_that_fails(tmp_path: Path) -> None:
    repo = repo_with(tmp_path, """on: push
jobs:
  test:
    runs-on: ubuntu-latest
    env:
      GREETING: hello
    steps:
      - name: Install
        run: |
          pip install nothing-at-all || true
          echo "$GREETING" > installed.txt
      - name: Prepare
        working-directory: sub
        run: |
          false
          echo never > ../reached.txt
      - name: Test
        run: pytest
""")
    (repo / "sub").mkdir()
    project = detect_project(repo, SandboxSpec())
    env = {**os.environ, **dict(project.env), STEPS_VARIABLE: dict(project.env)[STEPS_VARIABLE].replace("{{", "{")
           .replace("}}", "}"), "ENSEMBLE_ENV": str(tmp_path / "env")}
    assert project.setup is not None and project.test is not None
    assert project.language == "unknown"  # no setup action, no Python files: no venv to make first
    subprocess.run(["sh", "-c", project.setup], cwd=repo, env=env, check=True)
    assert (repo / "installed.txt").read_text() == "hello\n"
    ran = subprocess.run(["sh", "-c", project.test], cwd=repo, env=env, capture_output=True, text=True)
    assert ran.returncode == 1 and not (repo / "reached.txt").exists()  # bash -e: the step stops at `false`
    assert step_failure(ran.stderr) == ("Prepare", 1)


def test_without_docker_a_recipe_with_services_stops_with_the_fix(tmp_path: Path) -> None:
    from sandbox.errors import ServiceFailed
    from sandbox.local import LocalSandbox

    repo = repo_with(tmp_path / "repo", "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    services:\n"
                                        "      redis: {image: redis}\n    steps:\n      - run: pytest\n")
    with pytest.raises(ServiceFailed, match=r"services \(redis\).*no Docker engine answers.*sandbox\.services: \{\}"):
        LocalSandbox(tmp_path / "cache", {}).prepare(repo, SandboxSpec())
