"""Per-test results from what runners write: JUnit XML (pytest, jest-junit, Surefire, CTest), `go test -json`,
`cargo test` lines, TAP (`node --test`), and `unittest -v` output. Untrusted input: XML with a DOCTYPE
is refused (no entity expansion).
"""

from __future__ import annotations

import json
import logging
import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

from common.languages import suffixes_of
from sandbox.detect import find_test_files
from sandbox.model import COLLECTION, Outcome, TestCase

log = logging.getLogger(__name__)
MESSAGE_LIMIT = 4000
PROGRESS_LOG = "pytest-progress.log"  # written by sandbox/pytest_progress.py as each test starts and ends


def parse_junit_xml(data: bytes) -> list[TestCase]:
    """Test cases from a JUnit XML document; [] when it is not one."""
    if b"<!DOCTYPE" in data[:4096].upper() or b"<!ENTITY" in data.upper():
        log.warning("ignoring a JUnit file with a DOCTYPE or entities")
        return []
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        log.warning("ignoring an unreadable JUnit file: %s", exc)
        return []
    return [_junit_case(case) for case in root.iter("testcase")]


def _junit_case(case: ET.Element) -> TestCase:
    full = junit_test_id(case.get("file") or "", case.get("classname") or "", case.get("name", "?"))
    outcome: Outcome = "pass"
    message = ""
    for tag, kind in (("failure", "fail"), ("error", "error"), ("skipped", "skip")):
        node = case.find(tag)
        if node is not None:
            outcome = kind  # type: ignore[assignment]
            text = (node.text or "").strip()
            header = node.get("message", "")
            message = f"{header}\n{text}".strip() if header and header not in text else text or header
            if header == "collection failure" and case.get("file"):  # pytest could not import the test file
                full = f"{case.get('file')}::{COLLECTION}"
            break
    try:
        duration = float(case.get("time", ""))
    except ValueError:
        duration = None
    return TestCase(full, outcome, message[-MESSAGE_LIMIT:], duration)


def junit_test_id(file: str, classname: str, name: str) -> str:
    """A test's identity from JUnit attributes: file, class and name (parameters are part of the name).

    pytest's `file="tests/test_x.py" classname="tests.test_x.TestParse" name="test_e[1]"` becomes
    `tests/test_x.py::TestParse::test_e[1]`, its own node id; without a file the class leads
    (`com.acme.ParserTest::parsesEmpty`). CTest repeats the name as the class.
    """
    if not file:
        return f"{classname}::{name}" if classname and classname != name else name
    module = file.rsplit(".", 1)[0].replace("/", ".")
    inner = classname.removeprefix(module).lstrip(".") if classname.startswith(module) else ""
    if not inner and classname and not classname.startswith(module) and classname != name:
        inner = classname.rsplit(".", 1)[-1] if classname.rsplit(".", 1)[-1][:1].isupper() else ""
    return "::".join([file, *inner.split("."), name] if inner else [file, name])


def parse_go_test_json(text: str) -> list[TestCase]:
    """Test cases from `go test -json` events (one JSON object per line)."""
    output: dict[str, list[str]] = {}
    results: dict[str, TestCase] = {}
    for line in text.splitlines():
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(event, dict) or not event.get("Test"):
            continue
        name = f"{event.get('Package', '')}::{event['Test']}"
        action = event.get("Action")
        if action == "output":
            output.setdefault(name, []).append(str(event.get("Output", "")))
        elif action in ("pass", "fail", "skip"):
            outcome: Outcome = "pass" if action == "pass" else "fail" if action == "fail" else "skip"
            message = "".join(output.get(name, [])) if action == "fail" else ""
            results[name] = TestCase(name, outcome, message[-MESSAGE_LIMIT:], event.get("Elapsed"))
    return list(results.values())


_UNITTEST_LINE = re.compile(r"^(\w+) \(([\w.]+)\)(?:\n.*?)? \.\.\. (ok|FAIL|ERROR|skipped.*)$", re.M)
_UNITTEST_IMPORT = re.compile(r"^([\w.]+) \(unittest\.loader\._FailedTest(?:\.[\w.]+)?\) \.\.\. ERROR$", re.M)
_UNITTEST_BLOCK = re.compile(r"^(?:FAIL|ERROR): (\w+) \(([\w.]+)\)\n-+\n(.*?)(?=^=+$|^-+\nRan )", re.M | re.S)


def parse_unittest_verbose(text: str) -> list[TestCase]:
    """Test cases from `python -m unittest -v` output."""
    messages = {_unittest_name(m.group(1), m.group(2)): m.group(3).strip() for m in _UNITTEST_BLOCK.finditer(text)}
    cases = []
    for match in _UNITTEST_LINE.finditer(text):
        name = _unittest_name(match.group(1), match.group(2))
        word = match.group(3)
        outcome: Outcome = "pass" if word == "ok" else "fail" if word == "FAIL" else (
            "error" if word == "ERROR" else "skip")
        cases.append(TestCase(name, outcome, messages.get(name, "")[-MESSAGE_LIMIT:]))
    for match in _UNITTEST_IMPORT.finditer(text):  # a test module that could not be imported
        message = next((m.group(3) for m in _UNITTEST_BLOCK.finditer(text) if m.group(1) == match.group(1)), "")
        cases.append(TestCase(f"{match.group(1)}::{COLLECTION}", "error", message.strip()[-MESSAGE_LIMIT:]))
    return cases


