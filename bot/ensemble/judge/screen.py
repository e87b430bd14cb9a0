"""The static screen: lines of a change to the code that reach into the test runner.

The code under test runs inside the test process, so a line of it can decide the verdict: patch
`TestCase.assertEqual` or a pytest internal, patch a standard-library function the tests call too
(`json.loads`, `pathlib.Path.read_text`), replace a module in `sys.modules`, end the process with
`os._exit(0)` before the failures are written, behave differently when it sees the runner
(`'pytest' in sys.modules`, `PYTEST_CURRENT_TEST`), write into the folder the judge reads results from, or
print lines shaped like the runner's report. This module finds such lines in a change to non-test files;
the guard (bot/ensemble/judge/guards.py) refuses them unless the task asks for them, and what the task allowed
is shown to the critic and in the PR.

Python is read with `ast`, following what a name is bound to (`import unittest as u`, `from unittest
import TestCase`, `importlib.import_module("pytest")`, `sys.modules["unittest"]`, `getattr(...)`), so
aliases and `setattr` do not hide a patch. JavaScript/TypeScript, Go and Rust are read line by line with
regexes. Honest code is left alone: `unittest.mock` imports, the runner imported by a module that is
itself test tooling (`mylib/testing.py`, a `pytest_*` plugin package), `sys.exit` and `process.exit` in a
command-line entry point, `os.Exit` in Go's `main` package, `process::exit` in a Rust binary. A finding
counts only where the change added it: the same finding on the same line of code at the base is not new.

Pure functions over text (`workspace_hooks` takes the reading functions); `hooks_in` reads a workspace.
"""

from __future__ import annotations

import ast
import hashlib
import posixpath
import re
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from bot.ensemble.types import RunnerHook
from bot.ensemble.workspace_files import Read, WorkspaceFiles
from bot.forge import Workspace
from common import testfiles
from common.languages import is_code, is_language
from common.testfiles import RUNNER_MODULES, STDLIB_MODULES, is_harness_path, is_test_path

Finding = tuple[int, str]  # (line, what)
FORKS = ("os.fork", "posix.fork")

# the test runners' packages, and the builtins every runner's assertions read (common/testfiles.py spells the runners)
RUNNER_ROOTS = testfiles.RUNNER_ROOTS | {"builtins", "__builtin__"}
EXITS = frozenset({"os._exit", "posix._exit", "sys.exit", "builtins.exit", "builtins.quit", "os.kill"})
HOOKS = frozenset({"sys.settrace", "sys.setprofile", "threading.settrace", "threading.setprofile",
                   "threading.settrace_all_threads", "sys.addaudithook"})
MUTATORS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__", "insert",
                      "append", "extend", "remove", "__setattr__", "__delattr__"})
PATCHERS = frozenset({"setattr", "delattr", "patch", "object", "setitem", "delitem", "__setattr__", "__delattr__"})
# Standard-library modules whose attributes are settings or hooks an application sets (`sys.stdout`,
# `logging.raiseExceptions`, `warnings.showwarning`, `sys.excepthook`): assigning them patches nothing; how the run
# ended is the judge's to read (its known-answer checks), not what a hook prints.
STDLIB_SETTINGS = testfiles.STDLIB_SETTINGS
IMPORT_SYSTEM = frozenset({"sys.modules", "sys.meta_path", "sys.path_hooks", "sys.path_importer_cache",
                           "sys.pycache_prefix"})  # the last: where compiled modules are read from
ENVIRON_READS = frozenset({"os.getenv", "os.environ.get", "os.environ.__getitem__", "os.environ.__contains__",
                           "posix.getenv"})
# What the code can read of the process it runs in that shows a test run: the modules loaded, the command line, the
# environment's names, the stack (its files and modules), the main module. Code that compares what it reads there
# with a test's or a runner's name behaves differently under test. The command line is a program's own input too (a
# `test` subcommand), so there only a runner's name counts (`COMMAND_LINE`).
OBSERVED = frozenset({"sys.modules", "sys.argv", "sys.orig_argv", "sys.executable", "sys._getframe",
                      "sys._current_frames", "inspect.currentframe", "inspect.stack", "inspect.getouterframes",
                      "inspect.trace", "traceback.extract_stack", "traceback.format_stack", "traceback.walk_stack",
                      "os.environ", "os.getppid", "posix.environ", "builtins.__import__"})
COMMAND_LINE = frozenset({"sys.argv", "sys.orig_argv"})
PROC_FILES = re.compile(r"/proc/[^/]+/(?:cmdline|environ|stat)")
MATCHERS = frozenset({"startswith", "endswith", "find", "rfind", "index", "rindex", "count", "__contains__"})
REGEX_MATCHERS = frozenset({"re.search", "re.match", "re.fullmatch", "re.findall", "re.finditer"})
UNDER_TEST = "looks at the process it runs in (its modules, command line, environment or stack) to tell when it runs " \
             "under test"
# Where a module is test tooling itself, and may import the runner.
TEST_SUPPORT = re.compile(r"(?:^|/)(?:_?testing|test_?utils?|testutils|test_?helpers?|test_?support|testlib"
                          r"|pytest_\w+|\w*_pytest_plugin)(?:/|\.\w+$)"
                          r"|(?:^|/)(?:\w+[-_])?test(?:s|ing|utils?|helpers?|support|lib|kit)?(?:[-_]\w+)?/")
