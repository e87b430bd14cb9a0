"""What a test file is, and which files decide what a test runner collects and how it reports: one registry.

The judge (bot/ensemble), the guards, the index and the sandbox all ask this module, so they never
disagree about which files are the tests' and which are the code's.

- A *test file* holds tests: `tests/…`, `test_x.py`, `x_test.go`, `x.test.js`, `src/test/java/…`; which file
  names are tests is each language's own rule (common/languages.py), so `test_x.go` is code and `latest.py` is not
  a test.
- A *harness file* decides what runs or how it reports, whole (`conftest.py`, `pytest.ini`, `tox.ini`,
  `jest.config.js`, CI configuration) or in part (`pyproject.toml`'s `[tool.pytest…]`, `package.json`'s
  `scripts`, a Makefile's `test:` target, `pom.xml`'s Surefire settings, `Cargo.toml`'s `[[test]]`).
  `harness_part` extracts the part that matters, so a change to a project's dependencies is not a
  change to its test harness. The registry knows every file the supported runners read for their settings:
  pytest (`pytest.toml`, `.pytest.toml`, `pytest.ini`, `.pytest.ini`, `pyproject.toml`, `tox.ini`, `setup.cfg`,
  in its order of precedence, and plugins registered through `pytest11` entry points), tox and nox, jest, vitest
  (and `vite.config.*`'s `test` and `plugins`), mocha, ava, tap, node's `node.config.json` and npm's
  `node-options`, Babel (it compiles jest's tests), go (`replace` in `go.mod`/`go.work`), cargo and nextest, Maven
  (`.mvn/`), Gradle, CMake and CTest (`CTestCustom.cmake`, test presets).
- A *shadowing module* is a new module importable by a bare name that is also the name of a standard-library
  module (`argparse.py`, `json/__init__.py`) or of one the runner imports (`pytest`, `pluggy`, ...): inside the test
  process it replaces the real one. Importable by its bare name means its folder is on `sys.path` in a test run:
  the repository's root (`python -m pytest`, `python -m unittest` and pytest's rootdir put it there), `src/`, the
  folders named by pytest's `pythonpath` setting, and every test folder (pytest inserts the first folder above a
  test file that is not a package, and `unittest discover -s tests` inserts `tests/` even when it is one). `.pth`
  files and `sitecustomize` count wherever they are.
- A *fixture conftest* is a new `conftest.py` that only imports, defines fixtures and helpers and names values
  (`conftest_harness` finds nothing else in it): no more than a new test module can hold, so the judge runs it with the
  candidate's new tests, apart from the base's. Where base tests sit in its folder, it must not reach them either
  (`conftest_reach`: an autouse fixture, a fixture named like one they request).
- *Test data* is the tests' too: files in `fixtures/`, `__fixtures__/`, `testdata/`, `test_data/`, `test-data/`,
  `__snapshots__/`, snapshot and golden files (`*.snap`, `*.ambr`, `*.golden`), the files a base test names in a
  string literal (`data_named_by_tests`), and the files the base's tests were seen reading; never code, manifests
  or lock files.

Pure functions over paths and text: no I/O.
"""

from __future__ import annotations

import ast
import configparser
import json
import posixpath
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Callable, Collection, Mapping

from common.languages import is_code, is_test_name

# Folders whose files are the tests' (the tests themselves, their data and helpers, jest's module mocks); file names
# are the language's (common/languages.py).
TEST_FOLDER = re.compile(r"(^|/)(tests?|testing|__tests__|__mocks__|spec)(/|$)")
CI_PATH = re.compile(r"^(?:\.github/(?:workflows|actions)/|\.circleci/|\.buildkite/|\.gitlab-ci\.ya?ml$"
                     r"|\.travis\.ya?ml$|azure-pipelines\.ya?ml$|buildkite\.ya?ml$)|(?:^|/)Jenkinsfile$")
# Files that are all harness, wherever they are in the tree.
WHOLE_HARNESS = re.compile(
    r"(?:^|/)(?:conftest\.py|\.?pytest\.(?:ini|toml)|tox\.(?:ini|toml)|noxfile\.py|\.coveragerc"
    r"|\.mocharc(?:\.\w+)?|\.taprc|\.nycrc(?:\.\w+)?|\.c8rc(?:\.\w+)?"
    r"|(?:jest|vitest|karma|ava|playwright|cypress)\.config\.\w+|vitest\.(?:workspace|projects)\.\w+"
    r"|jest\.(?:setup|preset)\.\w+|babel\.config\.\w+|\.babelrc(?:\.\w+)?|node\.config\.json"
    r"|\.?nextest\.toml|CTestTestfile\.cmake|CTestCustom\.(?:cmake|ctest)|\.cargo/config(?:\.toml)?"
    r"|\.mvn/(?:maven\.config|jvm\.config|extensions\.xml))$")
