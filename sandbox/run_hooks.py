"""Hooks in every Python process of a test run: loaded as `sitecustomize` from the sandbox's plugin folder.

Whatever the test command is (`python -m unittest`, `make test`, a script that starts Python), each
Python process it starts loads this module first. It does nothing unless the run asks for it:

- `ENSEMBLE_TRACE_READS=1`: an audit hook records each repository file opened for reading, once per opener,
  as `path<TAB>opener` in `$ENSEMBLE_RESULTS/reads.log`: both repository-relative, the opener being the file of
  the innermost frame of the repository's own code at the open ('' when none: the runner reading its config).
  The judge learns which files the tests themselves read, as opposed to the code under test.
- `ENSEMBLE_SKIP`: unittest test ids (`module.Class::test`, one a line) that do not run and are not
  reported: a suite resumed after a kill leaves out the tests that finished and the one that was killed.
- `ENSEMBLE_LIST`: a token; unittest prints `token<TAB>module.Class::test` for each test its loader found,
  after a line holding the token alone, and runs none (sandbox/listing.py).
- `ensemble_owned.txt` beside this module (the judge's files of the run, one repository path a line): an audit
  hook refuses, with PermissionError, every change the process tries to make to them or to the folders above
  them (opening one to write, renaming, removing, truncating, chmod), and records each refusal as
  `event<TAB>path<TAB>opener` in `$ENSEMBLE_RESULTS/owned.log`. Audit hooks cannot be removed, so code under
  test that runs in the process cannot rewrite a test, the harness or the tests' data and put it back before
  the run ends; a process that is not Python (a shell the tests start) is bound by the files' modes alone.
  In the same runs, the methods of the test runners' classes (`unittest.TestCase.assertEqual`, pytest's
  `TestReport`) are taken down before any repository code runs (unittest's here, pytest's when the runner loads
  the sandbox's pytest plugin) and compared before and after each test and when the process ends: each one
  replaced, added or removed is recorded as `module.Class.name<TAB>replacement` in
  `$ENSEMBLE_RESULTS/patches.log`, the replacement named by the file its code is in, so the judge tells the
  tests' own patches from the code's however the code named what it patched (`setattr` with a name built at
  run time). Python's audit events do not report attributes set on a class; this comparison does. At the first
  test and at the end, the functions and methods of the libraries the tests rely on (the standard library, the
  runners, and the installed libraries the judge's modules import: `numpy.testing`, `packaging.version`) whose code
  is the repository's (`json.loads` replaced by the code under test), those replaced by a callable with no code to
  name (`math.isclose` replaced by `max`: in judged runs every module that is not the repository's is taken down
  once it has loaded, before the code imported next runs), and their names in `sys.modules` that a repository file
  holds are recorded too.
  The judge's Python files are checked for honesty (`_Honesty`): every comparison they make, every difference, ratio
  and absolute value they take, every builtin value's predicate they ask (`answer.startswith(...)`) and every value
  they show (`str`, `repr`, a doctest example's) or hand to a call (a library's matcher compares it) is examined for a
  forged value (`honesty.log`), the code under test opening one is recorded, and `linecache` gives the code under test
  none of their lines (so neither `inspect.getsource` nor a stack's source lines tell it what a test expects). The
  code under test reading the code object of the test that called it (`__code__`, whose constants are what the test
  expects) once it has walked the heap (`gc.get_objects`, `get_referrers`, `get_referents`) is recorded too, and so
  are doctest examples from a repository file that are no string written in it (the code under test rewrote its
  docstring as it ran), and, at the process's end, the functions of the judge's modules the code under test replaced
  in memory (a test helper emptied) or put in place of what a test imported, and the judge's code that a module of the
  code under test holds (the tests' reference implementation, imported). A `conftest.py` in the tree, or a
  `sitecustomize.py` or `.pth` in the tree or the environment's site folders, cannot be made while the tests run:
  refused and recorded as a change to a judge's file.

Then the image's own `sitecustomize`, if it has one, runs as it would have. Standard library only: the
module runs on whatever Python the image has.
"""

from __future__ import annotations

import contextlib  # loaded by `site` already too, where a .pth file is read
import functools  # loaded by `site` already (through `contextlib`)
import operator  # C's; `collections` (which `site` loads) imports it already
import os
import sys
import types  # loaded by `site` already: costs this module nothing

TYPE_CHECKING = False  # typing itself costs every Python process of the run milliseconds: only mypy reads these
if TYPE_CHECKING:
    import ast
    import doctest
    import threading
    import unittest
    from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
    from importlib.machinery import ModuleSpec
    from pathlib import Path
    from typing import Any, TypeGuard

    from _pytest.config import Config
    from _typeshed.importlib import MetaPathFinderProtocol

READS_LOG = "reads.log"
OWNED_LOG = "owned.log"
PATCHES_LOG = "patches.log"
HONESTY_LOG = "honesty.log"
DOCTEST_OPENER = "<doctest>"  # reads.log's opener for a file whose examples ran as doctests
# common/testfiles.py's, copied for a module that imports nothing outside the standard library (held equal by a test)
RUNNER_ROOTS = frozenset({"unittest", "pytest", "_pytest", "pluggy", "doctest", "nose", "nose2", "xdist"})
# the runners' modules whose classes run a test, decide its outcome and report it: checked after each test (all of
# RUNNER_ROOTS' classes at the first test and at the process's end)
REPORTING = frozenset({"unittest.case", "unittest.result", "unittest.runner", "unittest.suite", "_pytest.reports",
                       "_pytest.runner", "_pytest.python", "_pytest.nodes", "_pytest.main", "_pytest.junitxml",
                       "_pytest.terminal", "_pytest.unittest", "_pytest.outcomes", "_pytest.assertion.rewrite",
                       "_pytest.assertion.util", "_pytest.fixtures", "pluggy._hooks", "pluggy._callers",
                       "pluggy._manager"})
STDLIB_SETTINGS = frozenset({"sys", "logging", "warnings", "threading"})  # common/testfiles.py's too: held equal


def _newer_sys(name: str) -> object:
    """`sys.<name>`, or None on a Python too old to have it: the one place this module asks which Python runs it
    (the tests may run on any)."""
    return getattr(sys, name, None)


_STDLIB_NAMES = _newer_sys("stdlib_module_names")  # Python 3.10
_STDLIB = frozenset(_STDLIB_NAMES if isinstance(_STDLIB_NAMES, (frozenset, set, tuple)) else ()) - {"__main__"}
AUDIT_HOOKS = _newer_sys("addaudithook") is not None  # Python 3.8
OWNED_LIST = "ensemble_owned.txt"  # beside this module, written by the sandbox (sandbox/scripts.py)
MAX_READS = 20_000  # files one process records
MAX_REFUSALS = 200  # refusals one process records (each is refused whether recorded or not)
OWN_FOLDERS = (".ensemble-results", ".ensemble-plugins")
ELSEWHERE = ("/", "<")  # a code file named so is outside a repository whose root it does not start with (`<string>`)
CODE = (types.FunctionType, staticmethod, classmethod, types.MethodType, property)  # what `_origin` finds code in
OFFSET = 7_000_003  # how far a changed copy of a number is moved far off (`_near_copies` moves one a little)
WRITE_MODES = frozenset("wax")
# the comparisons the judge's code makes that route through `__ensemble_compare__`, by the number it passes
COMPARISONS = ("==", "!=", "in", "not in")
PLAIN = frozenset({int, float, complex, str, bytes, bool, type(None)})  # values whose equality is C's alone
BUILTIN_VALUES = (bool, int, float, complex, str, bytes, tuple, list, dict, set, frozenset)
CONTAINERS = (list, tuple, set, frozenset, dict)  # a compared value of one of these: its elements are examined
HEAP_TYPE = 1 << 9  # Py_TPFLAGS_HEAPTYPE: a class written in Python (not C's)
_MODULE_SPEC = type(sys.__spec__)  # importlib's ModuleSpec, without importing importlib
_OBJECT_EQ = vars(object)["__eq__"]
_MODULE_DICT = vars(types.ModuleType)["__dict__"]  # a module's namespace, read by C whatever its class's code says
# a class's names and bases, read by C's own members of `type` (a metaclass's own could be code)
_TYPE_MODULE, _TYPE_QUALNAME, _TYPE_MRO = vars(type)["__module__"], vars(type)["__qualname__"], vars(type)["__mro__"]
# judged runs: each standard-library and runner module's callables as first seen whole, and every module looked at
# (`hold_libraries`)
_HELD: dict[str, dict[str, object]] = {}
_HELD_SEEN: set[str] = set()
_HELD_METHODS: dict[int, tuple[object, dict[str, object]]] = {}  # their classes' methods: id -> (class, methods)
MAX_ELEMENTS = 200  # elements of a container compared that are examined, per level
MAX_DEPTH = 3  # levels of containers examined
HANDED_ELEMENTS = 20  # elements of a container the judge's code hands a call that are examined (one level)
UNITTEST_COMPARISONS = {"assertEqual": 0, "assertNotEqual": 1, "assertIn": 2, "assertNotIn": 3,
                        "assertCountEqual": 0, "assertListEqual": 0, "assertTupleEqual": 0, "assertDictEqual": 0,
                        "assertSetEqual": 0, "assertSequenceEqual": 0, "assertMultiLineEqual": 0,
                        "assertAlmostEqual": 0, "assertNotAlmostEqual": 1,
                        "assertLess": 4, "assertLessEqual": 5, "assertGreater": 6, "assertGreaterEqual": 7}
# a routed comparison's operator by its number (`_Honesty.compare`): 0-3 ==, !=, in, not in; from 4 the orderings
ORDERINGS: dict[int, Callable[..., object]] = {4: operator.lt, 5: operator.le, 6: operator.gt, 7: operator.ge}
ORDERING_METHODS = ("__lt__", "__le__", "__gt__", "__ge__")
# the builtin values' own predicates (truth-valued methods): a call of one in the judge's code routes through
# `__ensemble_method__` (`_Honesty.method`), where a subclass of the code under test's may answer what it is never asked
PREDICATES = frozenset(name for kind in (str, bytes, set, frozenset, float, int) for name in vars(kind)
                       if name.startswith("is") or name in ("startswith", "endswith"))
# the arithmetic the judge's code routes through `__ensemble_arith__` (`_Honesty.arithmetic`), by the number it passes,
# with the methods of a number's class that do it: a difference and a ratio are what a closeness check is made of
ARITHMETIC: dict[int, tuple[Callable[..., object], tuple[str, str]]] = {
    0: (operator.sub, ("__sub__", "__rsub__")), 1: (operator.truediv, ("__truediv__", "__rtruediv__"))}
NUMBERS = (int, float, complex)
# the builtins whose one-argument calls in the judge's code route through a hook (the name in scope passed along):
# a distance, and a value's display (`_Honesty.magnitude`, `_Honesty.display`)
ROUTED_CALLS = {"abs": "__ensemble_abs__", "str": "__ensemble_shown__", "repr": "__ensemble_shown__"}
# other values of a builtin, asked of a predicate of the value alone (`isdigit`): a constant answer is no predicate's
PREDICATE_SAMPLES: dict[type, tuple[object, ...]] = {str: ("", "0", "a", "A", " ", "a1"), bytes: (b"", b"0", b"a", b"A", b" "),
                                                     float: (0.0, 0.5, -1.5), int: (0, 1)}
# the heap's walks, which hand out every object the process holds (the tests' functions among them), and the
# attributes whose read raises `object.__getattr__` with a function's, generator's or coroutine's code
WALKS = frozenset({"gc.get_objects", "gc.get_referrers", "gc.get_referents"})
TRACERS = frozenset({"sys.settrace", "sys.setprofile"})  # a function set to see every frame as it runs
SPAWNS = frozenset({"subprocess.Popen", "os.system", "os.posix_spawn", "os.spawn", "os.exec", "os.forkpty"})
REACHED_TESTS = "reached_tests"  # as sandbox/model.py names it (this module imports none of the sandbox's)
CODE_OF = frozenset({"__code__", "gi_code", "cr_code", "ag_code"})
ARGUMENTS_FLAGS = (0x04, 0x08)  # CO_VARARGS, CO_VARKEYWORDS: a function's `*args` and `**kwargs` (inspect's values)
MAX_HANDED = 200  # values looked at inside one argument, to find a file the judge's code handed the code under test
# the audit events that change a file or a folder, and the positions of the paths they change in their arguments
CHANGES = {"os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,), "os.truncate": (0,), "os.chmod": (0,),
           "os.chown": (0,), "shutil.rmtree": (0,), "os.link": (1,), "os.symlink": (1,)}
# Files that, made while the tests run, change how the rest of the run goes: a `conftest.py` in the tree (pytest loads
# it as it collects the folder), and the interpreter's start-up files (a `.pth` or `sitecustomize` where this
# environment's site folders or the tree are: every Python process started after reads them). None is the judge's
# yet, so no listing names them: the names are (common/testfiles.py's harness names, held equal by
# tests/sandbox/test_run_hooks.py).
RUN_TIME_HARNESS = frozenset({"conftest.py"})
START_UP_FILES = frozenset({"sitecustomize.py", "usercustomize.py"})


def _thread_flag() -> threading.local:
    """A flag each thread holds apart, False until that thread sets it: whether a hook is at work in the thread
    already (its own reads and writes are not hooked again)."""
    import threading

    class Flag(threading.local):
        on = False

    return Flag()


def _trace_reads(workspace: str, results: str) -> None:
    """Record each repository file a process opens for reading (not the seeds linked in, not the sandbox's own)."""
    root = os.path.join(os.path.abspath(workspace), "")
    log = os.path.join(results, READS_LOG)
    seen: set[tuple[str, str]] = set()
    busy = _thread_flag()

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event != "open" or busy.on or len(seen) >= MAX_READS:
            return
        busy.on = True
        try:
            rel = _repository_path(args, root)
            if rel is not None:
                opener = _opener(sys._getframe(1), root)
                if (rel, opener) not in seen:
                    seen.add((rel, opener))
                    _append(log, f"{rel}\t{opener}")
        except Exception:  # noqa: BLE001 - an exception here would fail the test's own open()
            pass
        finally:
            busy.on = False

    sys.addaudithook(hook)


