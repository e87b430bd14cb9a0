"""Parsing per-test results from JUnit XML, `go test -json` and `unittest -v` output."""

from __future__ import annotations

import json

from sandbox.results import collect_tests, parse_go_test_json, parse_junit_xml, parse_unittest_verbose

PYTEST_XML = b"""<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="4">
<testcase classname="tests.test_calc" name="test_ok" file="tests/test_calc.py" time="0.001"/>
<testcase classname="tests.test_calc" name="test_bad" file="tests/test_calc.py" time="0.002">
<failure message="AssertionError: assert 3 == 4">def test_bad():
&gt;       assert add(1, 2) == 4
E       assert 3 == 4

tests/test_calc.py:9: AssertionError</failure></testcase>
<testcase classname="tests.test_calc" name="test_broken"><error message="fixture 'db' not found">setup failed</error>
</testcase>
<testcase classname="tests.test_calc" name="test_later"><skipped message="not yet"/></testcase>
</testsuite></testsuites>"""

SUREFIRE_XML = b"""<testsuite name="com.example.CalcTest" tests="1" failures="1">
<testcase name="adds" classname="com.example.CalcTest" time="0.01">
<failure message="expected: &lt;4&gt; but was: &lt;3&gt;" type="org.opentest4j.AssertionFailedError">
org.opentest4j.AssertionFailedError: expected: &lt;4&gt; but was: &lt;3&gt;
	at com.example.CalcTest.adds(CalcTest.java:12)</failure></testcase></testsuite>"""


def test_pytest_junit_gives_every_outcome_with_messages() -> None:
    cases = {c.name: c for c in parse_junit_xml(PYTEST_XML)}
    assert {n: c.outcome for n, c in cases.items()} == {
        "tests/test_calc.py::test_ok": "pass", "tests/test_calc.py::test_bad": "fail",
        "tests.test_calc::test_broken": "error", "tests.test_calc::test_later": "skip"}
    assert "assert 3 == 4" in cases["tests/test_calc.py::test_bad"].message
    assert "fixture 'db' not found" in cases["tests.test_calc::test_broken"].message


def test_surefire_junit_is_read() -> None:
    [case] = parse_junit_xml(SUREFIRE_XML)
    assert case.name == "com.example.CalcTest::adds" and case.outcome == "fail"
    assert "CalcTest.java:12" in case.message and "expected: <4> but was: <3>" in case.message


def test_xml_with_entities_is_refused_and_garbage_is_ignored() -> None:
    bomb = b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><testsuite>' \
           b'<testcase name="t">&b;</testcase></testsuite>'
    assert parse_junit_xml(bomb) == []
    assert parse_junit_xml(b"not xml at all <<<") == []


def test_go_test_json_events() -> None:
    events = [
        {"Action": "run", "Package": "ex/calc", "Test": "TestAdd"},
        {"Action": "output", "Package": "ex/calc", "Test": "TestAdd", "Output": "    calc_test.go:9: got 3, want 4\n"},
        {"Action": "fail", "Package": "ex/calc", "Test": "TestAdd", "Elapsed": 0.01},
        {"Action": "pass", "Package": "ex/calc", "Test": "TestSub", "Elapsed": 0},
        {"Action": "skip", "Package": "ex/calc", "Test": "TestLater"},
        {"Action": "fail", "Package": "ex/calc", "Elapsed": 0.02},
    ]
    text = "noise\n" + "\n".join(json.dumps(e) for e in events)
    cases = {c.name: c for c in parse_go_test_json(text)}
    assert {n: c.outcome for n, c in cases.items()} == {
        "ex/calc::TestAdd": "fail", "ex/calc::TestSub": "pass", "ex/calc::TestLater": "skip"}
    assert "got 3, want 4" in cases["ex/calc::TestAdd"].message


def test_unittest_verbose_output() -> None:
    text = """test_add (test_calc.CalcTest.test_add) ... FAIL
test_sub (test_calc.CalcTest.test_sub) ... ok
test_mul (test_calc.CalcTest.test_mul) ... skipped 'later'

======================================================================
FAIL: test_add (test_calc.CalcTest.test_add)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/workspace/test_calc.py", line 6, in test_add
    self.assertEqual(add(1, 2), 4)
AssertionError: 3 != 4

----------------------------------------------------------------------
Ran 3 tests in 0.001s
"""
    cases = {c.name: c for c in parse_unittest_verbose(text)}
    assert {n: c.outcome for n, c in cases.items()} == {
        "test_calc.CalcTest::test_add": "fail", "test_calc.CalcTest::test_sub": "pass",
        "test_calc.CalcTest::test_mul": "skip"}
    assert "AssertionError: 3 != 4" in cases["test_calc.CalcTest::test_add"].message


def test_collect_prefers_result_files_and_falls_back_to_output() -> None:
    assert len(collect_tests({"pytest-junit.xml": PYTEST_XML}, "", "")) == 4
    assert len(collect_tests({}, "", "", reports={"surefire-reports/TEST-a.xml": PYTEST_XML, "notes.txt": b"x"})) == 4
    assert collect_tests({}, "plain output", "no tests here") == []