# Where pytest looks for its settings, in its order of precedence (the first one found wins).
PYTEST_CONFIGS = ("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")
# Modules the test runners import besides the standard library's: a new module by one of these names replaces it.
RUNNER_MODULES = frozenset({
    "pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli", "colorama", "pygments",
    "xdist", "execnet", "coverage", "pytest_cov", "pytest_mock", "pytest_asyncio", "pytest_timeout",
    "pytest_randomly", "pytest_subtests", "pytest_rerunfailures", "pytest_django", "pytest_benchmark",
    "pytest_metadata", "pytest_html", "pytest_env", "hypothesis", "_hypothesis_pytestplugin", "nose", "nose2",
    "unittest2", "mock", "sitecustomize", "usercustomize"})
# The test runners' own top-level packages, whose classes collect, run, judge and report the tests: code that patches
# them patches the verdict. sandbox/run_hooks.py, which runs inside the test process with the standard library alone,
# keeps a copy that tests/sandbox/test_run_hooks.py holds equal to this one.
RUNNER_ROOTS = frozenset({"unittest", "pytest", "_pytest", "pluggy", "doctest", "nose", "nose2", "xdist"})
# Standard-library modules whose attributes are settings or hooks an application sets (`sys.stdout`,
# `logging.raiseExceptions`, `warnings.showwarning`, `threading.excepthook`): setting one patches nothing.
STDLIB_SETTINGS = frozenset({"sys", "logging", "warnings", "threading"})
# The standard library's top-level modules, with those of releases newer than the one running this code.
STDLIB_MODULES = frozenset(sys.stdlib_module_names) | {"annotationlib", "compression", "_colorize", "_pyrepl"}
JUDGE_MODULE_PREFIX = "ensemble_"  # the sandbox's own plugins (sandbox/scripts.py)
_MODULE_FILE = re.compile(r"^(?P<name>[A-Za-z_]\w*)(?:\.py|\.pyc|\.pyw|(?:\.[\w-]+)?\.(?:so|pyd))$")
# Folders and files that hold the tests' data (expected values, inputs, snapshots), wherever they are.
TEST_DATA = re.compile(r"(?:^|/)(?:fixtures|__fixtures__|testdata|test[-_]data|__snapshots__)/|\.(?:snap|ambr|golden)$")
# Files the runners and package managers read to install and start, never the tests' data (though a traced test
# run opens them): dependency manifests and lock files.
NOT_DATA = re.compile(r"(?:^|/)(?:[^/]+\.lock|package-lock\.json|npm-shrinkwrap\.json|pnpm-lock\.yaml|go\.sum"
                      r"|requirements[^/]*\.(?:txt|in)|Pipfile|\.python-version|\.nvmrc|\.node-version"
                      r"|\.tool-versions|\.gitignore|\.gitattributes|\.editorconfig)$")
# Files where only a part is harness (the rest is dependencies and build settings the code may need to change).
PARTLY_HARNESS = {"pyproject.toml", "setup.cfg", "package.json", "Cargo.toml", "pom.xml", "build.gradle",
                  "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "Makefile", "makefile", "GNUmakefile",
                  "CMakeLists.txt", "CMakePresets.json", "CMakeUserPresets.json", "go.mod", "go.work", ".npmrc"}
_VITE_CONFIG = re.compile(r"^vite\.config\.\w+$")
CONFTEST = "conftest.py"
# Names pytest reads off a conftest module besides its `pytest_*` hooks: what it collects and which plugins it loads.
CONFTEST_SETTINGS = frozenset({"collect_ignore", "collect_ignore_glob", "pytest_plugins"})
# Files at the repository's root that the runners read settings from when no file of their own exists.
ROOT_SETTINGS = {"pyproject.toml", "setup.cfg", "package.json", ".npmrc", "go.work", "CMakePresets.json",
                 "CMakeUserPresets.json"}