def _guard_owned(workspace: str, results: str, listing: str) -> None:
    """Refuse every change this process tries to make to the files named in `listing` (repository paths), to the
    folders above them and to this module's own logs, recording each in `results`/owned.log (the module's
    docstring)."""
    import errno

    root = os.path.abspath(workspace)
    with open(listing, encoding="utf-8") as f:
        names = [line.rstrip("\n") for line in f if line.strip()]
    log, patches = os.path.join(results, OWNED_LOG), os.path.join(results, PATCHES_LOG)  # the latter: _watch_runner
    honesty = os.path.join(results, HONESTY_LOG)  # _check_honesty's
    # the logs of this hook too (the traced reads are written by another hook, in the base's run alone)
    files = {os.path.realpath(os.path.join(root, name)) for name in names} | {
        os.path.realpath(log), os.path.realpath(patches), os.path.realpath(honesty)}
    folders = {os.path.realpath(root), os.path.realpath(results), os.path.realpath(os.path.dirname(results))}
    for name in names:
        parent = os.path.dirname(name)
        while parent:
            folders.add(os.path.realpath(os.path.join(root, parent)))
            parent = os.path.dirname(parent)
    prefix = os.path.join(root, "")
    sites = _site_folders()
    seen: set[tuple[str, str, str]] = set()
    busy = _thread_flag()

    def harness(full: str) -> bool:  # a file that, once made, the runner or the interpreter loads: RUN_TIME_HARNESS
        name = os.path.basename(full)
        if name in START_UP_FILES or name.endswith(".pth"):
            return full.startswith(prefix) or os.path.dirname(full) in sites
        return name in RUN_TIME_HARNESS and full.startswith(prefix)

    def writer(path: str) -> Callable[[str], None]:  # a log of the sandbox's, which this hook refuses to anyone else
        def write(line: str) -> None:
            busy.on = True
            try:
                _append(path, line)
            finally:
                busy.on = False

        return write

    _WRITE_PATCH.append(writer(patches))
    _WRITE_HONESTY.append(writer(honesty))

    def record(path: str, entry: tuple[str, str, str]) -> None:
        if entry not in seen and len(seen) < MAX_REFUSALS:
            seen.add(entry)
            with contextlib.suppress(OSError):  # a full disk: a refused change is refused all the same
                _append(path, "\t".join(entry))

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open":
            targets = [args[0]] if _writes(args) else []
        elif event == "os.exec" and _STREAM:  # the process is replaced: its records end here
            _stream_end()
            return
        elif event in CHANGES:
            targets = [args[i] for i in CHANGES[event] if i < len(args)]
        else:
            return
        if busy.on:
            return
        busy.on = True
        try:
            for target in targets:
                full = _real(target)
                if full is None or not (full in files or (event != "open" and full in folders) or harness(full)):
                    continue
                rel = os.path.relpath(full, root).replace(os.sep, "/") if full.startswith(prefix) \
                    else f"<site-packages>/{os.path.basename(full)}"  # not the host's folders
                record(log, (event, rel, _opener(sys._getframe(1), prefix)))
                raise PermissionError(errno.EACCES, "the test run may not change this file: the judge owns it", rel)
        finally:
            busy.on = False

    sys.addaudithook(hook)


# The runners' classes as they were before any repository code ran: "module:Class" -> (the class, its methods, the
# names in its namespace then, and their values in that order: what `check_runner` compares, quickly)
_RUNNER: dict[str, tuple[type, dict[str, object], tuple[str, ...], tuple[object, ...]]] = {}
_PATCHES: list[str] = []  # where patches.log goes (one entry: the path), once the run is guarded
_WRITE_PATCH: list[Callable[[str], None]] = []  # how a line gets into it past the guard (_guard_owned)
_WRITE_HONESTY: list[Callable[[str], None]] = []  # how a line gets into honesty.log past the guard
_REPORTED: set[str] = set()
_CHECKED: list[bool] = []  # unittest's first test was preceded by a full check


def snapshot_runner() -> None:
    """Take down the methods of the runner modules' classes loaded now and not taken yet (unittest's at start,
    pytest's when it loads the sandbox's plugin), before any repository code can have patched them."""
    if not _PATCHES:
        return
    for name, module in list(sys.modules.items()):
        if not isinstance(module, types.ModuleType) or name.split(".")[0] not in RUNNER_ROOTS:
            continue
        try:
            for value in list(vars(module).values()):
                if isinstance(value, type) and vars(value).get("__module__") == name:
                    names = tuple(vars(value))
                    _RUNNER.setdefault(f"{name}:{value.__qualname__}",
                                       (value, _methods(value), names, tuple(map(vars(value).get, names))))
        except Exception as exc:  # noqa: BLE001 - taking them down must never fail the tests; that it failed is evidence
            _report(name, f"a check that failed: {type(exc).__name__}")


def check_runner(full: bool = True) -> None:
    """Record each method of the classes taken down by `snapshot_runner` that is now replaced, added or removed,
    once, with what replaced it, in patches.log (the module's docstring). Not `full`: the classes that run a test
    and report it only (`REPORTING`), the check made after each test."""
    if not _PATCHES:
        return
    root = os.path.join(os.path.abspath(os.environ.get("ENSEMBLE_WORKSPACE") or os.getcwd()), "")
    for key in list(_RUNNER):
        if full or key.split(":", 1)[0] in REPORTING:
            try:
                _check_class(key, root)
            except Exception as exc:  # noqa: BLE001 - the check must never fail the tests; that it failed is evidence
                _report(key.replace(":", "."), f"a check that failed: {type(exc).__name__}")
    if not full:
        return
    finders = (("the standard library", _repository_code_in_the_libraries), ("the tests' modules",
               _product_code_in_the_tests), ("the tests' code", _tests_compiled_elsewhere))
    for what, found in finders:
        try:
            for target, origin in found(root):
                _report(target, origin)
        except Exception as exc:  # noqa: BLE001 - as above
            _report(what, f"a check that failed: {type(exc).__name__}")
    if _HONESTY:  # these record what they find themselves
        for what, record in (("threading's hooks", _HONESTY[0].traces_threads),
                             ("the code's modules", _HONESTY[0].holds_the_tests)):
            try:
                record()
            except Exception as exc:  # noqa: BLE001 - as above
                _report(what, f"a check that failed: {type(exc).__name__}")


def _check_class(key: str, root: str) -> None:
    """`check_runner` for one class taken down."""
    cls, was, names, values = _RUNNER[key]
    namespace = vars(cls)
    if len(namespace) == len(names) and all(map(operator.is_, map(namespace.get, names), values)):
        return  # nothing set, added or removed: the common case, checked in C (by identity: a replacement can be
        # equal to anything)
    now = _methods(cls)  # compared with the methods as they were first (`was`), reported once each
    current = tuple(namespace)
    _RUNNER[key] = (cls, was, current, tuple(map(namespace.get, current)))
    home = _package_folder(key.split(".", 1)[0].split(":", 1)[0])
    for attr in sorted(now.keys() | was.keys()):
        if now.get(attr) is was.get(attr):
            continue
        origin = _origin(now.get(attr, namespace.get(attr)), root)  # a method replaced by data: what holds it
        if home and origin.startswith(home):  # the runner's own (pytest's legacypath plugin adds methods)
            continue
        _report(f"{key.replace(':', '.')}.{attr}", origin)


def check_item(item: object) -> None:
    """Around a pytest test's call in a judged run: the item still runs what pytest collected from the judge's file.
    A plugin of the code under test (registered at run time, its hook named at run time) that gives the item a
    `runtest` of its own, or another function in place of the test's, runs nothing of the test and passes it: the
    replacement is reported as the runner's classes' are (patches.log), named by the file its code is in."""
    if not _HONESTY or not _PATCHES:
        return
    honesty, own = _HONESTY[0], vars(item)
    name = str(_node_attribute(item, "nodeid") or "a test")
    if "runtest" in own:
        _report(f"{name}: its runtest", _origin(own["runtest"], honesty.root))
    parent, called = _node_attribute(item, "parent"), own.get("_obj")
    holder = vars(parent).get("_obj") if parent is not None else None
    original = vars(holder).get(str(own.get("originalname") or _node_attribute(item, "name"))) \
        if isinstance(holder, (type, types.ModuleType)) else None
    code, expected = _code_of(called), _code_of(original)
    if called is None or original is None or code is expected:
        return
    if code is None or (honesty.is_product(code.co_filename) and not honesty.is_judges(code.co_filename)):
        _report(f"{name}: the test function it calls", _origin(called, honesty.root))


def _node_attribute(node: object, name: str) -> object:
    """A pytest node's attribute as its class defines it (a slot, a property: pytest's own code, whose classes
    `check_runner` watches), never through an instance's own; None where it has none."""
    try:
        return object.__getattribute__(node, name)
    except Exception:  # noqa: BLE001 - another pytest's node: nothing to name it by
        return None


def _code_of(value: object) -> types.CodeType | None:
    """The code a test's callable runs: a function's, a bound method's or a static method's function's."""
    value = value.__func__ if isinstance(value, (types.MethodType, staticmethod, classmethod)) else value
    return value.__code__ if isinstance(value, types.FunctionType) else None


def _report(target: str, origin: str) -> None:
    """One line of patches.log, once."""
    line = f"{target}\t{origin}"
    if line in _REPORTED or len(_REPORTED) >= MAX_REFUSALS:
        return
    _REPORTED.add(line)
    try:
        if _WRITE_PATCH:
            _WRITE_PATCH[0](line)
        else:
            _append(_PATCHES[0], line)
    except OSError:  # a full disk must not fail the tests
        pass


def _repository_code_in_the_libraries(root: str) -> Iterator[tuple[str, str]]:
    """The functions and methods of the libraries the tests rely on (the standard library's modules, the runners',
    and the installed libraries the judge's modules import: `_libraries_of_the_tests`) whose code is the
    repository's (`json.loads`, `pytest.fail` or `numpy.testing.assert_allclose` replaced by a function of the code
    under test, however it named it, or by a callable that runs one: `_object_origin`), the functions replaced by a
    callable with no code of its own (`math.isclose` replaced by `max`, which has no code to tell whose it is:
    `_c_in_place`), and those libraries' names in `sys.modules` that a repository file holds; but for the modules
    whose settings applications set (`sys`, `logging`, `warnings`, `threading`). Found by where the code is, so
    whenever the module was first loaded. Some twenty thousand values in a pytest process, twice a run: each is let
    go by its type first."""
    classes: dict[int, tuple[type, str]] = {}  # each class's `_class_origin`, worked out once: id -> (class, origin)
    tops = _tests_top_modules()  # one walk of the judge's namespaces for both uses
    watched = _STDLIB | RUNNER_ROOTS | _libraries_of_the_tests(root, tops)
    yield from _libraries_the_repository_shadows(root, tops)
    for name, module in list(sys.modules.items()):
        top = name.split(".")[0]
        space = _namespace(module)
        if space is None or top not in watched or top in STDLIB_SETTINGS:
            continue
        where = space.get("__file__")
        if isinstance(where, str) and where.startswith(root):
            yield f"sys.modules[{name!r}]", where[len(root):].replace(os.sep, "/")
            continue
        try:
            yield from _replaced_in(name, space, root, watched, classes)
        except Exception as exc:  # noqa: BLE001 - a library's value whose reading raised: the others are still read
            yield name, f"a check that failed: {type(exc).__name__}"


def _replaced_in(name: str, space: dict[str, object], root: str, watched: Collection[str],
                 classes: dict[int, tuple[type, str]]) -> Iterator[tuple[str, str]]:
    """`_repository_code_in_the_libraries` for one module, `space` its namespace. Values are told apart by their
    types alone: `isinstance` would ask a proxy's `__class__`, which is code (a web framework's request object)."""
    held = _HELD.get(name, {})
    for attr, value in list(space.items()):
        kind = type(value)
        if kind is types.FunctionType:  # most values: a function, which only its code's file can make the repository's
            where = value.__code__.co_filename  # type: ignore[attr-defined]  # a function: `kind` says so
            if (where.startswith(root) or not where.startswith(ELSEWHERE)) and (origin := _repository_origin(value, root)):
                yield f"{name}.{attr}", origin
        elif issubclass(kind, CODE):
            if origin := _repository_origin(value, root):
                yield f"{name}.{attr}", origin
        elif issubclass(kind, type):
            if _TYPE_MODULE.__get__(value, type) == name:
                yield from _replaced_methods(f"{name}.{_TYPE_QUALNAME.__get__(value, type)}", value, root,  # type: ignore[arg-type]
                                             watched)
            elif attr in held and held[attr] is not value and (origin := _class_origin(value, root)):  # type: ignore[arg-type]
                yield f"{name}.{attr}", origin  # a class of the repository's where the module held another
                continue
        elif callable(value) and (origin := _object_origin(value, root, classes)):  # in a function's place
            yield f"{name}.{attr}", origin
            continue
        if attr in held and held[attr] is not value and (origin := _c_in_place(value, watched)):
            yield f"{name}.{attr}", origin


def _replaced_methods(qualname: str, cls: type, root: str, watched: Collection[str]) -> Iterator[tuple[str, str]]:
    """`_replaced_in` for the members of a library's class `cls`: those whose code is the repository's, and those
    where the class held another function and now holds a callable with no code of its own (`_c_in_place`). The
    members are read as `_methods` reads them, a function's in one step (most of them)."""
    held_class, had = _HELD_METHODS.get(id(cls), (None, {}))
    held = held_class is cls
    for method, code in list(vars(cls).items()):
        kind = type(code)
        if kind is types.FunctionType:  # its code says whose it is; a function is never `_c_in_place`'s
            where = code.__code__.co_filename
            if (where.startswith(root) or not where.startswith(ELSEWHERE)) and (origin := _repository_origin(code, root)):
                yield f"{qualname}.{method}", origin
            continue
        if issubclass(kind, (staticmethod, classmethod, property, types.MethodType)):  # a function inside
            origin = _repository_origin(code, root)
        elif callable(code) and not issubclass(kind, type):
            origin = ""  # C's (a method descriptor), or an object: no function of its own to tell whose it is
        else:
            continue  # data and classes, as `_methods` leaves them
        if not origin and held and had.get(method) is not code:  # replaced, or added over an inherited one
            origin = _c_in_place(code, watched)
        if origin:
            yield f"{qualname}.{method}", origin


def hold_libraries() -> None:
    """Take down the callables (classes too) of the modules loaded whole since the last call that are not the
    repository's (the standard library's, the runners', the installed libraries'), but for the settings modules:
    what `_repository_code_in_the_libraries` holds each to when it finds a callable with no code of its own in
    its place. A judged run's hooks call it as they load and at every import after (`_judged_finder`), so a module is
    taken down before the code imported after it runs; a module the code under test loads and changes before its
    next import is not. Only C reads a module here: a library's module class may run code on any attribute read
    (apipkg's imports as `__dict__` is read), and this runs inside an import."""
    root = _HONESTY[0].root if _HONESTY else None
    for name in sys.modules.keys() - _HELD_SEEN:
        module = sys.modules.get(name)
        space = _namespace(module)
        if space is None or name.partition(".")[0] in STDLIB_SETTINGS or (root is not None and _in_repository(
                space, root)):
            _HELD_SEEN.add(name)
            continue
        spec = space.get("__spec__")
        if type(spec) is _MODULE_SPEC and vars(spec).get("_initializing"):
            continue  # taken down once it has loaded whole
        _HELD_SEEN.add(name)
        _HELD[name] = {attr: value for attr, value in list(space.items()) if callable(value)}
        for value in list(space.values()):  # and the methods of the classes the module defines
            if issubclass(type(value), type) and _TYPE_MODULE.__get__(value, type) == name:
                _HELD_METHODS[id(value)] = (value, _methods(value))  # type: ignore[arg-type]  # a class


def _namespace(module: object) -> dict[str, object] | None:
    """A module's own namespace as C holds it, whatever its class's code says (None for what is no module)."""
    return _MODULE_DICT.__get__(module) if issubclass(type(module), types.ModuleType) else None


def _in_repository(space: dict[str, object], root: str) -> bool:
    """True for a module (its namespace) whose file, or a namespace package whose folder, is in the repository
    (`root`, with a trailing separator)."""
    where = space.get("__file__")
    if isinstance(where, str):
        return _real_folder(os.path.dirname(where)).startswith(root)
    folders = space.get("__path__")  # a namespace package's: importlib's _NamespacePath holds its list as `_path`
    listed = folders if type(folders) is list else vars(folders).get("_path") if hasattr(
        type(folders), "_recalculate") else None
    return any(isinstance(f, str) and _real_folder(f).startswith(root) for f in list(listed or ()))


