"""Failing CI logs, cut to the part that matters, and a signature that says whether a failure repeats.

Pure functions. Job logs from the Actions API prefix each line with a timestamp and may carry
ANSI colours; both are removed before anything else.
"""

from __future__ import annotations

import hashlib
import re

_TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ?")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_FAILURE = re.compile(r"(##\[error\]|\bFAILED\b|\bERROR\b|Traceback \(most recent call last\)|^E\s{2,}|"
                      r"\b\w*Error\b:|\berror:|\bfailed\b|AssertionError|exit code [1-9])", re.IGNORECASE)
_KEY = re.compile(r"(##\[error\].*|^FAILED .*|^E\s{2,}\S.*|^\w*Error: .*|^error: .*)")
_VOLATILE = re.compile(r"(0x[0-9a-f]+|\b[0-9a-f]{7,40}\b|\d+(\.\d+)?s\b|\bline \d+|:\d+\b|\d{2,})", re.IGNORECASE)


def clean(log: str) -> list[str]:
    """The log's lines without timestamps and colours."""
    return [_ANSI.sub("", _TIMESTAMP.sub("", line)).rstrip() for line in log.splitlines()]


def cut_failure(log: str, context: int = 6, max_lines: int = 120) -> str:
    """The failing part of a log: from a little before the first failure line to a little after the last."""
    lines = clean(log)
    hits = [i for i, line in enumerate(lines) if _FAILURE.search(line)]
    if not hits:
        return "\n".join(lines[-max_lines // 2:])
    start, end = max(0, hits[0] - context), min(len(lines), hits[-1] + context + 1)
    window = lines[start:end]
    if len(window) > max_lines:  # keep the start of the failure and its end (the summary)
        half = max_lines // 2
        window = window[:half] + [f"... ({len(window) - max_lines} lines cut) ..."] + window[-half:]
    return "\n".join(window)


def failure_signature(excerpt: str) -> str:
    """A short hash of the failure's key lines with volatile parts (times, SHAs, line numbers) removed."""
    keys = sorted({_VOLATILE.sub("#", m.group(0)).strip() for line in excerpt.splitlines() if (m := _KEY.search(line))})
    basis = "\n".join(keys) or _VOLATILE.sub("#", excerpt.strip()[-500:])
    return hashlib.sha1(basis.encode()).hexdigest()[:12]


# The lines test runners name a failing test with: pytest's summary, unittest's headers, go test, cargo, jest/vitest
_FAILING_TEST = (re.compile(r"^(?:FAILED|ERROR) (\S+::\S+)"), re.compile(r"^(?:FAIL|ERROR): (\w+ \([\w.]+\))"),
                 re.compile(r"^\s*--- FAIL: (\S+)"), re.compile(r"^test (\S+) \.\.\. FAILED$"),
                 re.compile(r"^\s*[✕×] (.+?)(?: \(\d+ ?m?s\))?$"))
MAX_TESTS = 50


def failing_tests(log: str) -> list[str]:
    """The failing tests a CI log names (pytest, unittest, go test, cargo test, jest and vitest), in order, once
    each, at most MAX_TESTS."""
    found: list[str] = []
    for line in clean(log):
        for pattern in _FAILING_TEST:
            if (match := pattern.match(line)) and match.group(1) not in found:
                found.append(match.group(1))
                break
        if len(found) >= MAX_TESTS:
            break
    return found
