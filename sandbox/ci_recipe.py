"""Reading the repository's CI: the workflow job that runs the tests, as the sandbox's `Recipe`.

Of the jobs in `.github/workflows/*.yml` whose steps run a test command (pytest, npm test, go test,
cargo test, tox, make test ...) and run on Linux, the first pushed or pull-request-triggered one wins
(one with services before one without). From it: one matrix entry (on Linux, the newest release of the
language the setup action installs), the workflow's and job's `env:` and the job's `container:` image, its
`services:`, the `run:` steps before the test step (installs to the cached setup phase, the rest, such as
a migration, before the tests in every run), working directories, and the test step itself. Expressions
are substituted from the chosen entry and the variables (sandbox/ci_expressions.py); a secret never is.

`uses:` steps: actions/checkout (the repository is already there), actions/cache (the environment image is
the cache), actions/setup-python, -node and -go (the language and its version) and the uv and Poetry
installers are mapped; any other is named as skipped. The YAML is read as GitHub reads it (YAML 1.2:
`on:` is a key, not `True`; `22:22` is a string) into the typed models of sandbox/ci_workflow.py. A workflow
that cannot be read raises `RecipeError` naming the file and the fix.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

import yaml

from sandbox.ci_expressions import Evaluation, ExpressionError, Partial, condition, substitute
from sandbox.ci_workflow import (
    EnvBlock,
    Job,
    JobStep,
    RunDefaults,
    RunsOn,
    Scalar,
    Workflow,
    WorkflowError,
    load_workflow,
    read_job,
    read_workflow,
)
from sandbox.errors import RecipeError
from sandbox.recipe import (
    Recipe,
    Service,
    Step,
    project_value,
    script_text,
    secret_name,
    service,
    stringify,
    variable,
)

WORKFLOWS = ".github/workflows"
MAX_MATRIX = 256
FIX = ("set `sandbox.setup` and `sandbox.test` in .github/ensemble.yml (and `sandbox.services` for the services "
       "the tests need), and the workflows are not read")
# One command of a `run:` script that runs the repository's tests.
_TEST = re.compile(
    r"(?:^|[\s(])(?:py\.?test|python[\d.]*\s+-m\s+(?:pytest|unittest|nose2?)|(?:uv|poetry|pdm|hatch|pipenv|rye)\s+"
    r"run\s+(?:python[\d.]*\s+-m\s+)?pytest|tox|nox|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?test(?::\S+)?|npx\s+"
    r"(?:jest|vitest|mocha)|jest|vitest|mocha|go\s+test|cargo\s+(?:test|nextest)|make\s+(?:test|check)|ctest"
    r"|mvn\b.*\b(?:test|verify)|\.?/?gradlew?\b.*\btest|rspec|rake\s+(?:test|spec)|phpunit|dotnet\s+test"
    r"|deno\s+test|hatch\s+test|python[\d.]*\s+\S*(?:manage|runtests|setup)\.py\s+test)(?:\s|$|;)", re.M)
_SEGMENTS = re.compile(r"&&|\|\||;|\n")
_MATRIX_KEY = re.compile(r"\$\{\{\s*matrix\.([A-Za-z0-9_-]+)\s*\}\}")
_RELEASE = re.compile(r"^\d+(?:\.\d+)*$")
# action (without owner's ref) -> (language, its version input, what it means here)
SETUP_ACTIONS = {
    "actions/setup-python": ("python", "python-version", "the sandbox's Python, in a virtual environment"),
    "actions/setup-node": ("javascript", "node-version", "the sandbox's Node.js toolchain"),
    "actions/setup-go": ("go", "go-version", "the sandbox's Go toolchain"),
}
NO_OPS = {
    "actions/checkout": "the repository is already in the sandbox",
    "actions/cache": "nothing to do: the environment image is the cache",
}
INSTALLERS = {  # actions that install a tool: the same tool from the package index, in the setup phase
    "astral-sh/setup-uv": "python3 -m pip install -q uv",
    "snok/install-poetry": "python3 -m pip install -q poetry",
}
VERSIONED_IMAGES = {"python": "python:{}-slim", "javascript": "node:{}-bookworm-slim", "go": "golang:{}-bookworm"}


@dataclass
class _Job:
    """A job that runs the tests: where it is, and how it ranks against the others."""

    path: str
    name: str
    job: Job
    workflow: Workflow
    test_index: int
    rank: tuple[int, ...] = ()


@dataclass
class _Reading:
    """What the recipe is being built from, what it took and skipped on the way, and what its expressions see."""

    job: _Job
    setup_env: Mapping[str, str]  # variable -> secret name, from `sandbox.setup_env`
    matrix: dict[str, object] = field(default_factory=dict)  # the chosen matrix entry
    env: dict[str, str] = field(default_factory=dict)  # the workflow's, container's and job's variables, once read
    services: dict[str, object] = field(default_factory=dict)  # `job.services`: each one's ports, id and network
    taken: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    language: str | None = None
    version: str | None = None

    def contexts(self, env: Mapping[str, str] | None = None) -> dict[str, object]:
        """The contexts expressions are evaluated in: what the sandbox knows of each, with `env` over the
        variables read so far."""
        return {
            "runner": Partial("runner", {"os": "Linux", "arch": "X64", "temp": variable("TMPDIR"),
                                         "tool_cache": variable("TMPDIR")}),
            "github": Partial("github", {"workspace": variable("ENSEMBLE_WORKSPACE")}),
            "matrix": self.matrix, "env": {**self.env, **(env or {})},
            "job": Partial("job", {"services": self.services}), "strategy": Partial("strategy", {}),
        }


def read_recipe(repo: Path, setup_env: Mapping[str, str] | None = None) -> Recipe | None:
    """The recipe of the workflow job that runs the tests; None when no workflow has one."""
    jobs = [job for path in workflow_files(repo) for job in _test_jobs(repo, path)]
    if not jobs:
        return None
    best = max(jobs, key=lambda j: j.rank)
    secrets = {variable: secret_name(reference) for variable, reference in (setup_env or {}).items()}
    try:
        return _recipe(best, secrets)
    except (ExpressionError, ValueError, TypeError, AttributeError) as exc:
        raise RecipeError(f"{best.path}, job `{best.name}`: {exc}; fix the workflow, or {FIX}") from None


def workflow_files(repo: Path) -> list[Path]:
    """The workflow files, in name order."""
    folder = repo / WORKFLOWS
    return sorted(p for p in folder.glob("*") if p.suffix in (".yml", ".yaml") and p.is_file()) if folder.is_dir() else []


def _test_jobs(repo: Path, path: Path) -> list[_Job]:
    rel = path.relative_to(repo).as_posix()
    try:
        loaded = load_workflow(path.read_text(encoding="utf-8", errors="replace"))
    except yaml.YAMLError as exc:
        marked = isinstance(exc, yaml.MarkedYAMLError)
        where = f" (line {exc.problem_mark.line + 1})" if marked and exc.problem_mark is not None else ""
        problem = (exc.problem if marked else None) or str(exc).splitlines()[0]
        raise RecipeError(f"{rel}{where} is not valid YAML: {problem}; fix the workflow, or {FIX}") from None
    if not isinstance(loaded, dict) or not isinstance(loaded.get("jobs"), dict):
        raise RecipeError(f"{rel} has no `jobs:` mapping, so it is not a workflow the sandbox can read; fix it, or {FIX}")
    try:
        workflow = read_workflow(loaded)
    except WorkflowError as exc:
        raise RecipeError(f"{rel}: {exc}; fix the workflow, or {FIX}") from None
    pushed = any(t in str(workflow.on) for t in ("push", "pull_request"))
    found: list[_Job] = []
    for order, (name, raw) in enumerate(workflow.jobs.items()):
        try:
            job = read_job(raw)
        except WorkflowError as exc:
            raise RecipeError(f"{rel}, job `{name}`: {exc}; fix the workflow, or {FIX}") from None
        if job is None:
            continue
        index = _test_step(job.steps)
        if index is None or not _may_run_on_linux(job.runs_on):
            continue
        texts = f"{name} {'' if job.name is None else job.name}".lower()
        rank = (int(pushed), int(bool(job.services)), int("test" in texts), -order)  # ties: the first file
        found.append(_Job(rel, str(name), job, workflow, index, rank))
    return found


def _test_step(steps: list[JobStep]) -> int | None:
    """The index of the first step whose script runs a test command (not one that only installs a test tool)."""
    for index, step in enumerate(steps):
        script = step.run
        if isinstance(script, str) and any(_TEST.search(s) and not Step("", s).installs
                                           for s in _SEGMENTS.split(script)):
            return index
    return None


def _may_run_on_linux(runs_on: RunsOn) -> bool:
    text = str(runs_on or "").lower()
    return not text or "${{" in text or not re.search(r"windows|macos|mac-", text) or "ubuntu" in text


def _recipe(job: _Job, setup_env: Mapping[str, str]) -> Recipe:
    reading = _Reading(job, setup_env)
    entry = _choose_entry(reading)
    reading.matrix = entry
    services = _services(reading)  # first: the job's variables may name their ports (`job.services.db.ports[5432]`)
    container_env = job.job.container.env if job.job.container else None
    env, setup_only = _variables(reading, [job.workflow.env, container_env, job.job.env], "variable", setup_too=True)
    reading.env = dict(env)
    steps = job.job.steps
    setup, before = _steps_before(reading, steps[:job.test_index])
    test = _step(reading, steps[job.test_index], "test", job.test_index)
    assert test is not None  # the test step is never skipped: what it cannot have is left empty and named
    if len(steps) > job.test_index + 1:
        reading.skipped.append(f"{len(steps) - job.test_index - 1} step(s) after the test step")
    return Recipe(
        source=f"{job.path}, job `{job.name}`", test=test, language=reading.language, version=reading.version,
        image=_container_image(reading), env=tuple((n, project_value(v)) for n, v in env),
        setup_env=tuple(setup_only), setup=tuple(setup), before_tests=tuple(before), services=services,
        matrix=tuple((str(k), stringify(v)) for k, v in entry.items()), taken=tuple(reading.taken),
        skipped=tuple(dict.fromkeys(reading.skipped)))


def _choose_entry(reading: _Reading) -> dict[str, object]:
    """The matrix entry: one that runs on Linux, the newest release of the setup action's language version."""
    job = reading.job.job
    matrix = job.strategy.matrix if job.strategy else None
    if matrix is None:
        return {}
    if not isinstance(matrix, dict):
        reading.skipped.append(f"matrix {str(matrix)[:60]!r} (computed when the workflow runs)")
        return {}
    entries = expand_matrix(matrix)
    linux = [e for e in entries if _may_run_on_linux(substitute(str(job.runs_on if job.runs_on is not None else ""),
                                                                {**reading.contexts(), "matrix": e}))]
    entries = linux or entries
    key = _version_key(job.steps[:reading.job.test_index], entries)
    if key is None or not entries:
        return entries[0] if entries else {}
    return max(entries, key=lambda e: _version_order(stringify(e.get(key))))


