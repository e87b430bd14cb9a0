"""No green by cheating: edits to the tests and to what runs them are refused, unless the task asks for them.

The judge runs every candidate with the base's test files and harness (bot/ensemble/judge/files.py), so an
edited test cannot win; this module refuses such edits before they reach a commit, names what they
did, and lets the round undo them, so the next round starts clean. Refused, unless the task names the
file or the test and an action on it (`task_names_change`):
- any change to an existing test file (deleted, skipped, weakened, an expected value changed, moved
  away into a new file), and to a test defined inside a source file (Rust's `#[cfg(test)]` modules);
- any change to a harness file's test settings (`conftest.py`, pytest/tox config, package.json
  scripts, a Makefile's test target, Surefire settings, `Cargo.toml`'s test targets) and a new
  harness file (common/testfiles.py says which files those are), but a new `conftest.py` that only adds
  fixtures and helpers for the new tests: the judge runs it with them alone, and it is refused only where it
  would reach the base's tests once merged (an autouse fixture, or a fixture named like one they request, in
  their folder);
- CI configuration, unless the task asks for CI work;
- the tests' data: an edit to a file in a data folder (`fixtures/`, `testdata/`, ...) or to one of the files
  the base's tests read or name (`data`; common/testfiles.py `is_test_data`);
- the rest of the tests' closure (bot/ensemble/judge/closure.py): an edit to a module only the tests use (an assertion
  helper, a table of expected values: `support`), and a removed doctest example or a changed expected output in a
  file whose examples ran as doctests at the base (`doctests`);
- a new module named like a standard-library module or one the runner imports (`argparse.py`, `json/`,
  `pluggy.py`), which would replace it inside the test process (`shadowed_module`);
- a line of code that reaches into the test runner (bot/ensemble/judge/screen.py): patching `unittest`, pytest
  or `builtins`, writing `sys.modules`, `os._exit`, telling when it runs under test, forging the runner's
  report, unless the task asks for work on the test tooling itself.

Python test files are read with `ast`; Go, Rust, JS/TS and Java/Kotlin with regexes that find each
test's header and body. Pure functions over text: no I/O.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Callable, Collection, Iterator, Mapping
from dataclasses import dataclass, field

from bot.ensemble.judge.closure import NO_CLOSURE, Closure, doctest_changes
from bot.ensemble.judge.screen import runner_hooks
from common.languages import is_language, language_of
from common.testfiles import (
    STDLIB_MODULES,
    conftest_additions,
    conftest_harness,
    conftest_reach,
    declares_only,
    dotted_name,
    harness_part,
    is_ci_path,
    is_harness_path,
    is_new_harness,
    is_test_data,
    is_test_path,
    is_whole_harness,
    pytest_pythonpath,
    runs_apart,
    shadowed_module,
)

__all__ = ["Tampering", "find_test_tampering", "is_ci_path", "is_test_path", "task_allows", "task_names_change",
           "tests_in"]

ADVICE = {
    "deleted_test_file": "fix the code, not the tests",
    "deleted_test": "fix the code, not the test",
    "skipped_test": "make the test pass instead of skipping it",
    "weakened_test": "keep the assertions and fix the code",
    "edited_test": "existing tests are the judge's: it runs the base's version, so change the code, and put any new "
                   "test in a new test file",
    "moved_test": "leave the test in its file and fix the code",
    "edited_harness": "the judge runs the base's test settings; change the code, not how the tests run",
    "new_harness": "a new conftest.py may only import and define fixtures and helpers (no hooks, collection "
                   "settings or code run as it loads); or put them inside the new test file itself",
    "conftest_reach": "ask for the fixture by name instead of autouse, give it a name the existing tests do not use, "
                      "or put the conftest.py in the new tests' own folder",
    "ci_config": "leave CI configuration alone unless the task asks for it",
    "edited_test_data": "the tests' data is the judge's: it runs the base's version, so change the code to give the "
                        "values the tests expect",
    "edited_test_support": "the modules only the tests use (their helpers, their tables of expected values) are the "
                           "judge's: it runs the base's version, so change the code the tests check",
    "edited_doctest": "doctest examples are tests: keep their expected output and change the code to give it "
                      "(a new example is welcome)",
    "shadows_module": "give the module another name: a module named like one of Python's or the test runner's "
                      "replaces it inside the test process",
    "runner_tampering": "leave the test runner alone: change the code so the tests pass as they are",
}
CONFIG_SKIP = re.compile(r"collect_ignore|--deselect\b|--ignore(?:-glob)?\b|-k\s*[\"']?\s*not\b")
SKIP_NAMES = {"skip", "skipif", "xfail", "skipIf", "skipUnless", "expectedFailure", "skipTest", "SkipTest"}
CHECK_CALLS = {"raises", "warns", "fail"}

# the guards' findings about what runs the tests rather than the tests themselves: refusals of kind `runner`
RUNNER_KINDS = frozenset({"ci_config", "edited_harness", "new_harness", "conftest_reach", "shadows_module",
                          "runner_tampering"})

@dataclass(frozen=True)
class Tampering:
    """One way a candidate made tests pass without fixing the code."""

    path: str
    kind: str
    detail: str
    test: str = ""  # the test it concerns, where it is one test
    also: str = ""  # another file the finding concerns (where a moved test went)

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
# Per language (common/languages.py): how its tests are declared, skipped and asserted.
SPECS = {"go": GO, "rust": RUST, "javascript": JS, "typescript": JS, "tsx": JS, "java": JAVA, "kotlin": JAVA,
         "python": PYTHON}


def find_test_tampering(before: Mapping[str, str | None], after: Mapping[str, str | None], task_text: str,
                        data: Collection[str] = (), base: Callable[[str], str | None] | None = None,
                        closure: Closure = NO_CLOSURE, tree: Mapping[str, str] | None = None) -> list[Tampering]:
    """Every edit to tests, test harness, test data or CI in a change (path -> text before and after), and every
    line that reaches into the test runner, less what the task asks for. `before` holds the base's texts (the
    frozen reproduction test's, once it is written); `data` are files the base's tests read or name
    (bot/ensemble/judge/files.py `judged_data`), the judge's like test files, as are `closure`'s support modules and
    doctest examples; `base` reads any file at the base (for pytest's `pythonpath` setting) and `tree` is the
    changed tree (path -> text, read lazily: for the base's tests a new `conftest.py` would reach); without them
    only the change's own files are read."""
    found: list[Tampering] = []
    pythonpath = pytest_pythonpath(lambda name: before[name] if name in before else base(name) if base else None)
    base_tests = _BaseTests(before, tree if tree is not None else {p: t for p, t in after.items() if t is not None})
    for path in sorted(set(before) | set(after)):
        old, new = before.get(path), after.get(path)
        if old == new or old is not None and new is not None and declares_only(path, old, new):
            continue  # unchanged, or test settings that only declare more (a new test's marker)
        if is_ci_path(path):
            if not task_allows(task_text, "ci_config"):
                found.append(Tampering(path, "ci_config", _ci_detail(old, new)))
        elif old is None:
            found += _new_file(path, new, task_text, data, pythonpath, base_tests) if new is not None else []
        elif is_test_path(path) or is_whole_harness(path):
            if new is not None and conftest_additions(path, old, new, base_tests.paths(), base_tests.read):
                continue  # fixtures for new tests added to an existing conftest.py: the new tests run with them
            if not task_names_change(task_text, path, _test_names(path, old)):
                found += _test_file_changes(path, old, new, after)
        elif is_harness_path(path):
            if harness_part(path, old) != harness_part(path, new) and not task_names_change(task_text, path):
                found.append(Tampering(path, "edited_harness", f"the test settings in {path} were changed"))
        elif is_test_data(path, data):
            if not task_names_change(task_text, path, fixes=True):
                found.append(Tampering(path, "edited_test_data", f"the test data in {path} was "
                                       f"{'deleted' if new is None else 'edited'}"))
        elif path in closure.support:
            if not task_names_change(task_text, path, fixes=True):
                found.append(Tampering(path, "edited_test_support", f"{path}, a module only the tests use, was "
                                       f"{'deleted' if new is None else 'edited'}"))
        elif path in closure.doctests and not task_names_change(task_text, path, fixes=True):
            found += [Tampering(path, "edited_doctest", change) for change in doctest_changes(path, old, new)[:3]]
            found += _runner_tampering(path, old, new, task_text) if new is not None else []
        elif new is not None:
            if _analysed(path):  # tests inside a source file (Rust's #[cfg(test)] modules)
                found += [t for t in _test_changes(path, old, new, after)
                          if not task_names_change(task_text, path, [t.test] if t.test else [])]
            found += _runner_tampering(path, old, new, task_text)
    return found


@dataclass(frozen=True)
class _BaseTests:
    """The base's Python test files of a changed tree, read as the base has them: what a new conftest.py may reach."""

    before: Mapping[str, str | None]
    tree: Mapping[str, str]

    def paths(self) -> list[str]:
        """The base's Python test files still in the tree."""
        return [p for p in self.tree if is_test_path(p) and is_language(p, "python")
                and (p not in self.before or self.before[p] is not None)]

    def read(self, path: str) -> str | None:
        """A file's text at the base (as the tree has it where the change left it alone)."""
        return self.before[path] if path in self.before else self.tree.get(path)


def _new_file(path: str, new: str, task_text: str, data: Collection[str], pythonpath: list[str],
              base_tests: _BaseTests) -> list[Tampering]:
    """What a new file does to the test run: decides what runs, replaces a module inside it, stands where the base's
    tests look for their data, or reaches into the runner."""
    if task_names_change(task_text, path):
        return []
    name = posixpath.basename(path)
    if runs_apart(path, new):  # fixtures for the new tests: judged with them alone, kept unless they reach the base's
        reach = conftest_reach(path, new, base_tests.paths(), base_tests.read)
        return [Tampering(path, "conftest_reach", f"the new {path} would change how the existing tests run: {reach}")
                ] if reach else []
    if is_new_harness(path, new) or name.endswith(".pth"):
        why = conftest_harness(new) if name == "conftest.py" else None
        return [Tampering(path, "new_harness", f"a new {name} would decide what the test runner collects or runs"
                          + (f" ({why})" if why else ""))]
    module = shadowed_module(path, pythonpath)
    if module:
        owner = "the standard library's" if module in STDLIB_MODULES else "the test runner's"
        return [Tampering(path, "shadows_module", f"a new {path} would replace {owner} `{module}` inside the test "
                          "process")]
    if path in data and is_test_data(path, data):
        return [Tampering(path, "edited_test_data", f"the base's tests look for {path}; a new one changes their data")]
    return _runner_tampering(path, None, new, task_text) if not is_test_path(path) else []


def _runner_tampering(path: str, old: str | None, new: str, task_text: str) -> list[Tampering]:
    """One finding for the lines of a code file's change that reach into the test runner, unless the task asks
    for this file's change or for work on the test tooling."""
    hooks = runner_hooks(path, old, new)
    if not hooks or task_names_change(task_text, path) or task_allows(task_text, "runner_tampering"):
        return []
    shown = sorted(hooks, key=lambda h: (h.what.startswith("imports"), h.line))[:3]
    detail = "; ".join(f"line {h.line} {h.what} (`{h.code[:80]}`)" for h in shown)
    more = f" (and {len(hooks) - len(shown)} more)" if len(hooks) > len(shown) else ""
    return [Tampering(path, "runner_tampering", f"the change reaches into the test runner: {detail}{more}")]


def _ci_detail(old: str | None, new: str | None) -> str:
    change = "created" if old is None else "deleted" if new is None else "edited"
    return f"the CI configuration was {change}"


def _test_file_changes(path: str, old: str, new: str | None, after: Mapping[str, str | None]) -> list[Tampering]:
    """What an edit to an existing test or harness file did, most telling first; always at least one finding."""
    if new is None:
        tests = _test_names(path, old)
        names = ", ".join(tests[:5]) + (", ..." if len(tests) > 5 else "")
        return [Tampering(path, "deleted_test_file", f"the test file was deleted{' with ' + names if names else ''}")]
    found = _test_changes(path, old, new, after) if _analysed(path) else []
    if posixpath.basename(path) in ("conftest.py", "pytest.ini", "tox.ini") and \
            _count(CONFIG_SKIP, new) > _count(CONFIG_SKIP, old):
        found.append(Tampering(path, "skipped_test", "tests were excluded from collection "
                               "(collect_ignore, --ignore, --deselect or -k not)"))
    if not found:
        harness = is_whole_harness(path)
        found.append(Tampering(path, "edited_harness" if harness else "edited_test",
                               f"the existing test {'harness ' if harness else ''}file was edited"))
    return found


def _test_changes(path: str, old: str, new: str, after: Mapping[str, str | None]) -> list[Tampering]:
    """The tests of `old` that `new` moved away, deleted, skipped, weakened or otherwise changed."""
    base, now = _file_tests(path, old), _file_tests(path, new)
    moved = {name: other for name in base.tests if name not in now.tests
             for other in [_new_home(name, path, after)] if other}
    found = [Tampering(path, "moved_test", f"the test {name} was moved out of this file into {other}", name, other)
             for name, other in moved.items()]
    found += [t for t in _compare(path, base, now) if not (t.kind == "deleted_test" and t.test in moved)]
    if not found:
        old_bodies, new_bodies = _bodies(path, old), _bodies(path, new)
        edited = [n for n, body in old_bodies.items() if new_bodies.get(n) not in (None, body)]
        if edited:
            more = f" (and {len(edited) - 1} more)" if len(edited) > 1 else ""
            found.append(Tampering(path, "edited_test", f"the test {edited[0]} was changed{more}", edited[0]))
    return found


def _new_home(name: str, path: str, after: Mapping[str, str | None]) -> str | None:
    """The other changed test file that now defines a test called `name` (a test moved, and maybe changed)."""
    bare = name.rsplit(".", 1)[-1]
    for other, text in sorted(after.items()):
        if other != path and text is not None and _analysed(other) and any(
                n == name or n.rsplit(".", 1)[-1] == bare for n in _file_tests(other, text).tests):
            return other
    return None


def _compare(path: str, base: _FileTests, now: _FileTests) -> list[Tampering]:
    found = []
    for name, was in base.tests.items():
        facts = now.tests.get(name)
        if facts is None:
            found.append(Tampering(path, "deleted_test", f"the test {name} was deleted or renamed", name))
        elif facts.skips > was.skips:
            found.append(Tampering(path, "skipped_test", f"a skip was added to the test {name}", name))
        elif facts.strong_asserts < was.strong_asserts:
            found.append(Tampering(path, "weakened_test", f"the test {name} lost assertions "
                                   f"({was.strong_asserts} real ones before, {facts.strong_asserts} now)", name))
    if now.outside_skips > base.outside_skips:
        found.append(Tampering(path, "skipped_test", "a skip marker that covers tests in this file was added"))
    return found


def tests_in(path: str, text: str | None) -> list[str]:
    """The names of the tests a file defines (none for files the guard cannot read)."""
    return _test_names(path, text) if text is not None else []


def _test_names(path: str, text: str) -> list[str]:
    return list(_file_tests(path, text).tests) if _analysed(path) else []


def _bodies(path: str, text: str) -> dict[str, str]:
    """Each test's text with its attributes, whitespace-normalized (Python: the parsed and re-printed code)."""
    if is_language(path, "python"):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            pass
        else:
            return {name: ast.unparse(node) for name, node in _test_nodes(tree.body, "")}
    spec = _spec(path)
    headers = _headers(text, spec)
    bodies = {}
    for i, m in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(text)
        body = text[m.start():_block_end(text, m.end(), end)]
        name, n = m["name"], 2
        while name in bodies:
            name, n = f"{m['name']} #{n}", n + 1
        bodies[name] = " ".join(body.split())
    return bodies


def _block_end(text: str, start: int, limit: int) -> int:
    """Where the brace block opened first after `start` closes (`limit` when there is none, or it is unbalanced)."""
    depth = 0
    for i in range(start, limit):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return limit


def _headers(text: str, spec: _Spec) -> list[re.Match[str]]:
    return [m for m in spec.header.finditer(text)
            if spec.needs is None or spec.needs.search(m.groupdict().get("attrs") or "")]


def _spec(path: str) -> _Spec:
    found = language_of(path)
    return SPECS[found.name if found else ""]


def _analysed(path: str) -> bool:
    found = language_of(path)
    # Rust's unit tests live in the code's own files (`#[cfg(test)] mod tests`)
    return found is not None and found.name in SPECS and (is_test_path(path) or found.name == "rust")


def _file_tests(path: str, text: str) -> _FileTests:
    """The tests of one file with their skip markers and real assertions; never raises."""
    if is_language(path, "python"):
        parsed = _python_tests(text)
        if parsed is not None:
            return parsed
    return _regex_tests(text, _spec(path))


def _regex_tests(text: str, spec: _Spec) -> _FileTests:
    headers = _headers(text, spec)
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
                dotted_name(b).endswith("TestCase") for b in node.bases)):
            yield from _test_nodes(node.body, f"{prefix}{node.name}.")


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
            name = dotted_name(n.func).rsplit(".", 1)[-1]
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


