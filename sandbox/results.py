"""Per-test results from what runners write: JUnit XML (pytest, jest-junit, Surefire, CTest), `go test -json`,
`cargo test` lines, TAP (`node --test`), and `unittest -v` output; and the test that was running when a run
ended early, where the runner names it (pytest's progress log, go's `run` events, libtest's and unittest's
start lines). Untrusted input: XML with a DOCTYPE is refused (no entity expansion).
"""

from __future__ import annotations

import bisect
import json
import logging
import posixpath
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from common.languages import is_language, is_test_name, suffixes_of
from common.testfiles import is_test_path
from sandbox.detect import find_test_files
from sandbox.model import COLLECTION, Outcome, TestCase
from sandbox.scripts import CTEST_JUNIT, JEST_JUNIT, PYTEST_JUNIT, PYTEST_PROGRESS
from sandbox.workspace import Overlay

log = logging.getLogger(__name__)
MESSAGE_LIMIT = 4000


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


def go_events(text: str) -> Iterator[dict[str, Any]]:
    """The JSON objects among `go test -json`'s lines."""
    for line in text.splitlines():
        if line.startswith("{"):
            try:
                event = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(event, dict):
                yield event


def parse_go_test_json(text: str) -> list[TestCase]:
    """Test cases from `go test -json` events (one JSON object per line)."""
    output: dict[str, list[str]] = {}
    results: dict[str, TestCase] = {}
    for event in go_events(text):
        if not event.get("Test"):
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


def go_running(text: str) -> str | None:
    """The Go test (`package::TestX/sub`) that the last `run` event started and no event ended."""
    running: dict[str, None] = {}  # in start order
    for event in go_events(text):
        if not event.get("Test"):
            continue
        name = f"{event.get('Package', '')}::{event['Test']}"
        if event.get("Action") == "run":
            running[name] = None
        elif event.get("Action") in ("pass", "fail", "skip"):
            running.pop(name, None)
    return next(reversed(running), None)


_UNITTEST_WORD = r"ok|FAIL|ERROR|skipped.*|expected failure|unexpected success"
_UNITTEST_HEADER = re.compile(r"^(\w+) \(([\w.]+)\)(?:\n[^\n]*?)? \.\.\. ?(.*)$", re.M)
_UNITTEST_SUBTEST = re.compile(r"^  \w+ \([\w.]+\) \(.*\) \.\.\. (FAIL|ERROR)$", re.M)
_UNITTEST_ALONE = re.compile(rf"^({_UNITTEST_WORD})$", re.M)  # the outcome after output the test wrote to stderr
_UNITTEST_IMPORT = re.compile(r"^([\w.]+) \(unittest\.loader\._FailedTest(?:\.[\w.]+)?\) \.\.\. ERROR$", re.M)
_UNITTEST_BLOCK = re.compile(r"^(?:FAIL|ERROR): ([\w.]+) \(([\w.]+)\)(?: \([^\n]*\))?\n-+\n(.*?)(?=^=+$|^-+\nRan )",
                             re.M | re.S)
_UNITTEST_END = re.compile(r"^Ran \d+ tests? in ", re.M)


def parse_unittest_verbose(text: str) -> list[TestCase]:
    """Test cases from `python -m unittest -v` output (subtests fold into their test)."""
    return _unittest_cases(text)[0]


def unittest_running(text: str) -> str | None:
    """The unittest test that had started and not finished when the output ends (`-v` names each as it starts)."""
    return _unittest_cases(text)[1]


