"""Environment problems are told apart from failing tests: a missing tool, unreachable dependencies."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.environment import check_base_run, missing_tool, setup_hint
from sandbox.errors import ToolMissing
from sandbox.model import Environment, ExecResult, ProjectInfo, SandboxSpec, TestCase


@pytest.mark.parametrize(("code", "output", "tool"), [
    (127, "sh: 1: make: not found\n", "make"),
    (127, "/bin/sh: 1: go: not found", "go"),
    (127, "bash: line 1: cargo: command not found\n", "cargo"),
    (127, "sh: 1: npm: not found\n", "npm"),
    (2, "make: cc: No such file or directory\nmake: *** [Makefile:2: test] Error 127\n", None),
    (127, "make: cc: No such file or directory\nmake: *** [Makefile:2: test] Error 127\n", "cc"),
    (1, "sh: 1: make: not found\n", None),  # the status says the command ran
    (127, "something else entirely", None),
])
def test_missing_tool_is_read_from_the_shell_and_make(code: int, output: str, tool: str | None) -> None:
    assert missing_tool(code, output) == tool


def _env(language: str) -> Environment:
    return Environment(Path("/repo"), SandboxSpec(), ProjectInfo(language, "make test"), "ensemble-base:bookworm",
                       "docker", "k", True)


def test_a_base_run_that_could_not_start_is_an_environment_error_naming_the_fix() -> None:
    result = ExecResult("make test", 127, "", "sh: 1: make: not found\n", 0.1)
    with pytest.raises(ToolMissing) as caught:
        check_base_run(_env("make"), result)
    message = str(caught.value)
    assert message.startswith("`make: not found`") and "ensemble-base:bookworm" in message
    assert "build-essential" in message and "sandbox.image" in message and "sandbox.setup" in message


def test_a_base_run_with_test_results_or_a_plain_failure_is_data() -> None:
    check_base_run(_env("make"), ExecResult("make test", 2, "FAIL: median_even\n", "", 0.1))
    ran = ExecResult("make test", 127, "", "sh: 1: helper: not found", 0.1, tests=[TestCase("a", "fail")])
    check_base_run(_env("make"), ran)


def test_setup_hints_name_the_missing_tool_or_the_unreachable_repository() -> None:
    assert "`go: not found`" in setup_hint("go", 127, "sh: 1: go: not found")
    assert "golang-go" in setup_hint("go", 127, "sh: 1: go: not found")
    maven = ("[ERROR] Failed to execute goal on project demo: Could not resolve dependencies for project x:demo:jar:1: "
             "Could not transfer artifact junit:junit:pom:4.13.2 from/to central: Unknown host")
    assert "could not be downloaded" in setup_hint("java-maven", 1, maven)
    assert "settings.xml" in setup_hint("java-maven", 1, maven)
    assert setup_hint("python", 1, "ERROR: invalid requirement").startswith("fix the setup command")


def test_a_tool_the_toolchain_does_not_provide_is_not_promised_by_it() -> None:
    hint = setup_hint("java-gradle", 127, "sh: 1: gradle: not found")
    assert "`gradle: not found`" in hint and "toolchain" not in hint and "sandbox.image" in hint
    assert "default-jdk-headless" in setup_hint("java-maven", 127, "sh: 1: mvn: not found")
