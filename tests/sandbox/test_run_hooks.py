"""sandbox/run_hooks.py runs inside the test process with the standard library alone, so it keeps its own copies of
rules spelled in the packages it cannot import: each copy is held equal to the one it copies here."""

from __future__ import annotations

from common import testfiles
from sandbox import run_hooks, scripts


def test_the_runner_lists_are_common_testfiles_ones() -> None:
    assert run_hooks.RUNNER_ROOTS == testfiles.RUNNER_ROOTS
    assert run_hooks.STDLIB_SETTINGS == testfiles.STDLIB_SETTINGS


def test_the_logs_and_the_owned_list_are_named_as_the_sandbox_reads_them() -> None:
    assert (run_hooks.READS_LOG, run_hooks.OWNED_LOG, run_hooks.PATCHES_LOG, run_hooks.HONESTY_LOG) == (
        scripts.READS_LOG, scripts.OWNED_LOG, scripts.PATCHES_LOG, scripts.HONESTY_LOG)
    assert scripts.OWNED_LIST.endswith(f"/{run_hooks.OWNED_LIST}")