# Entry points of a command-line program, where ending the process is its job.
ENTRY_POINT = re.compile(r"(?:^|/)(?:bin|cli|scripts?|tools|cmd)/|(?:^|/)(?:__main__\.py|main\.\w+|cli\.\w+"
                         r"|[\w-]*[-_]cli\.\w+)$")
# Names of the runners' and the judge's own variables: code that reads them behaves differently under test.
# (The `ENSEMBLE_*` names are those the sandbox sets in the test process, sandbox/scripts.py and run_hooks.py; the
# others are the bot's own settings, which no test process sees.)
RUNNER_VARIABLE = re.compile(r"\b(?:PYTEST_[A-Z_]+|_PYTEST_[A-Z_]*|ENSEMBLE_(?:ENV|WORKSPACE|RESULTS?|TRACE_READS|SKIP|LIST"
                             r"|SENTINELS?|NONCE)\w*|JEST_WORKER_ID|VITEST\w*|NODE_TEST_CONTEXT|MOCHA_[A-Z_]+"
                             r"|RUST_TEST_[A-Z_]+)\b")
# Reading a variable in other languages: `process.env.X`, Go's `os.Getenv("X")`, Rust's `env::var("X")`, `$X`.
_READ_VARIABLE = re.compile(r"(?:\bprocess\.env(?:\.|\[\s*['\"`])|\bos\.(?:Getenv|LookupEnv)\(\s*\"|\benv::var(?:_os)?"
                            r"\(\s*\"|\bSystem\.getenv\(\s*\"|\$\{?)(?=(?P<name>[A-Z_][A-Z0-9_]*))")