def expand_matrix(matrix: Mapping[str, object]) -> list[dict[str, object]]:
    """A matrix's entries as GitHub makes them: the product of its lists, less `exclude`, with `include` added."""
    axes = {k: v if isinstance(v, list) else [v] for k, v in matrix.items() if k not in ("include", "exclude")}
    entries = [dict(zip(axes, values, strict=True)) for values in itertools.islice(
        itertools.product(*axes.values()), MAX_MATRIX)] if axes else []
    for rule in _rules(matrix.get("exclude")):
        entries = [e for e in entries if not all(e.get(k) == v for k, v in rule.items())]
    originals = [dict(e) for e in entries]  # an `include` extends these; one it adds is no original combination
    for extra in _rules(matrix.get("include")):
        matched = False
        for entry, original in zip(entries[:len(originals)], originals, strict=True):
            if all(original.get(k, v) == v for k, v in extra.items() if k in axes):
                entry.update(extra)
                matched = True
        if not matched:
            entries.append(dict(extra))
    return entries


def _rules(listed: object) -> list[dict[str, object]]:
    """The entries of a matrix's `include:` or `exclude:` (an expression, or an entry not a mapping, adds none)."""
    return [rule for rule in listed if isinstance(rule, dict)] if isinstance(listed, list) else []


