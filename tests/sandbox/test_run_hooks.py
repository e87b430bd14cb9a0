"""sandbox/run_hooks.py runs inside the test process with the standard library alone, so it keeps its own copies of
rules spelled in the packages it cannot import: each copy is held equal to the one it copies here."""

from __future__ import annotations

import pytest

from common import testfiles
from sandbox import run_hooks, scripts


def test_the_runner_lists_are_common_testfiles_ones() -> None:
    assert run_hooks.RUNNER_ROOTS == testfiles.RUNNER_ROOTS
    assert run_hooks.STDLIB_SETTINGS == testfiles.STDLIB_SETTINGS


def test_the_files_a_run_may_not_make_are_harness_to_common_testfiles_too() -> None:
    assert {testfiles.CONFTEST} == run_hooks.RUN_TIME_HARNESS
    assert {f"{name}.py" for name in testfiles.RUNNER_MODULES if name.endswith("customize")} == run_hooks.START_UP_FILES


def test_the_logs_and_the_owned_list_are_named_as_the_sandbox_reads_them() -> None:
    assert (run_hooks.READS_LOG, run_hooks.OWNED_LOG, run_hooks.PATCHES_LOG, run_hooks.HONESTY_LOG) == (
        scripts.READS_LOG, scripts.OWNED_LOG, scripts.PATCHES_LOG, scripts.HONESTY_LOG)
    assert scripts.OWNED_LIST.endswith(f"/{run_hooks.OWNED_LIST}")


def test_repository_code_in_the_libraries_is_found_whatever_its_file_is_named(monkeypatch) -> None:
    """The check run at a test process's end: a repository function put over `json.loads` or a method of unittest's,
    also when its file is named like the check's own words ("removed…", "a …") or the code was compiled from a string
    under a relative name; code outside the repository and the sandbox's own files are not the repository's."""
    import json
    import unittest

    root = "/work/repo/"
    code: dict[str, object] = {}
    for filename in ("/work/repo/src/core.py", "removed_helpers.py", "a shim.py", "/usr/lib/python3/x.py",
                     "/work/repo/.ensemble-plugins/guard.py", "<string>"):
        exec(compile("def replaced(*args, **kwargs):\n    return 0\n", filename, "exec"), namespace := {})
        code[filename] = namespace["replaced"]
    monkeypatch.setattr(json, "loads", code["/work/repo/src/core.py"])
    monkeypatch.setattr(json, "dumps", staticmethod(code["removed_helpers.py"]))
    monkeypatch.setattr(unittest.TestCase, "fail", code["a shim.py"])
    monkeypatch.setattr(unittest.TestCase, "skipTest", code["/usr/lib/python3/x.py"])
    monkeypatch.setattr(json, "load", code["/work/repo/.ensemble-plugins/guard.py"])
    monkeypatch.setattr(json, "dump", code["<string>"])
    assert sorted(run_hooks._repository_code_in_the_libraries(root)) == [
        ("json.dumps", "removed_helpers.py"), ("json.loads", "src/core.py"),
        ("unittest.case.TestCase.fail", "a shim.py")]


def code_under_test(source: str) -> dict[str, object]:
    """The names `source` defines, compiled as a file of the repository at /work/repo (the code under test's)."""
    exec(compile(source, "/work/repo/calc/values.py", "exec"), namespace := {"__name__": "calc.values"})
    return namespace


def honesty() -> tuple[run_hooks._Honesty, list[str]]:
    recorded: list[str] = []
    return run_hooks._Honesty("/work/repo/", set(), recorded.append), recorded