JUDGE_FILES = re.compile(r"\.ensemble-(?:results|plugins)|ensemble_pytest_progress")
# Text shaped like a runner's report or result file: forged in the code, it can pass for the runner's own.
FORGED_REPORT = re.compile(
    r"\b\d+ (?:passed|failed)\b.* in [\d.]+s|^=+ .*\b(?:passed|failed|error)\b|::\S+ (?:PASSED|FAILED|ERROR)\b"
    r"|\bPASSED\b.*\[\s*\d+%\]|\bRan \d+ tests? in\b|\) \.\.\. (?:ok|FAIL|ERROR)\b|^FAILED \((?:failures|errors)="
    r"|^--- (?:PASS|FAIL): \w|^(?:ok|FAIL)\s+\S+\s+[\d.]+s|^=== RUN\s|test result: (?:ok|FAILED)\."
    r"|^test \S+ \.\.\. (?:ok|FAILED)|^(?:not )?ok \d+ - |^# (?:pass|fail|tests) \d+|<testsuites?\b|<testcase\b", re.M)
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%[-#0-9.]*[sdifr]")


def runner_hooks(path: str, before: str | None, after: str | None) -> list[RunnerHook]:
    """The lines a change to `path` (its text at the base and now) added that reach into the test runner; none for
    test files, harness files (the judge runs the base's) and files that are not code."""
    if after is None or is_test_path(path) or is_harness_path(path) or not is_code(path):
        return []
    was = Counter(_keyed(path, before)) if before is not None else Counter()
    lines = after.splitlines()
    found = []
    for line, what in _findings(path, after):
        code = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        if was[(what, code)]:
            was[(what, code)] -= 1
            continue
        found.append(RunnerHook(path, line, what, code[:200]))
    return found


def change_hooks(before: Mapping[str, str | None], after: Mapping[str, str | None]) -> list[RunnerHook]:
    """`runner_hooks` of every file of a change (path -> text at the base and now)."""
    return [hook for path in sorted(set(before) | set(after))
            for hook in runner_hooks(path, before.get(path), after.get(path))]


def workspace_hooks(changed: Iterable[str], base: Read, now: Read) -> list[RunnerHook]:
    """`runner_hooks` of the changed files of a workspace: `base` and `now` read a file at the base and now."""
    return [hook for path in sorted(changed) for hook in runner_hooks(path, base(path), now(path))]


def hooks_in(workspace: Workspace) -> list[RunnerHook]:
    """The lines of a workspace's change that reach into the test runner (what the guard let through because the
    task asked for it): shown to the critic and in the PR."""
    return workspace_hooks(workspace.changed_paths(), workspace.base_text, WorkspaceFiles(workspace.path).read)


def _keyed(path: str, text: str) -> Iterator[tuple[str, str]]:
    lines = text.splitlines()
    for line, what in _findings(path, text):
        yield what, lines[line - 1].strip() if 0 < line <= len(lines) else ""


def _findings(path: str, text: str) -> tuple[Finding, ...]:
    """Every finding in one file's text, by line, once each. Kept for the last MAX_KEPT texts, by their digest: a run
    screens each changed file's base text every round, and the same text again for the critic and the PR."""
    key = (path, hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest())
    with _KEPT_LOCK:  # the teams screen from threads of their own
        found = _KEPT.pop(key, None)
    if found is None:
        found = tuple(_screened(path, text))
    with _KEPT_LOCK:
        _KEPT[key] = found  # the most recently screened last
        while len(_KEPT) > MAX_KEPT:
            del _KEPT[next(iter(_KEPT))]
    return found


MAX_KEPT = 256
_KEPT: dict[tuple[str, bytes], tuple[Finding, ...]] = {}
_KEPT_LOCK = threading.Lock()


def _screened(path: str, text: str) -> list[Finding]:
    """`_findings` worked out."""
    if is_language(path, "python"):
        try:
            found = _PythonScreen(path, ast.parse(text)).findings
        except (SyntaxError, ValueError):
            found = _text_findings(text)
    else:
        by_language = {"javascript": _javascript, "typescript": _javascript, "tsx": _javascript, "go": _go,
                       "rust": _rust}
        found = [f for language, find in by_language.items() if is_language(path, language) for f in find(path, text)]
        found += _text_findings(text)
    return sorted(set(found))


# ------------------------------------------------------------------ any language: names and text the judge owns


def _text_findings(text: str) -> list[Finding]:
    """The runner's and the judge's variables read, and the judge's result files and forged report lines in string
    literals, in any language."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        read = [m["name"] for m in _READ_VARIABLE.finditer(line) if RUNNER_VARIABLE.fullmatch(m["name"])]
        if read:
            found.append((number, _reads(read[0])))
            continue
        for literal in re.findall(r"\"((?:[^\"\\\n]|\\.)*)\"|'((?:[^'\\\n]|\\.)*)'|`([^`\n]*)`", line):
            what = _literal_finding("".join(literal))
            if what:
                found.append((number, what))
                break
    return found


def _literal_finding(value: str) -> str:
    """What a string literal's text shows (empty when nothing)."""
    if JUDGE_FILES.search(value):
        return "names the files the judge reads results from"
    if FORGED_REPORT.search(_PLACEHOLDER.sub("0", value).replace("\\n", "\n")):
        return "writes text shaped like the test runner's report"
    return ""


def _reads(variable: str) -> str:
    return f"reads {variable} to tell when it runs under test"


# ------------------------------------------------------------------ Python, by its syntax tree


class _PythonScreen:
    """Walks a module once, knowing what each imported or assigned name stands for."""

    def __init__(self, path: str, tree: ast.Module):
        self.path = path
        self.tooling = bool(TEST_SUPPORT.search(path))
        self.entry = posixpath.basename(path) == "__main__.py"
        self.names: dict[str, str] = {}  # local name -> the dotted name it stands for ("u" -> "unittest")
        nodes = list(ast.walk(tree))  # every node, walked once: what follows reads them a dozen times
        self.functions = {n.name: n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
        self.findings: list[Finding] = []
        self._bind(nodes)
        self.observing: dict[str, str] = {}  # local name -> what of the process it holds ("command line", "process")
        self._bind_observations(nodes)
        self.main_guarded = not _names_itself(nodes)  # a main guard means "run as the program"
        self.program_only = _program_only(tree, nodes) if self.main_guarded else frozenset()  # only the guard calls
        self.builtins_read = _builtins_only_read(nodes, self.names)
        self.forked = self._forked_children(tree, nodes)  # the nodes only a forked child runs
        self._walk(tree, in_main=False)

    # --- what names stand for

    def _bind(self, nodes: Sequence[ast.AST]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        self.names[alias.asname] = alias.name
                    else:
                        root = alias.name.split(".")[0]
                        self.names[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        self.names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for _ in range(3):  # `T = unittest.TestCase`, `m = importlib.import_module("pytest")`, then aliases of those
            for node in nodes:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    meant = self._dotted(node.value)
                    if meant:
                        self.names[node.targets[0].id] = meant

    def _dotted(self, node: ast.AST) -> str:
        """The dotted name an expression stands for (`u.TestCase` -> `unittest.TestCase`); empty when unknown."""
        if isinstance(node, ast.Name):
            if node.id in self.names:
                return self.names[node.id]
            return "builtins" if node.id == "__builtins__" else f"builtins.{node.id}" if node.id in _BUILTINS else ""
        if isinstance(node, ast.Attribute):
            base = self._dotted(node.value)
            return f"{base}.{node.attr}" if base else ""
        if isinstance(node, ast.Subscript):
            base = self._dotted(node.value)
            key = _constant(node.slice)
            if base == "sys.modules" and key:
                return key
            return f"{base}.{key}" if base.startswith(_ROOT_PREFIXES) and key else ""
        if isinstance(node, ast.Call):
            return self._called(node)
        return ""

    def _called(self, node: ast.Call) -> str:
        """What a call returns, where it is a module or an attribute: `import_module("m")`, `getattr(x, "a")`."""
        func = self._dotted(node.func)
        first = _constant(node.args[0]) if node.args else ""
        if func in ("importlib.import_module", "builtins.__import__") and first:
            return first
        if func == "sys.modules.get" and first:
            return first
        if func == "builtins.getattr" and len(node.args) >= 2:
            base = self._dotted(node.args[0])
            attr = _constant(node.args[1]) or "?"
            return f"{base}.{attr}" if base else ""
        if func == "builtins.vars" and node.args:
            return self._dotted(node.args[0])
        return ""

    def _runner(self, dotted: str) -> bool:
        return dotted.split(".")[0] in RUNNER_ROOTS

    # --- what the code reads of the process it runs in

    def _bind_observations(self, nodes: Sequence[ast.AST]) -> None:
        """The names bound, anywhere in the module, to what the code reads of its process (`OBSERVED`), or to
        something made of such a name: assigned, opened with `with`, or looped over (comprehensions too)."""
        bindings = []
        for node in nodes:
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.NamedExpr) and node.value:
                bindings.append((node.value, node.targets if isinstance(node, ast.Assign) else [node.target]))
            elif isinstance(node, ast.withitem) and node.optional_vars is not None:
                bindings.append((node.context_expr, [node.optional_vars]))
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                bindings.append((node.iter, [node.target]))
        for _ in range(3):  # a name bound to one bound before it, three steps deep
            known = len(self.observing)
            for value, targets in bindings:
                kind = self._observes(value)
                for target in _flatten(targets):
                    if kind and isinstance(target, ast.Name):
                        self.observing.setdefault(target.id, kind)
            if len(self.observing) == known:
                break  # nothing new: a step more would find nothing either

    def _observes(self, node: ast.AST) -> str:
        """What of the process `node` reads ("command line", "process"), or ''. One variable read by its name (an
        application's setting, `os.environ.get("APP_ENV")`) is not the environment's names."""
        for part in self._parts(node):
            if isinstance(part, ast.Name) and part.id in self.observing:
                return self.observing[part.id]
            if isinstance(part, ast.Constant | ast.BinOp | ast.JoinedStr) and PROC_FILES.search(_constant(part)):
                return "command line" if "cmdline" in _constant(part) else "process"
            dotted = self._dotted(part.func) if isinstance(part, ast.Call) else \
                self._dotted(part) if isinstance(part, ast.Attribute | ast.Name) else ""
            if dotted and dotted not in ENVIRON_READS and any(dotted == o or dotted.startswith(f"{o}.")
                                                              for o in OBSERVED):
                return "command line" if any(dotted.startswith(o) for o in COMMAND_LINE) else "process"
        return ""

    def _parts(self, node: ast.AST) -> Iterator[ast.AST]:
        """`node` and what it is made of, but for the inside of a read of one environment variable by name."""
        yield node
        if isinstance(node, ast.Call) and self._dotted(node.func) in ENVIRON_READS or \
                isinstance(node, ast.Subscript) and self._dotted(node.value) == "os.environ":
            return
        for child in ast.iter_child_nodes(node):
            yield from self._parts(child)

    def _tells_test(self, marker: str, kind: str) -> bool:
        """True when `marker`, compared with what the code read of its process (`kind`), is a test's or a runner's
        name: a runner's anywhere, `test` but on the command line."""
        text = marker.lower()
        if marker.split(".")[0] in testfiles.RUNNER_ROOTS or any(r in text for r in ("pytest", "py.test", "unittest")):
            return True
        return kind != "command line" and "test" in text

    def _matches_test(self, node: ast.Call, in_main: bool) -> bool:
        """True for a string match of what the code read of its process against a test's or a runner's name:
        `name.startswith("test")`, `re.search("pytest", cmdline)`."""
        if self.tooling or not node.args:
            return False
        if isinstance(node.func, ast.Attribute) and node.func.attr in MATCHERS:
            first = node.args[0]
            markers = [_constant(e) for e in first.elts] if isinstance(first, ast.Tuple) else [_constant(first)]
            receiver, kind = node.func.value, self._observes(node.func.value)
        elif self._dotted(node.func) in REGEX_MATCHERS and len(node.args) >= 2:
            markers, receiver, kind = [_constant(node.args[0])], node.args[1], self._observes(node.args[1])
        else:
            return False
        if not kind or (kind == "command line" and (in_main or self.entry)):
            return False
        return bool(receiver) and any(m and self._tells_test(m, kind) for m in markers)

    # --- the walk

    def _walk(self, node: ast.AST, in_main: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Expr) and _constant(child.value):
                continue  # a docstring or a bare string: never run, never printed
            self._check(child, in_main)
            self._walk(child, in_main or (_is_main_guard(child) and self.main_guarded) or self._only_as_program(node, child))

    def _forked_children(self, tree: ast.Module, nodes: Sequence[ast.AST]) -> set[int]:
        """The nodes of the branches only a child process runs: `pid = os.fork()`, then below it `if pid == 0:` (or
        `if not pid:`), `pid` bound nowhere else in its function and no parameter of it; ending with `os._exit` is
        what such a child must do. None in a module that never calls fork (`nodes`: all of the module's)."""
        children: set[int] = set()
        if not any(isinstance(n, ast.Call) and self._dotted(n.func) in FORKS for n in nodes):
            return children
        for scope in [tree, *(n for n in nodes if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]:
            bound = Counter(n.id for n in ast.walk(scope) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load))
            if not isinstance(scope, ast.Module):
                bound.update(a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg))
            forks = {n.targets[0].id: n.lineno for n in ast.walk(scope) if isinstance(n, ast.Assign)
                     and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and bound[n.targets[0].id] == 1
                     and isinstance(n.value, ast.Call) and self._dotted(n.value.func) in FORKS}
            for node in ast.walk(scope):
                if isinstance(node, ast.If) and (name := _child_test(node.test)) in forks and node.lineno > forks[name]:
                    children |= {id(n) for statement in node.body for n in ast.walk(statement)}
        return children

    def _only_as_program(self, parent: ast.AST, node: ast.AST) -> bool:
        """True for a module-level function only the main guard calls (`def _test(): import doctest; ...`): what
        runs inside it runs when the file is the program, as the guard's own lines do."""
        return isinstance(parent, ast.Module) and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) \
            and node.name in self.program_only

    def _add(self, node: ast.AST, what: str) -> None:
        self.findings.append((getattr(node, "lineno", 0), what))

    def _check(self, node: ast.AST, in_main: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            self._import(node, in_main)
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Delete):
            targets = node.targets if isinstance(node, ast.Assign | ast.Delete) else [node.target]
            if not isinstance(node, ast.AnnAssign) or node.value is not None:
                for target in _flatten(targets):
                    self._write(node, target)
        elif isinstance(node, ast.Call):
            self._call(node, in_main)
        elif isinstance(node, ast.Compare):
            self._compare(node, in_main)
        elif isinstance(node, ast.Subscript):
            self._subscript(node)
        elif isinstance(node, ast.Attribute) and node.attr == "f_locals" and not self.tooling:
            self._add(node, "reads the local variables of a running frame, where a calling test keeps what it expects")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if any(self._dotted(d) == "atexit.register" for d in node.decorator_list) and self._exits(node):
                self._add(node, "registers an exit of the process at interpreter shutdown")
            elif node.name.startswith("pytest_") and not self.tooling:
                self._add(node, f"defines the pytest hook {node.name}, which can change what the runner reports")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            self._literal(node, node.value)
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) and isinstance(v.value, str) else "0"
                           for v in node.values)
            self._literal(node, text)

    def _import(self, node: ast.Import | ast.ImportFrom, in_main: bool) -> None:
        """A runner imported, but under the main guard (`if __name__ == "__main__": import doctest; doctest.testmod()`,
        never run when the tests import the file) and builtins whose names the module only reads (`builtins.input`):
        what patches either is found where it is written (`_write`, `_call`)."""
        if isinstance(node, ast.Import):
            modules = [a.name for a in node.names]
        elif node.module and not node.level:
            modules = [node.module] if node.module != "unittest" else [f"unittest.{a.name}" for a in node.names]
        else:
            return
        for module in modules:
            root = module.split(".")[0]
            if in_main or (root == "builtins" and self.builtins_read):
                continue
            if root in RUNNER_ROOTS and not module.startswith("unittest.mock") and not self.tooling:
                self._add(node, f"imports {root}" + (" (the test runner)" if root != "builtins" else ""))
                return

    def _write(self, node: ast.AST, target: ast.expr) -> None:
        if isinstance(target, ast.Attribute | ast.Subscript):
            base, whole = self._dotted(target.value), self._dotted(target)
            if base == "sys.modules" and isinstance(target, ast.Subscript):
                if _names_a_module(target.slice):  # a loader's `sys.modules[spec.name] = module` is left alone
                    self._add(node, f"replaces the module {_constant(target.slice)} in sys.modules")
            elif base in IMPORT_SYSTEM or whole in IMPORT_SYSTEM:
                self._add(node, f"changes {base if base in IMPORT_SYSTEM else whole}, where the runner finds its "
                                "modules")
            elif self._runner(base):
                self._add(node, f"patches {whole or base}")
            elif whole in EXITS or whole == "sys.exitfunc":
                self._add(node, f"patches {whole}")
            elif isinstance(target, ast.Attribute) and _stdlib(base):
                self._add(node, f"patches the standard library's {whole}, which the tests may call too")

    def _call(self, node: ast.Call, in_main: bool) -> None:
        if self._matches_test(node, in_main):
            self._add(node, UNDER_TEST)
        func = self._dotted(node.func)
        name = func.rsplit(".", 1)[-1] if func else getattr(node.func, "attr", "")
        if name in PATCHERS and node.args:
            target = _constant(node.args[0]) or self._dotted(node.args[0])
            if target and (self._runner(target) or (func.endswith("setattr") and _stdlib(target))):
                self._add(node, f"patches {target}" + (f".{_constant(node.args[1])}"
                                                       if len(node.args) > 1 and _constant(node.args[1]) else ""))
                return
        if isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            owner = self._dotted(node.func.value)
            if owner in IMPORT_SYSTEM and (owner != "sys.modules" or node.func.attr in ("update", "clear")
                                           or any(_names_a_module(a) for a in node.args[:1])):
                self._add(node, f"changes {owner}, where the runner finds its modules")
            elif self._runner(owner):
                self._add(node, f"patches {owner}")
        if func in ENVIRON_READS or (isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                                     and self._dotted(node.func.value) == "os.environ"):
            variable = _constant_of(node.args)
            if RUNNER_VARIABLE.fullmatch(variable):
                self._add(node, _reads(variable))
        if func in HOOKS:
            self._add(node, f"installs an interpreter hook ({func})")
        elif func == "atexit.register" and node.args and self._exits(node.args[0]):
            self._add(node, "registers an exit of the process at interpreter shutdown")
        elif func in ("os._exit", "posix._exit") and not (in_main or self.entry or id(node) in self.forked):
            self._add(node, f"ends the process with {func}, skipping the runner's report")
        elif func == "os.kill" and node.args and self._dotted(getattr(node.args[0], "func", node.args[0])) == \
                "os.getpid" and not (in_main or self.entry):
            self._add(node, "kills its own process")
        elif func in ("sys.modules.get", "sys.modules.__contains__") and self._runner(_constant_of(node.args)):
            self._add(node, "looks for the test runner in sys.modules to tell when it runs under test")

    def _subscript(self, node: ast.Subscript) -> None:
        variable = _constant(node.slice)
        if isinstance(node.ctx, ast.Load) and self._dotted(node.value) == "os.environ" and \
                RUNNER_VARIABLE.fullmatch(variable):
            self._add(node, _reads(variable))

    def _compare(self, node: ast.Compare, in_main: bool = False) -> None:
        operands = [node.left, *node.comparators]
        names = [_constant(o) for o in operands]
        if any(RUNNER_VARIABLE.fullmatch(n) for n in names) and any(
                self._dotted(o) == "os.environ" for o in operands):
            self._add(node, _reads(next(n for n in names if RUNNER_VARIABLE.fullmatch(n))))
            return
        others = " ".join(ast.unparse(o) for o, n in zip(operands, names, strict=True) if not n)
        if any(n and (self._runner(n) or "pytest" in n or "unittest" in n) for n in names) and (
                re.search(r"\bmodules\b|argv|environ|getenv|stack|frame|__main__|executable", others) or any(
                self._dotted(o) in ("sys.modules", "sys.argv", "sys.orig_argv") for o in operands)):
            self._add(node, "looks for the test runner to tell when it runs under test")
            return
        if self.tooling:
            return
        kinds = [self._observes(o) for o, n in zip(operands, names, strict=True) if not n]
        for name in filter(None, names):  # what the code read of its process, however it holds it, against a name
            if any(k and self._tells_test(name, k) and not (k == "command line" and (in_main or self.entry))
                   for k in kinds):
                self._add(node, UNDER_TEST)
                return

    def _literal(self, node: ast.AST, value: str) -> None:
        what = _literal_finding(value)
        if what:
            self._add(node, what)

    def _exits(self, node: ast.AST) -> bool:
        """True when calling `node` (a function, a lambda, the name of one) ends the process."""
        if isinstance(node, ast.Name) and node.id in self.functions and node.id not in self.names:
            node = self.functions[node.id]
        if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef):
            return any((isinstance(n, ast.Call) and self._dotted(n.func) in EXITS)
                       or (isinstance(n, ast.Raise) and n.exc is not None and "SystemExit" in ast.unparse(n.exc))
                       for n in ast.walk(node))
        return self._dotted(node) in EXITS