TEST_TARGETS = ("test", "tests", "check", "unittest", "unit")
_MAKE_RULE = re.compile(r"^(?P<targets>[^\s:#=][^:#=]*?)\s*::?(?!=)(?P<prereqs>[^\n]*)\n(?P<recipe>(?:\t[^\n]*\n?)*)", re.M)
_POM_TEST = re.compile(r"<plugin>(?:(?!</plugin>).)*?<artifactId>maven-(?:surefire|failsafe)-plugin</artifactId>"
                       r".*?</plugin>|<(?:skipTests|skipITs|maven\.test\.skip|testSourceDirectory|testFailureIgnore)"
                       r">[^<]*<", re.S)
_GRADLE_TEST = re.compile(r"^.*\b(?:test|Test|testing|useJUnit\w*|exclude|filter|ignoreFailures)\b.*$", re.M)
_CMAKE_TEST = re.compile(r"^\s*(?:add_test|enable_testing|set_tests_properties|include\s*\(\s*CTest|gtest_discover"
                         r"|catch_discover)\b.*$", re.M | re.I)
_GO_REPLACE = re.compile(r"^\s*replace\s*(?:\([^)]*\)|[^\n]*)", re.M)
_NPMRC = re.compile(r"^\s*(?:node-options|script-shell|ignore-scripts|scripts-prepend-node-path)\s*=.*$", re.M)
_JS_KEY = re.compile(r"(?<![\w$.])(?P<key>test|plugins)\s*:\s*")
# A string literal in a test file: where the test names a file it reads.
_LITERAL = re.compile(r"(?P<q>[\"'`])(?P<s>[^\"'`\n\\]{1,240})(?P=q)")
_JOINED = re.compile(r"\s*\)?\s*[/,+]\s*(?:\(\s*)?")  # `"a" / "b"`, `join("a", "b")`, `"a" + "/b"`


def is_test_path(path: str) -> bool:
    """True for files under test folders (tests/, test/, testing/, __tests__/, __mocks__/, spec/) and files their
    language's test runner collects by name (`test_x.py`, `x_test.go`, `x.test.js`, `FooTest.java`;
    common/languages.py)."""
    return in_test_folder(path) or is_test_name(path)


def in_test_folder(path: str) -> bool:
    """True for files under a test folder: tests/, test/, testing/, __tests__/, __mocks__/, spec/."""
    return bool(TEST_FOLDER.search(path))


def planted_name(host: str, part: str) -> str:
    """A new test file beside the test file `host`, named with `part` the way the runner that collects `host`
    collects it: `test_<part>.py` or `<part>_test.py` beside Python, `<part>.test.js` beside `x.test.js` (and
    `.spec.`, `_test.`, `-test.`, `test_`, `test-`) in JavaScript and TypeScript."""
    folder, name = posixpath.split(host)
    suffix = posixpath.splitext(name)[1]
    if suffix == ".py":
        new = f"{part}_test.py" if name.endswith("_test.py") and not name.startswith("test") else f"test_{part}.py"
    else:
        marker = next((m for m in (".test.", ".spec.", "_test.", "-test.") if m in name), None)
        new = f"{part}{marker}{name.rsplit(marker, 1)[1]}" if marker else \
            f"{name[:5]}{part}{suffix}" if name.startswith(("test_", "test-")) else f"{part}{suffix}"
    return posixpath.join(folder, new) if folder else new


def is_ci_path(path: str) -> bool:
    """True for CI configuration: GitHub Actions workflows and actions, GitLab, CircleCI, Jenkins, ..."""
    return bool(CI_PATH.search(path))


def is_harness_path(path: str) -> bool:
    """True for files that decide, wholly or in part, what the test runner collects or how it reports."""
    return bool(WHOLE_HARNESS.search(path)) or is_ci_path(path) or _extractor(path) is not None


def is_whole_harness(path: str) -> bool:
    """True for files that are harness through and through (a new one changes what runs: `conftest.py`)."""
    return bool(WHOLE_HARNESS.search(path)) or is_ci_path(path)


