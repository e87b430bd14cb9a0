"""Known-answer tests the judge plants in every judged run, so a run whose results were forged gives itself away.

The code under test runs inside the test runner: it can patch `assertEqual`, print the runner's per-test lines
and exit, or write a result file. None of that is visible in the results it forges, but it also reaches tests
the candidate never saw. Beside a test file the runner collects (a *host*), each judged run gets a new file under
a fresh nonce with tests that must fail and tests that must pass, written in the assertion styles the
repository's own tests use (unittest's `assertEqual`/`assertTrue`/`assertRaises`, a bare `assert` under pytest,
`node:assert` or jest's `expect`, Go's `t.Errorf`, Rust's `assert_eq!`), run in the same process as the tests
around them. A must-fail check reported as passing, a check missing from results that name other tests, a
runner that exits 0 while one of its checks failed, or a result for a test that does not exist is evidence of
tampering (`evidence`).

The base run, which holds no candidate code, calibrates them: hosts whose checks did not come out as written
(a runner that does not collect that folder, a language the runner of this repository does not run) are not
used again, and the judge says sentinels are unavailable rather than accusing anybody (`calibrate`).

Pure functions over paths and text; the judge (team_judge.py) reads the files and runs the tests.
"""

from __future__ import annotations

import posixpath
import re
import secrets
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.ensemble.judge.twins import Twin, contradictions, twins
from bot.ensemble.workspace_files import Read
from common.languages import is_code, language_of
from common.testfiles import in_test_folder, planted_name
from sandbox.model import FAILING as FAILED

Expect = Literal["pass", "fail"]
HOSTS_PER_LANGUAGE = 3  # folders tried at the base; the ones the runner collects are kept
MAX_STYLES = 4  # assertion styles per host (each gets a must-fail and a must-pass check)


@dataclass(frozen=True)
class Check:
    """One known-answer test: where it is, the token its results carry, what it must give, and how it asserts."""

    host: str
    path: str
    token: str  # `<nonce>_fail1`: in the test's name, so in the id every runner reports
    expect: Expect
    style: str


@dataclass(frozen=True)
class Planted:
    """The files a judged run gets beside its hosts and the tests a change must fix, and the checks they hold."""

    nonce: str
    files: Mapping[str, bytes]
    checks: tuple[Check, ...]
    twins: tuple[Twin, ...] = ()  # copies of the tests a change must fix that expect another answer (twins.py)

    def owns(self, test_id: str) -> bool:
        """True for a result that belongs to the judge's checks (or claims to: it carries the run's nonce)."""
        return bool(self.nonce) and self.nonce in test_id


NOTHING = Planted("", {}, ())


@dataclass(frozen=True)
class Calibration:
    """What the base run showed: the hosts whose checks came out as written, and whether the runner's exit
    status tells a failing run from a passing one (a harness ending in `|| true` does not)."""

    hosts: tuple[str, ...] = ()
    exit_counts: bool = True
    note: str = ""  # why sentinels are unavailable, where they are
    paths_resolve: bool = True  # the base's test ids name files from the repository's root (`nonexistent` holds)

    @property
    def available(self) -> bool:
        """True when some host's checks run in this repository's test process."""
        return bool(self.hosts)


def new_nonce() -> str:
    """A fresh name part no candidate can predict: 12 hex digits, starting with a letter (identifiers need one)."""
    return "s" + secrets.token_hex(6)


def candidate_hosts(paths: Iterable[str], is_test_name: Callable[[str], bool]) -> list[str]:
    """Test files to plant beside, a few per language: those in test folders (common/testfiles.py) and shallow paths
    first."""
    by_language: dict[str, list[str]] = {}
    for path in sorted(paths, key=lambda p: (not in_test_folder(p), p.count("/"), p)):
        found = language_of(path)
        if found is None or found.name not in WRITERS or not is_test_name(path):
            continue
        chosen = by_language.setdefault(found.name, [])
        folders = {posixpath.dirname(p) for p in chosen}
        if len(chosen) < HOSTS_PER_LANGUAGE and posixpath.dirname(path) not in folders:
            chosen.append(path)
    return [p for hosts in by_language.values() for p in hosts]


def plant(hosts: Sequence[str], read: Read, nonce: str, twinned: Sequence[str] = ()) -> Planted:
    """The checks for one run: a new file beside each host, in the host's language and assertion styles, and a twin
    beside each of the tests `twinned` names that can have one."""
    files: dict[str, bytes] = {}
    checks: list[Check] = []
    for host in hosts:
        text = read(host)
        found = language_of(host)
        if text is None or found is None or found.name not in WRITERS:
            continue
        writer = WRITERS[found.name]
        path = writer.path(host, nonce, read)
        if path in files:
            continue
        source, planted = writer.write(text, nonce, host, path)
        files[path] = source.encode()
        checks += planted
    made = tuple(t for t in twins(twinned, read, nonce) if t.path not in files)
    files.update((t.path, t.source.encode()) for t in made)
    return Planted(nonce, files, tuple(checks), made)