@functools.lru_cache(maxsize=None)  # noqa: UP033 - `cache` is 3.9's, and the tests may run on 3.8
def _real_folder(folder: str) -> str:
    """`folder` with its links resolved and a trailing separator (asked once a folder: a library's modules share
    theirs)."""
    return os.path.join(os.path.realpath(folder), "")


@functools.lru_cache(maxsize=None)  # noqa: UP033 - as above
def _code_file(name: str) -> str:
    """The real path of the file a loaded module or a code object came from (its `__file__`, its `co_filename`),
    resolved once: where loaded code came from is settled when it loaded, and the checks ask it of every module and
    frame, again and again (`os.path.realpath`, in Python, was a tenth of a judged process's time)."""
    return os.path.realpath(name)


def _judges_namespaces() -> Iterator[dict[str, object]]:
    """The namespaces of the judge's Python modules loaded now (none outside a judged run)."""
    owned = _HONESTY[0].owned if _HONESTY else set()
    for module in list(sys.modules.values()):
        space = _namespace(module)
        where = space.get("__file__") if space is not None else None
        if space is not None and isinstance(where, str) and _code_file(where) in owned:
            yield space


def _tests_top_modules() -> set[str]:
    """The top-level modules, neither the standard library's nor the runners', whose modules, functions, classes or
    objects the judge's Python modules hold as they run (`import numpy.testing`, `from packaging.version import
    Version`)."""
    tops = set()
    for space in _judges_namespaces():
        for value in list(space.values()):
            kind = type(value)  # never `isinstance`: a proxy's `__class__` is code
            if issubclass(kind, types.ModuleType):
                home = _MODULE_DICT.__get__(value).get("__name__")
            elif kind in (types.FunctionType, types.BuiltinFunctionType):
                home = value.__module__  # C's member: reading it runs no code
            else:  # a class, or an object whose class is the library's (a numpy ufunc)
                home = _TYPE_MODULE.__get__(value if issubclass(kind, type) else kind, type)
            if isinstance(home, str):
                tops.add(home.partition(".")[0])
    return tops - _STDLIB - RUNNER_ROOTS - {"builtins"}


def _libraries_of_the_tests(root: str, tops: Collection[str]) -> frozenset[str]:
    """The installed libraries among `tops` (`_tests_top_modules`: not the repository's) the tests hold. They are the
    tests' instruments as much as `math.isclose` is: what they compare, the code under test must leave as it found
    it."""
    libraries = set()
    for top in tops:
        found = _namespace(sys.modules.get(top))
        if found is not None and (found.get("__file__") or found.get("__path__")) and not _in_repository(found, root):
            libraries.add(top)
    return frozenset(libraries)


def _libraries_the_repository_shadows(root: str, tops: Collection[str]) -> Iterator[tuple[str, str]]:
    """The top-level modules the judge's modules hold that are the repository's where an installed library of that
    name is there to import (`yaml.py` new beside the tests, in place of the yaml they compare with), with the
    repository's file: the tests' instrument replaced as a whole. Found whichever change made it: the judge refuses
    what the base's run did not show."""
    if not _HONESTY:
        return
    from importlib.machinery import PathFinder

    owned = _HONESTY[0].owned
    outside = [p for p in sys.path if isinstance(p, str) and p and not _real_folder(p).startswith(root)]
    for top in sorted(tops):
        found = _namespace(sys.modules.get(top))
        if found is None or not _in_repository(found, root):
            continue
        where = found.get("__file__")
        relative = _code_file(where)[len(root):].replace(os.sep, "/") if isinstance(where, str) else top
        if relative.startswith(OWN_FOLDERS) or (isinstance(where, str) and _code_file(where) in owned):
            continue  # the sandbox's own hooks, which the judge's plugin imports; the tests' own package (`tests`)
        installed = PathFinder.find_spec(top, outside)
        if installed is not None and installed.origin and not _real_folder(installed.origin).startswith(root):
            yield f"sys.modules[{top!r}]", relative


def _c_in_place(value: object, homes: Collection[str]) -> str:
    """What `value`, found where a module held another function, is when it is a callable with no code of its own of
    a library the tests rely on (`homes`: a builtin such as `max`, a C function of a standard-library module, an
    `operator` object, a class such as `range`, a numpy ufunc, or a `functools.partial` of one): '' for anything else
    (code, which `_repository_origin` names, and what no such library holds, which another library put there). Only
    the C types' own members are read: no code runs."""
    while type(value) is functools.partial:  # a subclass's `func` could be code
        value = value.func
    if issubclass(type(value), CODE):
        return ""
    if type(value) is types.BuiltinFunctionType:
        owner = value.__self__
        home = vars(owner).get("__name__") if isinstance(owner, types.ModuleType) else "builtins"
        what = f"{home}.{value.__name__}"
    else:
        cls = value if issubclass(type(value), type) else type(value)
        if any(isinstance(v, types.FunctionType) for c in _TYPE_MRO.__get__(cls, type) for v in list(vars(c).values())):
            return ""  # a class with code of its own: whose it is, is `_object_origin`'s question
        home = _TYPE_MODULE.__get__(cls, type)
        what = f"{home}.{_TYPE_QUALNAME.__get__(cls, type)}"
    if not isinstance(home, str) or home.partition(".")[0] not in homes:
        return ""
    return f"a callable with no code of its own ({what})"  # "a ...": no file (evidence.py)


def _product_code_in_the_tests(root: str) -> Iterator[tuple[str, str]]:
    """The functions of the judge's Python modules that the code under test replaced after the module defined them
    (a test helper emptied, however the code reached the module), and the names a test imported with `from` from
    another of the judge's modules that are not what that module defined (replaced before the test imported them,
    or a module put in its place in `sys.modules`), with where the code that took their place is. Each is held to
    what its module had when it ran to its end (`_Honesty.loaded`), so a function a decorator of the code under
    test wrapped as the module ran is the module's own."""
    if not _HONESTY:
        return
    honesty = _HONESTY[0]
    classes: dict[int, tuple[type, str]] = {}
    defined: dict[str, frozenset[str]] = {}  # a judge's file that never ran to its end -> the functions it defines

    def code_of(value: object) -> str:  # the code under test's file holding `value`'s code, or ""
        origin = _repository_origin(value, root) or _object_origin(value, root, classes)
        return origin if origin and _code_file(os.path.join(root, origin)) not in honesty.owned else ""

    for where, (space, functions, imports) in list(honesty.modules.items()):
        name = space.get("__name__", where)
        for attr, was in functions.items():
            now = space.get(attr)
            if now is not was and (origin := code_of(now)):
                yield f"{name}.{attr}", origin
        for level, source, names in imports:
            found = _judges_file(_absolute(level, source, space), honesty.owned)
            if found is None:
                continue
            theirs = honesty.modules[found][1] if found in honesty.modules else None
            for remote, local in names:
                now = space.get(local)
                if theirs is not None:
                    changed = remote in theirs and now is not theirs[remote]
                else:  # the module never ran: something else stood in its place when the test imported from it
                    changed = remote in _defined_functions(found, defined)
                if changed and (origin := code_of(now)):
                    yield f"{name}.{local}", origin


def _tests_compiled_elsewhere(root: str) -> Iterator[tuple[str, str]]:
    """The tests of the judge's Python modules whose code is not what the judge compiled from their file as written
    (its loader, or pytest's rewrite it watches): a module the code under test loaded past the judge's loaders, as an
    import hook of its own does when it rewrites a test module while it loads (a finder put first on the meta path,
    a path hook, a loader in the path's cache). A test is a function or method whose name starts with `test`; any
    other function counts where its code says it is from the judge's file. Each is named with the file of the code
    that loaded its module, where that is the code under test's. Nothing is said where pytest runs unwatched."""
    if not _HONESTY or (not _HONESTY[0].pytest and "_pytest.assertion.rewrite" in sys.modules):
        return
    honesty = _HONESTY[0]
    for name, module in list(sys.modules.items()):
        where = vars(module).get("__file__") if isinstance(module, types.ModuleType) else None
        full = _code_file(where) if isinstance(where, str) and where.endswith(".py") else ""
        if full not in honesty.owned or not full.startswith(honesty.root) \
                or full[len(honesty.root):].split(os.sep, 1)[0] in OWN_FOLDERS:  # the sandbox's own: not the judge's
            continue
        for function in _functions_of(vars(module), name):
            code = function.__code__
            if code in honesty.compiled or not (function.__name__.startswith("test")
                                                or _code_file(code.co_filename) == full):
                continue
            rel = _relative(full, root)
            yield (f"{name}.{function.__qualname__} (its module loaded past the judge's loaders)",
                   _loader_origin(vars(module).get("__spec__"), honesty)
                   or f"a loader other than the judge's ({rel} was not run as the judge compiled it)")


def _functions_of(space: dict[str, object], module: str, depth: int = 0) -> Iterator[types.FunctionType]:
    """The functions a module's namespace `space` defines (named as from `module`), and those of its classes."""
    for value in list(space.values()):
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if isinstance(value, types.FunctionType) and value.__module__ == module:
            yield value
        elif isinstance(value, type) and vars(value).get("__module__") == module and depth < 3:
            yield from _functions_of(dict(vars(value)), module, depth + 1)


def _loader_origin(spec: object, honesty: _Honesty) -> str:
    """The file of the code under test that holds the loader of a module's `spec`, repository-relative; or ""."""
    loader = spec.loader if isinstance(spec, _MODULE_SPEC) else None
    if loader is None:
        return ""
    try:
        held = [*vars(loader).values()]
    except TypeError:  # a loader with no namespace of its own
        held = []
    for cls in _TYPE_MRO.__get__(type(loader), type):
        held += vars(cls).values()
    for value in held:
        value = value.__func__ if isinstance(value, staticmethod | classmethod) else value
        if isinstance(value, types.FunctionType) and os.path.isabs(value.__code__.co_filename) \
                and honesty.is_product(value.__code__.co_filename):
            return _relative(_code_file(value.__code__.co_filename), honesty.root)
    return ""


def _judges_file(name: str, owned: set[str]) -> str | None:
    """The judge's file the module `name` is: the one loaded under that name, or, where `sys.modules` holds something
    else under it (put there before it loaded), the file the name finds; None for any other module."""
    module = sys.modules.get(name)
    where = vars(module).get("__file__") if isinstance(module, types.ModuleType) else None
    if isinstance(where, str):
        return _code_file(where) if _code_file(where) in owned else None
    from importlib.machinery import PathFinder

    spec, parts = None, name.split(".") if name else []
    for depth in range(len(parts)):  # each package on the way found, not imported
        path = spec.submodule_search_locations if spec is not None else None
        if depth and not path:
            return None
        spec = PathFinder.find_spec(".".join(parts[:depth + 1]), path)
        if spec is None:
            return None
    found = os.path.realpath(spec.origin) if spec is not None and isinstance(spec.origin, str) else None
    return found if found in owned else None


