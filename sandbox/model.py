"""The sandbox's plain data: the spec it is given, the environment it prepares, the results it returns.

`Sandbox` is the seam: `DockerSandbox` and `LocalSandbox` implement it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from sandbox.recipe import Recipe, Service

Outcome = Literal["pass", "fail", "error", "skip"]
FAILING: tuple[Outcome, ...] = ("fail", "error")  # the outcomes of a test that did not pass (a skip is no failure)
KILLED_EXITS = (137, -9)  # SIGKILL, as the shell and as Python report it
COLLECTION = "<collection>"  # the name of a file's pseudo-test when its tests could not be collected (import error)
_SIZE = r"^\d+(\.\d+)?[bkmg]?$"


@dataclass(frozen=True)
class ServiceSpec:
    """A service in `sandbox.services`, in the shape of a workflow's `services:` entry."""

    image: str = field(default="", metadata={"pattern": r"^\S+$", "hint": "naming an image, like postgres:16",
                                             "required": "give the service's image, like postgres:16"})
    env: Mapping[str, str | int | float | bool] = field(default_factory=dict)
    ports: tuple[str | int, ...] = ()  # "5432:5432": localhost:5432 in the tests is the service's 5432
    options: str = ""  # docker-create options; --health-cmd, --health-interval, ... and -e are read


@dataclass(frozen=True)
class SandboxSpec:
    """How tests run; also the `sandbox:` section of the bot's config. `None` for image/setup/test: detect.

    Each field's metadata holds the bounds the config loader checks (`min`, `pattern` with a `hint`);
    `internal` fields are not configuration keys.
    """

    image: str | None = None
    setup: str | None = None
    test: str | None = None
    timeout_s: int = field(default=600, metadata={"min": 1})
    memory: str = field(default="2g", metadata={"pattern": _SIZE, "hint": "like 512m or 2g"})
    cpus: float = field(default=2.0, metadata={"min": 0.1})
    pids: int = field(default=512, metadata={"min": 16})
    require_docker: bool = False
    setup_timeout_s: int = field(default=1800, metadata={"min": 1})
    workspace_size: str = field(default="1g", metadata={"pattern": _SIZE, "hint": "like 512m or 2g"})
    tmp_size: str = field(default="256m", metadata={"pattern": _SIZE, "hint": "like 64m or 1g"})
    # The services the tests need, as a workflow's `services:` (name -> image, env, ports, options); None: the
    # CI workflow's, {}: none. Given, they win over the workflow's.
    services: Mapping[str, ServiceSpec] | None = None
    # Variables for the setup phase only, each the name of a secret in the bot's environment (PIP_INDEX_URL:
    # PRIVATE_INDEX): for private package indexes. Never in the test phase, a prompt, a trace or a comment.
    setup_env: Mapping[str, str] = field(default_factory=dict, metadata={
        "items": {"pattern": r"^\s*(\$\{\{\s*secrets\.)?[A-Za-z_][A-Za-z0-9_]*(\s*\}\})?\s*$",
                  "hint": "naming a secret variable, like PRIVATE_INDEX or ${{ secrets.PRIVATE_INDEX }}"},
        "keys": {"pattern": r"^[A-Za-z_][A-Za-z0-9_]*$", "hint": "a variable name, like PIP_INDEX_URL"}})
    max_files: int = field(default=200_000, metadata={"internal": True})
    output_limit: int = field(default=1_000_000, metadata={"internal": True})


@dataclass(frozen=True)
class ProjectInfo:
    """What detection found: language, commands, image and environment variables for both phases."""

    language: str
    test: str | None
    setup: str | None = None
    image: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    dependency_files: tuple[str, ...] = ()
    # report folders a runner writes where it cannot be told to write elsewhere (Surefire, Gradle): read only
    # when the run's own results folder holds no results
    result_paths: tuple[str, ...] = ()
    services: tuple[Service, ...] = ()  # containers the tests talk to (sandbox/services.py)
    recipe: Recipe | None = None  # where the commands, variables and services came from, when the CI gave them


@dataclass(frozen=True)
class Environment:
    """A prepared environment: the image (or host directory) with dependencies installed."""

    repo_dir: Path
    spec: SandboxSpec
    project: ProjectInfo
    image: str
    backend: str
    key: str
    cached: bool
    setup_s: float = 0.0
    env_dir: Path | None = None
    image_source: str = ""  # how the image was found: present, pulled, a toolchain built from Debian packages
    services: tuple[ServiceImage, ...] = ()  # each service with its image and how it was found

    @property
    def test_command(self) -> str:
        """The command the tests run with: config first, then detection."""
        command = self.spec.test or self.project.test
        if not command:
            from sandbox.errors import NoTestCommand

            raise NoTestCommand(f"no test command found for this {self.project.language} repository in "
                                f"{self.repo_dir}; set `sandbox.test` in .github/ensemble.yml (e.g. `pytest -q`)")
        return command