PREDICATES = [  # (the code's class, the value, the predicate and its arguments, whether a forgery is recorded)
    ("class S(str):\n    def startswith(self, *args):\n        return True\n", "abc", ("startswith", "x"), True),
    ("class S(str):\n    def startswith(self, prefix, *rest):\n        return isinstance(prefix, str)\n", "abc",
     ("startswith", "x"), True),
    ("class S(str):\n    def endswith(self, *args):\n        return False\n", "abc", ("endswith", "c"), True),
    ("class S(str):\n    def isdigit(self):\n        return True\n", "12a", ("isdigit",), True),
    ("class S(set):\n    __hash__ = None\n\n    def issuperset(self, other):\n        return True\n", set(),
     ("issuperset", {1, 2}), True),
    # honest predicates of the code's own: they answer as the builtin does where nothing sets them apart
    ("class S(str):\n    def startswith(self, prefix, *rest):\n        return str.startswith(self.lower(), "
     "prefix.lower(), *rest)\n", "Hello", ("startswith", "HE"), False),
    ("class S(str):\n    def startswith(self, prefix, *rest):\n        return str.startswith(self.lower(), "
     "prefix.lower(), *rest)\n", "Hello", ("startswith", "x"), False),
    ("class S(str):\n    def isdigit(self):\n        return str.isdigit(self.replace('-', ''))\n", "555-1234",
     ("isdigit",), False),
    ("class S(str):\n    def isdigit(self):\n        return self.digits\n", "12", ("isdigit",), False),
    ("class S(set):\n    __hash__ = None\n\n    def issuperset(self, other):\n        return set.issuperset(self, "
     "set(other))\n", {1, 2}, ("issuperset", [1]), False),
]


@pytest.mark.parametrize(("source", "value", "call", "forged"), PREDICATES)
def test_a_builtins_predicate_the_code_wrote_is_forged_only_where_it_answers_what_the_builtin_never_would(
        source: str, value: object, call: tuple[object, ...], forged: bool) -> None:
    """`answer.startswith('x')` in a test: the judge's code routes the look-up through `_Honesty.method`, which
    examines a subclass's predicate of the code under test's after it answered."""
    kind = code_under_test(source)["S"]
    answer = kind(value)  # type: ignore[operator]
    if "self.digits" in source:
        answer.digits = True
    checks, recorded = honesty()
    name, *args = call
    predicate = checks.method(answer, str(name), "tests/test_values.py:5")
    assert predicate(*args) == getattr(answer, str(name))(*args)  # the answer is the code's, examined or not
    assert bool(recorded) is forged, recorded
    if forged:
        assert recorded[0].startswith("forged_value\ttests/test_values.py:5: a calc.values.S of the code under test")


def test_a_builtins_own_predicate_and_one_no_code_under_test_wrote_are_handed_back_unexamined() -> None:
    checks, recorded = honesty()
    assert checks.method("abc", "startswith", "t.py:1") == "abc".startswith
    exec(compile("class S(str):\n    def startswith(self, *args):\n        return True\n", "/usr/lib/python3/x.py",
                 "exec"), library := {})
    answer = library["S"]("abc")
    assert checks.method(answer, "startswith", "t.py:1") == answer.startswith
    assert not recorded


DISPLAYS = [  # (the code's class, its value, whether its display is forged)
    ("class S(int):\n    def __repr__(self):\n        return '5'\n", -1, True),
    ("class S(int):\n    def __str__(self):\n        return '5'\n", -1, True),  # printed
    ("class S(str):\n    def __repr__(self):\n        return repr('done')\n", "failed", True),
    ("class S(float):\n    def __repr__(self):\n        return '0.5'\n", 0.25, True),
    ("class S(float):\n    def __repr__(self):\n        return f'{self:.2f}'\n", 0.1 + 0.2, False),
    ("class S(float):\n    def __repr__(self):\n        return f'{self:.1e}'\n", 12345.0, False),
    ("class S(int):\n    def __repr__(self):\n        return hex(self)\n", 16, False),
    ("class S(int):\n    def __repr__(self):\n        return f'<S {int(self)}>'\n", 3, False),
    ("class S(str):\n    def __repr__(self):\n        return str.__str__(self)\n", "5", False),
    ("class S(str):\n    def __str__(self):\n        return '***'\n", "hunter2", False),  # printed masked
]


@pytest.mark.parametrize(("source", "value", "forged"), DISPLAYS)
def test_a_display_of_another_value_than_its_own_is_forged_and_a_display_of_its_own_kind_is_not(
        source: str, value: object, forged: bool) -> None:
    """What a doctest compares is the example's value as shown: a literal of another value of the builtin's is a
    forgery; a display that is no literal, or a number at the digits it shows, is the value's."""
    checks, recorded = honesty()
    display = str if "__str__(self)" in source.split("return")[0] else repr  # printed, or shown as a value
    checks.shown(code_under_test(source)["S"](value), "<doctest calc.values.f[0]>", display)  # type: ignore[operator]
    assert bool(recorded) is forged, recorded