def _defined_functions(path: str, cache: dict[str, frozenset[str]]) -> frozenset[str]:
    """The functions the Python file `path` defines at its top level (parsed once)."""
    if path not in cache:
        import ast

        try:
            with open(path, "rb") as f:
                tree: ast.Module | None = ast.parse(f.read(), path)
        except (OSError, SyntaxError, ValueError):
            tree = None
        cache[path] = frozenset(node.name for node in (tree.body if tree else ())
                                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return cache[path]


def _absolute(level: int, name: str, space: dict[str, object]) -> str:
    """The absolute name of the module a `from` import names (`level` dots, then `name`) in the module `space`."""
    if not level:
        return name
    package = str(space.get("__package__") or "").split(".")
    base = ".".join(package[:len(package) - level + 1]) if level <= len(package) else ""
    return ".".join(filter(None, [base, name]))


def _object_origin(value: object, root: str, classes: dict[int, tuple[type, str]]) -> str:
    """Where the code a callable that is not a function runs is, when it is the repository's: a `functools.partial`
    of a repository function, or an object of a class whose methods are (`json.loads` replaced by an object whose
    `__call__` answers what the tests expect); '' for anything else. Objects that are not callable (an event loop
    policy the code under test set) are settings, not replaced functions, and are not looked at."""
    kind = type(value)
    if kind is functools.partial:
        return _repository_origin(value.func, root)  # type: ignore[attr-defined]  # C's member: reading runs nothing
    if not kind.__flags__ & HEAP_TYPE:
        return ""
    if id(kind) not in classes:  # keyed by id: a class's own hash is code the repository could have written
        classes[id(kind)] = (kind, _class_origin(kind, root))
    return classes[id(kind)][1]


def _class_origin(kind: type, root: str) -> str:
    """The first repository file holding code of `kind` or of the classes it inherits from; '' when none does."""
    for cls in kind.__mro__:
        for code in _methods(cls).values():
            if origin := _repository_origin(code, root):
                return origin
    return ""


def _repository_origin(value: object, root: str) -> str:
    """Where the code of `value` is when it is the repository's (a file inside `root`, or one named relatively: code
    compiled from a string under a made-up name), repository-relative; '' for anything else (`_origin`'s names of
    code outside the repository, "<string>" and the like, and of objects with no code of their own)."""
    value = _unwrapped(value)
    if type(value) is not types.FunctionType:
        return ""
    name = value.__code__.co_filename
    if name.startswith(root):
        name = name[len(root):].replace(os.sep, "/")
        return "" if name.startswith(OWN_FOLDERS) else name
    return "" if name.startswith(ELSEWHERE) else name


def _package_folder(name: str) -> str:
    """The folder of the top-level package `name` (a runner's), with a trailing separator; '' when not loaded."""
    module = sys.modules.get(name)
    where = vars(module).get("__file__") if isinstance(module, types.ModuleType) else None
    return os.path.join(os.path.dirname(where), "") if isinstance(where, str) else ""


def _methods(cls: type) -> dict[str, object]:
    """The attributes of `cls` itself that are code: functions, methods, properties (not data, not classes)."""
    return {name: value for name, value in list(vars(cls).items())
            if issubclass(type(value), (staticmethod, classmethod, property))
            or (callable(value) and not issubclass(type(value), type))}


def _unwrapped(value: object) -> object:
    """The function a method, a static or class method or a property holds; anything else as it is."""
    kind = type(value)  # not `isinstance`: a proxy's `__class__` is code
    if issubclass(kind, (staticmethod, classmethod, types.MethodType)):
        return value.__func__  # type: ignore[attr-defined]  # one of those three: `kind` says so
    return value.fget if issubclass(kind, property) else value  # type: ignore[attr-defined]


def _origin(value: object, root: str) -> str:
    """Where the code of `value` is: its file (repository-relative inside the repository), "removed", or the kind of
    object it is when it has no code of its own (a builtin, a partial, a mock)."""
    if value is None:
        return "removed"
    value = _unwrapped(value)
    if not isinstance(value, types.FunctionType):  # no attribute of anything else is read: it could run code
        return f"a {type(value).__name__}"
    name = value.__code__.co_filename
    return name[len(root):].replace(os.sep, "/") if name.startswith(root) else name


def _watch_runner(results: str, skip: frozenset[str]) -> None:
    """Watch the runners' classes in this process (the module's docstring): unittest's now, with each test's start
    and end checked (the tests in `skip` left out as `ENSEMBLE_SKIP` asks), and at the process's end."""
    import atexit

    _PATCHES.append(os.path.join(results, PATCHES_LOG))
    _wrap_unittest(skip, check=True)
    snapshot_runner()
    atexit.register(check_runner)  # the first registered runs last


class _Fresh:
    """An object of a class no code under test has seen: honest equality never holds with it."""

    __slots__ = ()


class _Honesty:
    """Checks of the values the judge's code compares and of what the code under test reads (the module's
    docstring), recorded in honesty.log."""

    def __init__(self, root: str, owned: set[str], write: Callable[[str], None], data: Collection[str] = ()) -> None:
        self.root = root  # the workspace, with a trailing separator
        self.owned = owned  # real paths of the judge's Python files
        self.inodes = _inodes(owned)  # the same files by device and inode, which an open is checked against
        self.data = _inodes(data) - self.inodes  # the judge's other files (the tests' data, the harness's settings)
        self.write = write
        self.product: dict[tuple[type, tuple[str, ...]], bool] = {}  # (class, methods) -> the code under test's?
        self.equality: dict[type, bool] = {}  # class -> whether it has an equality other than identity
        self.spelled: frozenset[str] | None = None  # the names the judge's files spell (`names`)
        self.reported: set[str] = set()
        self.walkers: dict[str, str] = {}  # file of the code under test -> the first heap walk it made
        self.busy = _thread_flag()  # this check reading a code object itself (which raises the event it hooks)
        self.quoting = _thread_flag()  # reading the source of a function the tests handed the code (`quoted`)
        self.judges: dict[str, bool] = {}  # a code object's file name -> whether it is one of the judge's files
        # a judge's module that ran to its end -> (its namespace, its functions then, its `from` imports): `loaded`
        self.modules: dict[str, tuple[dict[str, object], dict[str, object],
                                      tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...]]] = {}
        # the code the judge compiled from its files as written (its loader's, pytest's rewrite), and what it holds:
        # a judge's test must run this code (`_tests_compiled_elsewhere`); `pytest` once pytest's rewrite is watched
        self.compiled: set[types.CodeType] = set()
        self.pytest = False

    def compiled_here(self, code: types.CodeType) -> types.CodeType:
        """Take down `code`, compiled by the judge from one of its files, with the code it holds (its functions',
        classes' and comprehensions'): `code`."""
        todo = [code]
        while todo:
            now = todo.pop()
            if now not in self.compiled:
                self.compiled.add(now)
                todo += [const for const in now.co_consts if isinstance(const, types.CodeType)]
        return code

    def compare(self, left: object, right: Any, op: int, where: str) -> object:  # right: anything `in` may take
        """`left op right` as the judge's code wrote it, its values examined after."""
        result = left == right if op == 0 else left != right if op == 1 else left in right if op == 2 \
            else left not in right if op == 3 else ORDERINGS[op](left, right)
        if op not in ORDERINGS or _holds(lambda: result):  # an order that does not hold passes nothing: asked no more
            self.examine(left, right, op, where)
        return result

    def examine(self, left: object, right: object, op: int, where: str) -> None:
        """Record each forged value among the two sides of a comparison (and their elements)."""
        try:
            if op in ORDERINGS:
                self._ordered(left, right, where)
                self._ordered(right, left, where)
            elif op < 2:
                self._value(left, right, where, 0)
                self._value(right, left, where, 0)
            else:
                self._value(left, None, where, 0)
                self._value(right, left, where, 0)
                self._membership(right, left, where)
        except Exception:  # noqa: BLE001 - the check must never fail the test; its code is the code under test's
            pass

    def argument(self, value: object, where: str) -> object:
        """`value` as the judge's code hands it to a call, examined first: a library's matcher or check helper
        (`assert_that(answer, equal_to(5))`, `check.equal(answer, 5)`) compares it where no routed comparison sees it,
        so a value of the code under test's class with a forged equality is recorded wherever it goes (and one in a
        small list, tuple, set or dict handed over), and so is one whose order or membership holds for anything. Only
        the code under test's classes are examined: it is cheap for every other value."""
        kind = type(value)
        if kind in PLAIN:
            return value
        with contextlib.suppress(Exception):  # the check must never fail the test
            if kind in CONTAINERS and isinstance(value, CONTAINERS):
                if len(value) <= HANDED_ELEMENTS:
                    for element in list(value.values() if isinstance(value, dict) else value):
                        if type(element) not in PLAIN and self._product_equality(type(element)):
                            self._value(element, None, where, MAX_DEPTH)
                return value
            if self._product_equality(kind):
                self._value(value, None, where, MAX_DEPTH)
            if self._product_code(kind, ORDERING_METHODS):  # `greater_than(4)` orders it out of sight
                self._ordered(value, _Fresh(), where)
            self._membership(value, _Fresh(), where)  # `contains_string('5')` asks its membership
        return value

    def _membership(self, container: object, item: object, where: str) -> None:
        """Record a builtin's subclass of the code under test's (a str, a list) whose membership holds what no honest
        one does: an object of a class it has never seen, or the item asked for and a changed copy of it too (`'5' in
        answer` passes with it whatever it holds). A membership of its own that is honest, such as one that ignores
        case, holds neither."""
        kind = type(container)
        base = next((b for b in BUILTIN_VALUES if isinstance(container, b)), None)
        if base is None or kind is base or not self._product_code(kind, ("__contains__",)):
            return
        contains: Callable[..., object] = operator.contains
        changed = _changed_copy(item) if type(item) in PLAIN else None
        if _holds(lambda: contains(container, _Fresh())):
            what = "an object of a class it has never seen"
        elif changed is not None and _holds(lambda: contains(container, item)) \
                and _holds(lambda: contains(container, changed)):
            what = "the value asked for and other values of its kind as well"
        else:
            return
        self._record("forged_value", f"{where}: a {kind.__module__}.{kind.__qualname__} of the code under test "
                                     f"({base.__name__}'s subclass) holds {what}: a comparison with it proves nothing")

    def method(self, value: object, name: str, where: str) -> object:
        """`value.name` as the judge's code wrote it (`name` one of PREDICATES): where `value` is a builtin's subclass
        whose predicate `name` the code under test wrote, a callable that examines each answer (`_predicate`)."""
        bound = getattr(value, name)
        try:
            kind = type(value)
            base = next((b for b in BUILTIN_VALUES if isinstance(value, b)), None)
            if base is None or kind is base or name not in vars(base) or not self._product_code(kind, (name,)):
                return bound
        except Exception:  # noqa: BLE001 - the check must never fail the test
            return bound

        def asked(*args: object, **kwargs: object) -> object:
            answer = bound(*args, **kwargs)
            with contextlib.suppress(Exception):  # as above
                self._predicate(value, base, name, args, answer, where)
            return answer

        return asked

    def _predicate(self, value: object, base: type, name: str, args: tuple[object, ...], answer: object,
                   where: str) -> None:
        """Record a builtin's subclass of the code under test's whose predicate `name` (asked with `args`) gave
        `answer` where no honest one would: the same answer to an object of a class it has never seen, or to a
        changed copy of what it was asked, where the builtin's own predicate of the same value answers otherwise;
        a predicate of the value alone (`isdigit`) that gives it for every other value of its kind the builtin
        answers otherwise for. A predicate of its own that is honest (one that ignores case) answers as the builtin
        does on such values."""
        if type(answer) is not bool:
            return
        override: Callable[..., object] = getattr(type(value), name)  # the subclass's function: asked of other values
        own: Callable[..., object] = getattr(base, name)

        def said(predicate: Callable[..., object], *call: object) -> bool | None:
            try:
                found = predicate(*call)
            except Exception:  # noqa: BLE001 - a builtin refuses a stranger
                return None
            return found if type(found) is bool else None

        if args:
            for i, arg in enumerate(args):
                empty = type(arg)() if type(arg) in (str, bytes, tuple, set, frozenset) else None
                for other in (_Fresh(), _changed_copy(arg), empty):
                    call = (*args[:i], other, *args[i + 1:])
                    honest = said(own, value, *call)
                    if other is None or honest is answer or (honest is None and not answer):
                        continue
                    if said(override, value, *call) is answer:
                        what = "an object of a class it has never seen" if isinstance(other, _Fresh) \
                            else f"{other!r}"[:60]
                        return self._record("forged_value", f"{where}: a {type(value).__module__}."
                                            f"{type(value).__qualname__} of the code under test ({base.__name__}'s "
                                            f"subclass) answers {name}() {answer} for {what} too, where "
                                            f"{base.__name__}'s own {name}() does not: its answer proves nothing")
            return
        contrary = [v for v in PREDICATE_SAMPLES.get(base, ()) if said(own, v) is not answer]
        if len(contrary) >= 2 and all(said(override, v) is answer for v in contrary):
            self._record("forged_value", f"{where}: a {type(value).__module__}.{type(value).__qualname__} of the code "
                                         f"under test ({base.__name__}'s subclass) answers {name}() {answer} for "
                                         f"every {base.__name__}, where {base.__name__}'s own {name}() does not: its "
                                         "answer proves nothing")

    def arithmetic(self, left: object, right: object, op: int, where: str) -> object:
        """`left - right` (op 0) or `left / right` (op 1) as the judge's code wrote it, examined after
        (`_arithmetic`)."""
        compute = ARITHMETIC[op][0]
        result = compute(left, right)
        with contextlib.suppress(Exception):  # the check must never fail the test
            self._arithmetic(left, right, op, result, where)
        return result

    def _arithmetic(self, left: object, right: object, op: int, result: object, where: str) -> None:
        """Record a number of the code under test's class (a builtin's subclass whose arithmetic it wrote) whose
        difference or ratio with a plain number is the same when that number is moved far up and far down: no
        honest arithmetic ignores its operand (`abs(answer - 5) < 1e-9` passes with it whatever it is). Arithmetic of
        its own that is honest (units kept, a floor at zero) moves one way at least."""
        compute, methods = ARITHMETIC[op]
        for value, other, first in ((left, right, True), (right, left, False)):
            kind = type(value)
            if type(other) not in NUMBERS or kind in NUMBERS or not isinstance(value, NUMBERS) \
                    or not _finite(value) or not self._product_code(kind, methods):
                continue  # an infinity's arithmetic ignores its operand honestly
            # two moves no modulus divides both of: arithmetic modulo a number moves with one of them at least
            moved = [compute(value, o) if first else compute(o, value)
                     for o in (other + OFFSET, other - OFFSET - 1)]  # type: ignore[operator]
            if all(type(m) is type(result) and m == result for m in moved):
                name = "difference" if op == 0 else "ratio"
                self._record("forged_value", f"{where}: a {kind.__module__}.{kind.__qualname__} of the code under "
                                             f"test ({next(b for b in NUMBERS if isinstance(value, b)).__name__}'s "
                                             f"subclass) gives the same {name} with {other!r} as with numbers far "
                                             "from it: arithmetic that ignores its operand proves nothing")
                return

    def magnitude(self, function: Callable[..., object], value: object, where: str) -> object:
        """`abs(value)` as the judge's code wrote it (`function`: whatever `abs` named there): a number of the code
        under test's class whose own `__abs__` answers other than the builtin's absolute value of it is recorded (a
        distance of 0 from anything: `abs(answer - 5) < 1e-9` passes whatever it is)."""
        result = function(value)
        with contextlib.suppress(Exception):  # the check must never fail the test
            kind = type(value)
            base = next((b for b in NUMBERS if isinstance(value, b)), None)
            if function is abs and base is not None and kind not in NUMBERS \
                    and self._product_code(kind, ("__abs__",)):
                honest = vars(base)["__abs__"](value)  # the builtin's own, whatever the subclass says
                if not (isinstance(result, NUMBERS) and result == honest):
                    self._record("forged_value", f"{where}: a {kind.__module__}.{kind.__qualname__} of the code under "
                                                 f"test ({base.__name__}'s subclass) gives {result!r:.40} as its "
                                                 f"absolute value, where {base.__name__}'s is {honest!r:.40}: a "
                                                 "distance that is not the value's proves nothing")
        return result

    def display(self, function: Callable[..., object], value: object, where: str) -> object:
        """`str(value)` or `repr(value)` as the judge's code wrote it (`function`: whatever the name was there),
        the value examined as it is shown (`shown`)."""
        text = function(value)
        if function is str or function is repr:
            with contextlib.suppress(Exception):  # the check must never fail the test
                self.shown(value, where, function)
        return text

    def _numeric(self, value: object, where: str) -> None:
        """A compared number of the code under test's class, its own arithmetic examined where a library does the
        arithmetic out of sight (`pytest.approx` and unittest's assertAlmostEqual take the difference themselves):
        the difference either way with a number moved far up and far down, and the absolute value of it and of the
        differences it gives."""
        if not _finite(value):
            return
        kind = type(value)
        differences = [value]
        if self._product_code(kind, ARITHMETIC[0][1]):
            differences = [value, operator.sub(value, 0), operator.sub(0, value)]
            self._arithmetic(value, 0, 0, differences[1], where)
            self._arithmetic(0, value, 0, differences[2], where)
        for number in differences:
            if isinstance(number, NUMBERS) and type(number) not in NUMBERS \
                    and self._product_code(type(number), ("__abs__",)):
                self.magnitude(abs, number, where)

    def shown(self, value: object, where: str, display: Callable[[object], object] = repr) -> None:
        """Record a builtin's subclass of the code under test's whose display (`repr`, or `str` where it is printed:
        what a doctest compares) is the literal of another value of its kind than its own: `-1` shown as `5`. A
        display of its own that is no literal (`<Color.RED: 1>`, a masked secret), or a number rounded to the digits
        it shows, is honest."""
        import ast

        kind = type(value)
        base = next((b for b in BUILTIN_VALUES if isinstance(value, b)), None)
        if base is None or kind is base or not self._product_code(kind, ("__repr__",) if display is repr
                                                                          else ("__str__", "__repr__")):
            return
        text = display(value)
        if not isinstance(text, str) or text == base.__repr__(value):
            return
        try:
            literal = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return  # a display of its own kind: not a value of the builtin's
        if not isinstance(literal, base) and not (isinstance(literal, (int, float)) and base in (int, float)):
            return
        if _shows(literal, value, text, base):
            return
        self._record("forged_value", f"{where}: a {kind.__module__}.{kind.__qualname__} of the code under test "
                                     f"({base.__name__}'s subclass) is shown as {text[:60]} while its value is "
                                     f"{base.__repr__(value)[:60]}: a comparison of its display proves nothing")

    def _value(self, value: object, other: object, where: str, depth: int) -> None:
        kind = type(value)
        if kind in PLAIN:
            return
        if isinstance(value, NUMBERS) and kind not in NUMBERS:
            self._numeric(value, where)
        if kind in CONTAINERS:  # the builtins themselves (a subclass's equality may be the code under test's)
            if depth < MAX_DEPTH and isinstance(value, CONTAINERS):
                elements = list(value.items() if isinstance(value, dict) else value)[:MAX_ELEMENTS]
                for element in elements:
                    for item in (element if kind is dict else (element,)):
                        self._value(item, None, where, depth + 1)
            return
        if not self._product_equality(kind):
            if self._equal_to_strangers(value, kind):  # a library's "anything" the code under test handed back
                self._record("forged_value", f"{where}: a {_TYPE_MODULE.__get__(kind, type)}."
                                             f"{_TYPE_QUALNAME.__get__(kind, type)} equals an object of a class it has "
                                             "never seen, and the tests never name it: the code under test's answer, "
                                             "and a comparison with it proves nothing")
            return
        reason = self._forged(value, other)
        if reason:
            classes = ", ".join(self._equality_classes(kind))
            self._record("forged_value", f"{where}: a {kind.__module__}.{kind.__qualname__} of the code under test "
                                         f"{reason}: a comparison with it proves nothing"
                                         + (f" (its equality: {classes})" if classes else ""))

    def _ordered(self, value: object, other: object, where: str) -> None:
        """Record a value of the code under test's class, ordered with `other`, that orders both before and after one
        value (`other`, or an object of a class it has never seen): no honest order does; `4.9 < x < 5.1` passes with
        it whatever it is."""
        kind = type(value)
        if kind in PLAIN or not self._product_code(kind, ORDERING_METHODS):
            return
        for stranger in (other, _Fresh()):
            if _both_ways(value, stranger):
                what = "an object of a class it has never seen" if isinstance(stranger, _Fresh) else "the value it is " \
                    "compared with"
                self._record("forged_value", f"{where}: a {kind.__module__}.{kind.__qualname__} of the code under test "
                                             f"orders both before and after {what}: a comparison with it proves "
                                             "nothing")
                return

    def _forged(self, value: object, other: object) -> str:
        """Why `value` (compared with `other`) is no honest value, or ''."""
        if _holds(lambda: value == _Fresh()):
            return "equals an object of a class it has never seen"
        if type(other) in PLAIN and _holds(lambda: value == other):
            near = next((n for n in _near_copies(other) if _holds(functools.partial(operator.eq, value, n))),
                        None)
            # One equal to every likely answer passes every test: it equals a value a little off and one far off too,
            # where an honest equality with a tolerance of its own that spans the first equals neither of the others
            far = _far_copies(other) if near is not None else []
            farther = next((f for f in far if _holds(functools.partial(operator.eq, value, f))), None)
            if near is not None and (not far or farther is not None):
                return f"equals {other!r:.40}, {near!r:.40}" + (f" and {farther!r:.40}" if far else "") + " alike"
        base: type[object] | None = next((b for b in BUILTIN_VALUES if isinstance(value, b)), None)
        if base is not None:
            changed = _changed_copy(value)
            if changed is not None and _holds(lambda: value == changed):
                return f"equals {base.__name__} values other than its own"
            honest = base.__eq__  # the builtin's own equality, whatever the subclass says
            if type(other) is base and _holds(lambda: value == other) != _holds(lambda: honest(value, other)) \
                    and not self._tested_equivalence(value, other):
                return f"is equal where {base.__name__}'s own equality says otherwise"
        if other is not None and _holds(lambda: value == other) and _holds(lambda: value != other):
            return "compares equal and unequal at once"
        return ""

    def _tested_equivalence(self, value: object, other: object) -> bool:
        """True where the class whose equality answers otherwise than its builtin base is one the judge's files name
        (`Header('Content-Type') == 'content-type'`: the tests test that equality) and its equality is one the class
        keeps (`_kept_equivalence`). A class the tests never name that turns up in an answer (`title('a b')`
        returning a case-blind str) is no such subject: its equality is only what the comparison needed."""
        return _TYPE_QUALNAME.__get__(type(value), type).rpartition(".")[2] in self.names() \
            and _kept_equivalence(value, other)

    def _equal_to_strangers(self, value: object, kind: type) -> bool:
        """True for a value whose equality is not the code under test's (a library's: `unittest.mock.ANY`) that
        equals an object of a class it has never seen, where the judge's files name neither it nor its class: a
        matcher the tests wrote themselves (`{"id": mock.ANY}`, `IsInt()`) is theirs to compare with."""
        equality = self.equality.get(kind)
        if equality is None:
            owner = next((k for k in _TYPE_MRO.__get__(kind, type) if "__eq__" in vars(k)), object)
            equality = self.equality[kind] = vars(owner)["__eq__"] is not _OBJECT_EQ
        if not equality or not _holds(lambda: value == _Fresh()):
            return False
        names = self.names()
        if _TYPE_QUALNAME.__get__(kind, type).rpartition(".")[2] in names:
            return False
        for module in list(sys.modules.values()):
            space = _namespace(module)
            if space is None or _in_repository(space, self.root):
                continue
            if any(held is value and attr in names for attr, held in list(space.items())):
                return False
        return True

    def names(self) -> frozenset[str]:
        """Every name the judge's Python files spell (variables, attributes, imports), read once: the tests' files,
        not the sandbox's own hooks among them (which spell `ast.Name`, `Call` and every name of their own)."""
        if self.spelled is None:
            import ast

            found: set[str] = set()
            for path in self.owned:
                if _relative(path, self.root).startswith(OWN_FOLDERS):
                    continue
                try:
                    with open(path, "rb") as f:
                        tree = ast.parse(f.read(), path)
                except (OSError, SyntaxError, ValueError):
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.Name):
                        found.add(node.id)
                    elif isinstance(node, ast.Attribute):
                        found.add(node.attr)
                    elif isinstance(node, ast.alias):
                        found.update(filter(None, (node.name.rpartition(".")[2], node.asname)))
            self.spelled = frozenset(found)
        return self.spelled

    def _product_equality(self, kind: type) -> bool:
        """True when the equality of `kind` is written in the repository, outside the judge's files."""
        return self._product_code(kind, ("__eq__", "__ne__"))

    def _product_code(self, kind: type, methods: tuple[str, ...]) -> bool:
        """True when `kind`'s `methods` (its equality, its ordering) are written in the repository, outside the
        judge's files."""
        known = self.product.get((kind, methods))
        if known is None:
            known = self.product[(kind, methods)] = self._written_here(kind, methods)
        return known

    def _written_here(self, kind: type, methods: tuple[str, ...]) -> bool:
        owner = next((k for k in kind.__mro__ if any(name in vars(k) for name in methods)), None)
        if owner is None or not owner.__flags__ & HEAP_TYPE:
            return False
        files = []
        for name in methods:
            function = vars(owner).get(name)
            if isinstance(function, types.FunctionType) and not function.__code__.co_filename.startswith("<"):
                files.append(function.__code__.co_filename)
        module = sys.modules.get(owner.__module__)
        where = vars(module).get("__file__") if isinstance(module, types.ModuleType) else None
        if isinstance(where, str):
            files.append(where)
        return any(self.is_product(f) for f in files)

    def _equality_classes(self, kind: type) -> list[str]:
        """The classes of the code under test whose code decides how a `kind` compares, as `path::qualname`
        (repository-relative): `kind` and each class it inherits from up to the first that defines `__eq__` or
        `__ne__`, so the judge can tell an equality the change wrote from one the base had (a class's own module
        file; none where a class's module has no file of the repository's)."""
        found = []
        for cls in _TYPE_MRO.__get__(kind, type):
            module = sys.modules.get(vars(cls).get("__module__", ""))
            where = vars(module).get("__file__") if isinstance(module, types.ModuleType) else None
            if isinstance(where, str) and self.is_product(where):
                relative = _code_file(where)[len(self.root):].replace(os.sep, "/")
                found.append(f"{relative}::{_TYPE_QUALNAME.__get__(cls, type)}")
            if "__eq__" in vars(cls) or "__ne__" in vars(cls):
                break
        return found

    def is_product(self, filename: str) -> bool:
        """True for a file of the repository that is neither the judge's nor the sandbox's."""
        full = _code_file(filename)
        if not full.startswith(self.root) or full in self.owned:
            return False
        return full[len(self.root):].split(os.sep, 1)[0] not in OWN_FOLDERS

    def audit(self, event: str, args: tuple[object, ...]) -> None:
        """The audit hook: the code under test opening one of the judge's Python files, walking the heap, reading
        a running test's code from its function (`reads_code`), or reaching into a running test (`reaches`)."""
        if event == "open":
            self.reads(args)
        elif event == "object.__getattr__" and len(args) == 2 and args[1] == "f_code" and not self.busy.on:
            self.reaches(args[0], sys._getframe(1))
        elif event in TRACERS:
            here = self.asker(sys._getframe(1))
            if here:
                self._record(REACHED_TESTS, f"{_relative(here, self.root)} set a function that sees every frame "
                                            f"of the tests as they run ({event})")
        elif event in SPAWNS:
            here = self.asker(sys._getframe(1))
            if here:
                self._record(REACHED_TESTS, f"{_relative(here, self.root)} started a process ({event}), which can read "
                                            "the tests where no hook of the judge's sees it")
        elif event in WALKS:
            here = self.asker(sys._getframe(1))
            if here:
                self.walkers.setdefault(here, event)
                self.walks_to_tests(here, event, args)
        elif event == "object.__getattr__" and not self.busy.on and len(args) == 2 and args[1] in CODE_OF:
            self.busy.on = True
            try:
                self.reads_code(args[0], str(args[1]), sys._getframe(1))
            except Exception:  # noqa: BLE001 - the check must never fail the read
                pass
            finally:
                self.busy.on = False

    def reaches(self, frame: object, asking: types.FrameType) -> None:
        """Record the code under test taking the code of a running frame of the judge's (a test's) from it, as
        code that reads what the test holds (its constants, its names) does. A helper that names its caller takes
        it too, so this refuses nothing alone: only where the hidden check shows the change answers nothing but
        the tests it was shown (bot/ensemble/judge/hidden.py)."""
        if not isinstance(frame, types.FrameType):
            return
        self.busy.on = True
        try:
            code = frame.f_code
            here = self.asker(asking) if self.is_judges(code.co_filename) else ""
            if here:
                self._record(REACHED_TESTS, f"{_relative(here, self.root)} took the code of the running "
                                            f"{code.co_name} of {_relative(_code_file(code.co_filename), self.root)}"
                                            " from its frame")
        except Exception:  # noqa: BLE001 - the check must never fail the read
            pass
        finally:
            self.busy.on = False

    def walks_to_tests(self, here: str, event: str, args: tuple[object, ...]) -> None:
        """Record the code under test asking the collector for what a function or code of the judge's holds or is
        held by (`gc.get_referents(test)`: its code, without reading `__code__`): a reach into the tests."""
        objects = args[0] if len(args) == 1 and isinstance(args[0], tuple) else args
        self.busy.on = True  # reading a function's code raises the event `reads_code` hooks
        try:
            for found in objects:
                code = found.__code__ if isinstance(found, types.FunctionType) else found
                if isinstance(code, types.CodeType) and self.is_judges(code.co_filename):
                    self._record(REACHED_TESTS, f"{_relative(here, self.root)} asked the collector about "
                                                f"{code.co_name} of {_relative(_code_file(code.co_filename), self.root)}"
                                                f" ({event})")
                    return
        finally:
            self.busy.on = False

    def traces_threads(self) -> None:
        """Record a trace or profile function of the code under test that threading sets in every new thread
        (`threading.settrace`): the thread sets it itself, with no code under test on its stack to name."""
        threading = sys.modules.get("threading")
        for name in ("_trace_hook", "_profile_hook"):
            hook = _unwrapped(vars(threading).get(name)) if isinstance(threading, types.ModuleType) else None
            code = hook.__code__ if isinstance(hook, types.FunctionType) else None  # no other object's attribute
            if isinstance(code, types.CodeType) and os.path.isabs(code.co_filename) \
                    and self.is_product(code.co_filename):
                self._record(REACHED_TESTS, f"{_relative(_code_file(code.co_filename), self.root)} set a function "
                                            f"that sees every frame of the tests as they run (threading.{name})")

    def reads_code(self, holder: object, attribute: str, frame: types.FrameType) -> None:
        """Record the code under test reading the code of a test that is running (the one it was called from): the
        test's constants are what it expects. Once it has walked the heap, where every test's function is, that is
        `reads_tests`: honest code does one or the other (a caller-naming helper reads its caller's frame, not a
        function's code; a decorator or `inspect.signature` reads the code of the functions it is given, which are
        not running below it; instance counters walk the heap; a leak checker that walks it is the tests' own code).
        Without a walk (the test's function found through `sys.modules`, its module's names) it is a reach, as
        taking the code from the test's frame is (`reaches`): evidence only where the hidden check shows the change
        answers nothing but the tests it was shown."""
        code = getattr(holder, attribute, None)
        if not isinstance(code, types.CodeType) or not self.is_judges(code.co_filename):
            return
        here = self.asker(frame) if any(outer.f_code is code for outer in _outward(frame)) else ""
        if here and not self.walkers:
            self._record(REACHED_TESTS, f"{_relative(here, self.root)} took the code of the running {code.co_name} of "
                                        f"{_relative(_code_file(code.co_filename), self.root)} from its {attribute}")
        elif here:
            walker, walk = next(iter(self.walkers.items()))
            self._record("reads_tests", f"{_relative(walker, self.root)} walked the heap ({walk}) and "
                                        f"{_relative(here, self.root)} read the code of the running test "
                                        f"{code.co_name} of {_relative(_code_file(code.co_filename), self.root)}"
                                        ": code under test that reads its tests can answer what they expect")

    def holds_the_tests(self) -> None:
        """Record each module of the code under test that holds, as it ends, the judge's code: a module of the tests
        (`import testing_support.reference as ref`), or a function or class one defines (`from tests.helpers import
        expected`), however it was imported; what the tests put there and took away again is gone by then. Only where
        the code could have taken it: a module of the code under test imports that module of the tests (or a package
        of the tests holding it, or a package a name it builds reaches), or imports by a name it does not spell
        (`importlib.import_module(name)`, `exec`): `_imports_of`; a callback or plugin class a test hands the code
        (`ops.set_hook(double)`) stays where the test put it."""
        seen: dict[str, bool] = {}
        held: list[tuple[str, str, str, str]] = []  # the code's module file, the value's name, its file, its module

        def judges(filename: object) -> bool:
            if not isinstance(filename, str):
                return False
            if filename not in seen:
                seen[filename] = _code_file(filename) in self.owned
            return seen[filename]

        for module in list(sys.modules.values()):
            where = vars(module).get("__file__") if isinstance(module, types.ModuleType) else None
            if not isinstance(where, str) or not self.is_product(where):
                continue
            package = f"{module.__name__}."
            for value in list(vars(module).values()):
                if isinstance(value, types.ModuleType):  # not its own submodules, which importing them puts there
                    source, name = vars(value).get("__file__"), value.__name__
                    if name.startswith(package):
                        continue
                elif isinstance(value, types.FunctionType):
                    source, name = value.__code__.co_filename, f"{value.__module__}.{value.__qualname__}"
                elif isinstance(value, type) and value.__flags__ & HEAP_TYPE:
                    code = next((f for f in vars(value).values() if isinstance(f, types.FunctionType)), None)
                    source = code.__code__.co_filename if code is not None else None
                    name = f"{value.__module__}.{value.__qualname__}"
                else:
                    continue
                if judges(source):
                    held.append((where, str(name), str(source), _module_of(value)))
        if not held:
            return
        imported, dynamic = _imports_of(self.root, self.is_product)
        for where, name, source, of in held:
            # a value the tests handed the code (`set_hook(double)` from a test) is the tests' business: only code
            # that imports the tests' modules, or imports by names it does not spell, can have taken it from them
            if dynamic or _names_the_module(of, imported):
                self._record("reads_tests", _uses_the_tests(
                    _relative(_code_file(where), self.root), name, _relative(_code_file(source), self.root)))

    def owns(self, path: str) -> bool:
        """Whether the file at `path` is one of the judge's Python files: by device and inode, one call with links
        followed (asked at every import, where resolving the path's links in Python cost a tenth of the process)."""
        try:
            found = os.stat(path)
        except (OSError, ValueError):
            return False
        return (found.st_dev, found.st_ino) in self.inodes

    def is_judges(self, filename: str) -> bool:
        """True for a file of the judge's Python code (asked once a file)."""
        known = self.judges.get(filename)
        if known is None:
            known = self.judges[filename] = _code_file(filename) in self.owned
        return known

    def reads(self, args: tuple[object, ...]) -> None:
        """Record the code under test opening one of the judge's Python files (or its other files: `reads_data`)."""
        if not args or not _is_path(args[0]) or _writes(args) or self.quoting.on:
            return
        try:
            found = os.stat(args[0])  # one call, links followed: a link or a hard link to a test is the test
        except Exception:  # noqa: BLE001 - no such file, or a path-like object's own code: the open goes on
            return
        if (found.st_dev, found.st_ino) in self.data:
            self.reads_data(args[0])
            return
        if (found.st_dev, found.st_ino) not in self.inodes:
            return
        full = _real(args[0])
        if full is None:
            return
        # through `linecache` too: `source` answers the code under test before any file is opened, so such an open
        # is code under test calling linecache's own reading functions
        here = self.asker(sys._getframe(2))  # this, the audit hook, the open
        if here and not self.handed(full, sys._getframe(2)):
            self._record("reads_tests", f"{_relative(here, self.root)} read {_relative(full, self.root)}, a file of "
                                        "the tests: code under test that reads its tests can answer what they expect")

    def reads_data(self, path: object) -> None:
        """Record the code under test opening a file of the judge's that is not code (the tests' data, the harness's
        settings), which it was not handed: `reached_tests`, as a lookup of the tests' expected values would, and a
        configuration read by honest code too, which only the hidden check tells apart (where the base read none)."""
        full = _real(path)
        here = self.asker(sys._getframe(3))  # this, reads, the audit hook, the open
        if full is not None and here and not self.handed(full, sys._getframe(3)):
            self._record(REACHED_TESTS, f"{_relative(here, self.root)} read {_relative(full, self.root)}, a file the "
                                        "judge owns beside the tests")

    def handed(self, full: str, frame: types.FrameType | None) -> bool:
        """Whether the judge's code gave the code under test the file it opens: the outermost call of the code under
        test from the judge's code (a test, a fixture) was passed that file, or a folder holding it, as an argument
        or inside one (a list's item, a dict's value, an object's attribute): `count_lines(__file__)`,
        `Scanner(Path(__file__).parent).files()`. A test that hands the code its own file has the code read it; code
        that finds a test's file by itself (a path it spells, the caller's `__file__`, a glob) was handed nothing.
        Where the file handed is what the test expects from, its stand-in still tells."""
        entry = self.entry(frame)
        return entry is not None and any(_holds_path(value, full, self.root) for value in _arguments(entry))

    def entry(self, frame: types.FrameType | None) -> types.FrameType | None:
        """The outermost frame of the code under test below the judge's code that called it (a test, a fixture),
        out from `frame`; None when no judge's code called the code under test."""
        entry = None
        for outer in _outward(frame):
            name = outer.f_code.co_filename
            if self.is_judges(name):
                return entry
            if not name.startswith("<") and self.is_product(name):
                entry = outer
        return None

    def handed_code(self, full: str, frame: types.FrameType | None) -> list[tuple[int, int]]:
        """The lines (first, last) of the judge's file `full` that hold the functions the judge's code handed the code
        under test (its outermost call's arguments, as `handed` reads them): `describe(sample)`, a callback, a
        method. Their source is what the code was given, so it may read that (`inspect.getsource(fn)`), and no
        other line of the file."""
        entry = self.entry(frame)
        return [] if entry is None else [span for value in _arguments(entry) if (span := _code_span(value, full))]

    def asker(self, frame: types.FrameType | None) -> str:
        """The file of the code under test that asked for what `frame` does (its innermost repository frame), or ""
        when that is the judge's code, the sandbox's, or no repository code at all (the runner's own)."""
        for outer in _outward(frame):
            name = outer.f_code.co_filename
            here = "" if name.startswith("<") else _code_file(name)
            if here.startswith(self.root):
                return here if self.is_product(here) else ""
        return ""

    def source(self, getlines: Callable[..., list[str]]) -> Callable[..., list[str]]:
        """`linecache.getlines`, which gives the code under test no line of the judge's Python files: the source
        of a test is what it expects (`inspect.getsource`, `inspect.stack()`, `traceback.extract_stack()` and the
        warnings all read source through it). A traceback or report with no code under test asking keeps its
        lines; a caller-naming helper still has its caller's names, only not its text. The code under test asking
        linecache itself is evidence too (`reads_tests`)."""
        def lines(filename: str, module_globals: dict[str, object] | None = None) -> list[str]:
            if not (isinstance(filename, str) and _code_file(filename) in self.owned):
                return getlines(filename, module_globals)
            here = self.asker(sys._getframe(1))
            if not here:
                return getlines(filename, module_globals)
            self.busy.on = True  # the code of what was handed is read here, by the check
            try:
                spans = self.handed_code(_code_file(filename), sys._getframe(1))
            finally:
                self.busy.on = False
            if spans:
                return self.quoted(getlines, filename, module_globals, spans)
            caller = next(f for f in _outward(sys._getframe(1)) if not f.f_code.co_filename.endswith("linecache.py"))
            if _code_file(caller.f_code.co_filename) == here:  # linecache called by the code under test itself
                self._record("reads_tests", f"{_relative(here, self.root)} read {_relative(filename, self.root)}'s "
                                            "lines, a file of the tests: code under test that reads its tests can "
                                            "answer what they expect")
            return []

        return lines

    def quoted(self, getlines: Callable[..., list[str]], filename: str, module_globals: dict[str, object] | None,
               spans: list[tuple[int, int]]) -> list[str]:
        """The lines of the judge's file `filename` with each line outside `spans` left empty, read by `getlines`
        without its open counting as the code's and without leaving the whole file in linecache's cache."""
        import linecache

        cached = filename in linecache.cache
        self.quoting.on = True
        try:
            whole = getlines(filename, module_globals)
        finally:
            self.quoting.on = False
            if not cached:
                linecache.cache.pop(filename, None)
        return [line if any(first <= number <= last for first, last in spans) else "\n"
                for number, line in enumerate(whole, 1)]

    def _record(self, kind: str, detail: str) -> None:
        if detail in self.reported or len(self.reported) >= MAX_REFUSALS:
            return
        self.reported.add(detail)
        with contextlib.suppress(OSError):  # a full disk must not fail the tests
            self.write(f"{kind}\t{detail}")

    def transform(self, tree: ast.AST, filename: str) -> None:
        """Route each single comparison of `tree` (a module's `ast`) through `__ensemble_compare__`, each difference and
        ratio through `__ensemble_arith__`, each `abs(...)`, `str(...)` and `repr(...)` through its hook in
        ROUTED_CALLS, each look-up of a builtin value's predicate (`answer.startswith`) through `__ensemble_method__`,
        and each value handed to a call (but literals) through `__ensemble_arg__`, which examines it and hands it on:
        no frame stands between the call and its caller."""
        import ast

        ops = {ast.Eq: 0, ast.NotEq: 1, ast.In: 2, ast.NotIn: 3, ast.Lt: 4, ast.LtE: 5, ast.Gt: 6, ast.GtE: 7}
        rel = _relative(filename, self.root)

        def placed(made: ast.expr, at: ast.expr) -> ast.expr:
            """`made` placed at `at`'s start alone: a rewritten node's end may stand before its start (pytest's)."""
            made.lineno, made.col_offset = at.lineno, at.col_offset
            made.end_lineno, made.end_col_offset = at.lineno, at.col_offset
            return made

        def routed(hook: str, args: list[ast.expr], at: ast.expr, new: int = 0) -> ast.expr:
            """`hook(*args)` in `at`'s place, the last `new` of `args` made here (the operator's number, where)."""
            for made in args[len(args) - new:]:
                placed(made, at)
            return placed(ast.Call(placed(ast.Name(hook, ast.Load()), at), args, []), at)

        class Route(ast.NodeTransformer):
            def visit_Compare(self, node: ast.Compare) -> ast.AST:
                self.generic_visit(node)
                op = ops.get(type(node.ops[0])) if len(node.ops) == 1 else None
                if op is None:
                    return node
                return routed("__ensemble_compare__", [node.left, node.comparators[0], ast.Constant(op),
                                                       ast.Constant(f"{rel}:{node.lineno}")], node, 2)

            def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
                self.generic_visit(node)
                op = 0 if isinstance(node.op, ast.Sub) else 1 if isinstance(node.op, ast.Div) else None
                if op is None:
                    return node
                return routed("__ensemble_arith__", [node.left, node.right, ast.Constant(op),
                                                     ast.Constant(f"{rel}:{node.lineno}")], node, 2)

            def visit_Call(self, node: ast.Call) -> ast.AST:
                self.generic_visit(node)
                where = placed(ast.Constant(f"{rel}:{node.lineno}"), node)
                node.args = [self.handed(a, where) for a in node.args]
                for keyword in node.keywords:
                    keyword.value = self.handed(keyword.value, where)
                hook = ROUTED_CALLS.get(node.func.id) if isinstance(node.func, ast.Name) else None
                if hook is None or len(node.args) != 1 or node.keywords or isinstance(node.args[0], ast.Starred):
                    return node
                return routed(hook, [node.func, node.args[0], ast.Constant(f"{rel}:{node.lineno}")], node, 1)

            @staticmethod
            def handed(arg: ast.expr, where: ast.expr) -> ast.expr:
                """`arg` of a call, routed through `__ensemble_arg__` (`_Honesty.argument`); a literal or `*args`
                as it is."""
                if isinstance(arg, (ast.Constant, ast.Starred)):
                    return arg
                return routed("__ensemble_arg__", [arg, where], arg)

            def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
                self.generic_visit(node)
                if node.attr not in PREDICATES or not isinstance(node.ctx, ast.Load):
                    return node
                return routed("__ensemble_method__", [node.value, ast.Constant(node.attr),
                                                      ast.Constant(f"{rel}:{node.lineno}")], node, 2)

        Route().visit(tree)  # each node made has its place: filling in others' would give pytest's ends before starts
        if isinstance(tree, ast.Module):
            tree.body.append(self._snapshot_call(tree))

    @staticmethod
    def _snapshot_call(tree: ast.Module) -> ast.stmt:
        """`try: __ensemble_loaded__(globals(), functions, imports)` except Exception: pass`, for the end of a module
        of the judge's: its top-level functions as it left them, and what it imported with `from` (`loaded`)."""
        import ast

        functions = tuple(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))
        imports = tuple((n.level, n.module or "", tuple((a.name, a.asname or a.name) for a in n.names if a.name != "*"))
                        for n in tree.body if isinstance(n, ast.ImportFrom))
        call = ast.Call(ast.Name("__ensemble_loaded__", ast.Load()),
                        [ast.Call(ast.Name("globals", ast.Load()), [], []),
                         ast.parse(repr(functions), mode="eval").body, ast.parse(repr(imports), mode="eval").body], [])
        guard = ast.Try(body=[ast.Expr(call)], handlers=[ast.ExceptHandler(ast.Name("Exception", ast.Load()), None,
                                                                            [ast.Pass()])], orelse=[], finalbody=[])
        line = max((n.end_lineno or n.lineno for n in tree.body), default=1)
        for node in ast.walk(guard):  # after the module's last line: nothing of the module's moves
            if isinstance(node, (ast.stmt, ast.expr, ast.excepthandler)):
                node.lineno, node.col_offset, node.end_lineno, node.end_col_offset = line, 0, line, 0
        return guard

    def loaded(self, space: dict[str, object], functions: tuple[str, ...],
               imports: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...]) -> None:
        """A module of the judge's has run to its end (the call `transform` puts there): its functions as it defined
        them, and its `from` imports, for `_product_code_in_the_tests` to hold them to."""
        where = space.get("__file__")
        if isinstance(where, str):
            self.modules[_code_file(where)] = (space, {name: space.get(name) for name in functions}, imports)


