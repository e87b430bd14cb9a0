"""Environment problems, told apart from test failures: a tool that is not there, dependencies that cannot
be fetched. Pure functions over a command's exit status and output; the messages say how to fix it.

A test command that exits 127 with `make: not found` ran no test: asking models to fix the code
would spend money on a missing compiler. The base run is checked with `tool_missing`; a failed
setup gets `setup_hint`.
"""

from __future__ import annotations

import re

from sandbox.errors import SetupFailed, StepFailed, ToolMissing
from sandbox.model import Environment, ExecResult, ProjectInfo
from sandbox.output import cap_text
from sandbox.recipe import step_failure
from sandbox.toolchains import toolchain_for

# `sh: 1: make: not found`, `bash: line 1: cargo: command not found`, `/bin/sh: go: not found`,
# `make: cc: No such file or directory` (a tool make itself could not start)
_NOT_FOUND = re.compile(r"^(?:(?:/bin/|/usr/bin/)?(?:sh|bash|dash)(?::(?: line)? \d+)?: )?(?:\S+: )?"
                        r"(?P<tool>[\w.+/-]+): (?:command )?not found\s*$"
                        r"|^make(?:\[\d+\])?: (?P<made>[\w.+/-]+): No such file or directory\s*$", re.M)
NOT_RUNNABLE = (126, 127)  # the shell's "cannot execute" and "not found"
# what package managers print when no repository answers (Maven, Gradle, cargo, go, npm, pip, apt)
_FETCH_FAILED = re.compile(
    r"Could not transfer artifact|Could not resolve (?:dependencies|host|plugin)|Non-resolvable parent POM"
    r"|UnknownHostException|Unknown host|Temporary failure in name resolution|Network is unreachable"
    r"|Could not GET|Could not download|failed to download|spurious network error|Couldn't resolve host"
    r"|dial tcp|no such host|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|getaddrinfo|Failed to establish a new connection"
    r"|Could not find a version that satisfies|Failed to fetch|No plugin found for prefix", re.I)


def missing_tool(exit_code: int, output: str) -> str | None:
    """The command that could not be found, when a command exited 126/127 because of one."""
    if exit_code not in NOT_RUNNABLE:
        return None
    match = _NOT_FOUND.search(output)
    return (match["tool"] or match["made"]) if match else None


def provide_hint(language: str, tool: str | None = None) -> str:
    """How to give the sandbox what it lacks: the toolchain image, `sandbox.image`, or `sandbox.setup`."""
    toolchain = toolchain_for(language)
    if toolchain is not None and tool is not None and tool not in toolchain.tools:
        toolchain = None  # Gradle, jest, ...: not something the Debian toolchain provides
    packages = f" (Debian packages {', '.join(toolchain.packages)})" if toolchain else ""
    build = (f"let the sandbox build its {toolchain.name} toolchain image{packages} from the base image: leave "
             f"`sandbox.image` unset, or build it ahead with `python -m sandbox toolchains {toolchain.name}`; "
             if toolchain else "")
    what = f"`{tool}`" if tool else "the toolchain"
    return (f"{build}or set `sandbox.image` in .github/ensemble.yml to an image that has {what}, or install it with "
            "`sandbox.setup` (runs as root, with network)")


def check_base_run(env: Environment, result: ExecResult) -> None:
    """Raise ToolMissing when the base run's test command could not start (no per-test results, exit 126/127), and
    StepFailed when a CI step before the tests (a migration) failed, so no test ran."""
    if result.tests or result.timed_out:
        return
    output = result.stderr + "\n" + result.stdout
    recipe = env.project.recipe
    if recipe is not None and result.exit_code != 0 and (failed := step_failure(output)):
        raise StepFailed(failed[0], recipe.source, env.image, failed[1], cap_text(output, 4000),
                         "before the tests, at the base")
    tool = missing_tool(result.exit_code, output)
    if tool is not None:
        raise ToolMissing(tool, result.command, env.image, provide_hint(env.project.language, tool))


def setup_hint(language: str, exit_code: int, output: str) -> str:
    """What a failed setup most likely needs: a tool, a reachable package repository, or a fixed command."""
    if tool := missing_tool(exit_code, output):
        return f"`{tool}: not found`: the image lacks {tool}; " + provide_hint(language, tool)
    if _FETCH_FAILED.search(output):
        return ("the dependencies could not be downloaded: no package repository answered from the sandbox's "
                "setup phase. Make one reachable (a mirror or proxy in the tool's own settings, such as Maven's "
                "settings.xml, GOPROXY, CARGO_HOME/config.toml or .npmrc), vendor the dependencies into the "
                "repository, or use a `sandbox.image` that already holds them (with `sandbox.setup: \"\"`)")
    return "fix the setup command (`sandbox.setup` in .github/ensemble.yml) or the dependency files"


def setup_error(project: ProjectInfo, image: str, exit_code: int, tail: str) -> SetupFailed:
    """The error of a failed setup: the CI step that failed where the recipe came from the CI, else the command."""
    if project.recipe is not None and (failed := step_failure(tail)):
        return StepFailed(failed[0], project.recipe.source, image, exit_code, tail, "in setup")
    return SetupFailed(project.setup or "", image, exit_code, tail, setup_hint(project.language, exit_code, tail))