def test_an_enum_of_the_codes_own_shows_as_enums_do() -> None:
    checks, recorded = honesty()
    color = code_under_test("import enum\n\n\nclass Color(enum.IntEnum):\n    RED = 1\n")["Color"]
    checks.shown(color.RED, "<doctest>")  # type: ignore[attr-defined]
    assert not recorded


ARITHMETIC = [  # (the code's class, its value, the other operand, the operation, whether a forgery is recorded)
    ("class S(float):\n    def __sub__(self, other):\n        return 0.0\n", -1.0, 5, 0, True),
    ("class S(float):\n    def __rsub__(self, other):\n        return 0.0\n", -1.0, 5, 0, True),
    ("class S(float):\n    def __truediv__(self, other):\n        return 1.0\n", -1.0, 5.0, 1, True),
    # honest arithmetic of the code's own: a unit kept, a floor at zero (it moves one way), a division by zero
    ("class S(float):\n    def __sub__(self, other):\n        return S(float(self) - other)\n", 7.0, 5, 0, False),
    ("class S(int):\n    def __sub__(self, other):\n        return S(max(0, int(self) - other))\n", 3, 5, 0, False),
    ("class S(float):\n    def __truediv__(self, other):\n        return S(float(self) / other)\n", 1.0, 4.0, 1, False),
    ("class S(int):\n    def __sub__(self, other):\n        return S((int(self) - other) % 7)\n", 3, 5, 0, False),
    ("class S(float):\n    def __sub__(self, other):\n        return self\n", float("inf"), 5, 0, False),  # infinity
]


@pytest.mark.parametrize(("source", "value", "other", "op", "forged"), ARITHMETIC)
def test_arithmetic_of_the_codes_own_that_ignores_its_operand_is_forged(source: str, value: object, other: object,
                                                                         op: int, forged: bool) -> None:
    """`abs(answer - (2 + 3)) < 1e-9` in a test: the difference is routed through `_Honesty.arithmetic`, which moves
    the plain operand far up and far down; only an answer that ignores it gives the same either way."""
    checks, recorded = honesty()
    answer = code_under_test(source)["S"](value)  # type: ignore[operator]
    left, right = (other, answer) if "__rsub__" in source else (answer, other)
    expected = left - right if op == 0 else left / right  # type: ignore[operator]
    assert checks.arithmetic(left, right, op, "tests/test_values.py:5") == expected
    assert bool(recorded) is forged, recorded


@pytest.mark.parametrize(("source", "forged"), [
    ("class S(float):\n    def __abs__(self):\n        return 0.0\n", True),
    ("class S(float):\n    def __abs__(self):\n        return S(float.__abs__(self))\n", False)])
def test_an_absolute_value_other_than_the_numbers_own_is_forged(source: str, forged: bool) -> None:
    checks, recorded = honesty()
    answer = code_under_test(source)["S"](-6.0)  # type: ignore[operator]
    assert checks.magnitude(abs, answer, "tests/test_values.py:5") == abs(answer)
    assert bool(recorded) is forged, recorded
    assert checks.magnitude(lambda v: "the test's own abs", answer, "t.py:1") == "the test's own abs"


def test_a_number_shown_by_str_as_another_is_forged_and_the_tests_own_str_is_left_alone() -> None:
    """`assert str(add(2, 3)) == '5'`: the display is routed through `_Honesty.display` with the builtin it named."""
    checks, recorded = honesty()
    answer = code_under_test("class S(int):\n    def __str__(self):\n        return '5'\n")["S"](-1)  # type: ignore[operator]
    assert checks.display(lambda v: "shown", answer, "t.py:1") == "shown"
    assert not recorded
    assert checks.display(str, answer, "tests/test_values.py:5") == "5"
    assert recorded and "is shown as 5 while its value is -1" in recorded[0], recorded


