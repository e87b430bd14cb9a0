"""A test recipe taken from the repository's CI: the steps, variables and services its tests need, as plain data.

`sandbox/ci_recipe.py` reads a workflow into a `Recipe`; `sandbox.services` in the config gives `Service`s
directly. Here they become what the sandbox runs: the setup command (install steps, cached with the
environment image, network on), the test command (the steps that need the services, such as a database
migration, then the workflow's test step, in every run) and the project's variables. Nothing here does I/O.

Each step runs under bash with `-eo pipefail` as on GitHub (plain `sh -e` where an image has no bash); a
step that fails prints `ensemble: the CI step "<name>" exited with <status>` so the error can name it.
"""

from __future__ import annotations

import itertools
import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from sandbox.errors import RecipeError

Pairs = tuple[tuple[str, str], ...]
# A shell variable's value inside recipe text (the workspace's path, a secret mapped by `sandbox.setup_env`):
# `${NAME}` in a script, `"${NAME}"` in an exported value; never the value itself.
_VARIABLE = re.compile("\0var:([A-Za-z_][A-Za-z0-9_]*)\0")
STEP_FAILED = re.compile(r'^ensemble: the CI step "(?P<name>[^"\n]*)" exited with (?P<code>\d+)$', re.M)
# Commands that fetch dependencies: such a step belongs to the setup phase (network on, cached in the image).
_INSTALLS = re.compile(
    r"\b(?:pip3?|uv\s+pip|pipx)\s+install\b|\bpython[\d.]*\s+-m\s+pip\s+install\b|\b(?:uv|poetry|pdm|rye)\s+"
    r"(?:sync|install|lock)\b|\bpipenv\s+(?:install|sync)\b|\b(?:hatch\s+env\s+create|conda|mamba|micromamba)\b"
    r"|\b(?:npm|pnpm|bun)\s+(?:ci|install|i|add)\b|\byarn(?:\s+install)?\s*(?:$|&&|;|\|)|\bcorepack\b"
    r"|\bapt(?:-get)?\s+(?:update|install)\b|\bapk\s+add\b|\bgo\s+(?:mod\s+download|get|install)\b"
    r"|\bcargo\s+(?:fetch|install|build)\b|\b(?:bundle|gem|composer)\s+install\b|\bmvn\b.*\bdependency:"
    r"|\bgradlew?\b.*\bdependencies\b|\bpre-commit\s+install\b|\bplaywright\s+install\b", re.M)
SUDO_SHIM = r"""#!/bin/sh
# sudo for the sandbox's setup phase, which already runs as root: the options are dropped, the command runs.
while [ $# -gt 0 ]; do
  case $1 in -u|-g|-C|-D|-h|-p|-r|-t|-U) shift 2;; --) shift; break;; -*) shift;; *) break;; esac
done
exec env "$@"
"""
STEPS_VARIABLE = "ENSEMBLE_CI_STEPS"  # the shell functions that run the CI's steps, in both phases' variables
_STEP_FUNCTIONS = (
    'ensemble_shell() { if command -v bash >/dev/null 2>&1; then bash --noprofile --norc -eo pipefail -c "$1"; '
    'else sh -ec "$1"; fi; }\n'
    'ensemble_step() { ( cd "$2" && ensemble_shell "$3" ) || { rc=$?; '
    "printf 'ensemble: the CI step \"%s\" exited with %s\\n' \"$1\" \"$rc\" >&2; exit \"$rc\"; }; }\n")
_FUNCTIONS = f'eval "${STEPS_VARIABLE}"'
_PLAIN = re.compile(r"^[^\n|;&<>(){}`$\\]*$")  # one command the shell runs the same under `-eo pipefail`


@dataclass(frozen=True)
class Step:
    """One `run:` step: its name, script, working directory (relative to the repository) and own variables."""

    name: str
    script: str
    directory: str = "."
    env: Pairs = ()
    allow_failure: bool = False  # `continue-on-error: true`

    @property
    def installs(self) -> bool:
        """Whether the step fetches dependencies, so it belongs to the setup phase."""
        return bool(_INSTALLS.search(self.script))


