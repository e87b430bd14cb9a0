"""The test recipe the sandbox will use: from the config, from the CI job that runs the tests, or detected; and
whether each service's image is at hand."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.config import Config
from bot.doctor.check import Check, DoctorContext

if TYPE_CHECKING:  # docker loads only when the doctor asks an engine (sandbox/engine.py)
    from docker import DockerClient

    from sandbox.recipe import Recipe, Service

NAME = "Test recipe"


def check_recipe(ctx: DoctorContext) -> list[Check]:
    """Where the setup and test commands come from; with a CI recipe, what it took and skipped; one line per service."""
    from sandbox.detect import detect_project
    from sandbox.errors import RecipeError

    spec = (ctx.config or Config()).sandbox
    try:
        project = detect_project(ctx.repo, spec, ctx.env)
    except RecipeError as exc:
        return [Check(NAME, False, str(exc), "fix the workflow, or set sandbox.setup and sandbox.test in "
                      ".github/ensemble.yml", essential=True)]
    except OSError as exc:
        return [Check(NAME, False, f"the repository cannot be read: {exc}")]
    if spec.setup is not None or spec.test is not None:
        checks = [Check(NAME, True, "sandbox.setup and sandbox.test from .github/ensemble.yml (the CI workflows are "
                        f"not read); tests: `{project.test or '(none)'}`")]
    elif project.recipe is None:
        checks = [Check(NAME, True, f"no CI workflow job runs the tests: detected {project.language}, tests "
                        f"`{project.test or '(none)'}`")]
    else:
        checks = recipe_checks(project.recipe)
    services = project.services
    if spec.services is not None:
        checks.append(Check("Services", True, f"from sandbox.services in .github/ensemble.yml: "
                            f"{', '.join(s.name for s in services) or 'none'} (the workflow's are not used)"))
    return checks + _service_checks(ctx, services)


def recipe_checks(recipe: Recipe) -> list[Check]:
    """The recipe's lines, grouped: where it came from, its steps, what it took and what it skipped."""
    lines = recipe.lines()
    groups: dict[str, list[str]] = {}
    for line in lines[1:]:
        if line.startswith("service "):
            continue  # the service checks say it, with the image's availability
        kind, prefix = next(((k, p) for k, p in _GROUPS.items() if line.startswith(p)), ("other", ""))
        groups.setdefault(kind, []).append(line.removeprefix(prefix))
    checks = [Check(NAME, True, lines[0])]
    checks += [Check(f"{NAME}: {kind}", True, "; ".join(found)) for kind, found in groups.items() if kind != "skipped"]
    if skipped := groups.get("skipped"):
        checks.append(Check(f"{NAME}: skipped", False, "; ".join(skipped),
                            "correct what matters in .github/ensemble.yml (sandbox.setup, sandbox.test, "
                            "sandbox.services, sandbox.setup_env)"))
    return checks


# the lines of `Recipe.lines()`, grouped by how they start
_GROUPS = {"setup step": "setup step ", "before the tests": "before the tests, every run: ", "tests": "tests: ",
           "variables": "variables: ", "setup-only variables": "setup-only variables (from secrets): ",
           "taken": "taken: ", "skipped": "skipped: "}


def _service_checks(ctx: DoctorContext, services: tuple[Service, ...]) -> list[Check]:
    if not services:
        return []
    from sandbox.engine import docker_client
    from sandbox.errors import EngineUnavailable

    try:
        client = docker_client(timeout=5, env=ctx.env)
    except EngineUnavailable:
        return [Check(f"Service {s.name}", False, f"{s.describe()}: services run as containers",
                      "start a Docker engine (`bash scripts/setup.sh`)") for s in services]
    try:
        return [_service_check(client, s) for s in services]
    finally:
        client.close()


def _service_check(client: DockerClient, service: Service) -> Check:
    import docker.errors

    from sandbox.service_images import find_service_image, kind_of

    title = f"Service {service.name}"
    try:
        client.images.get(service.image)
        return Check(title, True, f"{service.describe()}: image present")
    except docker.errors.ImageNotFound:
        pass
    kind = kind_of(service.image)
    if kind is not None and (built := find_service_image(client, kind)) is not None:
        return Check(title, True, f"{service.describe()}: {built.tags[0]}, built from Debian packages "
                     f"{' '.join(kind.packages)}")
    if kind is None:
        return Check(title, False, f"{service.describe()}: image not present; pulled on first use where a registry "
                     "answers", f"pull it (`docker pull {service.image}`), or name one you have under "
                     f"sandbox.services.{service.name}.image in .github/ensemble.yml")
    return Check(title, False, f"{service.describe()}: image not present; pulled where a registry answers, else "
                 f"built on first use from Debian packages {' '.join(kind.packages)} (a minute or two)",
                 f"build it now: `python -m sandbox services {kind.name}`")