def _unittest_cases(text: str) -> tuple[list[TestCase], str | None]:
    messages: dict[str, str] = {}
    for block in _UNITTEST_BLOCK.finditer(text):
        name = _unittest_name(block.group(1), block.group(2))
        messages[name] = f"{messages.get(name, '')}\n{block.group(3).strip()}".strip()
    headers = list(_UNITTEST_HEADER.finditer(text))
    cases, running = [], None
    for index, match in enumerate(headers):
        name = _unittest_name(match.group(1), match.group(2))
        rest = text[match.end():headers[index + 1].start() if index + 1 < len(headers) else len(text)]
        end = _UNITTEST_END.search(rest)
        word = match.group(3) if _UNITTEST_ALONE.fullmatch(match.group(3)) else None
        word = word or _unittest_outcome(match.group(3) + (rest[:end.start()] if end else rest))
        if word is None:
            running = None if end else name
            continue
        outcome: Outcome = ("pass" if word == "ok" else "fail" if word in ("FAIL", "unexpected success")
                            else "error" if word == "ERROR" else "skip")
        cases.append(TestCase(name, outcome, messages.get(name, "")[-MESSAGE_LIMIT:]))
        running = None
    for match in _UNITTEST_IMPORT.finditer(text):  # a test module that could not be imported
        message = next((m.group(3) for m in _UNITTEST_BLOCK.finditer(text) if m.group(1) == match.group(1)), "")
        cases.append(TestCase(f"{match.group(1)}::{COLLECTION}", "error", message.strip()[-MESSAGE_LIMIT:]))
    return cases, running


def _unittest_outcome(rest: str) -> str | None:
    """The outcome of a test whose header line holds none: its subtests' failures, or a line of its own."""
    subtests = {m.group(1) for m in _UNITTEST_SUBTEST.finditer(rest)}
    if subtests:
        return "ERROR" if "ERROR" in subtests else "FAIL"
    alone = _UNITTEST_ALONE.search(rest)
    return alone.group(1) if alone else None


def _unittest_name(method: str, where: str) -> str:
    """'module.Class::test' whether Python printed 'module.Class' or 'module.Class.test'."""
    return f"{where.removesuffix('.' + method)}::{method}"


_CARGO_TARGET = re.compile(r"^\s*(?:Running (?:unittests )?(\S+)|Doc-tests (\S+))", re.M)
_CARGO_LINE = re.compile(r"^test (.+?) \.\.\. (ok|FAILED|ignored\b.*)$", re.M)
_CARGO_BLOCK = re.compile(r"^---- (.+?) stdout ----\n(.*?)(?=^---- |^failures:$|^test result:)", re.M | re.S)


def parse_cargo_test(text: str) -> list[TestCase]:
    """Test cases from `cargo test` output; names carry their target (`src/lib.rs::tests::it_adds`)."""
    messages = {m.group(1): m.group(2).strip() for m in _CARGO_BLOCK.finditer(text)}
    marks = cargo_targets(text)
    cases = []
    for match in _CARGO_LINE.finditer(text):
        name, word = match.group(1), match.group(2)
        outcome: Outcome = "pass" if word == "ok" else "fail" if word == "FAILED" else "skip"
        cases.append(TestCase(cargo_test_name(marks, match.start(), name), outcome,
                              messages.get(name, "")[-MESSAGE_LIMIT:] if outcome == "fail" else ""))
    return cases


def cargo_targets(text: str) -> list[tuple[int, str]]:
    """Where cargo announces each test target (`Running unittests src/lib.rs (...)`, `Doc-tests x`), in order."""
    return [(m.start(), m.group(1) or f"doc-tests {m.group(2)}") for m in _CARGO_TARGET.finditer(text)]


def cargo_test_name(marks: list[tuple[int, str]], at: int, name: str) -> str:
    """A libtest name printed at `at`, with the target announced last before it (doc-tests keep their own)."""
    index = bisect.bisect_left(marks, (at, "")) - 1
    target = marks[index][1] if index >= 0 else ""
    return f"{target}::{name}" if target and not target.startswith("doc-tests") else name


def libtest_name(name: str) -> str:
    """What libtest calls the test the results name `src/lib.rs::tests::it_adds`: `tests::it_adds`."""
    head, sep, rest = name.partition("::")
    return rest if sep and " " not in head and ("/" in head or head.endswith(".rs")) else name


_CARGO_START = re.compile(r"^test (.+?) \.\.\. (?!ok$|FAILED$|ignored\b)(.*)$", re.M)