@dataclass(frozen=True)
class HealthCheck:
    """How to tell a service is ready: a command run inside it (None: it is ready once running), and the
    patience docker's `--health-*` options give it."""

    command: str | None
    interval_s: float = 10.0
    timeout_s: float = 30.0
    retries: int = 3
    start_period_s: float = 0.0

    @property
    def patience_s(self) -> float:
        """How long the service may take to become healthy, as docker would wait (the start period, then `retries`
        failed checks): at least 5 s, at most ten minutes."""
        return min(600.0, max(5.0, self.start_period_s + self.interval_s * self.retries + self.timeout_s))


@dataclass(frozen=True)
class Service:
    """A container the tests talk to: image, the variables it gets, its ports (on localhost, in the service)."""

    name: str
    image: str
    env: Pairs = ()
    ports: tuple[tuple[int, int], ...] = ()
    health: HealthCheck = HealthCheck(None)
    ignored: tuple[str, ...] = ()  # options and keys that have no meaning in the sandbox

    def describe(self) -> str:
        """`postgres (postgres:16, localhost:5432 -> 5432, health check `pg_isready`)`."""
        parts = [self.image]
        parts += [f"localhost:{local} -> {port}" for local, port in self.ports]
        if self.health.command:
            parts.append(f"health check `{self.health.command}`")
        if self.env:
            parts.append(f"variables {', '.join(name for name, _ in self.env)}")
        return f"{self.name} ({', '.join(parts)})"


@dataclass(frozen=True)
class Recipe:
    """What the CI job that runs the tests gives the sandbox, and what it left out and why."""

    source: str  # `.github/workflows/ci.yml, job `test``
    test: Step
    language: str | None = None  # from a setup action (actions/setup-python ...)
    version: str | None = None
    image: str | None = None  # the job's `container:`
    env: Pairs = ()  # for both phases, in `ProjectInfo.env`'s form
    setup_env: Pairs = ()  # for the setup phase only: variables made of secrets `sandbox.setup_env` maps
    setup: tuple[Step, ...] = ()
    before_tests: tuple[Step, ...] = ()
    services: tuple[Service, ...] = ()
    matrix: Pairs = ()
    taken: tuple[str, ...] = ()
    skipped: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        """What was taken and skipped, one line each, for `ensemble doctor`, the summary and the trace."""
        entry = f", matrix entry {', '.join(f'{k}={v}' for k, v in self.matrix)}" if self.matrix else ""
        lines = [f"from {self.source}{entry}"]
        lines += [f"setup step `{s.name}`: {_one_line(s.script)}" for s in self.setup]
        lines += [f"before the tests, every run: `{s.name}`: {_one_line(s.script)}" for s in self.before_tests]
        lines.append(f"tests: `{self.test.name}`: {_one_line(self.test.script)}")
        lines += [f"service {s.describe()}" for s in self.services]
        if self.env:
            lines.append(f"variables: {', '.join(name for name, _ in self.env)}")
        if self.setup_env:
            lines.append(f"setup-only variables (from secrets): {', '.join(name for name, _ in self.setup_env)}")
        lines += [f"taken: {t}" for t in self.taken]
        lines += [f"skipped: {s}" for s in self.skipped]
        return lines


def _one_line(script: str, limit: int = 100) -> str:
    text = " ; ".join(line.strip() for line in script.strip().splitlines() if line.strip())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def setup_command(recipe: Recipe, prelude: str | None) -> str | None:
    """The setup phase's command: `prelude` (a Python venv, say), the setup-only variables, then the install steps;
    None when empty."""
    parts = [prelude] if prelude else []
    parts += [f"export {name}={shell_word(value)}" for name, value in recipe.setup_env]
    if any(re.search(r"\bsudo\b", s.script) for s in recipe.setup):
        parts.append(f"{{ command -v sudo >/dev/null || {{ printf %s {shlex.quote(SUDO_SHIM)} > /usr/local/bin/sudo "
                     "&& chmod 755 /usr/local/bin/sudo; }; }")
    if recipe.setup:
        parts += [_FUNCTIONS, *(_step_line(s) for s in recipe.setup)]
    return "\n".join(parts) or None


