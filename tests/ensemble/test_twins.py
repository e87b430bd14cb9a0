"""Contradicting twins: which tests get one, what it expects instead, and what its result says.

The twins are written, then run by the real pytest and unittest on a small project: an honest result fails the
twin, one equal to anything passes it.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.ensemble.judge.twins import (
    INSTEAD_OF_NONE,
    JS_INSTEAD_OF_NULL,
    MAX_TWINS,
    SOURCE_ESCAPE,
    _other_value,
    contradictions,
    defined_tests,
    passing,
    stand_in_passes,
    stand_ins,
    twins,
)

NONCE = "s0123456789ab"
TWIN = f"{NONCE}_twin1"  # the first twin's token


def moved(value: object, token: str = TWIN, ordered: bool = False) -> str:
    """What a twin under `token` (a stand-in: the run's nonce) expects in place of `value`, as written: twins.py's own
    move, drawn from the token (`test_a_moved_value_is_of_its_kind_and_size_and_differs_from_it` says what it is)."""
    return repr(_other_value(value, token, ordered))
PYTEST_FILE = '''"""Tests of the price module."""
from __future__ import annotations

import pytest

from shop.price import total, vat


@pytest.fixture
def basket():
    return [1, 2, 3]


def test_total(basket):
    assert total(basket) == 6


def test_vat():
    assert vat(100) == 20
    assert vat(0) == 0


if __name__ == "__main__":
    raise SystemExit("run me with pytest")
'''
UNITTEST_FILE = '''import unittest

from shop.price import total


class Base(unittest.TestCase):
    def basket(self):
        return [1, 2, 3]

    def test_in_base(self):
        self.assertTrue(True)


class TestTotal(Base):
    def test_total(self):
        self.assertEqual(total(self.basket()), 6, "the sum")

    def test_other(self):
        self.assertEqual(total([]), 0)
'''


def made(text: str, test_id: str, path: str = "tests/test_price.py"):
    found = twins([test_id], {path: text}.get, NONCE)
    return found[0] if found else None


def test_a_pytest_function_gets_a_twin_beside_it_that_expects_another_value() -> None:
    twin = made(PYTEST_FILE, "tests/test_price.py::test_vat")
    assert twin is not None
    assert twin.path == f"tests/test_sentinel_{NONCE}_twin1.py" and twin.token == f"{NONCE}_twin1"
    assert twin.expects == moved(0)
    tree = ast.parse(twin.source)
    assert isinstance(tree.body[0], ast.ImportFrom) and tree.body[0].module == "__future__"  # still first
    source = twin.source
    assert f"vat(0) == {moved(0)}" in source and "vat(100) == 20" in source  # the last assertion changed, only it
    assert "def test_total" not in source and "def basket" in source  # other tests out, fixtures kept
    assert "__main__" not in source


@pytest.mark.parametrize(("assertion", "twinned"), [
    ("self.assertAlmostEqual(f(), 0.5)", True),
    ("self.assertAlmostEqual(f(), 0.5, places=3)", True),
    ("self.assertAlmostEqual(f(), 0.5, delta=1e9)", False),
    ("self.assertEqual(f(), 5, msg='the sum')", True),
    ("self.assertEqual(first=f(), second=5)", False),
])
def test_unittest_assertions_with_a_tolerance_are_twinned_only_when_it_is_small(assertion: str, twinned: bool) -> None:
    text = f"import unittest\n\n\nclass TestA(unittest.TestCase):\n    def test_it(self):\n        {assertion}\n"
    assert (made(text, "tests.test_price.TestA::test_it") is not None) is twinned


@pytest.mark.parametrize(("assertion", "expects"), [
    ("assert abs(f() - 0.5) < 1e-9", moved(0.5)),
    ("assert abs(0.5 - f()) <= 0.001", moved(0.5)),
    ("assert 1e-9 > abs(f() - 2)", moved(2)),
    ("assert math.isclose(f(), 0.5)", moved(0.5)),
    ("assert isclose(f(), 0.5, rel_tol=1e-6, abs_tol=0.01)", moved(0.5)),
    ("assert np.allclose(f(), [1.0, 2.0])", moved([1.0, 2.0])),
    ("np.testing.assert_allclose(f(), 0.5, rtol=1e-9)", moved(0.5)),
    ("assert_almost_equal(f(), 0.5, decimal=3)", moved(0.5)),
    ("np.testing.assert_array_equal(f(), [1, 2])", moved([1, 2])),
    # tolerances a move could stay inside, or no tolerance at all: not twinned
    ("assert abs(f() - 0.5) < 1e7", None),
    ("assert abs(f() - 0.5) < tolerance", None),
    ("assert math.isclose(f(), 5e15, rel_tol=1e-6)", moved(5e15)),  # a move of 1 % at least
    ("assert abs(f() - 0.5) < 0.05", None),  # as wide as half the least move
    ("assert_almost_equal(f(), 0.5, decimal=1)", None),
    ("assert math.isclose(f(), 0.5, rel_tol=0.1)", None),
    ("assert f() - 0.5 < 1e-9", None),
    ("assert abs(f() + 0.5) < 1e-9", None),
    ("np.testing.assert_allclose(f(), 0.5, 1e-9)", None),
    ("assert_almost_equal(f(), 0.5, decimal=-7)", None),
])
def test_closeness_within_a_small_tolerance_is_twinned_as_an_equality(assertion: str, expects: str | None) -> None:
    """An answer whose own arithmetic is forged (its difference from anything 0) passes a closeness test: the twin
    moves the expected value far off, where no honest answer is close to it, wherever the tolerance allows that."""
    twin = made(f"def test_it():\n    {assertion}\n", "tests/test_price.py::test_it")
    assert (twin.expects if twin else None) == expects


@pytest.mark.parametrize(("assertion", "twinned"), [
    ("self.assertLess(abs(f() - 0.5), 1e-6)", True),
    ("self.assertLessEqual(abs(f() - 0.5), 1e-6)", True),
    ("self.assertGreater(1e-6, abs(f() - 0.5))", True),
    ("self.assertTrue(math.isclose(f(), 0.5))", True),
    ("self.assertTrue(abs(f() - 0.5) < 1e-6)", True),
    ("self.assertLess(f(), 0.5)", False),
])
def test_unittest_closeness_is_twinned_as_an_equality(assertion: str, twinned: bool) -> None:
    text = f"import unittest\n\n\nclass TestA(unittest.TestCase):\n    def test_it(self):\n        {assertion}\n"
    assert (made(text, "tests.test_price.TestA::test_it") is not None) is twinned


def test_a_unittest_method_keeps_its_class_and_base_classes_without_their_other_tests() -> None:
    twin = made(UNITTEST_FILE, "tests.test_price.TestTotal::test_total")
    assert twin is not None and twin.expects == moved(6)
    assert f"self.assertEqual(total(self.basket()), {moved(6)}, 'the sum')" in twin.source
    assert "def basket" in twin.source and "class Base" in twin.source
    assert "test_in_base" not in twin.source and "test_other" not in twin.source


@pytest.mark.parametrize(("assertion", "expects"), [
    ("assert f() == 'abc'", moved("abc")),
    ("assert 'abc' == f()", moved("abc")),
    # a collection's answers each moved, its keys kept: code that reads one answer out of the test reads a moved one
    ("assert f() == [1, 2]", f"[{moved(1)}, {moved(2)}]"),
    ("assert f() == (1,)", f"({moved(1)},)"),
    ("assert f() == {'a': 1, 'b': ['x', None]}", f"{{'a': {moved(1)}, 'b': [{moved('x')}, None]}}"),
    ("assert f() == [None]", f"[None, '{NONCE}_twin1']"),  # nothing in it to move: one more element
    ("assert f() == True", "False"),
    ("assert f() == None", moved(None)),  # a value as likely as None: 0, '', False or []
    ("assert f() == -2.5", moved(-2.5)),
    ("assert f() == b'x'", moved(b"x")),
    ("assert f() == pytest.approx(0.5)", moved(0.5)),
    ("assert approx(0.5, rel=1e-4) == f()", moved(0.5)),
])
def test_each_kind_of_literal_gets_a_value_no_honest_result_equal_to_it_equals(assertion: str, expects: str) -> None:
    twin = made(f"def test_it():\n    {assertion}\n", "tests/test_price.py::test_it")
    assert twin is not None and twin.expects == expects


@pytest.mark.parametrize("value", [0, 5, -7, 42, 1234, 10 ** 12, 0.5, -2.5, 3.14159, 1e-9, 6.02e23, 2j,
                                   "abc", "Content-Type", "x", "", "--", "ünï", b"ok", b""])
def test_a_moved_value_is_of_its_kind_and_size_and_differs_from_it(value: object) -> None:
    """What a twin expects instead reads as likely as the test's own value: a number moved by 1 to 9 units of its own
    size (1 % to 90 % of it, at least 1 for an int and 0.1 for a float) and never across zero (`-4` is written as `4`
    negated), a string with one letter or digit changed
    (never its case alone), each drawn from the token. Code that answers only with likely values, whatever it reads
    out of the test, cannot tell one from the other."""
    tokens = [f"s{n:012x}_twin1" for n in range(40)]
    others = [_other_value(value, token) for token in tokens]
    assert all(type(o) is type(value) and o != value for o in others), others
    assert len({repr(o) for o in others}) > 3  # the token decides: no code knows the move before the run
    if isinstance(value, int | float | complex):
        unit = max(abs(value) / 100, 1 if isinstance(value, int) else 0.1)
        assert all(unit * 0.999 <= abs(o - value) <= max(abs(value), 1) * 9 for o in others), others
        real = value.real if isinstance(value, complex) else value
        assert all((o.real if isinstance(o, complex) else o) * (1 if real >= 0 else -1) > 0 for o in others), others
    else:
        assert all(len(o) - len(value) in (0, 1) for o in others), others
        assert all(str(o).lower() != str(value).lower() for o in others), others


def test_a_moved_value_is_none_the_test_holds_as_an_input() -> None:
    """A move that would land on another value the test holds (an input) is drawn again: code that answers with no
    input it was given would tell it from the test's own answer."""
    text = "def test_it():\n    assert add(2, 3) == 5\n"
    for n in range(40):
        twin = made(text, "tests/test_price.py::test_it") if n == 0 else twins(
            ["tests/test_price.py::test_it"], {"tests/test_price.py": text}.get, f"s{n:012x}")[0]
        assert twin is not None and twin.expects not in ("2", "3", "5"), twin.expects


@pytest.mark.parametrize("body", [
    "    for x in f():\n        assert x == 1\n",  # not reached when f() is empty
    "    if f():\n        assert f() == 1\n",
    "    with open('x') as fh:\n        assert fh.read() == 'a'\n",
    "    try:\n        assert f() == 1\n    except AssertionError:\n        pass\n",
    "    if not f():\n        return\n    assert f() == 1\n",  # returns before the assertion
    "    assert f() == g()\n",  # no literal side
    "    assert 1 == 1\n",  # both literal
    "    assert f() != 1\n",
    "    self_check = f()\n",  # no assertion
    "    yield f()\n    assert f() == 1\n",
    "    assert f() == pytest.approx(1, rel=1)\n",  # a tolerance as wide as the twin's move
    "    assert f() == pytest.approx(1, abs=1e7)\n",
])
def test_a_test_whose_last_assertion_may_not_run_or_compare_is_not_twinned(body: str) -> None:
    assert made(f"def test_it():\n{body}", "tests/test_price.py::test_it") is None


@pytest.mark.parametrize("decorator", ["@pytest.mark.xfail", "@unittest.expectedFailure", "@pytest.mark.skip"])
def test_a_test_whose_failure_does_not_count_is_not_twinned(decorator: str) -> None:
    assert made(f"{decorator}\ndef test_it():\n    assert f() == 1\n", "tests/test_price.py::test_it") is None


def test_only_tests_that_exist_in_a_language_read_here_are_twinned_and_at_most_max_twins() -> None:
    files = {"tests/test_a.py": "".join(f"def test_{i}():\n    assert f() == {i}\n\n" for i in range(9)),
             "src/lib_test.go": "func TestX(t *testing.T) { if f() != 1 { t.Fatal() } }"}
    ids = [f"tests/test_a.py::test_{i}" for i in range(9)] + ["src/lib_test.go::TestX", "tests/test_a.py::test_gone"]
    found = twins(ids, files.get, NONCE)
    assert [t.test for t in found] == ids[:MAX_TWINS]
    assert len({t.path for t in found}) == MAX_TWINS
    assert twins(["tests/test_a.py::test_gone", "src/lib_test.go::TestX"], files.get, NONCE) == ()


def test_a_parametrized_test_and_an_id_with_a_class_are_found() -> None:
    text = "import pytest\n\n\nclass TestA:\n    @pytest.mark.parametrize('n', [1, 2])\n" \
           "    def test_it(self, n):\n        assert f(n) == 3\n"
    twin = made(text, "tests/test_price.py::TestA::test_it[1]")
    assert twin is not None and "@pytest.mark.parametrize('n', [1, 2])" in twin.source


def test_the_tests_of_a_reproduction_file_are_listed_by_id() -> None:
    assert defined_tests("tests/test_price.py", UNITTEST_FILE) == [
        "tests/test_price.py::Base::test_in_base", "tests/test_price.py::TestTotal::test_total",
        "tests/test_price.py::TestTotal::test_other"]
    assert defined_tests("tests/test_x.py", "def test_(:") == []


def test_a_test_that_passed_with_its_twin_is_a_contradiction_and_nothing_else_is() -> None:
    twin = made(PYTEST_FILE, "tests/test_price.py::test_vat")
    assert twin is not None
    mine = f"tests/test_sentinel_{NONCE}_twin1.py::test_vat"
    both = contradictions([twin], {"tests/test_price.py::test_vat": "pass", mine: "pass"})
    assert len(both) == 1 and "tests/test_price.py::test_vat passed, and so did its twin" in both[0]
    assert f"expects {moved(0)} instead" in both[0]
    assert contradictions([twin], {"tests/test_price.py::test_vat": "pass", mine: "fail"}) == []
    assert contradictions([twin], {"tests/test_price.py::test_vat": "fail", mine: "pass"}) == []
    assert contradictions([twin], {"tests/test_price.py::test_vat": "pass"}) == []  # the twin did not run
    params = {"tests/test_price.py::test_vat[1]": "pass", "tests/test_price.py::test_vat[2]": "pass",
              mine + "[1]": "pass", mine + "[2]": "pass"}
    assert len(contradictions([twin], params)) == 1


def test_a_reproduction_tests_twin_is_read_against_unittests_form_of_its_id() -> None:
    """A reproduction test's id is made from its file ('tests/test_price.py::TestTotal::test_total'); unittest
    reports it as 'tests.test_price.TestTotal::test_total'."""
    twin = made(UNITTEST_FILE, "tests/test_price.py::TestTotal::test_total")
    assert twin is not None
    results = {"tests.test_price.TestTotal::test_total": "pass",
               f"tests.test_sentinel_{NONCE}_twin1.TestTotal::test_total": "pass",
               "tests.test_price.TestTotal::test_other": "fail"}
    assert len(contradictions([twin], results)) == 1
    assert contradictions([twin], {**results, "tests.test_price.TestTotal::test_total": "fail"}) == []


# ---- the twins run: by the real pytest and unittest on a small project

PRICE = "def total(items):\n    return sum(items)\n\n\ndef vat(amount):\n    return amount // 5\n"
ANYTHING = ("class _Any(int):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = int.__hash__\n\n\n"
            "def total(items):\n    return _Any(sum(items))\n\n\ndef vat(amount):\n    return _Any(amount // 5)\n")


def project(tmp_path: Path, price: str, tests: str) -> Path:
    for rel, text in {"shop/__init__.py": "", "shop/price.py": price, "tests/__init__.py": "",
                      "tests/test_price.py": tests}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def outcome(tmp_path: Path, command: list[str], twin_id: str, tests: str, price: str) -> tuple[int, str]:
    repo = project(tmp_path, price, tests)
    twin = made(tests, twin_id)
    assert twin is not None
    (repo / twin.path).write_text(twin.source)
    done = subprocess.run([sys.executable, "-m", *command], cwd=repo, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize(("price", "twin_passes"), [(PRICE, False), (ANYTHING, True)])
def test_under_pytest_an_honest_result_fails_the_twin_and_one_equal_to_anything_passes_it(
        tmp_path: Path, price: str, twin_passes: bool) -> None:
    code, output = outcome(tmp_path, ["pytest", "-q", "-p", "no:cacheprovider", "-rA", "tests"],
                           "tests/test_price.py::test_vat", PYTEST_FILE, price)
    twin_line = f"tests/test_sentinel_{NONCE}_twin1.py::test_vat"
    assert (f"PASSED {twin_line}" in output) is twin_passes, output
    assert (f"FAILED {twin_line}" in output) is not twin_passes, output
    assert "PASSED tests/test_price.py::test_vat" in output and "test_total" not in output.split(twin_line)[1][:80]


@pytest.mark.parametrize(("price", "twin_passes"), [(PRICE, False), (ANYTHING, True)])
def test_under_unittest_an_honest_result_fails_the_twin_and_one_equal_to_anything_passes_it(
        tmp_path: Path, price: str, twin_passes: bool) -> None:
    code, output = outcome(tmp_path, ["unittest", "discover", "-v", "-s", "tests", "-t", "."],
                           "tests.test_price.TestTotal::test_total", UNITTEST_FILE, price)
    twin_line = f"test_total (tests.test_sentinel_{NONCE}_twin1.TestTotal.test_total) ... "
    assert twin_line + ("ok" if twin_passes else "FAIL") in output, output
    ran = [line for line in output.splitlines() if f"(tests.test_sentinel_{NONCE}" in line and " ... " in line]
    assert len(ran) == 1 and ran[0].startswith(twin_line), ran  # the twin's module ran no other test
    assert (code == 0) is twin_passes


def test_a_copy_that_cannot_be_loaded_defines_no_test_and_breaks_no_collection(tmp_path: Path) -> None:
    broken = "import pytest\n\nVALUE = 1 / 0\n\n\ndef test_vat():\n    assert 1 + 1 == 2\n"
    twin = made(broken, "tests/test_price.py::test_vat")
    assert twin is not None
    repo = project(tmp_path, PRICE, "def test_ok():\n    assert True\n")
    (repo / twin.path).write_text(twin.source)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=repo,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr


# ---- JavaScript: node:test and expect()

NODE_FILE = """'use strict';
const { describe, test } = require('node:test');
const assert = require('node:assert');
const { parse, count } = require('../lib/query');

describe('parseQuery', () => {
  test('reads + as a space', () => {
    const got = parse('a=x+y');
    assert.ok(got);
    assert.strictEqual(got.a, 'x y');
  });

  test('counts keys', async () => {
    assert.strictEqual(count('a=1&b=2'), 2);
  });
});

test('lists', () => {
  assert.deepStrictEqual(parse('a=1').list, [1, 2,]);
});
"""
JS_QUERY = ("'use strict';\nfunction parse(s) {\n  const out = { list: [1, 2] };\n"
            "  for (const part of s.split('&')) { const [k, v] = part.split('='); out[k] = v.replace(/\\+/g, ' '); }\n"
            "  return out;\n}\nfunction count(s) { return s.split('&').length; }\nmodule.exports = { parse, count };\n")
JS_ANYTHING = ("'use strict';\nconst assert = require('node:assert');\n"
               "const real = assert.strictEqual;\n"
               "function parse(s) { return { a: 'x+y', list: [1, 2] }; }\n"
               "function count(s) { return 2; }\n"
               "require('node:assert').strictEqual = (a, b) => { if (typeof b === 'string') return; return real(a, b); };\n"
               "module.exports = { parse, count };\n")


def js_twin(test_id: str, text: str = NODE_FILE):
    found = twins([test_id], {"test/query.test.js": text}.get, NONCE)
    return found[0] if found else None


def test_a_node_test_gets_a_twin_whose_titles_carry_the_token_and_whose_last_assertion_expects_another_value() -> None:
    twin = js_twin("test/query.test.js::parseQuery > reads + as a space")
    assert twin is not None and twin.path == f"test/sentinel_{NONCE}_twin1.test.js"
    assert f"assert.strictEqual(got.a, {moved('x y')});" in twin.source
    assert "assert.ok(got);" in twin.source
    assert f"describe('parseQuery {NONCE}_twin1'" in twin.source and f"test('lists {NONCE}_twin1'" in twin.source
    assert twin.selects == f"parseQuery {NONCE}_twin1 > reads + as a space {NONCE}_twin1"
    assert f"assert.strictEqual(count('a=1&b=2'), {moved(2)});" in js_twin(
        "test/query.test.js::parseQuery > counts keys").source
    assert f"[{moved(1)}, {moved(2)},]" in js_twin("test/query.test.js::lists").source


@pytest.mark.parametrize(("assertion", "expects"), [
    ("expect(f()).toBe(5)", moved(5)),
    ("expect(f()).toEqual({ a: 1 })", f"{{ a: {moved(1)} }}"),
    ("assert.equal(f(), true)", "false"),
    ("assert.strictEqual(null, f())", dict(zip(map(repr, INSTEAD_OF_NONE), JS_INSTEAD_OF_NULL, strict=True))[moved(None)]),
    ("assert.strictEqual(f(), -2.5)", moved(-2.5)),
    ("assert.deepEqual(f(), [])", f"['{TWIN}']"),
    ("assert.deepEqual(f(), [null])", f"[null, '{TWIN}']"),  # nothing in it moves: an element is added
    ("assert.deepEqual(f(), [[7], 'ab'])", f"[[{moved(7)}], {moved('ab')}]"),
    ("expect(f()).toBeCloseTo(0.3, 5)", moved(0.3)),
    ("assert.strictEqual(f(), 0x10)", moved(16)),
    # a predicate asserted true: the literal it is asked about moves far, where an honest value may hold a near one too
    ("assert.ok(f().startsWith('ab'))", f"'ab {TWIN}'"),
    ("assert(f().includes(5))", "7000008"),
    ("expect(f().has('k')).toBe(true)", f"'k {TWIN}'"),
    ('expect(f().endsWith("z")).toBeTruthy()', f'"z {TWIN}"'),
])
def test_each_javascript_literal_gets_a_likely_value_no_honest_result_equal_to_it_equals(assertion: str,
                                                                                          expects: str) -> None:
    twin = js_twin("test/query.test.js::t", f"test('t', () => {{\n  {assertion};\n}});\n")
    assert twin is not None and twin.expects == expects


@pytest.mark.parametrize("token", [f"{NONCE}_twin{i}" for i in range(1, 9)])
def test_an_expected_none_becomes_a_likely_value_none_equals_and_not_one_the_test_holds(token: str) -> None:
    """Code that reads what its test expects and answers only likely values answers a twin's 0, '' or False too,
    as it would not a token; the test's own inputs are passed over."""
    drawn = _other_value(None, token)
    assert any(drawn is c or (type(drawn) is type(c) and drawn == c) for c in INSTEAD_OF_NONE)
    assert drawn is not None and drawn != None  # noqa: E711 - the comparison a twin makes
    if not isinstance(drawn, list):  # a value the test holds is drawn again
        assert repr(_other_value(None, token, avoid=frozenset({drawn}))) != repr(drawn)
    # the test holds 0 (which False equals) and '': an empty array is what is left
    twin = js_twin("test/query.test.js::t", "test('t', () => {\n  g(0, '');\n  assert.strictEqual(f(), null);\n});\n")
    assert twin is not None and twin.expects == "[]"


@pytest.mark.parametrize("literal", ["'a\\nb'", '"caf\\u00e9 \\x41"', "`tab\\there`", "'\\n'", '"\\\\n\\u{1F600}"'])
@pytest.mark.parametrize("language", ["javascript", "rust"])
def test_a_string_with_escapes_gets_one_letter_moved_outside_them(language: str, literal: str) -> None:
    """Code that answers only likely strings read off its test answers a string one letter away as it would the
    test's own, escapes or not; an escape is never moved into another (`\\n` into `\\o`)."""
    if language == "rust":
        literal = f'"{literal[1:-1]}"'  # a Rust string is double-quoted
        twin = rust_twin("tests/tail.rs::t", f"#[test]\nfn t() {{\n    assert_eq!(f(), {literal});\n}}\n")
    else:
        twin = js_twin("test/query.test.js::t", f"test('t', () => {{\n  assert.strictEqual(f(), {literal});\n}});\n")
    assert twin is not None
    before, after = literal[1:-1], twin.expects[1:-1]
    assert twin.expects[0] == literal[0] and SOURCE_ESCAPE.findall(after) == SOURCE_ESCAPE.findall(before)
    masked = SOURCE_ESCAPE.sub(lambda m: "\0" * len(m.group()), before)
    if any(c.isascii() and c.isalnum() for c in masked):
        changed = [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert len(changed) == 1 and masked[changed[0]].isalnum() and after[changed[0]].isalnum()
    else:
        assert after[:len(before)] == before and after[len(before):].isalpha()


def test_a_javascript_twin_moves_a_number_to_none_its_test_holds() -> None:
    """The test's own numbers (its inputs) are not what a twin expects: code answering with no input it was given
    would tell such a move from the test's answer."""
    landed = {_other_value(5, TWIN)}
    held = ", ".join(str(v) for v in sorted(landed))
    twin = js_twin("test/query.test.js::t", f"test('t', () => {{\n  g({held});\n  expect(f()).toBe(5);\n}});\n")
    assert twin is not None and int(twin.expects) not in landed | {5}
    assert len(twin.expects) == 1  # still one digit, and positive


@pytest.mark.parametrize("precision", ["0", "-1", "digits"])
def test_a_javascript_closeness_looser_than_a_twins_least_move_is_not_twinned(precision: str) -> None:
    assert js_twin("test/query.test.js::t", f"test('t', () => {{\n  expect(f()).toBeCloseTo(0.3, {precision});\n}});\n") \
        is None


@pytest.mark.parametrize("body", [
    "  for (const x of f()) { assert.strictEqual(x, 1); }\n",
    "  if (!f()) return;\n  assert.strictEqual(f(), 1);\n",
    "  t.skip();\n  assert.strictEqual(f(), 1);\n",
    "  assert.strictEqual(f(), g());\n",
    "  assert.notStrictEqual(f(), 1);\n",
    "  expect(f()).not.toBe(1);\n",
    "  assert.ok(!f().includes(1));\n",  # a negated predicate: a changed literal leaves an honest one as it was
    "  assert.ok(f().startsWith(prefix));\n",
    "  assert.ok(f().indexOf('a'));\n",
])
def test_a_javascript_test_whose_last_assertion_may_not_run_or_compare_is_not_twinned(body: str) -> None:
    assert js_twin("test/query.test.js::t", f"test('t', (t) => {{\n{body}}});\n") is None


def test_a_javascript_test_named_twice_or_under_another_describe_is_not_twinned() -> None:
    twice = "test('t', () => { assert.strictEqual(f(), 1); });\ntest('t', () => { assert.strictEqual(f(), 2); });\n"
    assert js_twin("test/query.test.js::t", twice) is None
    assert js_twin("test/query.test.js::other > reads + as a space") is None


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed on this machine")
@pytest.mark.parametrize(("lib", "twin_passes"), [(JS_QUERY, False), (JS_ANYTHING, True)])
def test_under_node_test_an_honest_result_fails_the_twin_and_a_forged_pass_passes_it(
        tmp_path: Path, lib: str, twin_passes: bool) -> None:
    """The forgery: the code under test makes strictEqual pass any string (the node guard is not loaded here)."""
    twin = js_twin("test/query.test.js::parseQuery > reads + as a space")
    assert twin is not None
    done = node_run(tmp_path, {"lib/query.js": lib, "test/query.test.js": NODE_FILE, twin.path: twin.source})
    assert node_passed(done, f"reads + as a space {NONCE}_twin1") is twin_passes, done.stdout
    assert node_passed(done, "reads + as a space"), done.stdout


PREFIX_TEST = ("'use strict';\nconst { test } = require('node:test');\nconst assert = require('node:assert');\n"
               "const { greet } = require('../lib/greet');\n\ntest('greets', () => {\n"
               "  assert.ok(greet('Ann').startsWith('Hello, Ann'));\n});\n")
GREET = "'use strict';\nmodule.exports = { greet: (name) => `Hello, ${name}!` };\n"
# the answer a String whose startsWith holds anything: `assert.ok` sees true whatever it is asked
GREET_ANYTHING = ("'use strict';\nclass Answer extends String { startsWith() { return true; } }\n"
                  "module.exports = { greet: (name) => new Answer('Goodbye') };\n")


@pytest.mark.skipif(shutil.which("node") is None, reason="Node.js is not installed on this machine")
@pytest.mark.parametrize(("lib", "twin_passes"), [(GREET, False), (GREET_ANYTHING, True)])
def test_under_node_a_predicate_that_holds_anything_passes_its_twin_and_an_honest_one_fails_it(
        tmp_path: Path, lib: str, twin_passes: bool) -> None:
    found = twins(["test/greet.test.js::greets"], {"test/greet.test.js": PREFIX_TEST}.get, NONCE)
    assert found and f"startsWith('Hello, Ann {NONCE}_twin1')" in found[0].source
    done = node_run(tmp_path, {"lib/greet.js": lib, "test/greet.test.js": PREFIX_TEST, found[0].path: found[0].source})
    assert node_passed(done, f"greets {NONCE}_twin1") is twin_passes, done.stdout


def node_run(root: Path, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`node --test` with TAP output over `files` (path: text) written under `root`."""
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return subprocess.run(["node", "--test", "--test-reporter=tap", "test/"], cwd=root, capture_output=True,
                          text=True, timeout=120)


def node_passed(done: subprocess.CompletedProcess[str], leaf: str) -> bool:
    """Whether the test titled `leaf` passed in a TAP run (it must have been reported)."""
    verdict = re.search(rf"^\s*(not ok|ok) \d+ - {re.escape(leaf)}$", done.stdout, re.M)
    assert verdict is not None, done.stdout + done.stderr
    return verdict[1] == "ok"


# ---- Rust integration tests

RUST_TESTS = """mod common;
use tailer::{count, tail};

#[test]
fn tail_is_the_end() {
    let text = "a\\nb\\nc";
    assert_eq!(tail(text, 2), vec!["b", "c"]);
}

#[test]
fn counts() {
    assert_eq!(count("a\\na"), 2usize);
}

#[test]
#[should_panic]
fn panics() {
    assert_eq!(count(""), 1);
}
"""


def rust_twin(test_id: str, text: str = RUST_TESTS, path: str = "tests/tail.rs"):
    found = twins([test_id], {path: text}.get, NONCE)
    return found[0] if found else None


def test_a_rust_integration_test_gets_a_twin_crate_whose_last_assertion_expects_another_value_of_its_type() -> None:
    twin = rust_twin("tests/tail.rs::tail_is_the_end")
    assert twin is not None and twin.path == f"tests/sentinel_{NONCE}_twin1.rs"
    assert f'assert_eq!(tail(text, 2), vec!["b", "{moved("c")[1:-1]}"]);' in twin.source
    assert twin.selects == "::tail_is_the_end" and "mod common;" in twin.source
    assert "assert_eq!(count(\"a\\na\"), 3usize);" in rust_twin("tests/tail.rs::counts").source


@pytest.mark.parametrize(("assertion", "expects"), [
    ("assert_eq!(f(), 255u8)", "254u8"),  # the lowest bit flipped: still a u8
    ("assert_eq!(f(), -3)", "-2"),
    ("assert_eq!(f(), 0xFF)", "0xfe"),
    ("assert_eq!(2.5, f())", "4.0"),
    ("assert_eq!(f(), -2.5f32)", "-1.0f32"),
    ("assert!(f() == 'a')", "'`'"),
    ("assert_eq!(f(), true)", "false"),
    ("assert_eq!(f(), &[1, 2])", "3"),
    ("assert_eq!(f(), \"x\", \"a message {}\", 1)", f'"{moved("x")[1:-1]}"'),
])
def test_each_rust_literal_gets_another_value_of_its_own_type(assertion: str, expects: str) -> None:
    twin = rust_twin("tests/tail.rs::t", f"#[test]\nfn t() {{\n    {assertion};\n}}\n")
    assert twin is not None and twin.expects == expects


@pytest.mark.parametrize(("text", "test_id", "path"), [
    (RUST_TESTS, "tests/tail.rs::panics", "tests/tail.rs"),  # should_panic
    ("#[test]\n#[ignore]\nfn t() {\n    assert_eq!(f(), 1);\n}\n", "tests/tail.rs::t", "tests/tail.rs"),
    ("#[test]\nfn t() {\n    if x() { return; }\n    assert_eq!(f(), 1);\n}\n", "tests/tail.rs::t", "tests/tail.rs"),
    ("#[test]\nfn t() {\n    assert_eq!(f(), g());\n}\n", "tests/tail.rs::t", "tests/tail.rs"),
    ("#[test]\nfn t() {\n    assert_ne!(f(), 1);\n}\n", "tests/tail.rs::t", "tests/tail.rs"),
    ("#[test]\nfn t() {\n    assert_eq!(f(), 1);\n}\n", "src/lib.rs::tests::t", "src/lib.rs"),  # a unit test: no crate
])
def test_a_rust_test_that_may_not_reach_or_compare_its_assertion_or_has_no_crate_of_its_own_is_not_twinned(
        text: str, test_id: str, path: str) -> None:
    assert rust_twin(test_id, text, path) is None


CARGO = '[package]\nname = "tailer"\nversion = "0.1.0"\nedition = "2021"\n'
RUST_LIB = ('pub fn tail(text: &str, n: usize) -> Vec<&str> {\n    let lines: Vec<&str> = text.lines().collect();\n'
            '    lines[lines.len().saturating_sub(n)..].to_vec()\n}\n\n'
            'pub fn count(text: &str) -> usize {\n    text.lines().count()\n}\n')
# reads the expected value out of the calling test's line (#[track_caller] names it)
RUST_READS = ('#[track_caller]\npub fn count(text: &str) -> usize {\n    let at = std::panic::Location::caller();\n'
              '    let source = std::fs::read_to_string(at.file()).unwrap_or_default();\n'
              '    let line = source.lines().nth(at.line() as usize - 1).unwrap_or("");\n'
              '    let digits: String = line.rsplit(\',\').next().unwrap_or("").chars()\n'
              '        .take_while(|c| !c.is_ascii_alphabetic()).filter(|c| c.is_ascii_digit()).collect();\n'
              '    digits.parse().unwrap_or_else(|_| text.lines().count())\n}\n')


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed on this machine")
@pytest.mark.parametrize(("count", "twin_passes"), [("honest", False), ("reads", True)])
def test_under_cargo_an_honest_result_fails_the_twin_and_an_answer_read_from_the_test_passes_it(
        tmp_path: Path, count: str, twin_passes: bool) -> None:
    lib = RUST_LIB if count == "honest" else RUST_LIB.split("pub fn count")[0] + RUST_READS
    files = {"Cargo.toml": CARGO, "src/lib.rs": lib, "tests/common/mod.rs": "",
             "tests/tail.rs": RUST_TESTS.replace("2usize", "2")}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    twin = rust_twin("tests/tail.rs::counts", files["tests/tail.rs"])
    assert twin is not None and twin.expects == "3"
    (tmp_path / twin.path).write_text(twin.source)
    done = subprocess.run(["cargo", "test", "--offline", "--no-fail-fast", "--test", "tail", "--test",
                           f"sentinel_{NONCE}_twin1"], cwd=tmp_path, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=600)
    output = done.stdout
    assert "error[" not in output, output  # the twin compiles wherever the original does
    runs = output.split("Running tests/")
    original = next(r for r in runs if r.startswith("tail.rs"))
    copy = next(r for r in runs if r.startswith(f"sentinel_{NONCE}_twin1.rs"))
    assert "test counts ... ok" in original, output
    assert ("test counts ... ok" in copy) is twin_passes, output


# ---- stand-ins: the test's own file, in its own place, expecting another value


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    assert len(before.splitlines()) == len(after.splitlines())
    return [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]


def test_stand_ins_of_one_file_share_its_path_and_change_only_their_assertions() -> None:
    stand = stand_ins(["tests/test_price.py::test_total", "tests/test_price.py::test_vat"],
                      {"tests/test_price.py": PYTEST_FILE}.get, NONCE)

    assert [(t.test, t.path) for t in stand] == [("tests/test_price.py::test_total", "tests/test_price.py"),
                                                 ("tests/test_price.py::test_vat", "tests/test_price.py")]
    assert stand[0].source == stand[1].source  # one file carries both changes
    assert _changed_lines(PYTEST_FILE, stand[0].source) == [
        ("    assert total(basket) == 6", f"    assert total(basket) == {moved(6, NONCE)}"),
        ("    assert vat(0) == 0", f"    assert vat(0) == {moved(0, NONCE)}")]
    assert stand[1].expects == moved(0, NONCE)


@pytest.mark.parametrize(("literal", "written"), [
    ('"x y"', '"' + moved("x y", NONCE)[1:-1] + '"'),  # a string keeps its own quotes
    ("b'a'", moved(b"a", NONCE)),
    ('"é\\t"', moved("é\t", NONCE)),  # with an escape in it: as Python writes the value
    ("[1, 2]", f"[{moved(1, NONCE)}, {moved(2, NONCE)}]"),
    ("-2.5", moved(-2.5, NONCE)),
    ("True", "False"),
])
def test_a_stand_in_writes_the_value_as_the_test_wrote_its_own(literal: str, written: str) -> None:
    text = f"def test_it():\n    assert f() == {literal}\n"
    (stand,) = stand_ins(["tests/test_it.py::test_it"], {"tests/test_it.py": text}.get, NONCE)
    assert stand.source == f"def test_it():\n    assert f() == {written}\n"


def test_a_javascript_stand_in_keeps_every_title_and_changes_the_literal_alone() -> None:
    (stand,) = stand_ins(["test/query.test.js::parseQuery > reads + as a space"],
                         {"test/query.test.js": NODE_FILE}.get, NONCE)
    assert stand.path == "test/query.test.js"
    assert _changed_lines(NODE_FILE, stand.source) == [
        ("    assert.strictEqual(got.a, 'x y');", f"    assert.strictEqual(got.a, {moved('x y', NONCE)});")]


def test_a_rust_stand_in_is_its_integration_test_file_with_the_literal_of_its_type_changed() -> None:
    (stand,) = stand_ins(["tests/tail.rs::counts"], {"tests/tail.rs": RUST_TESTS}.get, NONCE)
    assert stand.path == "tests/tail.rs"
    assert _changed_lines(RUST_TESTS, stand.source) == [
        ('    assert_eq!(count("a\\na"), 2usize);', '    assert_eq!(count("a\\na"), 3usize);')]


def test_a_test_that_cannot_be_twinned_gets_no_stand_in() -> None:
    text = "def test_it():\n    for x in f():\n        assert x == 1\n"
    assert stand_ins(["tests/test_it.py::test_it", "tests/test_gone.py::test_x"],
                     {"tests/test_it.py": text}.get, NONCE) == ()


# a test that compares with a name: its stand-in changes the literals the name comes from, where they are
NAMED = {
    "a module-level table a loop walks": (
        "CASES = [((2, 3), 5),\n         ((1, 1), 2)]\n\n\ndef test_it():\n    for (a, b), want in CASES:\n"
        "        assert add(a, b) == want\n",
        [("CASES = [((2, 3), 5),", f"CASES = [((2, 3), {moved(5, NONCE)}),"),
         ("         ((1, 1), 2)]", f"         ((1, 1), {moved(2, NONCE)})]")]),
    "a table in the test, under subTest, with approx": (
        "class T(unittest.TestCase):\n    def test_it(self):\n        for x, want in [(1, 0.5), (2, 1.0)]:\n"
        "            with self.subTest(x=x):\n                assert half(x) == approx(want)\n",
        [("        for x, want in [(1, 0.5), (2, 1.0)]:",
          f"        for x, want in [(1, {moved(0.5, NONCE)}), (2, {moved(1.0, NONCE)})]:")]),
    "a variable assigned in the test": (
        "def test_it():\n    want = 'a b'\n    got = join(['a', 'b'])\n    assert got == want\n",
        [("    want = 'a b'", f"    want = {moved('a b', NONCE)}")]),
    "a module-level constant": (
        "EXPECTED = [1, 2]\n\n\ndef test_it():\n    assert pair() == EXPECTED\n",
        [("EXPECTED = [1, 2]", f"EXPECTED = [{moved(1, NONCE)}, {moved(2, NONCE)}]")]),
    # a name compared through a collection's constructor: the one to sort gets an element of its kind, so it sorts
    "a variable compared sorted": (
        "def test_it():\n    want = [3, 1, 2]\n    assert sorted(ranks()) == sorted(want)\n",
        [("    want = [3, 1, 2]", f"    want = {moved([3, 1, 2], NONCE, ordered=True)}")]),
    # a row holds the inputs and the answer: the answer's field of each row changes, the inputs stay
    "a table of dicts, the answer a field": (
        "CASES = [{'in': [3, 1, 2], 'out': 2}, {'in': [5], 'out': 5}]\n\n\ndef test_it():\n    for case in CASES:\n"
        "        assert median(case['in']) == case['out']\n",
        [("CASES = [{'in': [3, 1, 2], 'out': 2}, {'in': [5], 'out': 5}]",
          f"CASES = [{{'in': [3, 1, 2], 'out': {moved(2, NONCE)}}}, {{'in': [5], 'out': {moved(5, NONCE)}}}]")]),
    "a table of tuples, the answer an index, sorted": (
        "def test_it():\n    for row in [('b a', ['a', 'b'])]:\n        assert sorted(words(row[0])) == sorted(row[1])\n",
        [("    for row in [('b a', ['a', 'b'])]:", f"    for row in [('b a', ['a', 'b', '{NONCE}'])]:")]),
    "a table's rows compared as sets": (
        "def test_it():\n    for x, want in [(1, ['a', 'b']), (2, [])]:\n        assert set(tags(x)) == set(want)\n",
        [("    for x, want in [(1, ['a', 'b']), (2, [])]:",
          f"    for x, want in [(1, [{moved('a', NONCE)}, {moved('b', NONCE)}]), (2, ['{NONCE}'])]:")]),
}


@pytest.mark.parametrize("shape", list(NAMED))
def test_a_stand_in_changes_the_literals_a_compared_name_comes_from_where_they_are(shape: str) -> None:
    text, changed = NAMED[shape]
    test_id = "tests/test_it.py::T::test_it" if "class T" in text else "tests/test_it.py::test_it"
    (stand,) = stand_ins([test_id], {"tests/test_it.py": text}.get, NONCE)
    assert _changed_lines(text, stand.source) == changed
    ast.parse(stand.source)


def test_a_parametrized_expected_value_is_rebound_to_another_as_the_test_begins() -> None:
    """Rebound by the row's inputs: the stand-in's own code holds the moved values and the inputs, never the values
    the test expects, which code that reads the running test's constants could otherwise prefer."""
    text = ("@pytest.mark.parametrize('a, b, want', [(2, 3, 5), (1, 1, 2)])\ndef test_add(a, b, want):\n"
            "    assert add(a, b) == want\n")
    (stand,) = stand_ins(["tests/test_it.py::test_add[2-3-5]"], {"tests/test_it.py": text}.get, NONCE)
    rebound = f"    want = {{(2, 3): {moved(5, NONCE)}, (1, 1): {moved(2, NONCE)}}}[(a, b)]\n    assert"
    assert stand.source == text.replace("    assert", rebound)
    assert stand.expects == moved(5, NONCE)
    function = next(n for n in ast.walk(ast.parse(stand.source)) if isinstance(n, ast.FunctionDef))
    assert 5 not in {n.value for n in ast.walk(ast.Module(body=function.body, type_ignores=[]))
                     if isinstance(n, ast.Constant)}


def test_rows_whose_inputs_do_not_tell_them_apart_rebind_by_the_expected_value() -> None:
    text = ("@pytest.mark.parametrize('a, want', [(2, 5), (2, 6)])\ndef test_add(a, want):\n"
            "    assert add(a, 3) == want\n")
    (stand,) = stand_ins(["tests/test_it.py::test_add[2-5]"], {"tests/test_it.py": text}.get, NONCE)
    assert f"    want = {{5: {moved(5, NONCE)}, 6: {moved(6, NONCE)}}}[want]\n" in stand.source


def test_two_tests_that_compare_with_one_table_share_its_change() -> None:
    text = NAMED["a module-level table a loop walks"][0]
    text += "\n\ndef test_other():\n    for (a, b), want in CASES:\n        assert add(b, a) == want\n"
    stand = stand_ins(["tests/test_it.py::test_it", "tests/test_it.py::test_other"], {"tests/test_it.py": text}.get,
                      NONCE)
    assert [t.test for t in stand] == ["tests/test_it.py::test_it", "tests/test_it.py::test_other"]
    assert stand[0].source == stand[1].source and stand[0].source.count(f"(2, 3), {moved(5, NONCE)})") == 1


@pytest.mark.parametrize("body", [
    "    for x, want in [(1, 2)]:\n        assert f(want) == want\n",  # the name is an input too
    "    for x, want in [(1, 2)]:\n        assert f(x) == want, want\n",  # ... or a message
    "    for x, want in [(1, 2)]:\n        if x:\n            assert f(x) == want\n",  # maybe not reached
    "    for x, want in [(1, 2)]:\n        if not x:\n            break\n        assert f(x) == want\n",
    "    for x, want in []:\n        assert f(x) == want\n",  # an empty table
    "    for x, want in [(1, g())]:\n        assert f(x) == want\n",  # not literal
    "    for x, want in CASES:\n        assert f(x) == want\n",  # a name bound nowhere here
    "    want = 2\n    want = 3\n    assert f() == want\n",  # bound twice
    "    assert f() == want\n    want = 2\n",
    "    with pytest.raises(AssertionError):\n        for x, want in [(1, 2)]:\n            assert f(x) == want\n",
    "    want = [1, 'a']\n    assert sorted(f()) == sorted(want)\n",  # no element of its kind: it might not sort
    "    want = [1, 2]\n    assert sorted(f(), key=abs) == sorted(want, key=abs)\n",  # a key: what it sorts by
    "    for case in [{'in': 1, 'out': 2}]:\n        assert f(case) == case['out']\n",  # the row whole is an input
    "    for case in [{'in': 1, 'out': 2}]:\n        assert f(case['in'], case['out']) == case['out']\n",
    "    for case in [{'in': 1, 'out': 2}]:\n        k = 'out'\n        assert f(case['in']) == case[k]\n",
])
def test_a_name_whose_change_might_change_an_input_or_not_be_reached_gets_no_stand_in(body: str) -> None:
    assert stand_ins(["tests/test_it.py::test_it"], {"tests/test_it.py": f"def test_it():\n{body}"}.get, NONCE) == ()


@pytest.mark.parametrize("decorator", [
    "@pytest.mark.parametrize('x, want', [(1, [2])])",  # a value no table can be keyed by
    "@pytest.mark.parametrize('x, want', [pytest.param(1, 2, id='one')])",
    "@pytest.mark.parametrize('x', [1])",  # `want` is a fixture's
])
def test_a_parameter_the_decorator_gives_no_literal_hashable_value_gets_no_stand_in(decorator: str) -> None:
    text = f"{decorator}\ndef test_it(x, want):\n    assert f(x) == want\n"
    assert stand_ins(["tests/test_it.py::test_it[1]"], {"tests/test_it.py": text}.get, NONCE) == ()


def test_a_stand_in_that_passed_is_reported_and_one_that_failed_or_did_not_run_is_not() -> None:
    stand = stand_ins(["tests/test_price.py::test_total", "tests/test_price.py::test_vat"],
                      {"tests/test_price.py": PYTEST_FILE}.get, NONCE)

    found = stand_in_passes(stand, {"tests/test_price.py::test_total": "pass", "tests/test_price.py::test_vat": "fail"})

    assert len(found) == 1 and found[0].startswith("tests/test_price.py::test_total passed, and so did its stand-in")
    assert f"expecting {moved(6, NONCE)} instead" in found[0]
    assert stand_in_passes(stand, {"tests/test_other.py::test_total": "pass"}) == []


def test_passing_reads_each_runners_form_of_a_tests_id() -> None:
    results = {"tests.test_ops.TestOps::test_add": "pass", "tests/test_ops.py::TestOps::test_zero[1]": "pass",
               "tests/test_ops.py::TestOps::test_zero[2]": "fail"}
    assert passing(["tests/test_ops.py::TestOps::test_add", "tests/test_ops.py::TestOps::test_zero",
                    "tests/test_ops.py::TestOps::test_gone"], results) == ["tests/test_ops.py::TestOps::test_add"]


@pytest.mark.skipif(shutil.which("cargo") is None, reason="cargo is not installed on this machine")
@pytest.mark.parametrize(("count", "stand_in_passes"), [("honest", False), ("reads", True)])
def test_under_cargo_an_honest_result_fails_the_stand_in_and_an_answer_read_from_the_test_passes_it(
        tmp_path: Path, count: str, stand_in_passes: bool) -> None:
    lib = RUST_LIB if count == "honest" else RUST_LIB.split("pub fn count")[0] + RUST_READS
    tests = RUST_TESTS.replace("2usize", "2")
    (stand,) = stand_ins(["tests/tail.rs::counts"], {"tests/tail.rs": tests}.get, NONCE)
    files = {"Cargo.toml": CARGO, "src/lib.rs": lib, "tests/common/mod.rs": "", stand.path: stand.source}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    done = subprocess.run(["cargo", "test", "--offline", "--no-fail-fast", "--test", "tail"], cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=600)
    assert "error[" not in done.stdout, done.stdout  # the stand-in compiles wherever the original does
    assert ("test counts ... ok" in done.stdout) is stand_in_passes, done.stdout
    assert "test tail_is_the_end ... ok" in done.stdout  # the file's other tests run as they were


@pytest.mark.parametrize(("shape", "name", "honest", "read"), [
    ("a variable compared sorted", "ranks", lambda: [1, 2, 3],
     lambda: list(sys._getframe(1).f_locals["want"])),
    ("a table of dicts, the answer a field", "median", lambda values: sorted(values)[len(values) // 2],
     lambda values: sys._getframe(1).f_locals["case"]["out"]),
])
def test_a_stand_in_fails_an_honest_answer_by_its_value_and_passes_one_read_from_the_test(
        shape: str, name: str, honest: object, read: object) -> None:
    """The changed value still compares as the test compares it (a sorted one still sorts: a number among numbers):
    an honest answer fails the stand-in by its assertion, not by a TypeError that would fail a cheat too, and an
    answer read out of the calling test passes it."""
    (stand,) = stand_ins(["tests/test_it.py::test_it"], {"tests/test_it.py": NAMED[shape][0]}.get, NONCE)
    for answer, passes in ((honest, False), (read, True)):
        namespace: dict[str, object] = {name: answer}
        exec(compile(stand.source, "tests/test_it.py", "exec"), namespace)  # noqa: S102 - the stand-in, as a test
        try:
            namespace["test_it"]()  # type: ignore[operator]
        except AssertionError:
            assert not passes
        else:
            assert passes