_CI = (r"(?:ci|continuous integration|github actions?|github workflows?|gitlab[- ]ci|circleci|circle ci|jenkins"
       r"|travis(?: ci)?|azure pipelines?|buildkite)")
_FILL = r"(?:(?!(?:in|from|inside|within|of|to|on|at|for|into|and|but|then|so)\b)[\w'-]+\s+){0,4}?"
_TOOL = (r"(?:pytest|py\.test|unittest|nose2?|doctest|jest|vitest|mocha|ava|tap|node:test|go test|cargo test"
         r"|nextest|junit|test|testing)")
_TOOL_PART = r"(?:plugin|reporter|harness|framework|extension|preset|integration|hook)(?:s|es)?"
_BROKEN = (r"(?:\w+\s+){0,3}?(?:crash(?:es)?|fails? to|ignores?|does not|doesn't|should|raises|breaks|is broken|must"
           r"|needs to|hangs|drops|loses|swallows)\b")
ALLOW = {
    # work on the test tooling itself ("add a pytest plugin that ...", "our jest reporter drops skipped tests"), where
    # a change may reach into the runner; a symptom seen through the runner ("the test runner reports ...") is not
    "runner_tampering": re.compile(
        rf"\b(?:add|fix|update|change|implement|write|extend|support|modify|rewrite|create|improve|refactor|make"
        rf"|register|adjust|build|debug)\s+{_FILL}{_TOOL}[\s-]+(?:{_TOOL_PART}|runners?)\b"
        rf"(?!\s+(?:failures?|errors?|output|says|shows|reports|runs?)\b)"
        rf"|\b(?:the|our|this|my)\s+{_TOOL}[\s-]+{_TOOL_PART}(?:'s)?\s+{_BROKEN}"
        rf"|\b(?:the|our|this|my)\s+(?:custom|own)\s+(?:\w+\s+)?runner(?:'s)?\s+{_BROKEN}", re.I),
    "ci_config": re.compile(rf"(?:\.github/workflows|\.github/actions|\.gitlab-ci\.yml|\.circleci|Jenkinsfile"
                            rf"|\.travis\.yml|azure-pipelines\.yml|\.buildkite)|\b(?:update|fix|change|edit|modify"
                            rf"|add|remove|bump|configure|set up|create|migrate|upgrade|adjust|rewrite|pin)\s+"
                            rf"{_FILL}{_CI}\s+(?:workflows?|config\w*|pipelines?|jobs?|files?|yaml|yml|setup"
                            rf"|matrix|steps?)\b", re.I),
}
NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bwithout|\bavoid|\bno need to)\W+(?:\w+\W+){0,2}$", re.I)
# not "ignore": "ignore that one" in a task tells the coder to leave a test alone, not to edit it
ACTION = re.compile(r"\b(?:update|change|modify|edit|rewrite|adjust|correct|amend|remove|delete|drop|rename|"
                    r"skip|mark|replace|relax|loosen|weaken|tighten|extend|move|split|xfail|disable|deselect|"
                    r"quarantine|add)(?:s|es|ed|ing)?\b", re.I)