def calibrate(planted: Planted, results: Mapping[str, str], exit_code: int | None) -> Calibration:
    """Which hosts' checks the base run reported as written, and whether its exit status followed them."""
    good = [h for h in dict.fromkeys(c.host for c in planted.checks)
            if all(_outcome(c, results) == c.expect for c in planted.checks if c.host == h)]
    failing = any(_outcome(c, results) == "fail" for c in planted.checks if c.host in good)
    note = "" if good else (
        "no known-answer test the judge planted was reported by this repository's test command"
        if planted.checks else "no test file the judge could plant known-answer tests beside")
    return Calibration(tuple(good), exit_counts=not failing or exit_code != 0, note=note)


def _outcome(check: Check, results: Mapping[str, str]) -> str | None:
    """'pass', 'fail' or None (not reported) for a check; a check reported twice gives its worst outcome."""
    found = [o for name, o in results.items() if check.token in name]
    if not found:
        return None
    return "fail" if any(o in FAILED for o in found) else "pass" if "pass" in found else found[0]


def evidence(planted: Planted, results: Mapping[str, str], exit_code: int | None, calibration: Calibration,
             cut_short: bool) -> tuple[list[str], list[str]]:
    """What the run's results say about the run itself: (tampering, doubts).

    Tampering is what no honest run gives: a must-fail check passing, the runner exiting 0 while a check failed
    (when the base run showed its exit status follows the tests), checks missing from results that name other
    tests, results under the run's nonce that are none of its checks, a test that passed while its twin (twins.py)
    passed too. Doubts make the run no evidence without accusing anyone: a must-pass check failing, or checks
    missing from a run that was `cut_short` (killed, or ended by a signal) before they may have run.
    """
    tampering: list[str] = []
    doubts: list[str] = []
    others = [n for n in results if not planted.owns(n)]
    missing = []
    for check in planted.checks:
        got = _outcome(check, results)
        if got is None:
            missing.append(check)
        elif check.expect == "fail" and got == "pass":
            tampering.append(f"a known-failing check the judge planted ({check.style} in {check.path}) was "
                             "reported as passing: something in the test process changed how tests pass")
        elif check.expect == "pass" and got != "pass":
            doubts.append(f"a known-passing check the judge planted ({check.style} in {check.path}) did not pass")
    # a check is missing by tampering only where tests beside it were reported: a unit that never ran (a Go package
    # or a crate that no longer builds, a folder the runner could not load) takes its checks with it honestly
    beside = [c for c in missing if any(_folder(n) == posixpath.dirname(c.path) for n in others)]
    if missing and others:
        what = (f"{len(missing)} of the {len(planted.checks)} known-answer tests the judge planted are missing from "
                f"results that name {len(others)} other test(s)")
        if beside and not cut_short:
            tampering.append(what + ", tests beside them among them: the results did not come from the runner")
        else:
            doubts.append(what + (" (the run was cut short)" if cut_short else
                                  " (the tests beside them did not run either)"))
    if calibration.exit_counts and exit_code == 0 and any(
            c.expect == "fail" and _outcome(c, results) == "fail" for c in planted.checks):
        tampering.append("the test command exited 0 although a known-failing check failed: the exit status did "
                         "not come from the runner")
    tampering += contradictions(planted.twins, results)
    tokens = {c.token for c in planted.checks} | {t.token for t in planted.twins}
    forged = [n for n in results if planted.owns(n) and not any(t in n for t in tokens)]
    if forged:
        tampering.append(f"results name {len(forged)} test(s) under the judge's nonce that it never planted: "
                         f"{', '.join(forged[:3])}")
    return tampering, doubts


def _folder(test_id: str) -> str:
    """The folder of the file a test id names ('tests/test_x.py::t' and unittest's 'tests.test_x.T::t' -> 'tests')."""
    where = test_id.split("::", 1)[0]
    if "/" in where or is_code(where):
        return posixpath.dirname(where)
    parts = where.split(".")
    while len(parts) > 1 and parts[-1][:1].isupper():  # the classes after the module
        parts.pop()
    return "/".join(parts[:-1])


def nonexistent(results: Iterable[str], read: Read) -> list[str]:
    """Results for tests that do not exist in the judged tree: an id that names its file (`path::test`) where no
    such file is. (Not a test the file does not define itself: tests inherit methods from classes elsewhere.)"""
    gone = []
    for name in results:
        head, _, rest = name.partition("::")
        if rest and is_code(head) and "/" in head and read(head) is None:
            gone.append(name)
    return gone