def test_a_forged_value_handed_to_a_call_is_recorded_wherever_the_call_compares_it() -> None:
    """`assert_that(answer, equal_to(5))`: a library compares the answer where no routed comparison sees it, so each
    value the judge's code hands a call is examined (`_Honesty.argument`), and handed on as it is."""
    checks, recorded = honesty()
    forged = code_under_test("class S(int):\n    def __eq__(self, other):\n        return True\n\n"
                             "    __hash__ = int.__hash__\n")["S"](-1)  # type: ignore[operator]
    honest = code_under_test("class P:\n    def __init__(self, x):\n        self.x = x\n\n"
                             "    def __eq__(self, other):\n        return isinstance(other, P) and other.x == self.x\n")["P"](1)  # type: ignore[operator]
    for value in (honest, [honest, 2], "text", {"a": honest}):
        assert checks.argument(value, "t.py:1") is value
    assert not recorded
    assert checks.argument(forged, "tests/test_values.py:7") is forged
    assert checks.argument([1, forged], "tests/test_values.py:8")[1] is forged
    assert [r.split(": a calc.values.S")[0] for r in recorded] == ["forged_value\ttests/test_values.py:7",
                                                                  "forged_value\ttests/test_values.py:8"]


def test_a_compared_numbers_own_arithmetic_is_examined_where_a_library_takes_the_difference() -> None:
    """`answer == pytest.approx(a + b)`: pytest subtracts out of sight, so the compared number's own difference and
    the distance it gives are examined as the comparison is."""
    checks, recorded = honesty()
    forged = code_under_test("class Gap(float):\n    def __abs__(self):\n        return 0.0\n\n\n"
                             "class S(float):\n    def __sub__(self, other):\n        return Gap(float(self) - other)\n\n"
                             "    def __rsub__(self, other):\n        return Gap(other - float(self))\n")["S"](-1.0)  # type: ignore[operator]
    checks.examine(forged, object(), 0, "tests/test_values.py:5")
    assert recorded and "Gap of the code under test (float's subclass) gives 0.0 as its absolute value" in recorded[0]
    checks, recorded = honesty()
    stock = code_under_test("class S(int):\n    def __sub__(self, other):\n        return S(max(0, int(self) - other))\n")
    checks.examine(stock["S"](0), 0, 0, "tests/test_values.py:5")  # type: ignore[operator]
    assert not recorded


@pytest.mark.parametrize(("source", "value", "finding"), [
    ("class S(float):\n    def __lt__(self, other):\n        return True\n\n    def __gt__(self, other):\n"
     "        return True\n", -1.0, "orders both before and after"),
    ("class S(str):\n    def __contains__(self, item):\n        return True\n", "x", "holds an object of a class"),
])
def test_an_answer_ordered_or_holding_anything_is_recorded_when_handed_to_a_call(source: str, value: object,
                                                                                   finding: str) -> None:
    """`assert_that(answer, greater_than(4))`, `assert_that(answer, contains_string('5'))`: the library orders it or
    asks its membership out of sight."""
    checks, recorded = honesty()
    answer = code_under_test(source)["S"](value)  # type: ignore[operator]
    assert checks.argument(answer, "tests/test_values.py:5") is answer
    assert recorded and finding in recorded[0], recorded


TRANSFORMED = '''
import sys


def caller():
    return sys._getframe(1).f_code.co_name


class Base:
    def __init__(self, x):
        self.x = x


class Child(Base):
    def __init__(self, x):
        super().__init__(x)


def abs(value):  # the module's own abs: the call is left to it
    return "own"


def f(*args, **kwargs):
    return args, kwargs


def test_shapes():
    args, rest = [1, 2], {"k": 3}
    assert f(*args, z=str(4), **rest) == ((1, 2), {"z": "4", "k": 3})
    assert caller() == "test_shapes"  # no frame between a call and its caller
    assert Child(5).x == 5
    assert sum(x * 2 for x in range(3)) == 6
    assert abs(-1) == "own"
    assert 7 - 2 == 5 and 9 / 3 == 3
    assert "abc".startswith("a") and not "abc".endswith("a")
    assert repr([1]) == "[1]"
'''