def _unittest_name(method: str, where: str) -> str:
    """'module.Class::test' whether Python printed 'module.Class' or 'module.Class.test'."""
    return f"{where.removesuffix('.' + method)}::{method}"


_CARGO_TARGET = re.compile(r"^\s*(?:Running (?:unittests )?(\S+)|Doc-tests (\S+))", re.M)
_CARGO_LINE = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored\b.*)$", re.M)
_CARGO_BLOCK = re.compile(r"^---- (.+?) stdout ----\n(.*?)(?=^---- |^failures:$|^test result:)", re.M | re.S)


def parse_cargo_test(text: str) -> list[TestCase]:
    """Test cases from `cargo test` output; names carry their target (`src/lib.rs::tests::it_adds`)."""
    marks = [(m.start(), m.group(1) or f"doc-tests {m.group(2)}") for m in _CARGO_TARGET.finditer(text)]
    messages = {m.group(1): m.group(2).strip() for m in _CARGO_BLOCK.finditer(text)}
    cases = []
    for match in _CARGO_LINE.finditer(text):
        target = next((where for at, where in reversed(marks) if at < match.start()), "")
        name, word = match.group(1), match.group(2)
        outcome: Outcome = "pass" if word == "ok" else "fail" if word == "FAILED" else "skip"
        full = f"{target}::{name}" if target and not target.startswith("doc-tests") else name
        cases.append(TestCase(full, outcome, messages.get(name, "")[-MESSAGE_LIMIT:] if outcome == "fail" else ""))
    return cases


_TAP_LINE = re.compile(r"^(?P<indent> *)(?P<ok>not ok|ok) \d+(?: - (?P<name>.*?))?(?: # (?P<directive>\w+).*)?$")
_TAP_SUBTEST = re.compile(r"^(?P<indent> *)# Subtest: (?P<name>.*)$")
WORKSPACE_PREFIX = "/workspace/"


def parse_tap(text: str) -> list[TestCase]:
    """Test cases from TAP (`node --test`): the leaf tests, named by their enclosing tests (`file::suite > test`).

    Node nests subtests four spaces deeper, announces each with `# Subtest: name`, and reports a
    parent after its children; a parent's own line is not a test of its own.
    """
    lines = text.splitlines()
    cases: list[TestCase] = []
    enclosing: list[str] = []  # the announced subtest names, by depth
    previous_depth = -1
    for index, line in enumerate(lines):
        if subtest := _TAP_SUBTEST.match(line):
            depth = len(subtest["indent"]) // 4
            del enclosing[depth:]
            enclosing.append(subtest["name"].strip())
            continue
        match = _TAP_LINE.match(line)
        if not match:
            continue
        depth = len(match["indent"]) // 4
        is_parent, previous_depth = previous_depth > depth, depth
        if is_parent:
            continue
        directive = (match["directive"] or "").upper()
        outcome: Outcome = "skip" if directive in ("SKIP", "TODO") else "pass" if match["ok"] == "ok" else "fail"
        message = _tap_diagnostics(lines, index + 1, len(match["indent"])) if outcome == "fail" else ""
        path = [*enclosing[:depth], (match["name"] or "?").strip()]
        cases.append(TestCase(_tap_name(path), outcome, message[-MESSAGE_LIMIT:]))
    return cases


def _tap_name(path: list[str]) -> str:
    parts = [p.removeprefix(WORKSPACE_PREFIX) for p in path]
    head, rest = parts[0], parts[1:]
    if rest and ("/" in head or head.endswith(JS_SUFFIXES)):
        return f"{head}::{' > '.join(rest)}"
    return " > ".join(parts)


def _tap_diagnostics(lines: list[str], start: int, indent: int) -> str:
    """The YAML block (`---` ... `...`) under a failed test point."""
    if start >= len(lines) or lines[start].strip() != "---":
        return ""
    block = []
    for line in lines[start + 1:]:
        if line.strip() == "..." and len(line) - len(line.lstrip()) <= indent + 2:
            break
        block.append(line[indent + 2:])
    return "\n".join(block)