# ---- writers: one per language, each a new file beside the host in the host's own style ----


@dataclass(frozen=True)
class _Writer:
    path: Callable[[str, str, Read], str]
    write: Callable[[str, str, str, str], tuple[str, list[Check]]]


def _pair(left: int) -> tuple[int, int]:
    return left, left + 1 + left % 7


def _values(nonce: str, index: int) -> tuple[int, int]:
    return _pair(int(nonce[1:7], 16) % 9000 + 1000 + index * 17)


def _checks(host: str, path: str, nonce: str, styles: Sequence[str]) -> list[tuple[Check, Check, int, int]]:
    out = []
    for i, style in enumerate(styles, 1):
        left, right = _values(nonce, i)
        out.append((Check(host, path, f"{nonce}_fail{i}", "fail", style),
                    Check(host, path, f"{nonce}_pass{i}", "pass", style), left, right))
    return out


def _used(text: str, pattern: str, known: Mapping[str, object], first: Sequence[str]) -> list[str]:
    """The styles `known` holds that `text` uses most (by `pattern`'s first group), after `first`."""
    counts = Counter(m.group(1) for m in re.finditer(pattern, text) if m.group(1) in known)
    ranked = [*first, *(s for s, _ in counts.most_common() if s not in first)]
    return ranked[:MAX_STYLES]


def _beside(host: str, name: str) -> str:
    folder = posixpath.dirname(host)
    return f"{folder}/{name}" if folder else name


# Python: unittest methods and pytest's bare assert. Each style: (must-fail body, must-pass body) over l, r.
_UNITTEST = {
    "assertEqual": ("self.assertEqual(left, right)", "self.assertEqual(left, left)"),
    "assertTrue": ("self.assertTrue(left == right)", "self.assertTrue(left == left)"),
    "assertFalse": ("self.assertFalse(left == left)", "self.assertFalse(left == right)"),
    "assertIn": ("self.assertIn(left, [right])", "self.assertIn(left, [right, left])"),
    "assertIsNone": ("self.assertIsNone(left)", "self.assertIsNone(None)"),
    "assertNotEqual": ("self.assertNotEqual(left, left)", "self.assertNotEqual(left, right)"),
    "assertAlmostEqual": ("self.assertAlmostEqual(left, right)", "self.assertAlmostEqual(left, left + 1e-9)"),
    "assertRaises": ("with self.assertRaises(ValueError):\n            int(str(left))",
                     "with self.assertRaises(ValueError):\n            int(str(left) + 'x')"),
}
_PYTEST = {
    "assert": ("assert left == right", "assert left == left"),
    "raises": ("with pytest.raises(ValueError):\n        int(str(left))",
               "with pytest.raises(ValueError):\n        int(str(left) + 'x')"),
    "approx": ("assert left + 0.5 == pytest.approx(left)", "assert left + 1e-9 == pytest.approx(left)"),
}


def _python_path(host: str, nonce: str, read: Read) -> str:
    return planted_name(host, f"sentinel_{nonce}")


def _python(text: str, nonce: str, host: str, path: str) -> tuple[str, list[Check]]:
    if re.search(r"\bunittest\b", text) and re.search(r"TestCase\b", text):
        styles = _used(text, r"\bself\.(assert\w+)\s*\(", _UNITTEST, ["assertEqual"])
        lines = ["import unittest", "", "", f"class Sentinel_{nonce}(unittest.TestCase):"]
        checks: list[Check] = []
        for fail, ok, left, right in _checks(host, path, nonce, styles):
            for check, body in ((fail, _UNITTEST[fail.style][0]), (ok, _UNITTEST[ok.style][1])):
                lines += [f"    def test_sentinel_{check.token}(self):", f"        left, right = {left}, {right}",
                          f"        {body}", ""]
                checks.append(check)
        return "\n".join(lines) + "\n", checks
    styles = _used(text, r"\b(?:pytest\.)?(raises|approx)\b", _PYTEST, ["assert"])
    lines = ["import pytest", ""]
    checks = []
    for fail, ok, left, right in _checks(host, path, nonce, styles):
        for check, body in ((fail, _PYTEST[fail.style][0]), (ok, _PYTEST[ok.style][1])):
            lines += ["", f"def test_sentinel_{check.token}():", f"    left, right = {left}, {right}", f"    {body}", ""]
            checks.append(check)
    return "\n".join(lines), checks


def _go_path(host: str, nonce: str, read: Read) -> str:
    return _beside(host, f"sentinel_{nonce}_test.go")


_GO = {"Errorf": "t.Errorf(\"got %d, want %d\", left, right)", "Fatalf": "t.Fatalf(\"got %d, want %d\", left, right)",
       "Error": "t.Error(\"got\", left, \"want\", right)", "Fatal": "t.Fatal(\"got\", left, \"want\", right)"}