def _version_key(steps: list[JobStep], entries: list[dict[str, object]]) -> str | None:
    """The matrix key a setup action's version comes from, or a conventional one (`python-version`, `node`)."""
    for step in steps:
        action = _action(step)
        if action in SETUP_ACTIONS and step.with_ is not None:
            found = _MATRIX_KEY.search(str(step.with_.get(SETUP_ACTIONS[action][1], "")))
            if found:
                return found.group(1)
    keys = {k for e in entries for k in e}
    return next((k for k in ("python-version", "python", "node-version", "node", "go-version", "go", "version")
                 if k in keys), None)


def _version_order(value: str) -> tuple[int, tuple[int, ...]]:
    """Releases (`3.12`, `20`) after anything else (`3.13-dev`, `pypy3.10`), newest last."""
    if _RELEASE.match(value):
        return 1, tuple(int(p) for p in value.split("."))
    return 0, ()


def _action(step: JobStep) -> str:
    return str(step.uses if step.uses is not None else "").split("@", 1)[0].lower()


def _name(step: JobStep, index: int) -> str:
    run = str(step.run if step.run is not None else "")
    return str(step.name or step.uses or (run.strip().splitlines() or [""])[0] or f"step {index + 1}")[:80]


def _variables(reading: _Reading, blocks: list[EnvBlock], what: str,
               setup_too: bool = False) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(variables, setup-only variables) of `env:` blocks (later ones win), expressions substituted. A value made
    of secrets is left out and named; with `setup_too`, one whose secrets `sandbox.setup_env` maps all goes to the
    setup phase only (as the mapped variables, never the values)."""
    found: dict[str, str] = {}
    setup_only: dict[str, str] = {}
    exported = _exported(reading)
    for block in blocks:
        if block is None:
            continue
        if isinstance(block, str):
            raise ValueError(f"`env:` must be a mapping of names to values, not {block[:40]!r}")
        for name, raw in block.items():
            seen = Evaluation()
            value = substitute(stringify(raw), reading.contexts(found), seen,
                               secret=lambda s: variable(exported[s]) if s in exported else "")
            _note_unknown(reading, f"{what} {name}", seen)
            if not seen.secrets:
                found[name] = value
                continue
            refs = ", ".join(f"secrets.{s}" for s in dict.fromkeys(seen.secrets))
            if setup_too and all(s in exported for s in seen.secrets):
                reading.taken.append(f"{what} {name} ({refs}): for the setup phase only, by `sandbox.setup_env`")
                setup_only[name] = value
            else:
                reading.skipped.append(f"{what} {name} (it needs {refs}, and no secret reaches the tests; "
                                       "`sandbox.setup_env` in .github/ensemble.yml can give one to the setup phase)")
    return list(found.items()), list(setup_only.items())


def _exported(reading: _Reading) -> dict[str, str]:
    """secret name -> the variable `sandbox.setup_env` gives it to the setup phase as."""
    return {secret: name for name, secret in reading.setup_env.items()}


def _note_unknown(reading: _Reading, what: str, seen: Evaluation) -> None:
    if seen.unknown:
        reading.skipped.append(f"{', '.join(dict.fromkeys(seen.unknown))} in {what} (not known in the sandbox: empty)")


def _container_image(reading: _Reading) -> str | None:
    container = reading.job.job.container
    image = container.image if container else None
    return substitute(str(image), reading.contexts()) or None if image else None


def _services(reading: _Reading) -> tuple[Service, ...]:
    services = []
    for name, spec in (reading.job.job.services or {}).items():
        image = substitute(stringify(spec.image), reading.contexts()).strip()
        if not image:
            reading.skipped.append(f"service {name} (its image is empty for this matrix entry, as on GitHub)")
            continue
        env, _ = _variables(reading, [spec.env], f"service {name}'s variable")
        ports: list[object] = [substitute(stringify(p), reading.contexts()) for p in spec.ports]
        made = service(name, image, tuple(env), ports, substitute(stringify(spec.options), reading.contexts()))
        unused = [f"`{key}:` (not used in the sandbox)" for key, given in (("credentials", spec.credentials),
                                                                            ("volumes", spec.volumes)) if given]
        made = replace(made, ignored=(*made.ignored, *unused))
        reading.skipped += [f"service {name}'s {item}" for item in made.ignored]
        reading.services[name] = {"ports": {str(p): str(local) for local, p in made.ports}, "id": name,
                                  "network": "ensemble"}
        services.append(made)
    return tuple(services)


def _steps_before(reading: _Reading, steps: list[JobStep]) -> tuple[list[Step], list[Step]]:
    """The steps before the test step: installs for the setup phase, the others before the tests in every run."""
    setup: list[Step] = []
    before: list[Step] = []
    for index, raw in enumerate(steps):
        name = _name(raw, index)
        if not _runs(reading, raw, name):
            continue
        if raw.uses is not None:
            setup += _uses(reading, raw, name)
        elif not isinstance(raw.run, str):
            reading.skipped.append(f"step `{name}` (neither `run:` nor `uses:`)")
        elif Step("", raw.run).installs:
            setup += [made] if (made := _step(reading, raw, "setup", index)) else []
        else:
            before += [made] if (made := _step(reading, raw, "before", index)) else []
    return setup, before


def _runs(reading: _Reading, step: JobStep, name: str) -> bool:
    if step.if_ is None:
        return True
    seen = Evaluation()
    decided = condition(stringify(step.if_), reading.contexts(), seen)
    if decided is None:
        reading.skipped.append(f"the condition of step `{name}` ({str(step.if_)[:60]}): not known here, so the step runs")
    elif not decided:
        reading.skipped.append(f"step `{name}` (its `if:` is false for this matrix entry)")
    return decided is not False


def _uses(reading: _Reading, step: JobStep, name: str) -> list[Step]:
    action = _action(step)
    given = step.with_ or {}
    if action in SETUP_ACTIONS:
        language, version_input, meaning = SETUP_ACTIONS[action]
        version = substitute(stringify(given.get(version_input, "")), reading.contexts()).strip()
        reading.language = language
        reading.version = version if _RELEASE.match(version) else None
        reading.taken.append(f"{step.uses}: {meaning}" + (f" ({language} {version})" if version else ""))
        return []
    if action in NO_OPS:
        reading.taken.append(f"{step.uses}: {NO_OPS[action]}")
        return []
    if action in INSTALLERS:
        reading.taken.append(f"{step.uses}: `{INSTALLERS[action]}` in the setup phase")
        return [Step(name, INSTALLERS[action])]
    reading.skipped.append(f"step `{name}` ({step.uses}: no local equivalent)")
    return []


def _step(reading: _Reading, raw: JobStep, phase: str, index: int) -> Step | None:
    """A `run:` step with its expressions substituted (`phase`: setup, before or test), or None, named as skipped,
    when it needs what the sandbox cannot give it: a shell other than sh, bash or python, or a secret outside the
    setup phase (the test step itself runs, with the secret left empty)."""
    name = _name(raw, index)
    shell = str(raw.shell or _run_default(reading, lambda run: run.shell) or "bash")
    if shell.split()[0] not in ("bash", "sh", "python", "python3") and phase != "test":
        reading.skipped.append(f"step `{name}` (shell {shell}: not in the sandbox)")
        return None
    env, setup_only = _variables(reading, [raw.env], f"step `{name}`'s variable", setup_too=phase == "setup")
    contexts = reading.contexts(dict(env))
    seen = Evaluation()
    exported = _exported(reading) if phase == "setup" else {}
    script = substitute(str(raw.run), contexts, seen, secret=lambda s: variable(exported[s]) if s in exported else "")
    missing = [f"secrets.{s}" for s in dict.fromkeys(seen.secrets) if s not in exported]
    if missing and phase != "test":
        where = ("the setup phase unless `sandbox.setup_env` maps it" if phase == "setup"
                 else "a step that runs with the tests")
        reading.skipped.append(f"step `{name}` (it needs {', '.join(missing)}: no secret reaches {where})")
        return None
    if missing:
        reading.skipped.append(f"{', '.join(missing)} in the test step (left empty: the tests get no secret)")
    _note_unknown(reading, f"step `{name}`", seen)
    if shell.startswith("python"):
        script = f"python3 -c {shlex.quote(script)}"
    directory = substitute(str(raw.working_directory or _run_default(reading, lambda run: run.working_directory)
                               or "."), reading.contexts())
    return Step(name, script_text(script), _relative(directory), (*env, *setup_only),
                allow_failure=raw.continue_on_error is True and phase != "test")


def _run_default(reading: _Reading, setting: Callable[[RunDefaults], Scalar]) -> Scalar:
    """A `defaults: run:` setting of the job, else of the workflow (None where neither sets it)."""
    for defaults in (reading.job.job.defaults, reading.job.workflow.defaults):
        if defaults is not None and defaults.run is not None and (value := setting(defaults.run)):
            return value
    return None


def _relative(directory: str) -> str:
    """A working directory relative to the repository (`./app`, `${{ github.workspace }}/app` -> `app`)."""
    text = directory.replace(variable("ENSEMBLE_WORKSPACE"), "").strip().strip("/") or "."
    return text.removeprefix("./") or "."


def recipe_image(recipe: Recipe) -> str | None:
    """The image the recipe asks for: the job's container, else the registry image of the language's version
    (`python:3.12-slim`), which the sandbox pulls where a registry answers and otherwise builds from Debian."""
    if recipe.image:
        return recipe.image
    template = VERSIONED_IMAGES.get(recipe.language or "")
    if template is None or recipe.version is None:
        return None
    version = recipe.version.split(".")[0] if recipe.language == "javascript" else recipe.version
    return template.format(version)
