"""Per-test results from what runners write: JUnit XML (pytest, jest-junit, Surefire), `go test -json`,
and `unittest -v` output. Untrusted input: XML with a DOCTYPE is refused (no entity expansion).
"""

from __future__ import annotations

import json
import logging
import re
import xml.etree.ElementTree as ET

from sandbox.model import Outcome, TestCase

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
    name = case.get("name", "?")
    where = case.get("file") or case.get("classname")
    full = f"{where}::{name}" if where else name
    outcome: Outcome = "pass"
    message = ""
    for tag, kind in (("failure", "fail"), ("error", "error"), ("skipped", "skip")):
        node = case.find(tag)
        if node is not None:
            outcome = kind  # type: ignore[assignment]
            text = (node.text or "").strip()
            header = node.get("message", "")
            message = f"{header}\n{text}".strip() if header and header not in text else text or header
            break
    try:
        duration = float(case.get("time", ""))
    except ValueError:
        duration = None
    return TestCase(full, outcome, message[-MESSAGE_LIMIT:], duration)


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
    return cases


def _unittest_name(method: str, where: str) -> str:
    """'module.Class::test' whether Python printed 'module.Class' or 'module.Class.test'."""
    return f"{where.removesuffix('.' + method)}::{method}"


def collect_tests(files: dict[str, bytes], stdout: str, stderr: str) -> list[TestCase]:
    """Every test case found in result files, else in the output; later duplicates win."""
    cases: dict[str, TestCase] = {}
    for name in sorted(files):
        if name.endswith(".xml"):
            cases.update((c.name, c) for c in parse_junit_xml(files[name]))
    if not cases:
        cases.update((c.name, c) for c in parse_go_test_json(stdout))
    if not cases:
        cases.update((c.name, c) for c in parse_unittest_verbose(stderr + "\n" + stdout))
    return list(cases.values())