_BUILTINS = frozenset({"setattr", "getattr", "delattr", "vars", "__import__", "exit", "quit"})
_ROOT_PREFIXES = tuple(RUNNER_ROOTS)


def _constant(node: ast.AST, depth: int = 0) -> str:
    """The text a string expression always has, folded as Python would compute it: a literal, literals joined (`"py" +
    "test"`, an f-string of literals, `"".join(["py", "test"])`) or cased (`"PYTEST".lower()`); empty for anything
    else. A name built of pieces is the same name to the screen as the whole literal."""
    if depth > 8:
        return ""
    if isinstance(node, ast.Constant):
        value = node.value.decode("latin-1") if isinstance(node.value, bytes) else node.value
        return value if isinstance(value, str) else ""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _constant(node.left, depth + 1), _constant(node.right, depth + 1)
        return left + right if left and right else ""
    if isinstance(node, ast.JoinedStr):
        parts = [_constant(v.value if isinstance(v, ast.FormattedValue) and not v.format_spec else v, depth + 1)
                 for v in node.values]
        return "".join(parts) if all(parts) else ""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.keywords:
        receiver = _constant(node.func.value, depth + 1)
        if receiver and node.func.attr in _CASINGS and not node.args:
            return _CASINGS[node.func.attr](receiver)
        if node.func.attr == "join" and len(node.args) == 1 and isinstance(node.args[0], ast.List | ast.Tuple) \
                and isinstance(node.func.value, ast.Constant):
            parts = [_constant(e, depth + 1) for e in node.args[0].elts]
            return str(node.func.value.value).join(parts) if all(parts) else ""
    return ""


