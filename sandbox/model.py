"""The sandbox's plain data: the spec it is given, the environment it prepares, the results it returns.

`Sandbox` is the seam: `DockerSandbox` and `LocalSandbox` implement it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

Outcome = Literal["pass", "fail", "error", "skip"]


@dataclass(frozen=True)
class SandboxSpec:
    """How tests run. `None` for image/setup/test means: detect from the repository."""

    image: str | None = None
    setup: str | None = None
    test: str | None = None
    timeout_s: float = 600
    memory: str = "2g"
    cpus: float = 2.0
    pids: int = 512
    require_docker: bool = False
    setup_timeout_s: float = 1800
    workspace_size: str = "1g"
    tmp_size: str = "256m"
    max_files: int = 200_000
    output_limit: int = 1_000_000

    @classmethod
    def from_config(cls, config: Any) -> SandboxSpec:
        """Build from any object with some of these attributes (the bot's `config.sandbox`)."""
        names = {f.name for f in dataclasses.fields(cls)}
        values = {n: getattr(config, n) for n in names if getattr(config, n, None) is not None}
        return cls(**values)


@dataclass(frozen=True)
class ProjectInfo:
    """What detection found: language, commands, image and environment variables for both phases."""

    language: str
    test: str | None
    setup: str | None = None
    image: str | None = None
    env: tuple[tuple[str, str], ...] = ()
    dependency_files: tuple[str, ...] = ()
    result_paths: tuple[str, ...] = ()


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
class TestCase:
    """One test's outcome, with the failure message where there is one."""

    __test__ = False  # not a pytest class

    name: str
    outcome: Outcome
    message: str = ""
    duration_s: float | None = None


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

    @property
    def ok(self) -> bool:
        """True when the command succeeded within its limits."""
        return self.exit_code == 0 and not self.timed_out and not self.oom_killed

    @property
    def failures(self) -> list[TestCase]:
        """The tests that failed or errored."""
        return [t for t in self.tests if t.outcome in ("fail", "error")]


class Sandbox(Protocol):
    """Prepares an environment once per dependency set, then runs commands in fresh copies of the repo."""

    def prepare(self, repo_dir: Path, spec: SandboxSpec) -> Environment:
        """Detect the project, install dependencies (cached), and return the environment."""
        ...

    def run(self, env: Environment, command: str, timeout: float | None = None) -> ExecResult:
        """Copy the current contents of `env.repo_dir` in and run `command`; failures are data."""
        ...