def test_command(recipe: Recipe) -> str:
    """The test phase's command: the steps that need the services, then the test step; the test step's script as it
    is when that is all (`python -m pytest -q`)."""
    test = recipe.test
    if not recipe.before_tests and not test.env and test.directory == "." and _PLAIN.match(test.script.strip()):
        return test.script.strip()
    run = f"{_exports(test.env)}ensemble_shell {shlex.quote(test.script)}"
    if test.directory != ".":
        run = f"cd {shlex.quote(test.directory)} && {run}"
    return "\n".join([_FUNCTIONS, *(_step_line(s) for s in recipe.before_tests), f"( {run} )"])


def _step_line(step: Step) -> str:
    call = f"ensemble_step {shlex.quote(step.name)} {shlex.quote(step.directory)} {shlex.quote(step.script)}"
    if step.env:
        call = f"( {_exports(step.env)}{call} )"
    return f"{call} || true" if step.allow_failure else f"{call} || exit $?"


def _exports(env: Pairs) -> str:
    return "".join(f"export {name}={shell_word(value)} && " for name, value in env)


def variable(name: str) -> str:
    """The marker for shell variable `name` inside recipe text (see `script_text`, `shell_word`)."""
    return f"\0var:{name}\0"


def script_text(text: str) -> str:
    """Recipe text as a script: each variable marker becomes `${NAME}`."""
    return _VARIABLE.sub(lambda m: f"${{{m[1]}}}", text)


def shell_word(value: str) -> str:
    """One shell word for `value`: its text quoted, its variable markers expanded (`"${NAME}"`)."""
    parts = _VARIABLE.split(value)
    words = [f'"${{{part}}}"' if odd else shlex.quote(part) for odd, part in zip(itertools.cycle((False, True)), parts,
                                                                                  strict=False) if odd or part]
    return "".join(words) or "''"


def project_value(value: str) -> str:
    """Recipe text as a `ProjectInfo.env` value, whose `{workspace}` and `{tmp}` each backend expands: braces
    escaped, the workspace's and scratch space's markers made those (any other variable is dropped)."""
    escaped = value.replace("{", "{{").replace("}", "}}")
    known = {"ENSEMBLE_WORKSPACE": "{workspace}", "TMPDIR": "{tmp}"}
    return _VARIABLE.sub(lambda m: known.get(m[1], ""), escaped)


def project_env(recipe: Recipe, detected: Pairs) -> Pairs:
    """The variables of both phases: the detected ones the recipe does not set, the recipe's, and the functions that
    run its steps (in `ProjectInfo.env`'s form)."""
    known = {name for name, _ in recipe.env}
    return (*((n, v) for n, v in detected if n not in known), *recipe.env,
            (STEPS_VARIABLE, _STEP_FUNCTIONS.replace("{", "{{").replace("}", "}}")))


def variables(env: Mapping[str, object]) -> Pairs:
    """A mapping of YAML scalars as variables, as GitHub passes them on (`true`, `5432`)."""
    return tuple((str(k), stringify(v)) for k, v in env.items())


def secret_name(reference: str) -> str:
    """`PRIVATE_INDEX` from `PRIVATE_INDEX` or `${{ secrets.PRIVATE_INDEX }}` (how `sandbox.setup_env` names one)."""
    found = re.fullmatch(r"\s*\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]*)\s*\}\}\s*", reference)
    return found.group(1) if found else reference.strip()


def setup_secret_values(setup_env: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, str]:
    """The setup phase's variables from `sandbox.setup_env` (variable -> secret name), read from `environ`;
    RecipeError naming a secret it lacks."""
    values, missing = {}, []
    for variable, reference in setup_env.items():
        name = secret_name(reference)
        if environ.get(name):
            values[variable] = environ[name]
        else:
            missing.append(name)
    if missing:
        raise RecipeError(f"`sandbox.setup_env` in .github/ensemble.yml names the secret {', '.join(missing)}, which is "
                          "not in the bot's environment: pass it to the bot (in the workflow step that runs it, "
                          f"`env: {missing[0]}: ${{{{ secrets.{missing[0]} }}}}`), or remove it from sandbox.setup_env")
    return values