_CASINGS: dict[str, Callable[[str], str]] = {"lower": str.lower, "upper": str.upper, "casefold": str.casefold,
                                              "strip": str.strip, "lstrip": str.lstrip, "rstrip": str.rstrip}


def _constant_of(args: list[ast.expr]) -> str:
    return _constant(args[0]) if args else ""


def _flatten(targets: Iterable[ast.expr]) -> Iterator[ast.expr]:
    for target in targets:
        if isinstance(target, ast.Tuple | ast.List):
            yield from _flatten(target.elts)
        elif isinstance(target, ast.Starred):
            yield target.value
        else:
            yield target


def _stdlib(dotted: str) -> bool:
    """True for a standard-library module or class whose attributes are code, not settings (`json`,
    `pathlib.Path`; not `sys`, `logging`, `os.environ`)."""
    root = dotted.split(".")[0]
    return root in STDLIB_MODULES and root not in STDLIB_SETTINGS and not dotted.startswith("os.environ")


def _names_a_module(node: ast.AST) -> bool:
    """True for a key of sys.modules that names a standard-library or runner module (`"unittest"`, `"json.decoder"`);
    a module replacing itself (`sys.modules[__name__]`) or a loader's computed name is not one."""
    root = _constant(node).split(".")[0]
    return bool(root) and (root in STDLIB_MODULES or root in RUNNER_MODULES or root in RUNNER_ROOTS)