_HONESTY: list[_Honesty] = []  # this process's checks, once the run is guarded


def _module_of(value: object) -> str:
    """The name of the module a module, function or class held by the code under test is, or was defined in."""
    if issubclass(type(value), types.ModuleType):
        return str(vars(value).get("__name__", ""))
    return str(getattr(value, "__module__", "") or "")


DYNAMIC_IMPORTS = frozenset({"import_module", "__import__", "exec", "eval", "run_path", "run_module",
                             "spec_from_file_location", "SourceFileLoader", "load_module", "exec_module"})
BY_NAME = frozenset({"import_module", "__import__", "run_module"})  # those whose first argument is the module's name


def _imports_of(root: str, is_product: Callable[[str], bool]) -> tuple[set[str], bool]:
    """The modules the loaded modules of the code under test import by name, as their sources spell them (absolute,
    relative ones resolved, `from a import b` as `a` and `a.b`, an import by name as `_name_spelled` reads it); and
    whether any imports by a name it does not spell (another call of DYNAMIC_IMPORTS). Read from the sources, once,
    where the code holds the tests' code as it ends."""
    import ast

    names: set[str] = set()
    for module in list(sys.modules.values()):
        space = _namespace(module)
        where = space.get("__file__") if space is not None else None
        if space is None or not isinstance(where, str) or not where.endswith(".py") or not is_product(where):
            continue
        try:
            with open(where, "rb") as f:
                tree = ast.parse(f.read())
        except (OSError, SyntaxError, ValueError):
            return names, True  # unread code could import anything
        package = str(space.get("__package__") or "")
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    parts = parts[:len(parts) - node.level + 1] if node.level > 1 else parts
                    base = ".".join(p for p in [*parts, base] if p)
                names.add(base)
                names.update(f"{base}.{alias.name}" if base else alias.name for alias in node.names)
            elif isinstance(node, ast.Call):
                called = node.func.attr if isinstance(node.func, ast.Attribute) else \
                    node.func.id if isinstance(node.func, ast.Name) else ""
                if called in BY_NAME and node.args and (spelled := _name_spelled(node.args[0])) is not None:
                    names.add(spelled)  # `import_module('json')`, or a plugin loader's `f'calc.backends.{name}'`
                elif called in DYNAMIC_IMPORTS:
                    return names, True
    return names, False