def is_new_harness(path: str, text: str) -> bool:
    """True when a file new in the tree, with `text`, decides what the tests run: a harness file, or a file at the
    repository's root that runners read settings from and that holds test settings (a new `pyproject.toml` with
    `[tool.pytest.ini_options]`, a `package.json` with a `jest` key). A new `Cargo.toml`, `pom.xml` or `go.mod`
    starts a new project, whose own settings decide nothing about the existing tests."""
    if is_whole_harness(path):
        return True
    if path not in ROOT_SETTINGS and not _VITE_CONFIG.match(path):
        return False
    part = harness_part(path, text) or ""
    try:
        value = json.loads(part)
    except ValueError:
        return bool(part.strip())
    return any(v not in (None, {}, []) for v in value.values()) if isinstance(value, dict) else bool(value)


def runs_apart(path: str, text: str) -> bool:
    """True for a new harness file the judge runs with the candidate's new tests alone, never the base's: a
    `conftest.py` that only defines fixtures and helpers (`conftest_harness` finds nothing)."""
    return posixpath.basename(path) == CONFTEST and conftest_harness(text) is None


def conftest_harness(text: str) -> str | None:
    """What in a `conftest.py` decides how every test of the session runs, wherever the file sits: a hook (a `pytest_*`
    name), a collection or plugin setting (`collect_ignore`, `pytest_plugins`), a star import (which may bring either)
    or a statement run for its effect as the file loads (`sys.path.insert(...)`, `stats.median = f`); None when it
    only imports, defines fixtures and helpers and names values."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return "it does not parse"
    for node in _module_statements(module.body):
        found = _conftest_statement(node)
        if found:
            return f"line {node.lineno}: {found}"
    return None


def conftest_reach(path: str, text: str, base_tests: Collection[str], read: Callable[[str], str | None]) -> str | None:
    """What in a new `conftest.py` at `path` reaches the base's tests that sit in its folder or below (`base_tests`:
    the base's Python test files, conftests included; `read` gives one's text): an autouse fixture, or a name it
    defines that they or the base's conftests above them request as a fixture. None when nothing does, or no base
    test sits there."""
    folder = posixpath.dirname(path)
    below = [p for p in base_tests if _within(p, folder) and posixpath.basename(p) != CONFTEST]
    if not below:
        return None
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return "it does not parse"
    if _autouse(module):
        return f"an autouse fixture would run around the existing tests in {folder or 'the repository'}/"
    above = [p for p in base_tests if posixpath.basename(p) == CONFTEST and _within(folder, posixpath.dirname(p))]
    requested = set().union(*(_requested(read(p) or "") for p in sorted({*below, *above})))
    clash = sorted(_bound_names(module) & requested)
    return f"it defines {', '.join(f'`{n}`' for n in clash[:3])}, which the existing tests there request as a " \
           f"fixture" if clash else None


def conftest_additions(path: str, before: str, after: str, base_tests: Collection[str],
                       read: Callable[[str], str | None]) -> str | None:
    """The part an edit of the existing `conftest.py` at `path` added, where that is all it did and the part only
    defines fixtures and helpers for new tests (`runs_apart`'s rules: no hook, setting or statement run for its
    effect, no autouse fixture, no name the existing tests there request: `conftest_reach`): every statement of
    `before` is in `after` as it was. The base's tests run with `before`, the new tests with `after`. None otherwise."""
    if posixpath.basename(path) != CONFTEST:
        return None
    try:
        old, new = ast.parse(before), ast.parse(after)
    except (SyntaxError, ValueError):
        return None
    kept = Counter(ast.dump(node) for node in old.body)
    lines = after.splitlines()
    added: list[str] = []
    for node in new.body:
        dumped = ast.dump(node)
        if kept[dumped]:
            kept[dumped] -= 1
            continue
        decorators = node.decorator_list if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) \
            else []
        first = min([node.lineno, *(d.lineno for d in decorators)])
        added += lines[first - 1:node.end_lineno]
    if +kept or not added:  # a statement of the base's changed or gone, or nothing added
        return None
    text = "\n".join(added) + "\n"
    if conftest_harness(text) is not None or conftest_reach(path, text, base_tests, read) is not None:
        return None
    return text


def _within(path: str, folder: str) -> bool:
    return not folder or path.startswith(folder + "/") or path == folder


def _module_statements(body: list[ast.stmt]) -> list[ast.stmt]:
    """The statements a module runs as it loads, with those inside its `if` and `try` blocks (version checks,
    optional imports)."""
    found: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            found += _module_statements(node.body + node.orelse)
        elif isinstance(node, ast.Try):
            found += _module_statements(node.body + node.orelse + node.finalbody
                                        + [s for h in node.handlers for s in h.body])
        else:
            found.append(node)
    return found