@dataclass(frozen=True)
class ServiceImage:
    """A service ready to start: its image (present, pulled, or built from Debian packages) and how it was had."""

    service: Service
    image: str
    source: str
    built: bool = False  # one of the sandbox's own images from Debian packages (runs as its service's user)

    def describe(self) -> str:
        """`postgres: ensemble-service:postgresql-… (built from Debian packages postgresql, cached)`."""
        return f"{self.service.name}: {self.source}"


@dataclass(frozen=True)
class TestCase:
    """One test's outcome, with the failure message where there is one."""

    __test__ = False  # not a pytest class

    name: str
    outcome: Outcome
    message: str = ""
    duration_s: float | None = None


OWNED_CHANGED = "owned_changed"  # a run changed a file its caller owns, or tried to and was refused
# (sandbox/local.py after the run; sandbox/run_hooks.py in the run)
RUNNER_PATCHED = "runner_patched"  # code that is not the tests' patched a runner's or the standard library's class
FORGED_VALUE = "forged_value"  # a value of the code under test that no comparison can trust (sandbox/run_hooks.py)
READS_TESTS = "reads_tests"  # the code under test opened a file of the tests' code (sandbox/run_hooks.py)
CHANGED_EXAMPLES = "changed_examples"  # doctest examples that ran are no docstring written in their file (run_hooks.py)
# the code under test reached into a running test (took its frame's code, or set a trace function): no cheat alone
# (a helper that names its caller does it), but with a hidden check left as the bug had it, the change is special-cased
REACHED_TESTS = "reached_tests"
# the findings that are the run's doing, not the runner's disagreement
TAMPERING = (OWNED_CHANGED, RUNNER_PATCHED, FORGED_VALUE, READS_TESTS, CHANGED_EXAMPLES)


@dataclass(frozen=True)
class Finding:
    """Evidence that a run's per-test results cannot be taken as they stand (sandbox/agreement.py).

    The sandbox only reports findings; the judge weighs them against the base run's.
    """

    kind: str  # "exit_status" | "tally" | "unlisted" | "result_file" | one of TAMPERING
    detail: str  # plain words, naming the numbers


@dataclass(frozen=True)
class ExecResult:
    """What one command did. Output is capped with a visible truncation marker."""

    command: str
    exit_code: int
    stdout: str
    stderr: str
    duration_s: float
    timed_out: bool = False
    oom_killed: bool = False
    tests: list[TestCase] = field(default_factory=list)
    running: str | None = None  # the test that had started and not finished when the command ended
    complete: bool = True  # False when a kill stopped the suite and the rest could not be run (sandbox/suite.py)
    incomplete_reason: str = ""
    findings: tuple[Finding, ...] = ()  # where the per-test results disagree with the runner (sandbox/agreement.py)
    reads: tuple[str, ...] = ()  # repository files the tests' Python processes opened, when traced
    # when traced, each repository file opened with the repository file whose code opened it ('<doctest>': a
    # file whose examples ran as doctests): what the judge learns the tests' closure from (bot/ensemble/judge/closure.py)
    opened: tuple[tuple[str, str], ...] = ()
    runner: str = ""  # whose report gave the results (or named the running test): pytest, junit, go, cargo, tap ...
    listed: tuple[str, ...] | None = None  # the tests the run listed itself as it collected them (sandbox/listing.py)
    hung: tuple[str, ...] = ()  # the tests running when the time limit killed the runner (sandbox/suite.py)

    @property
    def ok(self) -> bool:
        """True when the command succeeded within its limits."""
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed

    @property
    def killed(self) -> bool:
        """True when a limit ended the command (time, memory, or a SIGKILL from outside): its results are partial."""
        return self.timed_out or self.oom_killed or self.exit_code in KILLED_EXITS

    @property
    def failures(self) -> list[TestCase]:
        """The tests that failed or errored."""
        return [t for t in self.tests if t.outcome in FAILING]


class Sandbox(Protocol):
    """Prepares an environment once per dependency set, then runs commands in fresh copies of the repo."""

    def prepare(self, repo_dir: Path, spec: SandboxSpec) -> Environment:
        """Detect the project, install dependencies (cached), and return the environment."""
        ...

    def run(self, env: Environment, command: str, timeout: float | None = None,
            files: Mapping[str, bytes | None] | None = None, trace_reads: bool = False,
            owned: Collection[str] = ()) -> ExecResult:
        """Copy the current contents of `env.repo_dir` in, with `files` over them (bytes written, None removed),
        and run `command`; failures are data. The command cannot change the files in `owned` (Docker: they are
        read-only and root's) or, where it can (the local sandbox), changing them is a finding (`OWNED_CHANGED`).

        With `trace_reads`, the tests' Python processes record the repository files they open
        (`ExecResult.reads`); other runners' processes record nothing."""
        ...