def _is_main_guard(node: ast.AST) -> bool:
    """`if __name__ == "__main__":`: code that runs only when the file is the program, never when tests import it."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    return any(isinstance(p, ast.Name) and p.id == "__name__" for p in parts) and "__main__" in map(_constant, parts)


def _child_test(test: ast.expr) -> str:
    """The name `test` asks to be 0 (`pid == 0`, `0 == pid`, `not pid`): true in a forked child alone; '' else."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and isinstance(test.operand, ast.Name):
        return test.operand.id
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq):
        for name, zero in ((test.left, test.comparators[0]), (test.comparators[0], test.left)):
            if isinstance(name, ast.Name) and isinstance(zero, ast.Constant) and type(zero.value) is int \
                    and zero.value == 0:
                return name.id
    return ""


def _names_itself(nodes: Sequence[ast.AST]) -> bool:
    """True for a module (`nodes`: all of its nodes) that could change its own `__name__` (assigns it, or spells the
    name as a string: `globals()["__name__"] = ...`): its main guard may run when the tests import it, so no line
    under it is spared."""
    return any(isinstance(n, ast.Name) and n.id == "__name__" and not isinstance(n.ctx, ast.Load)
               or isinstance(n, ast.Constant) and n.value == "__name__" for n in nodes)


def _program_only(tree: ast.Module, nodes: Sequence[ast.AST]) -> frozenset[str]:
    """The undecorated module-level functions that only the main guard names (`_test()` called as the program's
    last line), and no string or attribute spells: nothing runs them when the tests import the file. Asked only of
    a module that cannot rename itself (`_names_itself`), whose guard is genuine."""
    defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and not n.decorator_list}
    guarded = [n for n in tree.body if _is_main_guard(n)]
    inside = {id(n) for guard in guarded for n in ast.walk(guard)}
    called = {n.id for n in ast.walk(ast.Module(body=guarded, type_ignores=[])) if isinstance(n, ast.Name)}
    spelled = {n.id for n in nodes if isinstance(n, ast.Name) and id(n) not in inside} \
        | {n.attr for n in nodes if isinstance(n, ast.Attribute)} \
        | {n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)} \
        | {a.asname or a.name for n in nodes if isinstance(n, ast.Import | ast.ImportFrom) for a in n.names}
    return frozenset((defined & called) - spelled)


