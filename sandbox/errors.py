"""The sandbox's errors. Only broken infrastructure raises; a failing test run is data.

    SandboxError            exit 1: the sandbox could not run anything
    ├── EngineUnavailable   no Docker engine answers (and `sandbox.require_docker` is true)
    ├── ImageMissing        the image is neither present nor pullable
    ├── EnvironmentProblem  the environment cannot run the tests: stop before any model is asked
    │   ├── SetupFailed     the setup command failed, so no environment image exists
    │   │   └── StepFailed  a step of the CI recipe failed (at setup, or before the tests at the base)
    │   ├── ToolMissing     the test command's tool is not in the environment (exit 127 at the base)
    │   ├── ServiceFailed   a service the tests need could not be had, or never became healthy
    │   └── RecipeError     exit 2: the CI workflow cannot be read as the test recipe
    ├── WorkspaceError      the repository cannot be copied into the sandbox
    └── NoTestCommand       exit 2: nothing detected and `sandbox.test` not set

`sandbox/` does not import `bot/`; the CLI boundary maps `exit_code` to the process exit code.
"""

from __future__ import annotations

import re

ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class SandboxError(Exception):
    """Base of the sandbox's errors; `exit_code` is what the CLI returns."""

    exit_code = 1


class EngineUnavailable(SandboxError):
    """No Docker engine answers where one is required; `reason` names what the client ran into."""

    def __init__(self, message: str, reason: str = ""):
        super().__init__(message)
        self.reason = reason


class ImageMissing(SandboxError):
    """The image is not present locally and could not be pulled."""


class EnvironmentProblem(SandboxError):
    """The environment cannot run the repository's tests: a setup failure or a missing tool, not a test failure."""


class SetupFailed(EnvironmentProblem):
    """The setup command exited non-zero; carries the command, image, exit code and log tail."""

    def __init__(self, command: str, image: str, exit_code: int, log_tail: str, hint: str = ""):
        self.command = command
        self.image = image
        self.exit_code_of_setup = exit_code
        self.log_tail = log_tail = ANSI_ESCAPE.sub("", log_tail)  # Maven and cargo colour even in batch mode
        fix = hint or ("fix the setup command (`sandbox.setup` in .github/ensemble.yml) or the dependency files")
        super().__init__(f"sandbox setup `{command}` in image {image} exited with {exit_code}; {fix}. "
                         f"Last output:\n{log_tail}")


class StepFailed(SetupFailed):
    """A step of the recipe taken from the CI workflow exited non-zero; names the step, the workflow and the fix."""

    def __init__(self, step: str, source: str, image: str, exit_code: int, log_tail: str, phase: str):
        self.step = step
        fix = ("fix the step, or state the commands in .github/ensemble.yml (`sandbox.setup` for the installs, "
               "`sandbox.test` for the tests, with any migration before them: `python migrate.py && pytest -q`), "
               "and the workflow is not read")
        super().__init__(step, image, exit_code, log_tail, fix)
        self.args = (f"the CI step `{step}` of {source} exited with {exit_code} {phase}, in image {image}; {fix}. "
                     f"Last output:\n{self.log_tail}",)


class ToolMissing(EnvironmentProblem):
    """The test command could not start: a tool it needs is not in the environment."""

    def __init__(self, tool: str, command: str, image: str, hint: str):
        self.tool = tool
        self.command = command
        self.image = image
        super().__init__(f"`{tool}: not found`: the test command `{command}` cannot run in image {image} "
                         f"(the environment lacks {tool}, so no test ran and no model was asked); {hint}")


class ServiceFailed(EnvironmentProblem):
    """A service container could not be made (image), started, or never passed its health check."""


class RecipeError(EnvironmentProblem):
    """The repository's CI workflow cannot be read as the test recipe: bad input, like a bad config."""

    exit_code = 2


class WorkspaceError(SandboxError):
    """The repository directory is missing or too large to copy into the sandbox."""


class NoTestCommand(SandboxError):
    """Detection found no test command and the config names none."""

    exit_code = 2
