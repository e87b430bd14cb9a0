"""File views for the coder: a big file becomes an outline plus verbatim windows around the bug."""

from __future__ import annotations

import re

from bot.ensemble.coder.fileview import focus_from_text, outline, render_file

BUGGY = '''def parse_duration(text):
    """Seconds in "1h30m"."""
    total = 0
    for number, unit in re.findall(r"(\\d+)([hms])", text):
        total += int(number) * {"h": 3600, "m": 60, "s": 1}[unit]
    return total - 1  # the bug
'''


def big_module() -> str:
    """A ~3,000-line module: helper functions, a class of methods, and the buggy function at the end."""
    parts = ["import re\n\n"]
    for i in range(240):
        parts.append(f"def helper_{i}(value):\n    \"\"\"Helper {i}.\"\"\"\n    result = value * {i}\n"
                     f"    result += {i}\n    result -= 1\n    result //= 2\n    result += 7\n    return result\n\n\n")
    parts.append("class Registry:\n    \"\"\"Holds things.\"\"\"\n\n")
    for i in range(100):
        parts.append(f"    def get_{i}(self):\n        value = self.items[{i}]\n        value = value + 1\n"
                     f"        value = value - 1\n        return value\n\n")
    parts.append("\n" + BUGGY)
    text = "".join(parts)
    assert len(text.splitlines()) > 3000
    return text


def test_a_small_file_is_shown_whole_and_verbatim() -> None:
    assert render_file("pkg/small.py", BUGGY, [(6, 6)], 20_000) == BUGGY


def test_the_buggy_function_at_the_end_of_a_big_file_is_shown_verbatim() -> None:
    text = big_module()
    traceback = 'Traceback:\n  File "/repo/pkg/big.py", line 2046, in parse_duration\nAssertionError'
    bug_line = text.splitlines().index("    return total - 1  # the bug") + 1
    focus = focus_from_text("pkg/big.py", text, traceback.replace("2046", str(bug_line)))
    view = render_file("pkg/big.py", text, focus, 20_000)
    assert len(view) <= 20_000
    assert BUGGY.rstrip("\n") in view
    assert "def parse_duration (lines" in view and "class Registry (lines" in view


def test_windows_are_anchored_and_code_lines_are_copied_exactly() -> None:
    text = big_module()
    lines = text.splitlines()
    view = render_file("pkg/big.py", text, [(500, 500), (30, 31)], 6_000)
    anchors = [tuple(map(int, m.groups())) for m in re.finditer(r"^@@ lines (\d+)-(\d+) of (?:\d+) @@$", view, re.M)]
    assert anchors and anchors == sorted(anchors)  # in file order
    for start, end in anchors:
        assert "\n".join(lines[start - 1:end]) in view
    assert any(start <= 500 <= end for start, end in anchors)


def test_a_focus_line_grows_to_its_enclosing_function() -> None:
    text = big_module()
    start = text.splitlines().index("def helper_100(value):") + 1
    view = render_file("pkg/big.py", text, [(start + 4, start + 4)], 8_000)
    function = text.split("def helper_100(value):")[1].split("\n\n\n")[0]
    assert "def helper_100(value):" + function in view


def test_earlier_focus_wins_when_the_budget_is_tight() -> None:
    text = big_module()
    lines = text.splitlines()
    first, second = lines.index("def helper_10(value):") + 1, lines.index("def helper_140(value):") + 1
    view = render_file("pkg/big.py", text, [(second, second + 7), (first, first + 7)], 500)
    assert len(view) <= 500
    assert "\n".join(lines[second - 1:second + 7]) in view
    assert "\n".join(lines[first - 1:first + 7]) not in view
    assert "\n".join(lines[first - 1:first + 7]) in render_file("pkg/big.py", text, [(first, first)], 500)


def test_without_focus_the_outline_and_the_head_are_shown() -> None:
    text = big_module()
    view = render_file("pkg/big.py", text, [], 5_000)
    assert len(view) <= 5_000
    assert "pkg/big.py (" in view and "def helper_0 (lines" in view
    assert "@@ lines 1-" in view and "import re\n\ndef helper_0(value):" in view


def test_other_languages_get_a_keyword_outline() -> None:
    go = "package p\n\n" + "".join(f"func F{i}(x int) int {{\n\treturn x + {i}\n}}\n\n" for i in range(300))
    go += "type Stack struct {\n\titems []int\n}\n\nfunc (s *Stack) Push(v int) {\n\ts.items = append(s.items, v)\n}\n"
    found = outline("p/f.go", go)
    assert found[0].label == "line 3: func F0(x int) int {" and (found[0].start, found[0].end) == (3, 5)
    assert [d.name for d in found[-2:]] == ["", "Push"] and found[-2].label.endswith("type Stack struct {")
    rust = outline("src/a.rs", "impl Foo {\n    fn a(&self) {\n        1\n    }\n\n    fn b(&self) {\n    }\n}\n")
    assert [(d.name, d.start, d.end) for d in rust] == [("Foo", 1, 8), ("a", 2, 4), ("b", 6, 7)]
    assert outline("web/a.ts", "export async function load(url) {\n  return fetch(url);\n}\n")[0].name == "load"
    view = render_file("p/f.go", go, focus_from_text("p/f.go", go, "F250 returns the wrong value"), 3_000)
    assert "func F250(x int) int {\n\treturn x + 250\n}" in view


def test_focus_comes_from_line_mentions_and_defined_names() -> None:
    text = big_module()
    hints = "pkg/big.py:12: in helper_1\nother/big.py:99 and parse_duration fail; see Registry"
    focus = focus_from_text("pkg/big.py", text, hints)
    names = {d.name: (d.start, d.end) for d in outline("pkg/big.py", text)}
    assert focus[0] == (12, 12)
    assert focus[1:3] == [names["helper_1"], names["parse_duration"]]
    assert focus[3] == (names["Registry"][0], names["Registry"][0])  # a big class: its header
    assert (99, 99) not in focus  # other/big.py is another file


def test_a_method_named_with_its_class_is_shown_before_the_big_class() -> None:
    text = big_module()
    view = render_file("pkg/big.py", text, focus_from_text("pkg/big.py", text, "Registry.get_50 returns None"), 3000)
    assert "    def get_50(self):\n        value = self.items[50]" in view
    assert "class Registry:" in view


def test_a_judged_test_file_is_shown_with_its_failing_tests_and_what_they_use() -> None:
    """A test named like another's start is told apart; a file naming no failing test, and a file in another
    language, are shown as they are."""
    from bot.ensemble.coder.fileview import failing_tests_only

    text = ("import pytest\n\nLIMIT = 3\n\n\ndef test_a():\n    assert 1\n\n\ndef test_ab():\n    assert 2\n\n\n"
            "class TestC:\n    def test_c(self):\n        assert 3\n")
    shown = failing_tests_only("tests/test_x.py", text, "FAILED tests/test_x.py::test_a\n  assert 0")
    assert shown == "import pytest\n\nLIMIT = 3\n\n\ndef test_a():\n    assert 1\n\n\n"
    assert failing_tests_only("tests/test_x.py", text, "FAILED tests/test_y.py::test_a") == text
    js = "test('a', () => {});\ntest('b', () => {});\n"
    assert failing_tests_only("tests/x.test.js", js, "FAILED tests/x.test.js::a") == js
