"""A suite's tests, listed up front in the identity format the results use, so a run can be checked against it.

One listing run of the test command itself, whatever it is (`pytest -q`, `make test`, a script), with
every Python, Go and Rust runner told to list instead of run: pytest collects only and its plugin prints
the node ids (sandbox/pytest_progress.py); unittest's main program prints what its loader found, for the
arguments the command gives (sandbox/run_hooks.py); `go test` lists through `GOFLAGS=-list=…`, each test
named by the file that defines it as results.name_go_tests_by_file does; `cargo test` gets `-- --list`.
Node's runners cannot list without running, and other languages are not listed: None.
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import Iterator
from pathlib import Path

from sandbox.model import Environment, Sandbox, TestCase
from sandbox.output import MARKER_WORDS
from sandbox.pytest_progress import LISTED_VARIABLE
from sandbox.results import cargo_targets, cargo_test_name, go_events, name_go_tests_by_file
from sandbox.workspace import Overlay

LISTED_LANGUAGES = ("python", "go", "rust")
GO_LISTED = r"^(Test|Fuzz|Example)"  # what `go test` runs by default (examples only where they have output)
_GO_NAME = re.compile(GO_LISTED + r"\w*$")
_GO_PACKAGE = re.compile(r"^(?:ok|FAIL)\s+(\S+)", re.M)
_CARGO_LISTED = re.compile(r"^(.+): test$", re.M)
_CARGO_COUNT = re.compile(r"^\d+ tests?, \d+ benchmarks?$", re.M)
# `cargo test [options] [-- test arguments]`, up to the end of that command (a redirection, ;, &&, | or the end)
_CARGO_TEST = re.compile(r"\bcargo\s+(?:\+\S+\s+)?test\b(?P<args>(?:(?!\s*(?:\d?>|&&|\|\||[;|&]))\s*[^\s;&|<>]+)*)")


def listing_itself(command: str) -> str:
    """`command`, its pytest runs told to list the tests they collect before running them (in the progress log:
    sandbox/pytest_progress.py), so the run's result holds its own listing (`ExecResult.listed`) and needs no
    listing run; other runners list nothing this way (`list_tests` lists them)."""
    return f"export {LISTED_VARIABLE}=1; {command}"


def list_tests(sandbox: Sandbox, env: Environment, command: str, files: Overlay | None = None
               ) -> tuple[str, ...] | None:
    """The tests `command` would run, as the results name them; None where the runner cannot list them."""
    if env.project.language not in LISTED_LANGUAGES:
        return None
    token = secrets.token_hex(8)
    variables = (f'export PYTEST_ADDOPTS="$PYTEST_ADDOPTS --collect-only" ENSEMBLE_LIST={token} '
                 f'GOFLAGS="$GOFLAGS -list={GO_LISTED}"')
    result = sandbox.run(env, f"{variables}; {with_test_args(command, ['--list']) or command}", None, files)
    if result.killed or MARKER_WORDS in result.stdout:  # cut short: the listing would be partial
        return None
    return parse_listing(token, result.stdout, env.repo_dir, files)


def parse_listing(token: str, stdout: str, repo_dir: Path | None = None, overlay: Overlay | None = None
                  ) -> tuple[str, ...] | None:
    """The names in a listing run's output (Go's named by the files of `repo_dir` with the run's `overlay` over it);
    None when no runner listed anything."""
    parts = [_python_listed(token, stdout), _go_listed(stdout, repo_dir, overlay), _cargo_listed(stdout)]
    if all(part is None for part in parts):
        return None
    return tuple(dict.fromkeys(name for part in parts for name in part or ()))


def _python_listed(token: str, stdout: str) -> list[str] | None:
    lines = stdout.splitlines()
    if token not in lines:
        return None
    return [line.split("\t", 1)[1] for line in lines if line.startswith(f"{token}\t")]


def _go_listed(stdout: str, repo_dir: Path | None, overlay: Overlay | None) -> list[str] | None:
    found = list(_go_pairs(stdout))
    if not found:
        return None
    cases = [TestCase(f"{package}::{name}", "pass") for package, name in found if name]
    return [c.name for c in (name_go_tests_by_file(cases, repo_dir, overlay) if repo_dir else cases)]


def _go_pairs(stdout: str) -> Iterator[tuple[str, str]]:
    """(package, test) for each test `go test -list` printed, and (package, "") for each package it listed."""
    events = list(go_events(stdout))
    if events:
        for event in events:
            package, output = str(event.get("Package", "")), str(event.get("Output", "")).strip()
            if event.get("Action") == "output" and not event.get("Test") and _GO_NAME.match(output):
                yield package, output
            elif event.get("Action") in ("pass", "fail") and not event.get("Test"):
                yield package, ""
        return
    pending: list[str] = []
    for line in stdout.splitlines():
        if _GO_NAME.match(line.strip()):
            pending.append(line.strip())
        elif found := _GO_PACKAGE.match(line):
            yield found[1], ""
            yield from ((found[1], name) for name in pending)
            pending = []


def _cargo_listed(stdout: str) -> list[str] | None:
    if not _CARGO_COUNT.search(stdout):
        return None
    marks = cargo_targets(stdout)
    return [cargo_test_name(marks, m.start(), m.group(1)) for m in _CARGO_LISTED.finditer(stdout)]


def with_test_args(command: str, args: list[str]) -> str | None:
    """`command` with `args` passed to the test binaries of its `cargo test` (after `--`); None without one."""
    match = _CARGO_TEST.search(command)
    if match is None:
        return None
    quoted = " ".join(shlex.quote(a) for a in args)
    joiner = " " if re.search(r"(?:^|\s)--(?:\s|$)", match["args"]) else " -- "
    return f"{command[:match.end()]}{joiner}{quoted}{command[match.end():]}"
