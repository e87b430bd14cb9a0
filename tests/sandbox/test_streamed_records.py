"""The judge's records of a judged run are streamed on the process's own output as they are written, beside its
logs (sandbox/run_hooks.py, sandbox/evidence.py): a process the code under test starts can empty a log, but not
take back what was streamed, and a stream that started and never ended shows too."""

from __future__ import annotations

import sys
from pathlib import Path

from sandbox import LocalSandbox, SandboxSpec
from sandbox.model import OWNED_CHANGED, REACHED_TESTS, ExecResult
from tests.sandbox.conftest import base_image

TESTS = """import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 3), 5)
"""
REACHES = "import sys\n\n\ndef add(a, b):\n    sys._getframe(1).f_code.co_consts\n    return a + b\n"
# at exit, a child process (no Python write for an audit hook to see) empties every log in the results folder
EMPTIES_THE_LOGS = """import atexit
import os
import subprocess


def _tidy():
    folder = os.environ["ENSEMBLE_RESULTS"]
    for name in os.listdir(folder):
        if name.endswith(".log"):
            subprocess.run(["truncate", "-s", "0", os.path.join(folder, name)])


atexit.register(_tidy)
"""


def _run(tmp_path: Path, calc: str, timeout: float = 60) -> ExecResult:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text(calc)
    (repo / "tests" / "__init__.py").write_text("")
    (repo / "tests" / "test_calc.py").write_text(TESTS)
    backend = LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=60, memory="256m"))
    return backend.run(env, "python3 -m unittest discover -v -s tests -t .", timeout=timeout,
                       owned=("tests/test_calc.py",))


def _changed(result: ExecResult) -> list[str]:
    return [f.detail for f in result.findings if f.kind == OWNED_CHANGED]


def test_a_log_emptied_by_a_child_process_is_read_from_the_stream_and_its_change_found(tmp_path: Path) -> None:
    result = _run(tmp_path, EMPTIES_THE_LOGS + "\n\n" + REACHES)
    assert result.exit_code == 0, result.stdout + result.stderr
    assert any(f.kind == REACHED_TESTS and "took the code of the running test_adds" in f.detail
               for f in result.findings), result.findings
    assert any("honesty.log: the judge's log was changed while the tests ran (" in detail and "records were gone"
               in detail for detail in _changed(result)), result.findings
    assert "ensemble-evidence" not in result.stdout + result.stderr  # the records are out of the output


def test_the_same_reach_with_the_logs_left_alone_is_no_change(tmp_path: Path) -> None:
    result = _run(tmp_path, REACHES)
    assert result.exit_code == 0 and _changed(result) == [], result.findings
    assert [f.kind for f in result.findings] == [REACHED_TESTS]


def test_a_process_that_ends_without_exiting_left_its_record_cut_short(tmp_path: Path) -> None:
    """`os._exit` in the test process skips every exit handler: the judge's last checks among them."""
    result = _run(tmp_path, "import os\n\n\ndef add(a, b):\n    os._exit(0)\n")
    assert any("record of the run's Python process" in detail and "was cut short" in detail
               for detail in _changed(result)), result.findings


def test_a_run_the_time_limit_killed_is_not_taken_for_a_cut_record(tmp_path: Path) -> None:
    result = _run(tmp_path, "import time\n\n\ndef add(a, b):\n    time.sleep(60)\n", timeout=4)
    assert result.timed_out and _changed(result) == [], result.findings