def cargo_running(text: str) -> str | None:
    """The libtest test whose `test x ... ` line has no outcome (tests run one at a time print it first)."""
    started = list(_CARGO_START.finditer(text))
    if not started:
        return None
    last = started[-1]
    if any(m.group(1) == last.group(1) for m in _CARGO_LINE.finditer(text, last.end())):
        return None
    return cargo_test_name(cargo_targets(text), last.start(), last.group(1))


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


def name_go_tests_by_file(cases: list[TestCase], repo_dir: Path, overlay: Overlay | None = None) -> list[TestCase]:
    """`example.com/m/pkg::TestX/sub` -> `pkg/x_test.go::TestX/sub`: the file that defines the test, as other
    runners name theirs (so a reproduction test's file finds its tests), in the tree the run saw (`repo_dir` with
    the run's `overlay` over it: a test file the judge adds for the run only is named too). Tests not found keep
    their name."""
    overlay = overlay or {}
    module = re.search(r"^module\s+(\S+)", _text(repo_dir, "go.mod", overlay), re.M)
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
            for path, text in _go_test_files(repo_dir, folder, overlay).items():
                for func in re.findall(r"^func\s+(Test\w*)\s*\(", text, re.M):
                    defined.setdefault((folder, func), path)
        where = defined.get((folder, test.split("/", 1)[0]))
        renamed.append(replace(case, name=f"{where}::{test}") if where else case)
    return renamed


JS_SUFFIXES = suffixes_of("javascript", "typescript", "tsx")
MAX_SCANNED_FILES = 2000


def name_tap_tests_by_file(cases: list[TestCase], repo_dir: Path, overlay: Overlay | None = None) -> list[TestCase]:
    """`median even` -> `test/stats.test.js::median even` where TAP did not say the file (Node 18 and 20 do not
    for passing tests): the one JS/TS test file of the tree the run saw (`repo_dir` with the run's `overlay` over
    it) whose text holds the test's name as a string literal."""
    if all("::" in c.name for c in cases):
        return cases
    texts = _seen(repo_dir, _js_test_files(repo_dir), overlay or {},
                  lambda rel: is_language(rel, "javascript", "typescript", "tsx") and is_test_path(rel))
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


def _go_test_files(repo_dir: Path, folder: str, overlay: Overlay) -> dict[str, str]:
    """The Go test files of the package in `folder` as the run saw them (path: text)."""
    beside = sorted(p for p in (repo_dir / folder).glob("*.go") if is_test_name(p.name))
    return _seen(repo_dir, beside, overlay, lambda rel: posixpath.dirname(rel) == folder and rel.endswith(".go")
                 and is_test_name(rel))


def _seen(repo_dir: Path, found: Iterable[Path], overlay: Overlay, wanted: Callable[[str], bool]) -> dict[str, str]:
    """The files a run saw, by repository path, in path order: `found` (files of `repo_dir`) less those the run's
    `overlay` removes or replaces, and the overlay's files that `wanted` picks."""
    texts = {rel: _read(path) for path in found if (rel := path.relative_to(repo_dir).as_posix()) not in overlay}
    texts |= {rel: data.decode("utf-8", "replace") for rel, data in overlay.items() if data is not None and wanted(rel)}
    return dict(sorted(texts.items()))


def _text(repo_dir: Path, rel: str, overlay: Overlay) -> str:
    """The text of the file `rel` as the run saw it ('' where it was not there)."""
    if rel not in overlay:
        return _read(repo_dir / rel)
    data = overlay[rel]
    return data.decode("utf-8", "replace") if data is not None else ""


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


def parse_pytest_listing(text: str) -> tuple[str, ...] | None:
    """The tests a run listed in its progress log as pytest collected them (`ENSEMBLE_LISTED`); None where it listed
    none, or the listing never ended (a kill while it was written)."""
    listed = [line.split("\t", 1)[1] for line in text.splitlines() if line.startswith("listed\t")]
    if "" not in listed:
        return None
    return tuple(dict.fromkeys(name for name in listed if name))


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


