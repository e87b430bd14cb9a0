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
  change to its test harness.

Pure functions over paths and text: no I/O.
"""

from __future__ import annotations

import configparser
import json
import posixpath
import re
import tomllib
from collections.abc import Callable

from common.languages import is_test_name

# Folders whose files are the tests' (the tests themselves, their data and helpers); file names are the language's
# (common/languages.py).
TEST_FOLDER = re.compile(r"(^|/)(tests?|testing|__tests__|spec)(/|$)")
CI_PATH = re.compile(r"^(?:\.github/(?:workflows|actions)/|\.circleci/|\.buildkite/|\.gitlab-ci\.ya?ml$"
                     r"|\.travis\.ya?ml$|azure-pipelines\.ya?ml$|buildkite\.ya?ml$)|(?:^|/)Jenkinsfile$")
# Files that are all harness, wherever they are in the tree.
WHOLE_HARNESS = re.compile(
    r"(?:^|/)(?:conftest\.py|pytest\.ini|tox\.ini|noxfile\.py|\.coveragerc|\.mocharc(?:\.\w+)?|\.taprc|\.nycrc(?:\.\w+)?"
    r"|(?:jest|vitest|karma|ava|playwright|cypress)\.config\.\w+|jest\.setup\.\w+|\.?nextest\.toml"
    r"|CTestTestfile\.cmake|\.cargo/config(?:\.toml)?)$")
# New top-level modules that would run instead of the test runner or hook into every interpreter.
RUNNER_SHADOW = re.compile(r"^(?:pytest|_pytest|py|pluggy|unittest|nose2?|sitecustomize|usercustomize)(?:\.py$|/)"
                           r"|\.pth$")
# Files where only a part is harness (the rest is dependencies and build settings the code may need to change).
PARTLY_HARNESS = {"pyproject.toml", "setup.cfg", "package.json", "Cargo.toml", "pom.xml", "build.gradle",
                  "build.gradle.kts", "Makefile", "makefile", "GNUmakefile", "CMakeLists.txt"}
TEST_TARGETS = ("test", "tests", "check", "unittest", "unit")
_MAKE_RULE = re.compile(r"^(?P<targets>[^\s:#=][^:#=]*?)\s*::?(?!=)(?P<prereqs>[^\n]*)\n(?P<recipe>(?:\t[^\n]*\n?)*)", re.M)
_POM_TEST = re.compile(r"<plugin>(?:(?!</plugin>).)*?<artifactId>maven-(?:surefire|failsafe)-plugin</artifactId>"
                       r".*?</plugin>|<(?:skipTests|skipITs|maven\.test\.skip|testSourceDirectory|testFailureIgnore)"
                       r">[^<]*<", re.S)
_GRADLE_TEST = re.compile(r"^.*\b(?:test|Test|testing|useJUnit\w*|exclude|filter|ignoreFailures)\b.*$", re.M)
_CMAKE_TEST = re.compile(r"^\s*(?:add_test|enable_testing|set_tests_properties|include\s*\(\s*CTest|gtest_discover"
                         r"|catch_discover)\b.*$", re.M | re.I)


def is_test_path(path: str) -> bool:
    """True for files under test folders (tests/, test/, testing/, __tests__/, spec/) and files their language's
    test runner collects by name (`test_x.py`, `x_test.go`, `x.test.js`, `FooTest.java`; common/languages.py)."""
    return bool(TEST_FOLDER.search(path)) or is_test_name(path)


def is_ci_path(path: str) -> bool:
    """True for CI configuration: GitHub Actions workflows and actions, GitLab, CircleCI, Jenkins, ..."""
    return bool(CI_PATH.search(path))


def is_harness_path(path: str) -> bool:
    """True for files that decide, wholly or in part, what the test runner collects or how it reports."""
    return bool(WHOLE_HARNESS.search(path)) or is_ci_path(path) or posixpath.basename(path) in PARTLY_HARNESS


def is_whole_harness(path: str) -> bool:
    """True for files that are harness through and through (a new one changes what runs: `conftest.py`)."""
    return bool(WHOLE_HARNESS.search(path)) or is_ci_path(path)


def shadows_runner(path: str) -> bool:
    """True for a file that, new in a repository, would replace the test runner or run inside it."""
    return bool(RUNNER_SHADOW.search(path))


def harness_part(path: str, text: str | None) -> str | None:
    """The part of `text` that decides what the tests run and how they report; None when the file is absent.

    Two versions of a file with the same harness part run the same tests the same way.
    """
    if text is None:
        return None
    if is_whole_harness(path):
        return text
    extract = _PARTS.get(posixpath.basename(path))
    return extract(text) if extract else ""


def _pyproject(text: str) -> str:
    try:
        tool = tomllib.loads(text).get("tool", {})
    except tomllib.TOMLDecodeError:
        return text  # unreadable: every byte may matter
    return _canonical({k: tool.get(k) for k in ("pytest", "coverage", "tox", "nox", "hatch") if k in tool})


def _setup_cfg(text: str) -> str:
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return text
    return _canonical({s: dict(parser[s]) for s in parser.sections()
                       if s in ("tool:pytest", "pytest") or s.startswith(("coverage:", "tox"))})


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


def _lines(pattern: re.Pattern[str]) -> Callable[[str], str]:
    return lambda text: "\n".join(m.group(0).strip() for m in pattern.finditer(text))


def _canonical(data: object) -> str:
    return json.dumps(data, sort_keys=True, default=str)


_PARTS = {"pyproject.toml": _pyproject, "setup.cfg": _setup_cfg, "package.json": _package_json, "Cargo.toml": _cargo,
          "Makefile": _makefile, "makefile": _makefile, "GNUmakefile": _makefile, "pom.xml": _pom,
          "build.gradle": _lines(_GRADLE_TEST), "build.gradle.kts": _lines(_GRADLE_TEST),
          "CMakeLists.txt": _lines(_CMAKE_TEST)}