def _conftest_statement(node: ast.stmt) -> str | None:
    """What one module-level statement of a conftest.py does beyond defining fixtures and helpers (None: nothing)."""
    if isinstance(node, ast.Pass) or isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return None  # a docstring
    if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
        return f"a star import from {node.module or '.'} (it may bring hooks in)"
    if isinstance(node, ast.Assign | ast.AnnAssign) and not all(
            _names_only(t) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])):
        return f"`{ast.unparse(node)[:60]}` changes a value outside the file as it loads"
    if not isinstance(node, ast.Import | ast.ImportFrom | ast.Assign | ast.AnnAssign | ast.FunctionDef
                      | ast.AsyncFunctionDef | ast.ClassDef):
        return f"`{ast.unparse(node).splitlines()[0][:60]}` runs as the file loads"
    names = sorted(n for n in _bound_names_of(node) if n.startswith("pytest_") or n in CONFTEST_SETTINGS)
    return f"the hook or setting `{names[0]}`" if names else None


def _names_only(target: ast.expr) -> bool:
    """True for an assignment target that binds names and changes nothing else (`x`, `a, *b`)."""
    if isinstance(target, ast.Tuple | ast.List):
        return all(_names_only(e) for e in target.elts)
    return _names_only(target.value) if isinstance(target, ast.Starred) else isinstance(target, ast.Name)


def _bound_names(module: ast.Module) -> set[str]:
    """The names a module binds as it loads: what pytest may take for a fixture or a hook."""
    return {n for node in _module_statements(module.body) for n in _bound_names_of(node)}


