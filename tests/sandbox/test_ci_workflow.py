"""A workflow read into the sandbox's typed models: every key it does not model is ignored, values keep the types
YAML gave them, a part the recipe can do without is read as absent, and a shape GitHub refuses is named."""

from __future__ import annotations

import pytest

from sandbox.ci_workflow import WorkflowError, load_workflow, read_job, read_workflow

WORKFLOW = """name: CI
run-name: checks
on: {push: {branches: [main]}, workflow_dispatch: {}}
permissions: {contents: read}
concurrency: {group: ci, cancel-in-progress: true}
env: {LEVEL: 3, DEBUG: false, RATIO: 1.5, EMPTY: }
jobs:
  test:
    timeout-minutes: 30
    environment: {name: staging, url: https://example.invalid}
    outputs: {result: x}
    needs: [lint]
    runs-on: [self-hosted, linux]
    container: python:3.12-slim
    strategy: {fail-fast: false, max-parallel: 2, matrix: {python: ["3.11", "3.12"], include: [{extra: 1}]}}
    services:
      db: {image: postgres:16, ports: [5432], credentials: {username: u}, volumes: [/a:/a], unknown: 1}
      cache: redis:7
    defaults: {run: {shell: bash, working-directory: app}}
    steps:
      - id: setup
        uses: actions/setup-python@v5
        with: {python-version: "${{ matrix.python }}", cache: pip}
        timeout-minutes: 5
      - run: pytest
        if: true
        continue-on-error: true
        env: ${{ fromJSON(needs.lint.outputs.env) }}
"""


def test_every_key_the_sandbox_does_not_model_is_ignored_and_values_keep_their_types() -> None:
    data = load_workflow(WORKFLOW)
    assert isinstance(data, dict)
    workflow = read_workflow(data)
    assert workflow.env == {"LEVEL": 3, "DEBUG": False, "RATIO": 1.5, "EMPTY": None}
    job = read_job(workflow.jobs["test"])
    assert job is not None and job.runs_on == ["self-hosted", "linux"]
    assert job.container is not None and job.container.image == "python:3.12-slim"
    assert job.strategy is not None and job.strategy.matrix == {"python": ["3.11", "3.12"], "include": [{"extra": 1}]}
    assert job.services is not None and list(job.services) == ["db", "cache"]
    assert job.services["db"].ports == [5432] and job.services["db"].credentials and job.services["db"].volumes
    assert job.services["cache"].image == "redis:7" and not job.services["cache"].credentials
    assert job.defaults is not None and job.defaults.run is not None and job.defaults.run.working_directory == "app"
    setup, test = job.steps
    assert setup.uses == "actions/setup-python@v5" and setup.with_ == {"python-version": "${{ matrix.python }}",
                                                                        "cache": "pip"}
    assert test.if_ is True and test.continue_on_error is True
    assert test.env == "${{ fromJSON(needs.lint.outputs.env) }}"  # refused only where the recipe reads it


def test_a_part_the_recipe_can_do_without_is_read_as_absent() -> None:
    job = read_job({"steps": [{"run": "pytest", "with": "text"}], "container": 5, "strategy": [1], "defaults": "x"})
    assert job is not None and (job.container, job.strategy, job.defaults, job.steps[0].with_) == (None,) * 4
    assert read_job({"uses": "./.github/workflows/reusable.yml"}) is None and read_job("not a job") is None


@pytest.mark.parametrize(("job", "message"), [
    ({"steps": {"run": "pytest"}}, "`steps:` must be a list of steps"),
    ({"steps": [], "env": ["A"]}, "`env:` must be a mapping of names to values, not \"['A']\""),
    ({"steps": [], "services": ["redis"]}, "`services:` must be a mapping of service names"),
    ({"steps": [], "services": {"db": {"image": "x", "ports": "5432"}}}, "service `db`: `ports:` must be a list"),
    ({"steps": [{"run": "pytest", "env": {"A": [1]}}]},
     "`steps.0.env.A:` '[1]' is none of the kinds of value GitHub takes there"),
    ({"steps": [{"run": "pytest"}], "services": {"db": {"ports": [[1]]}}}, "`services.db.ports.0:` '[1]' is none"),
    ({"steps": [{"run": "pytest"}], "strategy": {"max-parallel": 2, "matrix": [1]}}, "`strategy.matrix:` '[1]' is"),
])
def test_a_shape_github_refuses_is_named_with_where_it_is(job: dict[object, object], message: str) -> None:
    with pytest.raises(WorkflowError) as caught:
        read_job(job)
    assert str(caught.value).startswith(message)