def stringify(value: object) -> str:
    """A YAML scalar as GitHub passes it on: `true`, `5432`, `3.1`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def service(name: str, image: str, env: Pairs, ports: list[object], options: str) -> Service:
    """A service from a workflow's (or the config's) `services:` entry; what has no meaning here is listed."""
    mapped, ignored = [], []
    for port in ports:
        pair = parse_port(port)
        if pair is None:
            ignored.append(f"port {port!r} (only TCP ports like 5432 or 5432:5432 are forwarded)")
        else:
            mapped.append(pair)
    health, extra_env, more = parse_options(options)
    return Service(name, image, (*env, *extra_env), tuple(mapped), health, (*ignored, *more))


def parse_port(port: object) -> tuple[int, int] | None:
    """(port on localhost, the service's port) from `5432`, `"5433:5432"`, `"127.0.0.1:5432:5432/tcp"`."""
    text = stringify(port).strip().removesuffix("/tcp")
    parts = text.split(":")
    if not all(p.isdigit() and 0 < int(p) < 65536 for p in parts[-2:]) or len(parts) > 3:
        return None
    return (int(parts[-2]), int(parts[-1])) if len(parts) > 1 else (int(parts[0]), int(parts[0]))


_HEALTH_DURATIONS = {"--health-interval": "interval_s", "--health-timeout": "timeout_s",
                     "--health-start-period": "start_period_s"}
_WITH_VALUE = ("--health-cmd", "--health-retries", *_HEALTH_DURATIONS, "-e", "--env")


def parse_options(options: str) -> tuple[HealthCheck, Pairs, list[str]]:
    """The health check and `-e` variables from docker-create options; the other options, named as ignored."""
    try:
        words = shlex.split(options or "")
    except ValueError as exc:
        raise ValueError(f"options {options!r} cannot be read ({exc}); check the quotes") from None
    command: str | None = None
    retries = HealthCheck.retries
    durations: dict[str, float] = {}
    env: list[tuple[str, str]] = []
    ignored: list[str] = []
    while words:
        flag, value = _next_option(words)
        if flag == "--health-cmd":
            command = value
        elif flag == "--health-retries":
            if not value.isdigit():
                raise ValueError(f"{flag} {value!r} is not a whole number; write it like {flag} 5")
            retries = int(value)
        elif flag in _HEALTH_DURATIONS:
            durations[_HEALTH_DURATIONS[flag]] = duration_s(value, flag)
        elif flag in ("-e", "--env") and "=" in value:
            name, _, assigned = value.partition("=")
            env.append((name, assigned))
        else:
            ignored.append(f"option {flag}" + (f" {value}" if value else ""))
    health = HealthCheck(command, durations.get("interval_s", HealthCheck.interval_s),
                         durations.get("timeout_s", HealthCheck.timeout_s), retries,
                         durations.get("start_period_s", HealthCheck.start_period_s))
    return health, tuple(env), ignored


def _next_option(words: list[str]) -> tuple[str, str]:
    """(flag, value) taken off the front of `words`: `--flag=value`, `--flag value`, or a lone `--flag`."""
    word = words.pop(0)
    if word.startswith("-") and "=" in word:
        flag, _, value = word.partition("=")
        return flag, value
    wants = word in _WITH_VALUE or (word.startswith("--") and bool(words) and not words[0].startswith("-"))
    return word, (words.pop(0) if wants and words else "")


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def duration_s(text: str, flag: str = "a duration") -> float:
    """Seconds in a Go duration as docker reads it: `10s`, `1m30s`, `500ms`."""
    parts = _DURATION.findall(text.strip())
    if not parts or "".join(n + u for n, u in parts) != text.strip():
        raise ValueError(f"{flag} {text!r} is not a duration; write it like 10s, 500ms or 1m30s")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def step_failure(output: str) -> tuple[str, int] | None:
    """(step name, exit status) of the CI step whose failure `output` reports, or None."""
    found = list(STEP_FAILED.finditer(output))
    return (found[-1]["name"], int(found[-1]["code"])) if found else None