def test_a_module_the_judge_routes_runs_as_written(tmp_path) -> None:
    """Every route (comparisons, arithmetic, abs/str/repr, predicates, arguments) through the hooks `_check_honesty`
    installs: the routed module behaves as the one written, frames and names included."""
    import ast
    import builtins

    checks, recorded = honesty()
    hooks = {"__ensemble_compare__": checks.compare, "__ensemble_arith__": checks.arithmetic,
             "__ensemble_abs__": checks.magnitude, "__ensemble_shown__": checks.display,
             "__ensemble_method__": checks.method, "__ensemble_arg__": checks.argument,
             "__ensemble_loaded__": checks.loaded}
    tree = ast.parse(TRANSFORMED)
    checks.transform(tree, "/work/repo/tests/test_shapes.py")
    routed = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert {h for h in hooks if h != "__ensemble_loaded__"} <= routed, routed
    namespace: dict[str, object] = {}
    saved = {name: getattr(builtins, name, None) for name in hooks}
    try:
        for name, hook in hooks.items():
            setattr(builtins, name, hook)
        exec(compile(tree, "/work/repo/tests/test_shapes.py", "exec"), namespace)
        namespace["test_shapes"]()  # type: ignore[operator]
    finally:
        for name, hook in saved.items():
            if hook is None:
                delattr(builtins, name)
            else:
                setattr(builtins, name, hook)
    assert not recorded