def _name_spelled(node: ast.expr) -> str | None:
    """The module name an import by name spells: the whole of a constant (`'json'`), or for a name built from a
    constant start (`f'calc.backends.{name}'`, `'calc.backends.' + name`) the package every module it can import is
    under, as `calc.backends.*`; None where no package is spelled (a variable, `'testing_' + name`)."""
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    first = node.values[0] if isinstance(node, ast.JoinedStr) and node.values else \
        node.left if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) else None
    start = first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else ""
    package = start.rpartition(".")[0]
    return f"{package}.*" if package else None


def _names_the_module(name: str, imported: set[str]) -> bool:
    """Whether `imported` (`_imports_of`) names the module `name`, a package above it that is the tests' own, or a
    module of the same last name (a runner may import a test module under another name than the code does), or
    holds it under a package a built name can reach (`calc.backends.*`)."""
    if not name:
        return True  # a value that names no module: where it came from is unknown
    owned = _HONESTY[0].is_judges if _HONESTY else (lambda _f: False)
    parents = name.split(".")
    candidates = {name}
    for end in range(1, len(parents)):
        parent = ".".join(parents[:end])
        where = vars(sys.modules[parent]).get("__file__") if parent in sys.modules else None
        if isinstance(where, str) and owned(where):
            candidates.add(parent)
    last = parents[-1]
    return any(name.startswith(n[:-1]) if n.endswith(".*") else n in candidates or n.rsplit(".", 1)[-1] == last
               for n in imported)