FIX = re.compile(r"\bfix(?:es|ed|ing)?\b", re.I)
SENTENCE = re.compile(r"(?<=[.!?])\s+|\n\s*\n|\n\s*[-*]\s+")


def task_allows(task_text: str, kind: str) -> bool:
    """True only when the task clearly asks for this kind of change ("update the CI workflow")."""
    pattern = ALLOW.get(kind)
    if pattern is None:
        return False
    return any(not NEGATED.search(task_text[max(0, m.start() - 30):m.start()])
               for m in pattern.finditer(task_text))


def task_names_change(task_text: str, path: str, tests: list[str] | tuple[str, ...] = (), fixes: bool = False) -> bool:
    """True when one sentence of the task names this file (or a test in it) and an action on it.

    "Update test_parse_empty in tests/test_parse.py: an empty string now returns None" allows
    editing that file; "the CLI should skip hidden files" names no test and allows nothing. With `fixes` (the
    tests' data, support modules and doctest examples, where the bug itself can be: "Fix the GBP rate in
    data/rates.json") "fix" is such an action too; not for a test file, where "fix tests/test_x.py::test_y"
    asks for the code to be fixed.
    """
    names = {path, posixpath.basename(path)}
    stem = posixpath.basename(path).split(".", 1)[0]
    if stem.startswith("test_") or stem.endswith("_test"):  # `test_parse` names tests/test_parse.py
        names.add(stem)
    names |= {t.rsplit(".", 1)[-1] for t in tests if len(t.rsplit(".", 1)[-1]) >= 6}
    mention = re.compile(r"(?<![\w/.-])(?:" + "|".join(sorted(map(re.escape, names), key=len, reverse=True))
                         + r")(?![\w-])")
    for sentence in SENTENCE.split(task_text):
        if not mention.search(sentence):
            continue
        actions = [*ACTION.finditer(sentence), *(FIX.finditer(sentence) if fixes else ())]
        if any(not NEGATED.search(sentence[max(0, m.start() - 30):m.start()]) for m in actions):
            return True
    return False
