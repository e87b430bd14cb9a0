"""sandbox/run_hooks.py runs inside the test process with the standard library alone, so it keeps its own copies of
rules spelled in the packages it cannot import: each copy is held equal to the one it copies here."""

from __future__ import annotations

from common import testfiles
from sandbox import run_hooks, scripts


def test_the_runner_lists_are_common_testfiles_ones() -> None:
    assert run_hooks.RUNNER_ROOTS == testfiles.RUNNER_ROOTS
    assert run_hooks.STDLIB_SETTINGS == testfiles.STDLIB_SETTINGS


def test_the_files_a_run_may_not_make_are_harness_to_common_testfiles_too() -> None:
    assert {testfiles.CONFTEST} == run_hooks.RUN_TIME_HARNESS
    assert {f"{name}.py" for name in testfiles.RUNNER_MODULES if name.endswith("customize")} == run_hooks.START_UP_FILES


def test_the_logs_and_the_owned_list_are_named_as_the_sandbox_reads_them() -> None:
    assert (run_hooks.READS_LOG, run_hooks.OWNED_LOG, run_hooks.PATCHES_LOG, run_hooks.HONESTY_LOG) == (
        scripts.READS_LOG, scripts.OWNED_LOG, scripts.PATCHES_LOG, scripts.HONESTY_LOG)
    assert scripts.OWNED_LIST.endswith(f"/{run_hooks.OWNED_LIST}")


def test_repository_code_in_the_libraries_is_found_whatever_its_file_is_named(monkeypatch) -> None:
    """The check run at a test process's end: a repository function put over `json.loads` or a method of unittest's,
    also when its file is named like the check's own words ("removed…", "a …") or the code was compiled from a string
    under a relative name; code outside the repository and the sandbox's own files are not the repository's."""
    import json
    import unittest

    root = "/work/repo/"
    code: dict[str, object] = {}
    for filename in ("/work/repo/src/core.py", "removed_helpers.py", "a shim.py", "/usr/lib/python3/x.py",
                     "/work/repo/.ensemble-plugins/guard.py", "<string>"):
        exec(compile("def replaced(*args, **kwargs):\n    return 0\n", filename, "exec"), namespace := {})
        code[filename] = namespace["replaced"]
    monkeypatch.setattr(json, "loads", code["/work/repo/src/core.py"])
    monkeypatch.setattr(json, "dumps", staticmethod(code["removed_helpers.py"]))
    monkeypatch.setattr(unittest.TestCase, "fail", code["a shim.py"])
    monkeypatch.setattr(unittest.TestCase, "skipTest", code["/usr/lib/python3/x.py"])
    monkeypatch.setattr(json, "load", code["/work/repo/.ensemble-plugins/guard.py"])
    monkeypatch.setattr(json, "dump", code["<string>"])
    assert sorted(run_hooks._repository_code_in_the_libraries(root)) == [
        ("json.dumps", "removed_helpers.py"), ("json.loads", "src/core.py"),
        ("unittest.case.TestCase.fail", "a shim.py")]
