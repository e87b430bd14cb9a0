"""The sandbox's errors. Only broken infrastructure raises; a failing test run is data.

    SandboxError            exit 1: the sandbox could not run anything
    ├── EngineUnavailable   no Docker engine answers (and `sandbox.require_docker` is true)
    ├── ImageMissing        the image is neither present nor pullable
    ├── SetupFailed         the setup command failed, so no environment image exists
    ├── WorkspaceError      the repository cannot be copied into the sandbox
    └── NoTestCommand       exit 2: nothing detected and `sandbox.test` not set

`sandbox/` does not import `bot/`; the CLI boundary maps `exit_code` to the process exit code.
"""

from __future__ import annotations


class SandboxError(Exception):
    """Base of the sandbox's errors; `exit_code` is what the CLI returns."""

    exit_code = 1


class EngineUnavailable(SandboxError):
    """No Docker engine answers where one is required."""


class ImageMissing(SandboxError):
    """The image is not present locally and could not be pulled."""


class SetupFailed(SandboxError):
    """The setup command exited non-zero; carries the command, image, exit code and log tail."""

    def __init__(self, command: str, image: str, exit_code: int, log_tail: str):
        self.command = command
        self.image = image
        self.exit_code_of_setup = exit_code
        self.log_tail = log_tail
        super().__init__(
            f"sandbox setup `{command}` in image {image} exited with {exit_code}; fix the setup command "
            f"(`sandbox.setup` in .github/ensemble.yml) or the dependency files. Last output:\n{log_tail}"
        )


class WorkspaceError(SandboxError):
    """The repository directory is missing or too large to copy into the sandbox."""


class NoTestCommand(SandboxError):
    """Detection found no test command and the config names none."""

    exit_code = 2
