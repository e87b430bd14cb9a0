"""In a judged run, the code under test reaching into a running test is recorded as `reached_tests`: taking the
test's code from its frame or from its function, setting a function that sees every frame (`sys.settrace`,
`sys.setprofile`, threading's hooks), starting a process (which can read the tests unseen), or opening a file of the
tests' data. It refuses nothing alone (a helper that names its caller reaches too): the
hidden check decides (tests/security/test_hidden_check.py). Code that reaches nowhere leaves no such finding."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sandbox import LocalSandbox, SandboxSpec
from sandbox.model import REACHED_TESTS
from tests.sandbox.conftest import base_image

TESTS = """import unittest

from calc import add


class TestAdd(unittest.TestCase):
    def test_adds(self):
        self.assertEqual(add(2, 3), 5)
"""
# each returns the right sum, so the run passes and only the finding tells the reach
REACHING = {
    "the caller's frame code": (
        "import sys\n\n\ndef add(a, b):\n    sys._getframe(1).f_code.co_consts\n    return a + b\n",
        "calc.py took the code of the running test_adds of tests/test_calc.py from its frame"),
    "the running test's function code, found through sys.modules": (
        "import sys\n\n\ndef add(a, b):\n    case = sys.modules['tests.test_calc'].TestAdd\n"
        "    case.test_adds.__code__.co_consts\n    return a + b\n",
        "calc.py took the code of the running test_adds of tests/test_calc.py from its __code__"),
    "a trace function": (
        "import sys\n\n\ndef add(a, b):\n    sys.settrace(lambda frame, event, arg: None)\n    sys.settrace(None)\n"
        "    return a + b\n",
        "calc.py set a function that sees every frame of the tests as they run (sys.settrace)"),
    "a profile function": (
        "import sys\n\n\ndef add(a, b):\n    sys.setprofile(lambda frame, event, arg: None)\n    sys.setprofile(None)\n"
        "    return a + b\n",
        "calc.py set a function that sees every frame of the tests as they run (sys.setprofile)"),
    "a process of its own": (
        "import subprocess\n\n\ndef add(a, b):\n    subprocess.run(['true'])\n    return a + b\n",
        "calc.py started a process (subprocess.Popen), which can read the tests where no hook of the judge's sees it"),
    "a file of the tests' data": (
        "import os\n\n\ndef add(a, b):\n    open(os.path.join(os.path.dirname(__file__), 'tests', 'cases.json')).read()\n"
        "    return a + b\n",
        "calc.py read tests/cases.json, a file the judge owns beside the tests"),
    "the running test's code, through the collector": (
        "import gc\nimport sys\n\n\ndef add(a, b):\n    case = sys.modules['tests.test_calc'].TestAdd\n"
        "    gc.get_referents(vars(case)['test_adds'])\n    return a + b\n",
        "calc.py asked the collector about test_adds of tests/test_calc.py (gc.get_referents)"),
    "threading's trace hook, set at import": (
        "import threading\n\n\ndef _seen(frame, event, arg):\n    return None\n\n\nthreading.settrace(_seen)\n\n\n"
        "def add(a, b):\n    return a + b\n",
        "calc.py set a function that sees every frame of the tests as they run (threading._trace_hook)"),
}
# the honest neighbours: the code of a function the test did not hand it and that is not running, its own code
NOT_REACHING = {
    "its own function's code": "def add(a, b):\n    add.__code__.co_consts\n    return a + b\n",
    "a data file of its own": (
        "import os\n\n\ndef add(a, b):\n    open(os.path.join(os.path.dirname(__file__), 'calc.json')).read()\n"
        "    return a + b\n"),
    "a test's function that is not running": (
        "import sys\n\n\ndef add(a, b):\n    case = sys.modules['tests.test_calc'].TestAdd\n"
        "    case.setUp.__code__\n    return a + b\n"),
}


def _reached(tmp_path: Path, calc: str) -> list[str]:
    repo = tmp_path / "repo"
    (repo / "tests").mkdir(parents=True)
    (repo / "calc.py").write_text(calc)
    (repo / "tests" / "__init__.py").write_text("")
    (repo / "tests" / "test_calc.py").write_text(TESTS)
    (repo / "tests" / "cases.json").write_text("[[2, 3, 5]]")
    (repo / "calc.json").write_text("{}")
    backend = LocalSandbox(cache_dir=tmp_path / "envs", env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"})
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=60, memory="256m"))
    result = backend.run(env, "python3 -m unittest discover -v -s tests -t .",
                         owned=("tests/test_calc.py", "tests/cases.json"))
    assert result.exit_code == 0, result.stdout + result.stderr
    return [f.detail for f in result.findings if f.kind == REACHED_TESTS]


@pytest.mark.parametrize("reach", sorted(REACHING))
def test_code_under_test_reaching_into_a_running_test_is_recorded(tmp_path: Path, reach: str) -> None:
    calc, detail = REACHING[reach]
    assert detail in _reached(tmp_path, calc)


@pytest.mark.parametrize("code", sorted(NOT_REACHING))
def test_code_under_test_reading_code_that_is_no_running_tests_is_not_recorded(tmp_path: Path, code: str) -> None:
    assert _reached(tmp_path, NOT_REACHING[code]) == []
