"""A compact failure summary for the models: failing tests, assertion messages, the innermost frames
of the repository's own code, cut to a budget. Plain text in, plain text out.
"""

from __future__ import annotations

import re

import yaml

from common.tokens import chars_for_tokens
from sandbox.model import ExecResult, TestCase
from sandbox.scripts import PLUGINS_DIR

WORKSPACE_PREFIXES = ("/workspace/",)
# frames of code that is not the repository's: libraries, and the judge's own hooks beside its files
FOREIGN = ("site-packages", "dist-packages", "/usr/lib/", "/usr/local/lib/", "/venv/", "node_modules", "<frozen",
           f"{PLUGINS_DIR}/")
_PY_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)(?:\n[ \t]+(?!File ")([^\n]*\S))?')
# the exception a traceback ends with ("AssertionError: 'IIII' != 'IV'", "ValueError: ..."), for runners
# that print no pytest-style `E` lines (unittest, plain scripts); the lines after it carry the diff
_EXCEPTION_LINE = re.compile(r"^(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Failure|Exit)\b.*$", re.M)
EXCEPTION_LINES = 4
_LOC_FRAME = re.compile(r"^([\w./-]+\.\w+):(\d+):(?: in)? ?(.*)$", re.M)
_ASSERT_LINE = re.compile(r"^E\s+(.*)$", re.M)
ENTRY = re.compile(r"^(?:FAILED|ERROR) (.+)$")  # a failing test's entry in a summary: "FAILED <test id>"
_DIFF_HINT = re.compile(r"^\s*\?\s+[-+^ ]*$")  # difflib's guide line under a changed line: `?    ^   +++`
# a JavaScript stack frame, innermost first: `at fn (path:line:col)`, `at path:line:col`, or as Node's TAP
# diagnostics print them, `fn (path:line:col)`
_JS_FRAME = re.compile(r"^\s*(?:at\s+)?(?:(\S.*?)\s+\()?((?:/|\./)?[\w@./-]+\.[cm]?[jt]sx?):(\d+):\d+\)?\s*$", re.M)
# Rust's libtest: "thread 'name' panicked at tests/wrap.rs:15:5:", then the message up to the backtrace note;
# before Rust 1.73 (Debian bookworm's 1.63): "panicked at 'the message', tests/wrap.rs:15:5"
_RUST_PANIC = re.compile(r"panicked at ([^\s:']+):(\d+):\d+:\n((?:(?!note: |stack backtrace:).*(?:\n|$))*)")
_RUST_OLD_PANIC = re.compile(r"panicked at '(.*?)', ([^\s:']+):(\d+):\d+$", re.M | re.S)
# Go: what `t.Errorf` logged ("    tail_test.go:10: got [1 2], want [2 3]"), a panic's message, and the
# goroutine trace's frames ("\t/workspace/tail.go:12 +0x1d", innermost first)
_GO_LOG = re.compile(r"^[ \t]+([\w./-]+\.go):(\d+): (.+)$", re.M)
_GO_PANIC = re.compile(r"^panic: (.+)$", re.M)
# a memory address at the end of a Python repr: `<shop.cart.Cart object at 0x7f7c54cd9d90>`
_ADDRESS = re.compile(r"(<[^<>\n]*?) at 0x[0-9a-fA-F]{4,}>")
_GO_FRAME = re.compile(r"^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$", re.M)


def summarize_failures(result: ExecResult, max_chars: int = 6000, max_tokens: int | None = None) -> str:
    """What went wrong in `result`, within `max_chars` (or about `max_tokens` tokens)."""
    budget = chars_for_tokens(max_tokens) if max_tokens is not None else max_chars
    lines = [_headline(result)]
    failures = result.failures
    if not failures and not result.ok:
        tail = _strip_workspace((result.stderr + "\n" + result.stdout).strip())
        room = max(0, budget - len(lines[0]) - 20)
        lines.append("last output:\n" + (tail[-room:] if room else ""))
    for index, case in enumerate(failures):
        entry = _entry(case)
        if sum(len(line) + 1 for line in lines) + len(entry) > budget - 40:
            lines.append(f"... and {len(failures) - index} more failing tests")
            break
        lines.append(entry)
    return "\n".join(lines)[:budget]


def failing_tests(summary: str) -> list[str]:
    """The ids of the tests a summary (`summarize_failures`) names as failing, in its order."""
    return [m.group(1).strip() for m in map(ENTRY.match, summary.splitlines()) if m]


def _headline(result: ExecResult) -> str:
    counts = {k: sum(t.outcome == k for t in result.tests) for k in ("fail", "error", "pass", "skip")}
    names = {"fail": "failed", "error": "errors", "pass": "passed", "skip": "skipped"}
    parts = [f"{n} {names[k]}" for k, n in counts.items() if n] if result.tests else ["no per-test results"]
    status = f"exit code {result.exit_code}"
    if result.timed_out:
        status = f"TIMED OUT after {result.duration_s:.0f}s (killed)"
    elif result.oom_killed:
        status = "OUT OF MEMORY (killed)"
    return f"`{result.command}`: {', '.join(parts)}; {status}"


def _entry(case: TestCase) -> str:
    label = "ERROR" if case.outcome == "error" else "FAILED"
    text = _strip_workspace(case.message)
    asserts = (_pytest_asserts(text) or _node_error(text) or _rust_panic(text) or _go_failure(text)
               or _exception(text))
    if not asserts:
        meaningful = [line for line in text.splitlines() if line.strip()]
        asserts = [meaningful[-1].strip()] if meaningful else []
    frames = _own_frames(text)[-3:]
    body = [f"{label} {_strip_workspace(case.name)}"]
    body += [f"  {line[:300]}" for line in asserts]
    body += [f"  at {frame}" for frame in frames]
    return "\n".join(body)


def _pytest_asserts(text: str) -> list[str]:
    """pytest's `E` lines of a failure, at most 6, without its full diff of two containers (the lines above it say
    where they differ and show both, cut short) and without difflib's `?` lines that mark where two lines differ.
    The model reads them in every request: the full diff of two lists of ten numbers was 105 tokens of the local
    model's 1,390 (bench/peers.py, paginate_off_by_one)."""
    lines = [line.rstrip() for line in _ASSERT_LINE.findall(text)
             if not line.startswith("Use -v to get ") and not _DIFF_HINT.match(line)]
    full = next((i for i, line in enumerate(lines) if line.strip() == "Full diff:"), None)
    return (lines[:full] if full else lines)[:6]


def _exception(text: str) -> list[str]:
    """The last exception line of a Python traceback and the few lines after it (a diff of the values)."""
    found = list(_EXCEPTION_LINE.finditer(text))
    if not found:
        return []
    after = [line for line in text[found[-1].end():].splitlines() if line.strip()][:EXCEPTION_LINES - 1]
    return [found[-1].group(0).strip(), *(line.rstrip() for line in after)]


class _NoAliasLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML has no type stubs here
    """YAML's safe loader, refusing aliases: the text is a test's untrusted output, and a few lines of nested
    aliases would expand to billions of values."""

    def compose_node(self, parent: yaml.Node | None, index: object) -> yaml.Node | None:
        if self.check_event(yaml.AliasEvent):
            raise yaml.YAMLError("an alias in untrusted YAML")
        return super().compose_node(parent, index)


def _node_error(text: str) -> list[str]:
    """A failure in Node's TAP diagnostics (a YAML block): the error's message, then the expected and actual values."""
    if "\nerror: " not in f"\n{text}":
        return []
    try:
        found = yaml.load(text, Loader=_NoAliasLoader)
    except yaml.YAMLError:
        return []
    if not isinstance(found, dict) or not isinstance(found.get("error"), str):
        return []
    lines = [line.rstrip() for line in found["error"].splitlines() if line.strip()][:EXCEPTION_LINES]
    if not lines:
        return []
    if isinstance(found.get("name"), str):
        lines[0] = f"{found['name']}: {lines[0]}"
    return lines + [f"{key}: {found[key]!r}"[:300] for key in ("expected", "actual") if key in found]


def _rust_panic(text: str) -> list[str]:
    """A Rust test's panic: its message ("assertion `left == right` failed", the left and right values)."""
    found, old = _RUST_PANIC.search(text), _RUST_OLD_PANIC.search(text)
    message = found.group(3) if found else old.group(1) if old else ""
    return [line.rstrip() for line in message.splitlines() if line.strip()][:EXCEPTION_LINES]


def _go_failure(text: str) -> list[str]:
    """A Go test's failure: what it logged with t.Error/t.Fatal, else the message of its panic."""
    logged = [f"{m.group(1)}:{m.group(2)}: {m.group(3).rstrip()}" for m in _GO_LOG.finditer(text)]
    panic = _GO_PANIC.search(text)
    return (logged or ([f"panic: {panic.group(1).rstrip()}"] if panic else []))[:EXCEPTION_LINES]


def _own_frames(text: str) -> list[str]:
    """The frames in the repository's own code, innermost last, each with its source line where printed."""
    frames = [(m.start(), f"{m.group(1)}:{m.group(2)} in {m.group(3)}" + (f": {m.group(4).strip()}" if m.group(4)
               else "")) for m in _PY_FRAME.finditer(text)]
    frames += [(m.start(), f"{m.group(1)}:{m.group(2)} {m.group(3)}".rstrip()) for m in _LOC_FRAME.finditer(text)]
    frames += [(m.start(), f"{m.group(1)}:{m.group(2)}") for m in _RUST_PANIC.finditer(text)]
    frames += [(m.start(), f"{m.group(2)}:{m.group(3)}") for m in _RUST_OLD_PANIC.finditer(text)]
    # JavaScript prints the innermost frame first: its frames go in reverse, so the innermost ends up last
    frames += [(-m.start(), f"{m.group(2)}:{m.group(3)}" + (f" in {m.group(1)}" if m.group(1) else ""))
               for m in _JS_FRAME.finditer(text)]
    frames += [(-m.start(), f"{m.group(1)}:{m.group(2)}") for m in _GO_FRAME.finditer(text)]
    own = [frame for _, frame in sorted(frames) if not any(f in frame for f in FOREIGN)]
    return [f for f in own if not f.startswith(("/", "node:")) or f.startswith(WORKSPACE_PREFIXES)]


def _strip_workspace(text: str) -> str:
    """`text` without the sandbox's workspace prefix, and with the memory addresses in Python's reprs ("<Cart
    object at 0x7f...>") masked: they change from run to run, and a prompt that changes with them gets another
    reply from the same model at temperature 0 (and misses the reply cache)."""
    for prefix in WORKSPACE_PREFIXES:
        text = text.replace(prefix, "")
    return _ADDRESS.sub(r"\1 at 0x…>", text)