def _go(text: str, nonce: str, host: str, path: str) -> tuple[str, list[Check]]:
    package = re.search(r"^package\s+(\w+)", text, re.M)
    styles = _used(text, r"\bt\.(Errorf|Fatalf|Error|Fatal)\(", _GO, [])[:2] or ["Errorf"]
    lines = [f"package {package[1] if package else 'main'}", "", 'import "testing"', ""]
    checks: list[Check] = []
    for fail, ok, left, right in _checks(host, path, nonce, styles):
        for check, want in ((fail, right), (ok, left)):
            lines += [f"func TestSentinel_{check.token}(t *testing.T) {{", f"\tleft, right := {left}, {want}",
                      "\tif left != right {", f"\t\t{_GO[check.style]}", "\t}", "}", ""]
            checks.append(check)
    return "\n".join(lines), checks


def _rust_path(host: str, nonce: str, read: Read) -> str:
    if re.search(r"(^|/)tests/[^/]+\.rs$", host):
        return _beside(host, f"sentinel_{nonce}.rs")
    folder = posixpath.dirname(host)
    while folder and read(f"{folder}/Cargo.toml") is None:  # unit tests in src/: the crate's tests/ folder
        folder = posixpath.dirname(folder)
    return f"{folder + '/' if folder else ''}tests/sentinel_{nonce}.rs"


_RUST = {"assert_eq": ("assert_eq!(left, right);", "assert_eq!(left, left);"),
         "assert": ("assert!(left == right);", "assert!(left == left);"),
         "assert_ne": ("assert_ne!(left, left);", "assert_ne!(left, right);")}


def _rust(text: str, nonce: str, host: str, path: str) -> tuple[str, list[Check]]:
    styles = _used(text, r"\b(assert_eq|assert_ne|assert)!", _RUST, ["assert_eq"])
    lines: list[str] = []
    checks: list[Check] = []
    for fail, ok, left, right in _checks(host, path, nonce, styles):
        for check, body in ((fail, _RUST[fail.style][0]), (ok, _RUST[ok.style][1])):
            lines += ["#[test]", f"fn sentinel_{check.token}() {{", f"    let (left, right) = ({left}, {right});",
                      "    let _ = right;", f"    {body}", "}", ""]
            checks.append(check)
    return "\n".join(lines), checks


def _js_path(host: str, nonce: str, read: Read) -> str:
    return planted_name(host, f"sentinel_{nonce}")


def _js(text: str, nonce: str, host: str, path: str) -> tuple[str, list[Check]]:
    esm = bool(re.search(r"^\s*import\s.+\sfrom\s|^\s*import\s+['\"]", text, re.M))
    node_test = "node:test" in text
    expect = bool(re.search(r"\bexpect\s*\(", text)) and not node_test
    if expect:  # jest and vitest: `test` and `expect` (globals, or imported as the host does)
        head = [line for line in text.splitlines() if re.match(r"\s*import\s.*['\"](?:vitest|@jest/globals)['\"]", line)]
        styles = {"toBe": ("expect(left).toBe(right);", "expect(left).toBe(left);")}
        call = "test"
    else:
        assert_from = "node:assert" if "node:assert" in text else "assert"
        head = (["import __sentinelTest from 'node:test';", f"import __sentinelAssert from '{assert_from}';"] if esm
                else ["const __sentinelTest = require('node:test');",
                      f"const __sentinelAssert = require('{assert_from}');"]) if node_test else (
            [f"import __sentinelAssert from '{assert_from}';"] if esm
            else [f"const __sentinelAssert = require('{assert_from}');"])
        styles = {"strictEqual": ("__sentinelAssert.strictEqual(left, right);", "__sentinelAssert.strictEqual(left, left);"),
                  "ok": ("__sentinelAssert.ok(left === right);", "__sentinelAssert.ok(left === left);")}
        call = "__sentinelTest" if node_test else ("it" if re.search(r"\bit\s*\(", text) else "test")
    lines = [*head, ""]
    checks: list[Check] = []
    for fail, ok, left, right in _checks(host, path, nonce, list(styles)[:MAX_STYLES]):
        for check, body in ((fail, styles[fail.style][0]), (ok, styles[ok.style][1])):
            lines += [f"{call}('sentinel_{check.token}', () => {{", f"  const left = {left}, right = {right};",
                      "  void right;", f"  {body}", "});", ""]
            checks.append(check)
    return "\n".join(lines), checks


WRITERS: dict[str, _Writer] = {
    "python": _Writer(_python_path, _python),
    "go": _Writer(_go_path, _go),
    "rust": _Writer(_rust_path, _rust),
    "javascript": _Writer(_js_path, _js),
}
