"""The one registry of programming languages: their file suffixes, their tree-sitter grammar, and how
their test runners name test files.

Every module that asks "what language is this file" or "is this file code" asks here (the index's
chunkers and file filter, the guards' test parsers, the judge, the sandbox's result naming), so a
suffix added once is known everywhere. What a test file and a harness file are, folder rules
included, is common/testfiles.py's, built on the per-language names below: a `test_x.go` is code
(Go compiles only `_test.go` files as tests) and `latest.py` or `contest_utils.go` is never a test.

Pure data and functions over paths: no I/O.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Language:
    """A language: its name, suffixes, tree-sitter grammar (None: not parsed by tree-sitter), and the file names
    its test runners collect as tests (a regex over the file name, not the folder; None: tests are named by folder
    or live inside the code, as Rust's `#[cfg(test)]` modules do)."""

    name: str
    suffixes: tuple[str, ...]
    tree_sitter: str | None = None
    test_name: re.Pattern[str] | None = None


def _names(pattern: str) -> re.Pattern[str]:
    return re.compile(rf"(?:{pattern})\Z")


_JS_TEST = r"[^/]+\.(?:test|spec)\.\w+|[^/]+[-_]test\.\w+|test[-_][^/]+|test\.\w+"  # jest, vitest, mocha, node --test
LANGUAGES: tuple[Language, ...] = (
    # pytest's defaults (python_files = test_*.py *_test.py) and the fixtures file it loads with them
    Language("python", (".py", ".pyi"), None, _names(r"test_[^/]*\.py|[^/]+_test\.py|conftest\.py")),
    Language("cython", (".pyx",), None, _names(r"test_[^/]*\.pyx")),
    Language("javascript", (".js", ".jsx", ".mjs", ".cjs"), "javascript", _names(_JS_TEST)),
    Language("typescript", (".ts", ".mts", ".cts"), "typescript", _names(_JS_TEST)),
    Language("tsx", (".tsx",), "tsx", _names(_JS_TEST)),
    Language("go", (".go",), "go", _names(r"[^/]+_test\.go")),
    Language("rust", (".rs",), "rust"),
    # Maven Surefire's and Gradle's defaults, and Failsafe's integration tests
    Language("java", (".java",), "java", _names(r"Test[^/]*\.java|[^/]+(?:Test|Tests|TestCase|IT)\.java")),
    Language("kotlin", (".kt", ".kts"), None, _names(r"[^/]+(?:Test|Tests|IT)\.kt")),
    Language("scala", (".scala",), None, _names(r"[^/]+(?:Test|Tests|Spec|Suite)\.scala")),
    Language("c", (".c", ".h"), "c", _names(r"test_[^/]*\.c|[^/]+_test\.c")),
    Language("cpp", (".cc", ".cpp", ".cxx", ".hpp"), "cpp",
             _names(r"test_[^/]*\.(?:cc|cpp|cxx)|[^/]+_(?:test|unittest)\.(?:cc|cpp|cxx)")),
    Language("csharp", (".cs",), None, _names(r"[^/]+Tests?\.cs")),
    Language("ruby", (".rb",), "ruby", _names(r"[^/]+_(?:test|spec)\.rb|test_[^/]*\.rb")),
    Language("php", (".php",), None, _names(r"[^/]+Test\.php")),
    Language("swift", (".swift",), None, _names(r"[^/]+Tests?\.swift")),
    Language("objective-c", (".m",), None, _names(r"[^/]+Tests?\.m")),
    Language("lua", (".lua",), None, _names(r"[^/]+_spec\.lua|test_[^/]*\.lua")),
    Language("shell", (".sh", ".bats"), None, _names(r"[^/]+\.bats|test_[^/]*\.sh|[^/]+_test\.sh")),
)
_BY_SUFFIX = {suffix: language for language in LANGUAGES for suffix in language.suffixes}
_BY_NAME = {language.name: language for language in LANGUAGES}
CODE_SUFFIXES: tuple[str, ...] = tuple(_BY_SUFFIX)
# Names the test runners of languages this registry does not know collect: test_x.*, x_test.*, x.test.*, x.spec.*
_ANY_TEST_NAME = re.compile(r"(?:test_[^/]*|[^/]*_test\.\w+|[^/]*\.(?:spec|test)\.\w+)\Z")


def language_of(path: str) -> Language | None:
    """The language of the file at `path` by its suffix, or None when it is not code this registry knows."""
    return _BY_SUFFIX.get(posixpath.splitext(path)[1])


def language(name: str) -> Language:
    """The language called `name` (KeyError naming the known ones otherwise)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no language {name!r}; known: {', '.join(_BY_NAME)}") from None


def suffixes_of(*names: str) -> tuple[str, ...]:
    """The file suffixes of the named languages, in registry order."""
    return tuple(suffix for name in names for suffix in language(name).suffixes)


def is_code(path: str) -> bool:
    """True for a source file in a language of the registry."""
    return language_of(path) is not None


def is_language(path: str, *names: str) -> bool:
    """True when the file at `path` is in one of the named languages."""
    found = language_of(path)
    return found is not None and found.name in names


def is_test_name(path: str) -> bool:
    """True when the file's own name is one its language's test runner collects as a test file.

    A file of a known language follows that language's rule (`test_x.go` is code, `x_test.go` a test);
    any other file follows the names most runners share (`test_x.*`, `x_test.*`, `x.test.*`, `x.spec.*`).
    """
    name = posixpath.basename(path)
    found = language_of(path)
    if found is None:
        return bool(_ANY_TEST_NAME.match(name))
    return found.test_name is not None and bool(found.test_name.match(name))


def tree_sitter_grammars() -> dict[str, str]:
    """Suffix -> tree-sitter grammar name, for the languages the index parses with tree-sitter."""
    return {suffix: lang.tree_sitter for suffix, lang in _BY_SUFFIX.items() if lang.tree_sitter}