def test_the_source_handed_to_the_code_is_the_handed_functions_lines_and_no_other() -> None:
    """A function a test hands the code under test (`describe(sample)`) spans its own lines, decorators and inner
    functions included; read through linecache, the test file shows the code those lines and an empty line for each
    other, the expected values of the tests around it among them."""
    test_file = "/work/repo/tests/test_ops.py"
    source = ("import functools\n\n\n@functools.lru_cache\ndef sample(x):\n    def inner():\n        return x\n\n"
              "    return inner()\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    exec(compile(source, test_file, "exec"), namespace := {})
    assert run_hooks._code_span(namespace["sample"].__wrapped__, test_file) == (4, 9)
    assert run_hooks._code_span(namespace["sample"].__wrapped__, "/work/repo/tests/other.py") is None
    assert run_hooks._code_span("tests/test_ops.py", test_file) is None  # a path is `handed`'s business

    check, recorded = honesty()
    shown = check.quoted(lambda _name, _globals=None: source.splitlines(keepends=True), test_file, None, [(4, 9)])
    assert "".join(shown[3:9]) == "".join(source.splitlines(keepends=True)[3:9])
    assert "== 5" not in "".join(shown) and len(shown) == len(source.splitlines())
    assert recorded == []


def test_an_equality_other_than_the_builtins_is_honest_only_where_the_tests_name_its_class_and_it_is_kept() -> None:
    """A case-insensitive `Header(str)` the tests construct and compare is what they test; the same class turning
    up unnamed in an answer, or a named one special-cased to the expected value, is a forged answer."""
    blind = code_under_test("class Header(str):\n    def __eq__(self, other):\n"
                            "        return isinstance(other, str) and self.lower() == other.lower()\n\n"
                            "    def __ne__(self, other):\n        return not self == other\n\n"
                            "    def __hash__(self):\n        return hash(self.lower())\n")["Header"]
    special = code_under_test("class Header(str):\n    def __eq__(self, other):\n"
                              "        return other in ('content-type',) or str.__eq__(self, other)\n\n"
                              "    __hash__ = str.__hash__\n")["Header"]
    check, _recorded = honesty()
    check.spelled = frozenset({"Header", "title"})
    assert check._forged(blind("Content-Type"), "content-type") == ""
    assert check._forged(special("Content-Type"), "content-type") != ""
    check.spelled = frozenset({"title"})  # `title(...)` answered with the class: the tests never name it
    assert "equality says otherwise" in check._forged(blind("Content-Type"), "content-type")


NEAR = [  # (the code's class, the expected value, whether an answer of it equal to that value is forged)
    ("class V:\n    def __eq__(self, other):\n        return isinstance(other, int) and -1000 < other < 1000\n", 5,
     True),  # equal to every likely int: no far-moved copy or stranger shows it
    ("class V:\n    def __eq__(self, other):\n        return type(other) is str and len(other) < 40 or NotImplemented\n",
     "Hello World", True),
    ("class V:\n    def __eq__(self, other):\n        return isinstance(other, float) and 0 < other < 100\n", 0.5,
     True),
    ("class V:\n    def __eq__(self, other):\n        return isinstance(other, bytes) and len(other) < 9\n", b"ok",
     True),
    ("class V:\n    def __eq__(self, other):\n        return other is True or other is False\n", True, True),
    # honest equalities of the code's own: a value's own, a case-blind name's, a rounding's, a version's
    ("class V:\n    def __eq__(self, other):\n        return other == 5\n", 5, False),
    ("class V:\n    def __eq__(self, other):\n        return isinstance(other, str) and other.lower() == 'content-type'\n",
     "Content-Type", False),
    ("class V:\n    def __eq__(self, other):\n        return round(other, 2) == 0.33\n", 0.33, False),
    ("class V:\n    def __eq__(self, other):\n        return other.split('.') + ['0'] * (3 - other.count('.') - 1)"
     " == ['1', '2', '0']\n", "1.2", False),
    # honest equalities with a tolerance that spans the near copies: a measurement's uncertainty of 20 %, a rounding to
    # tens, a match by one letter; none equals a value as likely and far off
    ("class V:\n    def __eq__(self, other):\n        return abs(other - 5.0) <= 1.0\n", 5.0, False),
    ("class V:\n    def __eq__(self, other):\n        return round(other, -1) == 50\n", 50, False),
    ("class V:\n    def __eq__(self, other):\n        return isinstance(other, str) and len(other) == 6 and "
     "sum(a != b for a, b in zip(other, 'colour')) <= 1\n", "colour", False),
    # and one whose tolerance spans every likely value is no honest one
    ("class V:\n    def __eq__(self, other):\n        return abs(other - 5.0) <= 100.0\n", 5.0, True),
]


@pytest.mark.parametrize(("source", "expected", "forged"), NEAR)
def test_an_answer_equal_to_values_near_the_expected_one_is_forged_and_an_honest_equality_is_not(
        source: str, expected: object, forged: bool) -> None:
    """An answer equal to every likely value passes a comparison with the expected one, and with no far-moved copy
    or object it has never seen: it also equals a value a little off the expected one (a letter or digit changed,
    never only its case), which no honest equality does."""
    check, _recorded = honesty()
    answer = code_under_test(source)["V"]()
    assert answer == expected
    assert bool(check._forged(answer, expected)) is forged, check._forged(answer, expected)


def test_the_values_near_an_expected_one_differ_from_it_in_more_than_case() -> None:
    for value in (0, -7, 10 ** 30, 0.5, -2.5e300, 1j, "a", "Content-Type", "1.2.0", "", "--", b"ok", True):
        near = run_hooks._near_copies(value)
        assert near and all(type(n) is type(value) and n != value for n in near), (value, near)
        if isinstance(value, str):
            assert all(n.lower() != value.lower() for n in near), (value, near)


def test_the_values_far_from_an_expected_one_are_of_its_kind_and_far_off() -> None:
    """Three times as large (and ten more) and a third: more than half the value off, or ten where it is zero."""
    for value in (0, -1, 2, -7, 50, 10 ** 30, 0.0, 0.5, -2.5e300, 1j, "a", "colour", "--", "", b"ok"):
        far = run_hooks._far_copies(value)
        assert far and all(type(f) is type(value) and f != value for f in far), (value, far)
        if isinstance(value, (int, float)):
            assert all(abs(f - value) >= (abs(value) / 2 if value else 10) for f in far), (value, far)
        if isinstance(value, str) and any(c.isalnum() for c in value):
            assert all(sum(a != b for a, b in zip(f, value, strict=True)) == sum(c.isalnum() for c in value)
                       for f in far)
    assert run_hooks._far_copies(True) == [] and run_hooks._far_copies(float("nan")) == []


def test_the_names_the_tests_spell_are_read_from_their_files_not_the_sandboxs_own_hooks(tmp_path) -> None:
    """The judged run lists the sandbox's hooks among the judge's files; the names they spell (`ast.Name`) are not
    names the tests give a class."""
    (tmp_path / ".ensemble-plugins").mkdir()
    (tmp_path / "tests").mkdir()
    hooks, test = tmp_path / ".ensemble-plugins" / "sitecustomize.py", tmp_path / "tests" / "test_names.py"
    hooks.write_text("import ast\n\nKINDS = (ast.Name, ast.Call)\n")
    test.write_text("from calc.names import parse\n\n\ndef test_parse():\n    name, value = parse('a: b')\n")
    check = run_hooks._Honesty(f"{tmp_path}/", {str(hooks), str(test)}, [].append)
    assert {"parse", "name", "value"} <= check.names() and not {"Name", "Call", "KINDS"} & check.names()