def _uses_the_tests(here: str, name: str, source: str) -> str:
    return (f"{here} uses {name} of {source}, the tests' own code: code under test that answers with the tests' code "
            "passes them by construction, and the tests are not shipped with it")


def _holds(test: Callable[[], object]) -> bool:
    """The truth of a comparison made by the code under test; False where it raises or has no truth value."""
    try:
        return bool(test())
    except Exception:  # noqa: BLE001 - honest equality may refuse a stranger
        return False


def _finite(value: object) -> bool:
    """True for a number that is neither infinite nor NaN (a complex one: in both parts)."""
    if isinstance(value, complex):
        return _finite(complex.__getattribute__(value, "real")) and _finite(complex.__getattribute__(value, "imag"))
    return not isinstance(value, float) or float.__sub__(value, value) == 0.0


def _shows(literal: object, value: object, text: str, base: type) -> bool:
    """True where `literal` (read from `text`, a display of `value`) is `value` as far as `text` shows it: equal by the
    builtin's own equality, or a number rounded to the digits `text` has."""
    equal: Callable[[object, object], object] = getattr(base, "__eq__")  # noqa: B009 - the builtin's own, unbound
    if equal(value, literal) is True:
        return True
    if not (isinstance(literal, (int, float)) and isinstance(value, (int, float))):
        return False
    mantissa, _, exponent = text.lower().partition("e")
    digits = len(mantissa.partition(".")[2]) - int(exponent or 0) if "." in mantissa or exponent else 0
    return abs(float(literal) - float(value)) <= 0.5 * 10.0 ** -digits * (1 + 1e-9)


def _both_ways(value: object, other: object) -> bool:
    """True where `value` orders both before and after `other`, or is at once at most and at least `other` while not
    equal to it: what no order does. Only answers that are truth values count: a comparison that builds something (a
    query's condition, a symbolic inequality) is not an order."""
    def ordered(op: Callable[..., object]) -> bool:
        try:
            answer = op(value, other)
        except Exception:  # noqa: BLE001 - honest order may refuse a stranger
            return False
        return type(answer) in (bool, int) and bool(answer)

    return (ordered(operator.lt) and ordered(operator.gt)) or (
        ordered(operator.le) and ordered(operator.ge) and not ordered(operator.eq))


def _kept_equivalence(value: object, other: object) -> bool:
    """True where the code's equality, which answers otherwise than its builtin base for `value` and `other`, is one
    its class keeps over its own values (a case-insensitive name): the class made from `other` answers the same both
    ways, and `value` equals no changed copy of `other`. An equality that answers one expected value only (`other in
    (5,)`) is not kept by the class made from it; one special-cased to it both ways is what the hidden check's other
    inputs show."""
    try:
        mirror = type(value)(other)  # type: ignore[call-arg]  # a builtin's subclass: made from a value of it
    except Exception:  # noqa: BLE001 - a class made otherwise keeps no equivalence the judge can see
        return False
    changed = _changed_copy(other)
    return changed is not None and _holds(lambda: mirror == value) and _holds(lambda: value == mirror) \
        and _holds(lambda: value == other) == _holds(lambda: mirror == other) and not _holds(lambda: value == changed)


def _near_copies(value: object) -> list[object]:
    """Values of `value`'s plain kind close to it that no value honestly equal to it equals: a number moved a little
    either way (an int by a few, a float by a few per cent), a string or bytes with a letter or digit changed to
    another (never its case alone: a case-blind equality is honest), a truth value negated. An answer equal to every
    likely value (`-1000 < other < 1000`) equals these too, where a copy moved far off (`_changed_copy`) or an object
    of a class it has never seen would not be; the moves are drawn once a process (`_NEAR`)."""
    kind = type(value)
    first, second = 1 + _NEAR[0] % 9, 1 + _NEAR[0] // 9 % 9
    if isinstance(value, bool):
        return [not value]
    if kind is int and isinstance(value, int):
        return [value + first, value - second]
    if kind in (float, complex) and isinstance(value, (float, complex)):
        scale = max(abs(value), 1.0)
        return [value + scale * (5 + first) / 100, value - scale * (5 + second) / 100] if _finite(value) else []
    if kind in (str, bytes) and isinstance(value, (str, bytes)):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        spots = [i for i, c in enumerate(text) if c.isascii() and c.isalnum()]
        copies = [_letter_moved(text, spots[(_NEAR[0] + n) % len(spots)], step) if spots else text + "q" * (n + 1)
                  for n, step in enumerate((first, second))]
        return [c.encode("latin-1") for c in copies] if isinstance(value, bytes) else list(copies)
    return []


def _far_copies(value: object) -> list[object]:
    """Values of `value`'s plain kind as likely an answer as it and far from it: a number three times as large (and
    ten more) and a third of it, a string or bytes with every ASCII letter and digit moved. An equality of the code's
    own with a tolerance that spans the near copies (`_near_copies`: a measurement's uncertainty over 6 %, a rounding
    to tens, a match by one letter) equals neither; an answer equal to every likely value (`-1000 < other < 1000`,
    any short string) equals them too. None for a truth value: its near copy, the other one, is all there is."""
    kind = type(value)
    if kind in (int, float, complex) and isinstance(value, (int, float, complex)):
        away = -10 if isinstance(value, (int, float)) and value < 0 else 10
        # a third, toward zero (an int's exactly, however large)
        third = (abs(value) // 3) * (-1 if value < 0 else 1) if isinstance(value, int) else value / 3
        far = [value * 3 + away, third if third != value else value - away]
        return [f for f in far if _finite(f)] if _finite(value) else []
    if kind in (str, bytes) and isinstance(value, (str, bytes)):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        moved = text
        for at in (i for i, c in enumerate(text) if c.isascii() and c.isalnum()):
            moved = _letter_moved(moved, at, 1 + _NEAR[0] % 9)
        moved = moved if moved != text else text + "q" * 12  # nothing to move: a longer one
        return [moved.encode("latin-1") if isinstance(value, bytes) else moved]
    return []


def _letter_moved(text: str, at: int, step: int) -> str:
    """`text` with its ASCII letter or digit at `at` moved `step` (1 to 9) along its alphabet, its case kept."""
    c = text[at]
    base, size = ("0", 10) if c.isdigit() else ("a", 26) if c.islower() else ("A", 26)
    return text[:at] + chr(ord(base) + (ord(c) - ord(base) + step) % size) + text[at + 1:]


_NEAR = [int.from_bytes(os.urandom(4), "big")]  # this process's moves for `_near_copies`


def _changed_copy(value: object) -> object:
    """A value of `value`'s builtin base (the first of BUILTIN_VALUES it is an instance of) other than its own;
    None where none is made cheaply."""
    if isinstance(value, bool):
        return not bool(value)
    if isinstance(value, int):
        return int(value) + OFFSET
    if isinstance(value, float):
        return float(value) + OFFSET
    if isinstance(value, complex):
        return complex(value) + OFFSET
    if isinstance(value, str):
        return str.__str__(value) + "\x00ensemble"
    if isinstance(value, bytes):
        return bytes(value) + b"\x00ensemble"
    for sequence in (tuple, list):
        if isinstance(value, sequence):
            return sequence([*value, _Fresh()])
    for collection in (set, frozenset):
        if isinstance(value, collection):
            return collection({*value, _Fresh()})
    return {**value, _Fresh(): None} if isinstance(value, dict) else None


def _arguments(frame: types.FrameType) -> Iterator[object]:
    """The values `frame`'s arguments hold now, and one level inside each: a list's, tuple's or set's items, a dict's
    values, an object's own attributes (builtin containers and instance dictionaries alone: no code of the
    values' own runs)."""
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount + sum(1 for flag in ARGUMENTS_FLAGS if code.co_flags & flag)
    local = frame.f_locals
    for name in code.co_varnames[:count]:
        value: Any = local.get(name)
        yield value
        kind = type(value)
        if kind is dict:
            yield from list(value.values())[:MAX_HANDED]
        elif kind in (list, tuple, set, frozenset):
            yield from list(value)[:MAX_HANDED]
        else:
            try:
                own = object.__getattribute__(value, "__dict__")
            except Exception:  # noqa: BLE001 - no instance dictionary
                continue
            if type(own) is dict:
                yield from list(own.values())[:MAX_HANDED]


def _holds_path(value: object, full: str, root: str) -> bool:
    """True where `value` is a path (a string, bytes or a pathlib path) of the file `full`, or of a folder below the
    repository's root that holds it."""
    kind = type(value)
    pathlib = sys.modules.get("pathlib")
    if not (kind is str or kind is bytes or (pathlib is not None and issubclass(kind, pathlib.PurePath))):
        return False
    if not 0 < len(str(value)) < 4096:
        return False
    path = _real(value)
    if path is None:
        return False
    return path == full or (full.startswith(os.path.join(path, "")) and len(path) >= len(root) and os.path.isdir(path))


def _code_span(value: object, full: str) -> tuple[int, int] | None:
    """The first and last lines of a function or method (or a code object) whose code is in the file `full`, the
    functions it defines included; None for anything else (told by type alone: no code of the value's own runs)."""
    kind = type(value)
    if kind is types.MethodType:
        value = value.__func__  # type: ignore[attr-defined]  # a bound method: `kind` says so
        kind = type(value)
    code = value.__code__ if kind is types.FunctionType else value if kind is types.CodeType else None  # type: ignore[attr-defined]
    if not isinstance(code, types.CodeType) or _real(code.co_filename) != full:
        return None
    import dis

    last, inner = code.co_firstlineno, [code]
    while inner:
        now = inner.pop()
        last = max([last, *(line for _offset, line in dis.findlinestarts(now) if line is not None)])
        inner += [const for const in now.co_consts if isinstance(const, types.CodeType)]
    return code.co_firstlineno, last


def _outward(frame: types.FrameType | None) -> Iterator[types.FrameType]:
    """`frame` and the frames that called it, innermost first."""
    while frame is not None:
        yield frame
        frame = frame.f_back


def _inodes(paths: Iterable[str]) -> set[tuple[int, int]]:
    """The files at `paths` by device and inode (none for a path that is not there)."""
    found = set()
    for path in paths:
        with contextlib.suppress(OSError):
            at = os.stat(path)
            found.add((at.st_dev, at.st_ino))
    return found


def _relative(filename: str, root: str) -> str:
    return filename[len(root):].replace(os.sep, "/") if filename.startswith(root) else filename


def _check_honesty(workspace: str, results: str, names: list[str]) -> None:
    """Check the values the judge's Python files compare and the files the code under test reads (the module's
    docstring): `names` are the judge's files, repository-relative."""
    import builtins

    root = os.path.join(os.path.realpath(workspace), "")
    owned = {os.path.realpath(os.path.join(root, n)) for n in names if n.endswith(".py")}
    data = {os.path.join(root, n) for n in names if not n.endswith(".py") and n.split("/", 1)[0] not in OWN_FOLDERS}
    log = os.path.join(results, HONESTY_LOG)
    honesty = _Honesty(root, owned, _WRITE_HONESTY[0] if _WRITE_HONESTY else lambda line: _append(log, line), data)
    _HONESTY.append(honesty)
    builtins.__ensemble_compare__ = honesty.compare  # type: ignore[attr-defined]
    builtins.__ensemble_loaded__ = honesty.loaded  # type: ignore[attr-defined]
    builtins.__ensemble_method__ = honesty.method  # type: ignore[attr-defined]
    builtins.__ensemble_arith__ = honesty.arithmetic  # type: ignore[attr-defined]
    builtins.__ensemble_abs__ = honesty.magnitude  # type: ignore[attr-defined]
    builtins.__ensemble_shown__ = honesty.display  # type: ignore[attr-defined]
    builtins.__ensemble_arg__ = honesty.argument  # type: ignore[attr-defined]
    _on_doctest(lambda doctest: _check_doctests(doctest, honesty))
    sys.meta_path.insert(0, _judged_finder(honesty))
    sys.addaudithook(honesty.audit)
    import linecache

    linecache.getlines = honesty.source(linecache.getlines)
    _check_unittest(honesty)
    hold_libraries()


def _judged_finder(honesty: _Honesty) -> MetaPathFinderProtocol:
    """A finder that compiles the judge's Python files with their comparisons routed (`_Honesty.transform`): those
    not loaded by pytest's assertion rewriting, which routes them as it rewrites (`check_pytest`). First on the meta
    path, it asks the finders after it in their order and answers with what they find, so the path is searched once
    an import (searching it again after this finder cost a judged process a tenth of its imports' time)."""
    from importlib.machinery import PathFinder, SourceFileLoader

    class JudgedLoader(SourceFileLoader):
        def get_code(self, fullname: str) -> types.CodeType:
            import ast

            path = self.get_filename(fullname)
            tree = ast.parse(self.get_data(path), path)
            honesty.transform(tree, path)
            return honesty.compiled_here(compile(tree, path, "exec", dont_inherit=True))

    class JudgedFinder:
        @staticmethod
        def find_spec(fullname: str, path: Sequence[str] | None = None,
                      target: types.ModuleType | None = None) -> ModuleSpec | None:
            hold_libraries()  # what loaded before this import, before the module imported runs
            asked = list(sys.meta_path)
            after = asked[asked.index(JudgedFinder) + 1:] if JudgedFinder in asked else []
            for finder in after:  # the finders the import asks next, up to the path's: what they find is the import's
                if finder is PathFinder:
                    break
                find = getattr(finder, "find_spec", None)
                if find is None:
                    return None  # a finder of the old protocol: the import asks it (and the path's after it) itself
                found: ModuleSpec | None = find(fullname, path, target)
                if found is not None:
                    return found
            spec = PathFinder.find_spec(fullname, path, target)
            if spec is None or not isinstance(spec.loader, SourceFileLoader) or not spec.origin:
                return spec if PathFinder in after else None  # found once, not again by the import
            if honesty.owns(spec.origin):
                spec.loader = JudgedLoader(spec.loader.name, spec.loader.path)
            elif PathFinder not in after:
                return None
            return spec

    return JudgedFinder


_DOCTESTS_CHECKED: list[bool] = []  # doctest's parser is checked (once a process)


def _check_doctests(doctest: types.ModuleType, honesty: _Honesty) -> None:
    """Record doctest examples from a repository file that are no docstring (no string) written in the file: the code
    under test changed them as it ran (`f.__doc__ = f.__doc__.replace(...)`, so its bug is what they expect), where
    the judge owns them as written (bot/ensemble/judge/closure.py). Text files of examples are the judge's files. Each
    example's value is examined as it is shown, and each value an example prints (`_Honesty.shown`)."""
    if _DOCTESTS_CHECKED:
        return
    _DOCTESTS_CHECKED.append(True)
    display = sys.__displayhook__  # what doctest's runner shows an example's value with

    def displayed(value: object) -> None:
        if value is not None:
            with contextlib.suppress(Exception):  # the check must never fail the example
                honesty.shown(value, sys._getframe(1).f_code.co_filename)  # `<doctest calc.ops.add[0]>`
        display(value)

    sys.__displayhook__ = displayed
    import builtins

    printing: Callable[..., None] = builtins.print

    def printed(*values: object, **options: object) -> None:
        with contextlib.suppress(Exception):  # as above
            where = sys._getframe(1).f_code.co_filename
            if where.startswith("<doctest "):  # an example's own `print(...)`
                for value in values:
                    honesty.shown(value, where, str)
        printing(*values, **options)

    builtins.print = printed
    parser = doctest.DocTestParser
    original = parser.get_doctest
    written: dict[str, frozenset[str] | None] = {}  # a file -> its string literals, cleaned (None: unreadable)

    def get_doctest(self: object, string: str, globs: dict[str, object], name: str, filename: str | None,
                    lineno: int | None) -> object:
        test = original(self, string, globs, name, filename, lineno)
        try:
            if isinstance(test, doctest.DocTest) and test.examples and isinstance(filename, str) \
                    and filename.endswith(".py") \
                    and isinstance(string, str):
                full = os.path.realpath(filename)
                if honesty.is_product(full) or full in honesty.owned:
                    if full not in written:
                        written[full] = _string_literals(full)
                    strings = written[full]
                    if strings is not None and _cleaned(string) not in strings:
                        honesty._record("changed_examples", f"{_relative(full, honesty.root)}: the doctest examples "
                                        f"of {name} that ran are no docstring written in the file: code that "
                                        "rewrites the examples as it runs can make them expect what it answers")
        except Exception:  # noqa: BLE001 - the check must never fail the collection
            pass
        return test

    parser.get_doctest = get_doctest


def _string_literals(path: str) -> frozenset[str] | None:
    """Every string literal of a Python file, cleaned (`_cleaned`); None when it cannot be read or parsed."""
    import ast

    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), path)
    except (OSError, SyntaxError, ValueError):
        return None
    return frozenset(_cleaned(n.value) for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))


