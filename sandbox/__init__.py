"""The execution environment: run a repository's tests in a hardened container or a local fallback.

    sandbox = select_sandbox(require_docker=False)
    env = sandbox.prepare(repo_dir, SandboxSpec())        # detects, installs dependencies (cached)
    result = sandbox.run(env, env.test_command)           # a fresh copy of the repo each time
    print(summarize_failures(result, max_tokens=800))

Importing this package is cheap: the docker SDK is imported only when a Docker sandbox is made.
"""

from sandbox.detect import detect_project
from sandbox.docker_sandbox import DockerSandbox, reap
from sandbox.errors import (
    EngineUnavailable,
    ImageMissing,
    NoTestCommand,
    RecipeError,
    SandboxError,
    ServiceFailed,
    SetupFailed,
    StepFailed,
    WorkspaceError,
)
from sandbox.local import LocalSandbox
from sandbox.model import Environment, ExecResult, Finding, ProjectInfo, Sandbox, SandboxSpec, TestCase
from sandbox.select import select_sandbox
from sandbox.summary import summarize_failures

EnvironmentSpec = SandboxSpec

__all__ = [
    "DockerSandbox", "EngineUnavailable", "Environment", "EnvironmentSpec", "ExecResult", "Finding", "ImageMissing",
    "LocalSandbox", "NoTestCommand", "ProjectInfo", "RecipeError", "Sandbox", "SandboxError", "SandboxSpec",
    "ServiceFailed", "SetupFailed", "StepFailed", "TestCase", "WorkspaceError", "detect_project", "reap",
    "select_sandbox", "summarize_failures",
]