def _bound_names_of(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        fixture = [k.value.value for d in node.decorator_list if isinstance(d, ast.Call) for k in d.keywords
                   if k.arg == "name" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str)]
        return {node.name, *fixture}  # `@pytest.fixture(name="x")` is requested as `x`
    if isinstance(node, ast.Import):  # a module is never a fixture, but a hook may hide behind its name
        return {a.asname for a in node.names if a.asname}
    if isinstance(node, ast.ImportFrom):
        return {a.asname or a.name for a in node.names}
    targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) else []
    return {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _autouse(module: ast.Module) -> bool:
    """True when the module calls a fixture decorator with `autouse` set to anything but a literal false."""
    return any(isinstance(n, ast.Call) and dotted_name(n.func).rsplit(".", 1)[-1].endswith("fixture")
               and any(k.arg == "autouse" and not (isinstance(k.value, ast.Constant) and not k.value.value)
                       for k in n.keywords) for n in ast.walk(module))


def _requested(text: str) -> set[str]:
    """The fixture names a Python test file may request: its functions' parameters and the names it passes to
    `usefixtures` or `getfixturevalue`; every word of a file that does not parse."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return set(re.findall(r"\w+", text))
    params = {a.arg for n in ast.walk(module) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
              for a in (*n.args.posonlyargs, *n.args.args, *n.args.kwonlyargs)}
    named = {a.value for n in ast.walk(module) if isinstance(n, ast.Call)
             and dotted_name(n.func).rsplit(".", 1)[-1] in ("usefixtures", "getfixturevalue")
             for a in n.args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return params | named


def dotted_name(node: ast.AST) -> str:
    """The dotted name an expression spells (`pytest.fixture`), "" for anything but names and attributes."""
    if isinstance(node, ast.Attribute):
        return f"{dotted_name(node.value)}.{node.attr}"
    return node.id if isinstance(node, ast.Name) else ""


def shadows_runner(path: str, pythonpath: Collection[str] = ()) -> bool:
    """True for a file that, new in a repository, would replace the test runner or a module it imports, or run
    inside every interpreter (`.pth`); `pythonpath` as for `shadowed_module`."""
    return path.endswith(".pth") or shadowed_module(path, pythonpath) is not None


def shadowed_module(path: str, pythonpath: Collection[str] = ()) -> str | None:
    """The standard-library or runner module that `path`, new, would replace inside the test process (None if none);
    `pythonpath`: the folders pytest's `pythonpath` setting names (`pytest_pythonpath`)."""
    folder, name = posixpath.split(path)
    if name == "__init__.py" and folder:
        folder, module = posixpath.split(folder)
    else:
        match = _MODULE_FILE.match(name)
        if match is None:
            return None
        module = match["name"]
    if module not in STDLIB_MODULES and module not in RUNNER_MODULES and not module.startswith(JUDGE_MODULE_PREFIX):
        return None
    return module if module in ("sitecustomize", "usercustomize") or on_sys_path(folder, pythonpath) else None


def on_sys_path(folder: str, pythonpath: Collection[str] = ()) -> bool:
    """True when the modules in `folder` are importable by their bare names in a test run (the rule is in the module
    docstring)."""
    folder = folder.strip("/")
    return folder in ("", "src") or folder in {posixpath.normpath(p).strip("/") for p in pythonpath} \
        or in_test_folder(folder + "/")


def pytest_pythonpath(read: Callable[[str], str | None]) -> list[str]:
    """The folders pytest's `pythonpath` setting puts on sys.path, from the settings file pytest reads (`read`
    gives a root file's text, None when absent)."""
    for name in PYTEST_CONFIGS:
        text = read(name)
        if text is None:
            continue
        found = _pytest_settings(name, text)
        if found is not None:
            value = found.get("pythonpath", [])
            return [str(v) for v in value] if isinstance(value, list) else str(value).split()
    return []


def _pytest_settings(name: str, text: str) -> dict[str, object] | None:
    """The pytest settings in one of PYTEST_CONFIGS (None when the file holds none, so pytest looks further)."""
    if name.endswith(".toml"):
        try:
            document = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        if name != "pyproject.toml":  # a dedicated file is pytest's settings even when empty
            table = document.get("pytest", {})
            return table if isinstance(table, dict) else {}
        table = document.get("tool", {}).get("pytest")
        table = table.get("ini_options", table) if isinstance(table, dict) else None
        return table if isinstance(table, dict) else None
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    section = "tool:pytest" if name == "setup.cfg" else "pytest"
    return dict(parser[section]) if parser.has_section(section) else ({} if name.endswith("pytest.ini") else None)


def is_test_data_path(path: str) -> bool:
    """True for files in the tests' data folders (`fixtures/`, `testdata/`, `__snapshots__/`, ...) and snapshot and
    golden files, wherever they are."""
    return bool(TEST_DATA.search(path))


def is_test_data(path: str, data: Collection[str] = ()) -> bool:
    """True for the tests' data: a file in a data folder (`is_test_data_path`), or one of `data` (files the base's
    tests read or name) that is neither code, nor a test or harness file, nor a manifest or lock file."""
    if is_test_data_path(path):
        return True
    return path in data and not (is_code(path) or is_test_path(path) or is_harness_path(path) or NOT_DATA.search(path))


def data_named_by_tests(test_texts: Mapping[str, str], paths: Collection[str]) -> set[str]:
    """The files of `paths` (the tree) that a test file names in a string literal, and that are not code: as a path
    from the repository's root or from the test's folder, a bare name beside the test, or a glob of either.

    Literals joined by `/`, `,` or `+` (`Path(__file__).parent / "data" / "x.json"`, `join("fixtures", "x.json")`)
    are read as one path.
    """
    tree = {p for p in paths if not is_code(p)}
    found: set[str] = set()
    for test, text in test_texts.items():
        here = posixpath.dirname(test)
        for literal in _literals(text):
            found |= _resolve(literal.removeprefix("./"), here, tree)
    return found


def _literals(text: str) -> list[str]:
    """Every string literal of `text`, and each run of literals joined into a path."""
    literals: list[str] = []
    run: list[str] = []
    end = -1
    for match in _LITERAL.finditer(text):
        if run and not _JOINED.fullmatch(text[end:match.start()]):
            if len(run) > 1:
                literals.append("/".join(part.strip("/") for part in run))
            run = []
        run.append(match["s"])
        literals.append(match["s"])
        end = match.end()
    if len(run) > 1:
        literals.append("/".join(part.strip("/") for part in run))
    return literals


def _resolve(literal: str, here: str, tree: set[str]) -> set[str]:
    """The files of `tree` that `literal`, written in a test in folder `here`, names."""
    if not literal or literal.startswith(("/", "http:", "https:")) or not re.search(r"[\w*]\.\w+$|/", literal):
        return set()
    bases = [here] if "/" not in literal else ["", here]
    found: set[str] = set()
    for base in bases:
        target = posixpath.normpath(posixpath.join(base, literal))
        if target.startswith("../") or target == "..":
            continue
        if any(c in target for c in "*?["):
            pattern = re.compile(_glob_regex(target))
            found |= {p for p in tree if pattern.fullmatch(p)}
        elif target in tree:
            found.add(target)
    return found


def _glob_regex(glob: str) -> str:
    """A glob as a regex: `*` and `?` stay within a folder, `**` crosses folders."""
    parts = re.split(r"(\*\*/?|\*|\?)", glob)
    table = {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}
    return "".join(table.get(part, re.escape(part)) for part in parts)


# pytest settings that only declare (marker names a test may carry under `--strict-markers`), where they are kept
DECLARATIONS = frozenset({"markers"})
_PYTEST_SECTIONS = ("pytest", "tool:pytest")  # pytest.ini, tox.ini, setup.cfg
_PYTEST_TABLES = (("tool", "pytest", "ini_options"), ("tool", "pytest"), ("pytest",))  # pyproject.toml, pytest.toml


def declares_only(path: str, before: str, after: str) -> bool:
    """True when `after` differs from `before` (one settings file's texts) only in the pytest markers it declares
    (`markers = slow: takes long`), or in what no runner reads (comments, spacing): a declaration lets a test carry
    its marker under `--strict-markers` and decides nothing of what any test runs or how it reports, so a new test's
    marker may be declared beside it."""
    if before == after:
        return False
    name = posixpath.basename(path)
    read: Callable[[str], object]
    if name in ("pyproject.toml", "pytest.toml", ".pytest.toml"):
        read = _toml_settings
    elif name in ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg"):
        read = _ini_settings
    else:
        return False
    was = read(before)
    return was is not None and was == read(after)


def _toml_settings(text: str) -> dict[str, object] | None:
    """A TOML settings file as read, but for pytest's declarations; None when it does not parse."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    for keys in _PYTEST_TABLES:
        table: object = document
        for key in keys:
            table = table.get(key) if isinstance(table, dict) else None
        if isinstance(table, dict):
            for declared in DECLARATIONS:
                table.pop(declared, None)
    return document


def _ini_settings(text: str) -> dict[str, dict[str, str]] | None:
    """An INI settings file's sections as read, but for pytest's declarations; None when it does not parse."""
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return {section: {k: v for k, v in parser[section].items()
                      if not (section in _PYTEST_SECTIONS and k in DECLARATIONS)}
            for section in [configparser.DEFAULTSECT, *parser.sections()]}


def harness_part(path: str, text: str | None) -> str | None:
    """The part of `text` that decides what the tests run and how they report; None when the file is absent.

    Two versions of a file with the same harness part run the same tests the same way.
    """
    if text is None:
        return None
    if is_whole_harness(path):
        return text
    extract = _extractor(path)
    return extract(text) if extract else ""


def _extractor(path: str) -> Callable[[str], str] | None:
    """How to read the test settings out of a file that is harness in part; None for other files."""
    name = posixpath.basename(path)
    if name.endswith((".gradle", ".gradle.kts")):
        return _lines(_GRADLE_TEST)
    if _VITE_CONFIG.match(name):
        return _js_config
    return _PARTS.get(name)


def _pyproject(text: str) -> str:
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return text  # unreadable: every byte may matter
    tool, project = document.get("tool", {}), document.get("project", {})
    parts = {k: tool.get(k) for k in ("pytest", "coverage", "tox", "nox", "hatch") if k in tool}
    plugins = {"project": project.get("entry-points", {}).get("pytest11"),
               "poetry": tool.get("poetry", {}).get("plugins", {}).get("pytest11")}
    parts.update({f"pytest11 ({k})": v for k, v in plugins.items() if v})  # plugins pytest loads by themselves
    return _canonical(parts)


def _setup_cfg(text: str) -> str:
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return text
    parts = {s: dict(parser[s]) for s in parser.sections()
             if s in ("tool:pytest", "pytest") or s.startswith(("coverage:", "tox"))}
    if parser.has_option("options.entry_points", "pytest11"):
        parts["pytest11"] = {"pytest11": parser.get("options.entry_points", "pytest11")}
    return _canonical(parts)


def _package_json(text: str) -> str:
    try:
        package = json.loads(text)
    except json.JSONDecodeError:
        return text
    if not isinstance(package, dict):
        return text
    return _canonical({k: package.get(k) for k in ("scripts", "jest", "mocha", "ava", "c8", "nyc", "vitest", "tap")
                       if k in package})


def _cargo(text: str) -> str:
    try:
        manifest = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return text
    package = manifest.get("package", {})
    return _canonical({"test": manifest.get("test"), "lib": manifest.get("lib"), "bin": manifest.get("bin"),
                       "autotests": package.get("autotests"), "profile.test": manifest.get("profile", {}).get("test")})


def _makefile(text: str) -> str:
    rules = [m.group(0).strip() for m in _MAKE_RULE.finditer(text.replace("\\\n", " ") + "\n")
             if set(m["targets"].split()) & set(TEST_TARGETS)]
    return "\n".join(rules)


def _pom(text: str) -> str:
    return "\n".join(m.group(0) for m in _POM_TEST.finditer(text))


def _json_keys(*keys: str) -> Callable[[str], str]:
    def part(text: str) -> str:
        try:
            document = json.loads(text)
        except json.JSONDecodeError:
            return text
        return _canonical({k: document.get(k) for k in keys if k in document}) if isinstance(document, dict) else text
    return part


def _js_config(text: str) -> str:
    """The `test` and `plugins` entries of a `vite.config.*` (vitest reads the file when it has no config of its
    own, and the plugins compile the tests): each entry's value, brackets balanced."""
    parts = []
    for match in _JS_KEY.finditer(text):
        start = match.end()
        if start < len(text) and text[start] in "{[(":
            parts.append(f"{match['key']}: {text[start:_balanced_end(text, start)]}")
        else:
            parts.append(f"{match['key']}: {text[start:].split(chr(10), 1)[0].strip()}")
    return "\n".join(parts)


def _balanced_end(text: str, start: int) -> int:
    """Where the bracket opened at `start` closes (the end of `text` when it never does)."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] in "{[(":
            depth += 1
        elif text[i] in "}])":
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def _lines(pattern: re.Pattern[str]) -> Callable[[str], str]:
    return lambda text: "\n".join(m.group(0).strip() for m in pattern.finditer(text))


def _canonical(data: object) -> str:
    return json.dumps(data, sort_keys=True, default=str)


_PARTS = {"pyproject.toml": _pyproject, "setup.cfg": _setup_cfg, "package.json": _package_json, "Cargo.toml": _cargo,
          "Makefile": _makefile, "makefile": _makefile, "GNUmakefile": _makefile, "pom.xml": _pom,
          "build.gradle": _lines(_GRADLE_TEST), "build.gradle.kts": _lines(_GRADLE_TEST),
          "settings.gradle": _lines(_GRADLE_TEST), "settings.gradle.kts": _lines(_GRADLE_TEST),
          "CMakeLists.txt": _lines(_CMAKE_TEST), "CMakePresets.json": _json_keys("testPresets"),
          "CMakeUserPresets.json": _json_keys("testPresets"), "go.mod": _lines(_GO_REPLACE),
          "go.work": _lines(_GO_REPLACE), ".npmrc": _lines(_NPMRC)}
assert set(_PARTS) == PARTLY_HARNESS


# The class-name endings JVM runners find tests by (Surefire's `**/*Test.java`, `*Tests`, `*TestCase`): a new test
# file's mark goes before them, so `FooTest.java` becomes `Foo_reproTest.java`, not `FooTest_repro.java`, which no
# runner would run.
_JVM_TEST_ENDINGS = ("TestCase", "Tests", "Test")
_JVM_SOURCES = ("java", "kt", "groovy", "scala")


def fresh_test_path(path: str, exists: Callable[[str], bool], mark: str = "_repro") -> str:
    """A new test file's path beside `path`, named the way its runner finds tests (`x_test.go` -> `x_repro_test.go`,
    `FooTest.java` -> `Foo_reproTest.java`, `mark` being what sets it apart)."""
    folder, _, name = path.rpartition("/")
    for marker in ("_test.", ".test.", ".spec.", "."):
        if marker in name:
            stem, _, rest = name.rpartition(marker) if marker == "." else name.partition(marker)
            break
    ending = next((e for e in _JVM_TEST_ENDINGS if stem.endswith(e) and stem != e), "") if rest in _JVM_SOURCES else ""
    if ending:
        stem, marker = stem.removesuffix(ending), f"{ending}{marker}"
    for n in range(1, 100):
        suffix = mark if n == 1 else f"{mark}{n}"
        candidate = f"{stem}{suffix}{marker}{rest}"
        full = f"{folder}/{candidate}" if folder else candidate
        if not exists(full):
            return full
    return path