def name_go_tests_by_file(cases: list[TestCase], repo_dir: Path) -> list[TestCase]:
    """`example.com/m/pkg::TestX/sub` -> `pkg/x_test.go::TestX/sub`: the file that defines the test, as other
    runners name theirs (so a reproduction test's file finds its tests). Tests not found keep their name."""
    module = re.search(r"^module\s+(\S+)", _read(repo_dir / "go.mod"), re.M)
    if module is None:
        return cases
    defined: dict[tuple[str, str], str] = {}
    renamed = []
    for case in cases:
        package, _, test = case.name.partition("::")
        if package != module[1] and not package.startswith(module[1] + "/"):
            renamed.append(case)
            continue
        folder = package[len(module[1]):].strip("/")
        if (folder, "") not in defined:
            defined[(folder, "")] = ""
            for path in sorted((repo_dir / folder).glob("*_test.go")):
                for func in re.findall(r"^func\s+(Test\w*)\s*\(", _read(path), re.M):
                    defined.setdefault((folder, func), path.relative_to(repo_dir).as_posix())
        where = defined.get((folder, test.split("/", 1)[0]))
        renamed.append(replace(case, name=f"{where}::{test}") if where else case)
    return renamed


JS_SUFFIXES = suffixes_of("javascript", "typescript", "tsx")
MAX_SCANNED_FILES = 2000


def name_tap_tests_by_file(cases: list[TestCase], repo_dir: Path) -> list[TestCase]:
    """`median even` -> `test/stats.test.js::median even` where TAP did not say the file (Node 18 and 20 do not
    for passing tests): the one JS/TS test file whose text holds the test's name as a string literal."""
    if all("::" in c.name for c in cases):
        return cases
    files = _js_test_files(repo_dir)
    texts = {p.relative_to(repo_dir).as_posix(): _read(p) for p in files}
    renamed = []
    for case in cases:
        leaf = case.name.rsplit(" > ", 1)[-1]
        quoted = [f"{q}{leaf}{q}" for q in "'\"`"]
        where = [path for path, text in texts.items() if any(literal in text for literal in quoted)]
        renamed.append(replace(case, name=f"{where[0]}::{case.name}") if "::" not in case.name and len(where) == 1
                       else case)
    return renamed


def _js_test_files(repo_dir: Path) -> list[Path]:
    """The repository's JS/TS test files (common/testfiles.py decides what a test file is), capped in number."""
    return find_test_files(repo_dir, "javascript", "typescript", "tsx", limit=MAX_SCANNED_FILES)


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def parse_pytest_progress(text: str) -> tuple[list[TestCase], str | None]:
    """The tests the progress log saw finish, and the one that started last and never finished."""
    finished: dict[str, TestCase] = {}
    started: list[str] = []
    for line in text.splitlines():
        fields = line.split("\t")
        if fields[0] == "start" and len(fields) == 2:
            started.append(fields[1])
        elif fields[0] == "done" and len(fields) == 3 and fields[2] in ("pass", "fail", "error", "skip"):
            finished[fields[1]] = TestCase(fields[1], fields[2])  # type: ignore[arg-type]
    running = next((n for n in reversed(started) if n not in finished), None)
    return list(finished.values()), running


def running_test(files: dict[str, bytes]) -> str | None:
    """The test that was running when the command ended, from the progress log (None: none, or no log)."""
    log_file = next((data for name, data in files.items() if name.endswith(PROGRESS_LOG)), None)
    return parse_pytest_progress(log_file.decode("utf-8", "replace"))[1] if log_file is not None else None


def _distinct(found: list[TestCase], into: dict[str, TestCase]) -> None:
    """Add `found` to `into`; a name reported twice by one source is a collision, kept apart and logged."""
    seen: set[str] = set()
    for case in found:
        name, n = case.name, 2
        while name in seen:
            name, n = f"{case.name} (duplicate {n})", n + 1
        if name != case.name:
            log.warning("two tests report the same identity %s; kept apart as %r", case.name, name)
            case = replace(case, name=name)
        seen.add(name)
        into[name] = case


def collect_tests(files: dict[str, bytes], stdout: str, stderr: str, repo_dir: Path | None = None) -> list[TestCase]:
    """Every test case found in result files, else in the output; a later file's result for a test wins.

    `repo_dir` (the repository the run copied) lets Go tests be named by the file that defines them.
    Without JUnit XML (a run killed before the runner wrote it), pytest's progress log says which tests
    finished. Two tests reported under one identity by one source are kept apart (`name (duplicate 2)`)."""
    cases: dict[str, TestCase] = {}
    for name in sorted(files):
        if name.endswith(".xml"):
            _distinct(parse_junit_xml(files[name]), cases)
    if not cases:
        progress = next((data for name, data in files.items() if name.endswith(PROGRESS_LOG)), None)
        if progress is not None:
            _distinct(parse_pytest_progress(progress.decode("utf-8", "replace"))[0], cases)
    if not cases:
        found = parse_go_test_json(stdout)
        cases.update((c.name, c) for c in (name_go_tests_by_file(found, repo_dir) if repo_dir else found))
    if not cases:
        _distinct(parse_cargo_test(stdout), cases)
    if not cases:
        found = parse_tap(stdout)
        cases.update((c.name, c) for c in (name_tap_tests_by_file(found, repo_dir) if repo_dir else found))
    if not cases:
        _distinct(parse_unittest_verbose(stderr + "\n" + stdout), cases)
    return list(cases.values())