def _builtins_only_read(nodes: Sequence[ast.AST], names: dict[str, str]) -> bool:
    """True when every name the module (`nodes`: all of its nodes) binds to builtins is only read from
    (`builtins.input(prompt)`, `from builtins import open`): never written to, handed on, or asked for a dunder
    (`__dict__`, `__setattr__`)."""
    aliases = {local for local, meant in names.items() if meant == "builtins"}
    imported = [a.name for n in nodes if isinstance(n, ast.ImportFrom) and n.module == "builtins"
                for a in n.names]
    if any(name.startswith("__") or name == "*" for name in imported):
        return False
    read = {id(n.value) for n in nodes if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
            and isinstance(n.value, ast.Name) and not n.attr.startswith("__")}
    return all(id(n) in read for n in nodes if isinstance(n, ast.Name) and n.id in aliases)


# ------------------------------------------------------------------ JavaScript and TypeScript, Go, Rust: by line

# (pattern, what it does, where it is honest: "entry" in a command-line entry point, "tooling" in test tooling)
_JS_RULES: tuple[tuple[re.Pattern[str], str, str], ...] = (
    # a failing exit code set for later (`process.exitCode = 1`) cannot pass a test run; any other can
    (re.compile(r"\bprocess\.(?:exit|reallyExit|abort)\s*\(|\bprocess\.exitCode\s*=(?!=)(?!\s*[1-9]\d*\s*(?:[;\n]|$))"
                r"|\bprocess\.kill\(\s*process\.pid"),
     "ends the process from library code", "entry"),
    (re.compile(r"\b(?:assert|strict)(?:\.strict)?\.\w+\s*=(?!=)|require\(\s*['\"](?:node:)?assert(?:/strict)?['\"]\s*\)"
                r"\.\w+\s*=(?!=)|\bObject\.(?:defineProperty|assign|setPrototypeOf)\(\s*(?:assert|expect)\b"
                r"|\bAssertionError\.prototype\.\w+\s*=(?!=)"), "patches the assertion library", ""),
    (re.compile(r"\b(?:globalThis|global|window)\.(?:it|test|describe|expect|assert|beforeEach|afterEach|jest|vi)\s*=(?!=)"),
     "replaces the test runner's globals", ""),
    # the built-ins a test calls as well as the code (`JSON.parse`, `Array.prototype.includes`): a library that
    # replaces one changes what the tests compare
    (re.compile(r"\b(?:globalThis\.|global\.|window\.)?(?:JSON|Math|Object|Array|String|Number|Boolean|Date|Promise"
                r"|Reflect|RegExp|Map|Set|Symbol|BigInt)\.(?:prototype\.)?\w+\s*=(?!=)"),
     "patches a JavaScript built-in the tests call too", ""),
    (re.compile(r"(?:\bfrom\s+|\brequire\(\s*|\bimport\(\s*)['\"](?:node:test|vitest|@jest/globals|mocha|ava|tap|uvu)['\"]"),
     "imports the test runner", "tooling"),
    (re.compile(r"\btypeof\s+(?:jest|vi|describe|it|expect)\s*!==?\s*['\"]undefined['\"]|\bprocess\.(?:argv|execArgv)\b.*"
                r"(?:['\"]--test\b|jest|vitest|mocha)"), "looks for the test runner to tell when it runs under test",
     ""),
)


