"""No green by cheating: find tests a candidate deleted, skipped or weakened, and CI it edited.

`find_test_tampering` compares each changed file at the base with the file after the change.
Python test files are read with `ast`; Go, Rust, JS/TS, Java/Kotlin (and Python that does not
parse) with regexes that find each test's header and count its skip markers and assertions. New
tests and added assertions are always fine; a kind the task clearly asks for is allowed
(`task_allows`). Pure functions over text: no I/O.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from indexer.files import is_test_path

__all__ = ["Tampering", "find_test_tampering", "is_ci_path", "is_test_path", "task_allows"]

ADVICE = {
    "deleted_test_file": "fix the code, not the tests",
    "deleted_test": "fix the code, not the test",
    "skipped_test": "make the test pass instead of skipping it",
    "weakened_test": "keep the assertions and fix the code",
    "ci_config": "leave CI configuration alone unless the task asks for it",
}
CI_PATH = re.compile(r"^(?:\.github/(?:workflows|actions)/|\.circleci/|\.buildkite/|\.gitlab-ci\.ya?ml$"
                     r"|\.travis\.ya?ml$|azure-pipelines\.ya?ml$|buildkite\.ya?ml$)|(?:^|/)Jenkinsfile$")
TEST_CONFIGS = {"conftest.py", "pytest.ini", "setup.cfg", "pyproject.toml", "tox.ini"}
CONFIG_SKIP = re.compile(r"collect_ignore|--deselect\b|--ignore(?:-glob)?\b|-k\s*[\"']?\s*not\b")
SKIP_NAMES = {"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure", "skipTest", "SkipTest"}
CHECK_CALLS = {"raises", "warns", "fail"}


@dataclass(frozen=True)
class Tampering:
    """One way a candidate made tests pass without fixing the code."""

    path: str
    kind: str
    detail: str

    @property
    def message(self) -> str:
        """What happened and what to do instead, for the coder and the user."""
        return f"{self.path}: {self.detail}; {ADVICE.get(self.kind, 'undo this change')}"


@dataclass(frozen=True)
class _Facts:
    skips: int
    strong_asserts: int


@dataclass(frozen=True)
class _FileTests:
    tests: dict[str, _Facts] = field(default_factory=dict)
    outside_skips: int = 0


@dataclass(frozen=True)
class _Spec:
    header: re.Pattern[str]
    skip: re.Pattern[str]
    asserts: re.Pattern[str]
    trivial: re.Pattern[str]
    skip_in_header: bool = True
    needs: re.Pattern[str] | None = None  # the header's attributes must match (`#[test]`, `@Test`)


_M = re.MULTILINE
GO = _Spec(re.compile(r"^func\s+(?P<name>Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)", _M),
           re.compile(r"\.Skip(?:Now|f)?\("),
           re.compile(r"\bt\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\(|\b(?:assert|require)\.\w+\("),
           re.compile(r"\b(?:assert|require)\.True\(\s*\w+\s*,\s*true\s*\)"), skip_in_header=False)
RUST = _Spec(re.compile(r"(?P<attrs>(?:#\[[^\]]*\]\s*)+)(?:pub\s+)?(?:async\s+)?fn\s+(?P<name>\w+)"),
             re.compile(r"#\[ignore\b"), re.compile(r"\b(?:debug_)?assert(?:_eq|_ne|_matches)?!\s*\("),
             re.compile(r"\bassert!\s*\(\s*true\s*\)|\bassert_eq!\s*\(\s*(\w+)\s*,\s*\1\s*\)"),
             needs=re.compile(r"#\[(?:\w+::)*test\b"))
JS = _Spec(re.compile(r"(?<![\w.$])(?:it|test|xit|xtest|fit)(?:\.(?:skip|only|todo|concurrent))?\s*\(\s*"
                      r"(?P<q>['\"`])(?P<name>.*?)(?P=q)"),
           # jest/mocha `it.skip`, `xit`; node:test's `{ skip: true }`, `{ todo: 'why' }` options and `t.skip()`
           re.compile(r"(?<![\w.$])(?:x(?:it|test|describe)\b|(?:it|test|describe)\.(?:skip|todo)\b)"
                      r"|\b(?:skip|todo)\s*:\s*(?!false\b|0\b|null\b|undefined\b)[^\s,}]"
                      r"|\b(?:t|ctx|context)\.(?:skip|todo)\s*\("),
           re.compile(r"\bexpect\s*\(|\bassert(?:\.\w+)?\s*\(|\.should\b"),
           re.compile(r"\bexpect\(\s*(?:true|1)\s*\)\.(?:toBe|toEqual|toBeTruthy)\(\s*(?:true|1)?\s*\)"
                      r"|\bassert(?:\.ok)?\(\s*true\s*\)"), skip_in_header=False)
JAVA = _Spec(re.compile(r"(?P<attrs>(?:@[\w.]+(?:\([^)]*\))?\s+)+)(?:(?:public|protected|private|static|final|"
                        r"suspend|internal)\s+)*(?:void\s+|fun\s+)(?P<name>\w+)\s*\("),
             re.compile(r"@(?:Disabled|Ignore)\b"), re.compile(r"\bassert\w*\s*\(|\bverify\s*\("),
             re.compile(r"\bassert(?:True|That)?\s*\(\s*true\s*\)"),
             needs=re.compile(r"@(?:\w+\.)*(?:Test|ParameterizedTest|RepeatedTest)\b"))
PYTHON = _Spec(re.compile(r"(?P<attrs>(?:^[ \t]*@.*\n)*)^[ \t]*(?:async\s+)?def\s+(?P<name>test\w*)", _M),
               re.compile(r"\b(?:skip\w*|xfail|SkipTest|expectedFailure)\b"),
               re.compile(r"^\s*assert\b|\.assert\w*\(|\bassert_\w+\(|\bpytest\.raises\(", _M),
               re.compile(r"^\s*assert\s+(?:True|1)\s*$|assertTrue\(\s*True\s*\)", _M), skip_in_header=False)
SPECS = {".go": GO, ".rs": RUST, ".js": JS, ".jsx": JS, ".mjs": JS, ".cjs": JS, ".ts": JS, ".tsx": JS,
         ".java": JAVA, ".kt": JAVA, ".py": PYTHON}


def is_ci_path(path: str) -> bool:
    """True for CI configuration: GitHub Actions workflows and actions, GitLab, CircleCI, Jenkins, ..."""
    return bool(CI_PATH.search(path))


def find_test_tampering(before: Mapping[str, str | None], after: Mapping[str, str | None],
                        task_text: str) -> list[Tampering]:
    """Deleted, skipped or weakened tests and CI edits in a change, minus what the task asks for."""
    found = [Tampering(p, "ci_config", _ci_detail(before.get(p), after.get(p)))
             for p in sorted(set(before) | set(after)) if is_ci_path(p) and before.get(p) != after.get(p)]
    found += _test_tampering(before, after)
    found += _config_skips(before, after)
    return [t for t in found if not task_allows(task_text, t.kind)]


def _ci_detail(old: str | None, new: str | None) -> str:
    change = "created" if old is None else "deleted" if new is None else "edited"
    return f"the CI configuration was {change}"


def _test_tampering(before: Mapping[str, str | None], after: Mapping[str, str | None]) -> list[Tampering]:
    old = {p: _file_tests(p, t) for p, t in before.items() if t is not None and _analysed(p)}
    new = {p: _file_tests(p, t) for p, t in after.items() if t is not None and _analysed(p)}
    found: list[Tampering] = []
    for path in sorted(set(old) | set(new)):
        if path not in after:
            continue
        base = old.get(path) or (_FileTests() if posixpath.basename(path) == "conftest.py" else None)
        if base is None:
            continue  # a new test file: always fine
        kept = [n for n in base.tests if not _moved(n, path, new)]
        if path not in new:
            if kept:
                names = ", ".join(kept[:5]) + (", ..." if len(kept) > 5 else "")
                found.append(Tampering(path, "deleted_test_file", f"the test file was deleted with {names}"))
            continue
        found += _compare(path, base, new[path], new)
    return found


def _compare(path: str, base: _FileTests, now: _FileTests, new: Mapping[str, _FileTests]) -> list[Tampering]:
    found = []
    for name, was in base.tests.items():
        facts = now.tests.get(name)
        if facts is None:
            if not _moved(name, path, new):
                found.append(Tampering(path, "deleted_test", f"the test {name} was deleted or renamed"))
        elif facts.skips > was.skips:
            found.append(Tampering(path, "skipped_test", f"a skip was added to the test {name}"))
        elif facts.strong_asserts < was.strong_asserts:
            found.append(Tampering(path, "weakened_test", f"the test {name} lost assertions "
                                   f"({was.strong_asserts} real ones before, {facts.strong_asserts} now)"))
    if now.outside_skips > base.outside_skips:
        found.append(Tampering(path, "skipped_test", "a skip marker that covers tests in this file was added"))
    return found


def _moved(name: str, path: str, new: Mapping[str, _FileTests]) -> bool:
    """True when a test by this name exists in another changed file after the change."""
    bare = name.rsplit(".", 1)[-1]
    return any(other != path and (name in ft.tests or any(n.rsplit(".", 1)[-1] == bare for n in ft.tests))
               for other, ft in new.items())


def _config_skips(before: Mapping[str, str | None], after: Mapping[str, str | None]) -> list[Tampering]:
    return [Tampering(path, "skipped_test", "tests were excluded from collection "
                      "(collect_ignore, --ignore, --deselect or -k not)")
            for path, text in after.items()
            if posixpath.basename(path) in TEST_CONFIGS and text is not None
            and _count(CONFIG_SKIP, text) > _count(CONFIG_SKIP, before.get(path) or "")]


def _analysed(path: str) -> bool:
    suffix = posixpath.splitext(path)[1]
    return suffix in SPECS and (is_test_path(path) or suffix == ".rs")


def _file_tests(path: str, text: str) -> _FileTests:
    """The tests of one file with their skip markers and real assertions; never raises."""
    if path.endswith(".py"):
        parsed = _python_tests(text)
        if parsed is not None:
            return parsed
    return _regex_tests(text, SPECS[posixpath.splitext(path)[1]])


def _regex_tests(text: str, spec: _Spec) -> _FileTests:
    headers = [m for m in spec.header.finditer(text)
               if spec.needs is None or spec.needs.search(m.groupdict().get("attrs") or "")]
    tests: dict[str, _Facts] = {}
    for i, m in enumerate(headers):
        body = text[m.start():headers[i + 1].start() if i + 1 < len(headers) else len(text)]
        skips = _count(spec.skip, m.group(0) if spec.skip_in_header else body)
        strong = _count(spec.asserts, body) - _count(spec.trivial, body)
        name, n = m["name"], 2
        while name in tests:
            name, n = f"{m['name']} #{n}", n + 1
        tests[name] = _Facts(skips, strong)
    return _FileTests(tests, _count(spec.skip, text) - sum(f.skips for f in tests.values()))


def _count(pattern: re.Pattern[str], text: str) -> int:
    return sum(1 for _ in pattern.finditer(text))


def _python_tests(text: str) -> _FileTests | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    tests = {name: _Facts(_python_skips(node), _strong_asserts(node)) for name, node in _test_nodes(tree.body, "")}
    return _FileTests(tests, _python_skips(tree) - sum(f.skips for f in tests.values()))


def _test_nodes(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
    """Test functions, and test methods of `Test*` and `*TestCase` classes, with dotted names."""
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            yield f"{prefix}{node.name}", node
        elif isinstance(node, ast.ClassDef) and (node.name.startswith("Test") or any(
                _dotted(b).endswith("TestCase") for b in node.bases)):
            yield from _test_nodes(node.body, f"{prefix}{node.name}.")


def _dotted(node: ast.AST) -> str:
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def _python_skips(node: ast.AST) -> int:
    return sum(1 for n in ast.walk(node) if (isinstance(n, ast.Name) and n.id in SKIP_NAMES)
               or (isinstance(n, ast.Attribute) and n.attr in SKIP_NAMES))


def _strong_asserts(node: ast.AST) -> int:
    """Assert statements and assert*/raises calls, not counting trivially true ones."""
    count = 0
    for n in ast.walk(node):
        if isinstance(n, ast.Assert):
            count += not _trivial_test(n.test)
        elif isinstance(n, ast.Call):
            name = _dotted(n.func).rsplit(".", 1)[-1]
            if name.startswith("assert") or name in CHECK_CALLS:
                count += not _trivial_call(name, n.args)
    return count


def _trivial_test(test: ast.expr) -> bool:
    if isinstance(test, ast.Constant):
        return bool(test.value)
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq | ast.Is)
            and ast.dump(test.left) == ast.dump(test.comparators[0]))


def _trivial_call(name: str, args: list[ast.expr]) -> bool:
    if name in {"assertTrue", "assert_"} and args:
        return isinstance(args[0], ast.Constant) and bool(args[0].value)
    if name == "assertFalse" and args:
        return isinstance(args[0], ast.Constant) and not args[0].value
    if name in {"assertEqual", "assertEquals", "assertIs"} and len(args) >= 2:
        return ast.dump(args[0]) == ast.dump(args[1])
    return False


_FILL = r"(?:(?!(?:in|from|inside|within|of|to|on|at|for|into|and|but|then|so)\b)[\w'-]+\s+){0,4}?"
_TEST = r"(?:\btest(?:s|_[\w.]*)?\b(?!-)|\b\w+_test\b|\b[\w-]+\.(?:test|spec)\.\w+)"
_CI = (r"(?:ci|continuous integration|github actions?|github workflows?|gitlab[- ]ci|circleci|circle ci|jenkins"
       r"|travis(?: ci)?|azure pipelines?|buildkite)")
ALLOW = {
    "deleted_test": re.compile(rf"\b(?:remove|delete|drop|get rid of)\s+{_FILL}{_TEST}"
                               rf"|\b(?:remove|delete|drop)\b[^.\n]{{0,60}}\band\s+(?:its|their|the\s+"
                               rf"(?:corresponding|related|matching))\s+{_TEST}", re.I),
    "skipped_test": re.compile(rf"\b(?:skip|xfail|disable|ignore|deselect|quarantine)\s+{_FILL}{_TEST}"
                               rf"|\bmark\s+{_FILL}{_TEST}\s+as\s+(?:skip|skipped|xfail|flaky|ignored)", re.I),
    "weakened_test": re.compile(rf"\b(?:remove|delete|drop|relax|loosen|weaken)\s+{_FILL}(?:assert\w*|assertions?"
                                rf"|expectations?)\b|\b(?:relax|loosen|weaken)\s+{_FILL}{_TEST}", re.I),
    "ci_config": re.compile(rf"(?:\.github/workflows|\.github/actions|\.gitlab-ci\.yml|\.circleci|Jenkinsfile"
                            rf"|\.travis\.yml|azure-pipelines\.yml|\.buildkite)|\b(?:update|fix|change|edit|modify"
                            rf"|add|remove|bump|configure|set up|create|migrate|upgrade|adjust|rewrite|pin)\s+"
                            rf"{_FILL}{_CI}\s+(?:workflows?|config\w*|pipelines?|jobs?|files?|yaml|yml|setup"
                            rf"|matrix|steps?)\b", re.I),
}
ALLOW["deleted_test_file"] = ALLOW["deleted_test"]
NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bwithout|\bavoid|\bno need to)\W+(?:\w+\W+){0,2}$", re.I)


def task_allows(task_text: str, kind: str) -> bool:
    """True only when the task clearly asks for this kind of change ("remove the obsolete test")."""
    pattern = ALLOW.get(kind)
    if pattern is None:
        return False
    return any(not NEGATED.search(task_text[max(0, m.start() - 30):m.start()])
               for m in pattern.finditer(task_text))