def _cleaned(text: str) -> str:
    """A docstring as its lines read, indentation and surrounding blank lines aside (Python 3.13 strips a docstring's
    indentation as it compiles it, earlier versions keep it)."""
    return "\n".join(line.strip() for line in text.strip().splitlines())


def _check_unittest(honesty: _Honesty) -> None:
    """Examine the values unittest's comparing assertions are given, as `_Honesty.compare` does for `==`."""
    import unittest

    def checked(name: str, op: int, original: Callable[..., object]) -> Callable[..., object]:
        def assertion(self: unittest.TestCase, first: object, second: object, *args: object,
                      **kwargs: object) -> object:
            frame = sys._getframe(1)
            honesty.examine(first, second, op, f"{_relative(frame.f_code.co_filename, honesty.root)}:{frame.f_lineno}")
            return original(self, first, second, *args, **kwargs)

        assertion.__name__ = assertion.__qualname__ = name
        return assertion

    for name, op in UNITTEST_COMPARISONS.items():
        original = vars(unittest.TestCase).get(name)
        if original is not None:
            setattr(unittest.TestCase, name, checked(name, op, original))


def check_pytest() -> None:
    """In a judged run, when pytest loads the sandbox's plugin: route the comparisons of the modules pytest rewrites
    (tests, conftest) as they are rewritten, never from a cached rewrite, and never tell the code which test runs."""
    if not _HONESTY:
        return
    honesty = _HONESTY[0]
    try:
        import _pytest.assertion.rewrite as rewrite
        import _pytest.runner as runner
    except Exception:  # noqa: BLE001 - another pytest: its comparisons go unchecked, its tests run all the same
        return
    original = rewrite.rewrite_asserts

    def rewrite_asserts(mod: ast.Module, source: bytes, module_path: str | None = None,
                        config: Config | None = None) -> None:
        original(mod, source, module_path, config)
        if module_path is not None and os.path.realpath(module_path) in honesty.owned:
            honesty.transform(mod, str(module_path))

    rewrite.rewrite_asserts = rewrite_asserts
    rewrite._read_pyc = lambda *args, **kwargs: None  # a cached rewrite has no routed comparisons
    rewrite_test = rewrite._rewrite_test

    def _rewrite_test(fn: Path, config: Config) -> tuple[bytes, types.CodeType]:
        found, code = rewrite_test(fn, config)
        return found, honesty.compiled_here(code)

    rewrite._rewrite_test = _rewrite_test
    honesty.pytest = True
    runner._update_current_test_var = lambda item, when: None  # PYTEST_CURRENT_TEST: which test runs


def _trace_doctests(workspace: str, results: str) -> None:
    """Record each repository file whose text or docstrings become doctest examples (the module's docstring), once
    doctest loads (most runs never load it)."""
    root = os.path.join(os.path.abspath(workspace), "")
    log = os.path.join(results, READS_LOG)
    seen: set[str] = set()

    def trace(module: types.ModuleType) -> None:
        original = module.DocTestParser.get_doctest

        def get_doctest(self: doctest.DocTestParser, string: str, globs: dict[str, object], name: str,
                        filename: str | None, lineno: int | None) -> doctest.DocTest:
            test: doctest.DocTest = original(self, string, globs, name, filename, lineno)
            if test.examples and filename:
                full = _code_file(filename)
                if full.startswith(root) and full not in seen:
                    seen.add(full)
                    with contextlib.suppress(OSError):  # a full disk must not fail the tests
                        _append(log, f"{_relative(full, root)}\t{DOCTEST_OPENER}")
            return test

        module.DocTestParser.get_doctest = get_doctest

    _on_doctest(trace)


_DOCTEST_HOOKS: list[Callable[[types.ModuleType], None]] = []  # run on the standard library's doctest as it loads


def _on_doctest(hook: Callable[[types.ModuleType], None]) -> None:
    """Run `hook` on the standard library's doctest module: now where it is loaded, else as it loads, by a finder
    first on the meta path (the import costs a process 50 ms, and most runs never make it)."""
    module = sys.modules.get("doctest")
    if isinstance(module, types.ModuleType):
        hook(module)
        return
    _DOCTEST_HOOKS.append(hook)
    if len(_DOCTEST_HOOKS) > 1:
        return
    from importlib.machinery import PathFinder, SourceFileLoader

    class DoctestLoader(SourceFileLoader):
        def exec_module(self, module: types.ModuleType) -> None:
            super().exec_module(module)
            for then in _DOCTEST_HOOKS:
                then(module)

    class DoctestFinder:
        @staticmethod
        def find_spec(fullname: str, path: Sequence[str] | None = None,
                      target: types.ModuleType | None = None) -> ModuleSpec | None:
            if fullname != "doctest":
                return None
            spec = PathFinder.find_spec(fullname, path, target)
            if spec is None or not isinstance(spec.loader, SourceFileLoader):
                return None
            spec.loader = DoctestLoader(spec.loader.name, spec.loader.path)
            return spec

    sys.meta_path.insert(0, DoctestFinder)


def _writes(args: tuple[object, ...]) -> bool:
    """True for an `open` audit event that opens a file to change it (by its path, not a descriptor)."""
    path, mode, flags = (tuple(args) + (None, None, None))[:3]
    if isinstance(path, int) or path is None:
        return False
    if isinstance(mode, str) and (WRITE_MODES | {"+"}) & set(mode):
        return True
    return isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_TRUNC))


def _site_folders() -> set[str]:
    """The folders this environment's Python processes read `.pth` files and `sitecustomize` from (links resolved)."""
    import site

    found = [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    with contextlib.suppress(AttributeError):  # a Python whose `site` was replaced (a virtualenv's old one)
        found += [*site.getsitepackages(), site.getusersitepackages()]
    return {os.path.realpath(p) for p in found if isinstance(p, str) and p}


def _is_path(value: object) -> TypeGuard[str | bytes | os.PathLike[str] | os.PathLike[bytes]]:
    """True for what an audit event names a file by (a string, bytes or a path-like object), not a descriptor."""
    return isinstance(value, (str, bytes, os.PathLike))


def _real(path: object) -> str | None:
    """The absolute path, links resolved, of an audit event's path argument (None for a descriptor)."""
    if not _is_path(path):
        return None
    try:
        return os.path.realpath(os.path.join(os.getcwd(), os.fsdecode(os.fspath(path))))
    except Exception:  # noqa: BLE001 - a path-like object's own code: the open goes on as it would have
        return None


def _opener(frame: types.FrameType | None, root: str) -> str:
    """The repository-relative file of the innermost frame that runs the repository's own code ('' for none)."""
    while frame is not None:
        name: str = frame.f_code.co_filename
        if name.startswith(root):
            rel = name[len(root):]
            if rel.split(os.sep, 1)[0] not in OWN_FOLDERS:
                return rel.replace(os.sep, "/")
        frame = frame.f_back
    return ""


def _repository_path(args: tuple[object, ...], root: str) -> str | None:
    """The repository-relative path an `open` audit event reads, or None (a write, or outside the repository)."""
    path, mode, flags = (tuple(args) + (None, None, None))[:3]
    if isinstance(mode, str) and WRITE_MODES & set(mode) and "+" not in mode:
        return None
    if mode is None and isinstance(flags, int) and flags & os.O_ACCMODE == os.O_WRONLY:
        return None
    if not _is_path(path):
        return None  # a file descriptor: already opened by path
    full = os.path.normpath(os.path.join(os.getcwd(), os.fsdecode(os.fspath(path))))
    if not full.startswith(root):
        return None
    rel = full[len(root):]
    top = rel.split(os.sep, 1)[0]
    if not rel or top in OWN_FOLDERS or os.path.islink(root + top):  # the sandbox's files, the linked seeds
        return None
    if not os.path.isfile(full):  # the event comes before the open: imports try files that are not there
        return None
    return rel.replace(os.sep, "/")


def _append(path: str, line: str) -> None:
    # one line, cut to what one write of the stream holds, so the log and the stream hold the same record
    line = line.replace("\n", " ").encode("utf-8", "surrogateescape")[:MAX_RECORD].decode("utf-8", "surrogateescape")
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode("utf-8", "surrogateescape"))
    finally:
        os.close(fd)
    name = os.path.basename(path)
    if _STREAM and name in STREAMED_LOGS:
        _stream(f"log\t{name}\t{line}")


# The judge's records as they are written, streamed to the sandbox on the run's own standard error (a copy of it
# taken before any repository code ran), beside the logs: a log is a file the code under test can empty or rewrite
# through a process of its own, which no audit hook sees; a record on the stream is out of the run once written.
# `start` and `end` records (the process's id and a token only it knows) frame a process's records, so a stream cut
# short (its descriptor closed or taken over, the process ended by os._exit) shows too (sandbox/evidence.py).
EVIDENCE_MARK = "\x1eensemble-evidence\x1f"  # sandbox/output.py's, copied (this module imports none of the sandbox's)
STREAMED_LOGS = frozenset({OWNED_LOG, PATCHES_LOG, HONESTY_LOG})
MAX_RECORD = 3900  # a line's bytes: with its mark, one write below PIPE_BUF, so no other process's bytes land inside
STREAMING = "ENSEMBLE_STREAMING"  # set for the processes the first one starts: its stream is the run's
_STREAM: list[tuple[int, str, int]] = []  # the stream's descriptor, the process's token, its id


def _stream_records() -> None:
    """Take a copy of this process's standard error for the judge's records, if it is the run's first Python process
    (the test runner the run's command started, or each of several it runs one after another), and say so."""
    if os.environ.get(STREAMING):
        return
    os.environ[STREAMING] = "1"
    try:
        fd = os.dup(2)
    except OSError:  # no standard error: nothing to stream on, and no start to end
        return
    import atexit

    _STREAM.append((fd, os.urandom(16).hex(), os.getpid()))
    _stream(f"start\t{_STREAM[0][2]}\t{_STREAM[0][1]}")
    atexit.register(_stream_end)  # the first registered runs last: after every other record


def _stream(line: str) -> None:
    data = (EVIDENCE_MARK + line).encode("utf-8", "surrogateescape") + b"\n"
    with contextlib.suppress(OSError):  # closed or full: the missing end shows it
        os.write(_STREAM[0][0], data)


def _stream_end() -> None:
    """The process's last record: its records are all on the stream (a forked child's end is not its parent's)."""
    _, token, pid = _STREAM[0]
    if os.getpid() == pid:
        _stream(f"end\t{pid}\t{token}")


def _result_name(test_id: str) -> str:
    """unittest's `module.Class.test` as the sandbox names it: `module.Class::test`."""
    where, _, method = test_id.rpartition(".")
    return f"{where}::{method}"


def _wrap_unittest(skip: frozenset[str], check: bool = False) -> None:
    """Leave the tests in `skip` out of every unittest run (not run, not reported, not counted); with `check`, check
    the runners' classes before and after each test (`check_runner`)."""
    import unittest

    original: Callable[..., object] = unittest.TestCase.__call__

    def call(self: unittest.TestCase, *args: object, **kwargs: object) -> object:
        if _result_name(self.id()) in skip:
            return None
        if not check:
            return original(self, *args, **kwargs)
        if not _CHECKED:  # the first test: what loading the tests did, everywhere; later, each test's end
            _CHECKED.append(True)
            check_runner(full=True)
        try:
            return original(self, *args, **kwargs)
        finally:
            check_runner(full=False)

    unittest.TestCase.__call__ = call  # type: ignore[method-assign,assignment]  # any arguments, passed on


def _list_unittest(token: str) -> None:
    """Make unittest's main program print the tests its loader found instead of running them."""
    import unittest

    def list_tests(program: unittest.TestProgram) -> None:
        found = program.test  # type: ignore[attr-defined]  # set as the program loads the tests; typeshed lacks it
        lines = [token, *(f"{token}\t{_result_name(test.id())}" for test in _leaves(found)
                          if type(test).__module__ != "unittest.loader")]  # a module that failed to import
        sys.stdout.write("".join(f"{line}\n" for line in lines))
        sys.stdout.flush()
        sys.exit(0)

    unittest.TestProgram.runTests = list_tests  # type: ignore[method-assign,assignment]


def _leaves(suite: unittest.TestSuite | unittest.TestCase) -> Iterator[unittest.TestCase]:
    import unittest

    if isinstance(suite, unittest.TestSuite):
        for test in suite:
            yield from _leaves(test)
    else:
        yield suite


def _chain() -> None:
    """Run the sitecustomize this one hides (Debian's Python has one), as `site` would have."""
    from importlib.machinery import PathFinder

    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = type(sys)(spec.name)  # a module object, without importing importlib.util
    module.__spec__, module.__file__, module.__loader__ = spec, spec.origin, spec.loader
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - site reports it and goes on; so do we
        sys.stderr.write(f"Error in sitecustomize; set PYTHONVERBOSE for traceback:\n{type(exc).__name__}: {exc}\n")


def _install() -> None:
    env = os.environ
    workspace, results = env.get("ENSEMBLE_WORKSPACE") or os.getcwd(), env.get("ENSEMBLE_RESULTS")
    guarded = bool(results) and os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), OWNED_LIST))
    skip = frozenset(filter(None, env.get("ENSEMBLE_SKIP", "").splitlines()))
    listing = os.path.join(os.path.dirname(os.path.abspath(__file__)), OWNED_LIST)
    if results and guarded:
        _stream_records()
    if results and guarded and AUDIT_HOOKS:
        _guard_owned(workspace, results, listing)
    if results and env.get("ENSEMBLE_TRACE_READS") and AUDIT_HOOKS:
        _trace_reads(workspace, results)
        _trace_doctests(workspace, results)
    if results and guarded:
        with open(listing, encoding="utf-8") as f:
            _check_honesty(workspace, results, [line.rstrip("\n") for line in f if line.strip()])
        _watch_runner(results, skip)
    elif skip:
        _wrap_unittest(skip)
    if env.get("ENSEMBLE_LIST"):
        _list_unittest(env["ENSEMBLE_LIST"])
    _chain()


if __name__ == "sitecustomize":  # imported as anything else (a test, a linter), it does nothing
    _install()