def _javascript(path: str, text: str) -> list[Finding]:
    honest = {"entry": bool(ENTRY_POINT.search(path)) or text.startswith("#!") or bool(
        re.search(r"require\.main\s*===?\s*module|import\.meta\.main\b", text)),
        "tooling": bool(TEST_SUPPORT.search(path)), "": False}
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern, what, exempt in _JS_RULES:
            if pattern.search(line) and not honest[exempt]:
                found.append((number, what))
                break
    return found


_GO_EXIT = re.compile(r"\b(?:os|syscall|unix)\.Exit\s*\(")
_GO_TEST_FLAGS = re.compile(r"\bflag\.(?:CommandLine\.)?Set\(\s*\"test\.|\"-test\.\w+")
_GO_TESTING = re.compile(r"^\s*(?:import\s+)?(?:\w+\s+)?\"testing\"\s*$")
# `go test` runs a binary named `pkg.test` with `-test.*` flags: code that looks for either knows it runs under test
_GO_UNDER_TEST = re.compile(r"\bflag\.(?:CommandLine\.)?Lookup\(\s*\"test\.|\bos\.(?:Args|Executable)\b[^\n]*\"[^\"\n]*\.test\b")
# the file of a caller (not of the function itself, runtime.Caller(0): a package finding its own folder)
_GO_CALLER_FILE = re.compile(r"\b\w+\s*,\s*(?P<file>\w+)\s*,\s*\w+\s*,\s*\w+\s*:?=\s*runtime\.Caller\(\s*[1-9]")
_GO_FUNC_NAME = re.compile(r"\bruntime\.FuncForPC\b")
_GO_TEST_NAME = re.compile(r"\"[^\"\n]*(?:^|\.|\b)Test(?:[A-Z_]\w*)?\"")


def _go(path: str, text: str) -> list[Finding]:
    """Go library code, line by line; what reads the tests is found across lines (a caller's file read where it was
    named, a calling function's name held against a test's)."""
    package = re.search(r"^package\s+(\w+)", text, re.M)
    main = package is not None and package.group(1) == "main"
    tooling = bool(TEST_SUPPORT.search(path))
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if _GO_EXIT.search(line) and not main:
            found.append((number, "ends the process from a library package"))
        elif _GO_TEST_FLAGS.search(line):
            found.append((number, "changes go test's own flags"))
        elif _GO_TESTING.match(line) and not tooling:
            found.append((number, "imports the testing package into library code"))
        elif _GO_UNDER_TEST.search(line) and not tooling:
            found.append((number, "looks for go test's binary or flags to tell when it runs under test"))
    return found if tooling else found + _go_reads_tests(text)


def _go_reads_tests(text: str) -> list[Finding]:
    """Where Go code reads the test that calls it: the source file of its caller (`runtime.Caller(1)`, then that
    file opened, where the test's expected values are written) or its caller's name held against a test's
    (`runtime.FuncForPC(pc).Name()` and a `Test...` name)."""
    found = []
    for match in _GO_CALLER_FILE.finditer(text):
        read = re.compile(rf"\b(?:os\.(?:ReadFile|Open|OpenFile)|ioutil\.ReadFile)\(\s*{re.escape(match['file'])}\b")
        if read.search(text, match.end()):
            found.append((text.count("\n", 0, match.start()) + 1, "reads the source file of its caller, where a calling "
                          "test keeps what it expects"))
    if (names := _GO_FUNC_NAME.search(text)) and _GO_TEST_NAME.search(text):
        found.append((text.count("\n", 0, names.start()) + 1, "asks which test calls it (a caller's name held against "
                      "a test's)"))
    return found


_RUST_EXIT = re.compile(r"\b(?:std::)?process::(?:exit|abort)\s*\(|\blibc::(?:_exit|exit|kill|abort)\s*\(")
_RUST_CTOR = re.compile(r"#\[\s*(?:ctor::)?(?:ctor|dtor)\b")
_RUST_BINARY = re.compile(r"(?:^|/)(?:src/main\.rs|src/bin/|build\.rs$|examples/|benches/)")


def _rust(path: str, text: str) -> list[Finding]:
    binary = bool(_RUST_BINARY.search(path)) or bool(re.search(r"^\s*(?:pub\s+)?fn\s+main\s*\(", text, re.M))
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if _RUST_EXIT.search(line) and not binary:
            found.append((number, "ends the process from library code"))
        elif _RUST_CTOR.search(line):
            found.append((number, "runs code before the tests start (#[ctor])"))
    return found