def read_tests(files: Mapping[str, bytes], stdout: str, stderr: str, repo_dir: Path | None = None,
               reports: Mapping[str, bytes] | None = None, overlay: Overlay | None = None
               ) -> tuple[str, list[TestCase]]:
    """The runner whose report gave the per-test results, and the results.

    `files` are the run's own result files by name (scripts.RUN_FILES): what the runners were told to
    write. When pytest ran (its progress log is there), only pytest's report counts: its JUnit file, else
    (a run killed before pytest wrote it) the progress log. Then the other JUnit writers told where to
    write (jest-junit, CTest); then `reports`, the folders of runners that cannot be told (Surefire,
    Gradle); then the output (`go test -json`, cargo, TAP, `unittest -v`). `repo_dir` (with the run's
    `overlay` over it) lets Go and TAP tests be named by the file that defines them. Two tests reported
    under one identity by one source are kept apart (`name (duplicate 2)`)."""
    cases: dict[str, TestCase] = {}
    if PYTEST_JUNIT in files or PYTEST_PROGRESS in files:
        if PYTEST_JUNIT in files:
            _distinct(parse_junit_xml(files[PYTEST_JUNIT]), cases)
        else:
            _distinct(parse_pytest_progress(files[PYTEST_PROGRESS].decode("utf-8", "replace"))[0], cases)
        return "pytest", list(cases.values())
    for name in (JEST_JUNIT, CTEST_JUNIT):
        if name in files:
            _distinct(parse_junit_xml(files[name]), cases)
    for name, data in sorted((reports or {}).items()) if not cases else ():
        if name.endswith(".xml"):
            _distinct(parse_junit_xml(data), cases)
    if cases:
        return "junit", list(cases.values())
    return _output_tests(stdout, stderr, repo_dir, overlay)


def _output_tests(stdout: str, stderr: str, repo_dir: Path | None, overlay: Overlay | None
                  ) -> tuple[str, list[TestCase]]:
    """Per-test results from what the runner printed: the first format that gives any."""
    cases: dict[str, TestCase] = {}
    if found := parse_go_test_json(stdout):
        cases.update((c.name, c) for c in (name_go_tests_by_file(found, repo_dir, overlay) if repo_dir else found))
        return "go", list(cases.values())
    if found := parse_cargo_test(stdout):
        _distinct(found, cases)
        return "cargo", list(cases.values())
    if found := parse_tap(stdout):
        cases.update((c.name, c) for c in (name_tap_tests_by_file(found, repo_dir, overlay) if repo_dir else found))
        return "tap", list(cases.values())
    if found := parse_unittest_verbose(stderr + "\n" + stdout):
        _distinct(found, cases)
        return "unittest", list(cases.values())
    return "", []


def collect_tests(files: Mapping[str, bytes], stdout: str, stderr: str, repo_dir: Path | None = None,
                  reports: Mapping[str, bytes] | None = None) -> list[TestCase]:
    """Every test case `read_tests` finds."""
    return read_tests(files, stdout, stderr, repo_dir, reports)[1]


def running_test(runner: str, files: Mapping[str, bytes], stdout: str, stderr: str,
                 repo_dir: Path | None = None, overlay: Overlay | None = None) -> tuple[str, str | None]:
    """The test that was running when the command ended, named as `runner`'s results name it, and the runner
    that named it: with no results (a kill in the first test), whichever runner's output names one."""
    for kind in [runner] if runner else ["pytest", "go", "cargo", "unittest"]:
        if name := _running(kind, files, stdout, stderr, repo_dir, overlay):
            return kind, name
    return runner, None


def _running(runner: str, files: Mapping[str, bytes], stdout: str, stderr: str, repo_dir: Path | None,
             overlay: Overlay | None) -> str | None:
    if runner == "pytest" and PYTEST_PROGRESS in files:
        return parse_pytest_progress(files[PYTEST_PROGRESS].decode("utf-8", "replace"))[1]
    if runner == "go" and (name := go_running(stdout)):
        renamed = name_go_tests_by_file([TestCase(name, "error")], repo_dir, overlay) if repo_dir else []
        return renamed[0].name if renamed else name
    if runner == "cargo":
        return cargo_running(stdout)
    if runner == "unittest":
        return unittest_running(stderr + "\n" + stdout)
    return None
