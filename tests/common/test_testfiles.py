"""The one registry of test files and harness files, and the part of a mixed file that decides the tests."""

from __future__ import annotations

import pytest

from bot.ensemble.judge.files import judged_files
from common.testfiles import (
    PYTEST_CONFIGS,
    conftest_additions,
    conftest_harness,
    conftest_reach,
    data_named_by_tests,
    declares_only,
    fresh_test_path,
    harness_part,
    is_harness_path,
    is_new_harness,
    is_test_data,
    is_test_data_path,
    is_test_name,
    is_test_path,
    is_whole_harness,
    pytest_pythonpath,
    runs_apart,
    shadowed_module,
    shadows_runner,
)


@pytest.mark.parametrize(("path", "test", "harness"), [
    ("tests/test_x.py", True, False), ("pkg/x_test.go", True, False), ("web/a.spec.ts", True, False),
    ("src/test/java/ATest.java", True, False), ("conftest.py", True, True), ("pytest.ini", False, True),
    ("package.json", False, True), ("Makefile", False, True), (".github/workflows/ci.yml", False, True),
    ("jest.config.js", False, True), ("pkg/parser.py", False, False), ("src/main.rs", False, False),
])
def test_paths_are_sorted_into_tests_and_harness(path: str, test: bool, harness: bool) -> None:
    assert (is_test_path(path), is_harness_path(path)) == (test, harness)


def test_only_the_test_part_of_a_mixed_file_is_harness() -> None:
    pyproject = "[project]\nname = 'p'\ndependencies = []\n\n[tool.pytest.ini_options]\naddopts = '-q'\n"
    assert harness_part("pyproject.toml", pyproject) == harness_part(
        "pyproject.toml", pyproject.replace("[]", "['attrs']"))
    assert harness_part("pyproject.toml", pyproject) != harness_part("pyproject.toml", pyproject.replace("-q", "-k x"))
    cargo = "[package]\nname = 'p'\n\n[dependencies]\n\n[[test]]\nname = 'it'\n"
    assert harness_part("Cargo.toml", cargo) != harness_part("Cargo.toml", cargo.replace("[[test]]\nname = 'it'\n", ""))
    pom = "<project><plugin><artifactId>maven-surefire-plugin</artifactId><skipTests>false</skipTests></plugin></project>"
    assert harness_part("pom.xml", pom) != harness_part("pom.xml", pom.replace("false", "true"))
    assert harness_part("pyproject.toml", "not [toml") == "not [toml"  # unreadable: all of it counts
    assert is_whole_harness("tests/conftest.py") and not is_whole_harness("package.json")
    assert shadows_runner("pytest.py") and shadows_runner("x.pth") and not shadows_runner("src/pytest_helpers.py")


PYPROJECT = '[project]\nname = "p"\n\n[tool.pytest.ini_options]\naddopts = "--strict-markers"\n'
INI = "[pytest]\naddopts = --strict-markers\n"


@pytest.mark.parametrize(("path", "before", "after", "only"), [
    ("pyproject.toml", PYPROJECT, PYPROJECT + 'markers = ["slow: takes long"]\n', True),
    ("pytest.ini", INI, INI + "markers =\n    slow: takes long\n", True),
    ("setup.cfg", "[tool:pytest]\naddopts = -q\n", "[tool:pytest]\naddopts = -q\nmarkers = slow\n", True),
    ("tox.ini", "[tox]\nenvlist = py\n\n[pytest]\nmarkers = a\n", "[tox]\nenvlist = py\n\n[pytest]\nmarkers = a\n  b\n", True),
    ("pytest.ini", INI, "# the project's test settings\n" + INI, True),  # nothing a runner reads
    # what runs changes too: a test deselected, a plugin, a setting beside the declaration
    ("pytest.ini", INI, INI.replace("--strict-markers", "-k 'not add'") + "markers = slow\n", False),
    ("pyproject.toml", PYPROJECT, PYPROJECT + 'markers = ["slow"]\ntestpaths = ["tests/fast"]\n', False),
    # a table or section that makes the file pytest's settings where it was not: pytest reads that file first now
    ("pyproject.toml", '[project]\nname = "p"\n', '[project]\nname = "p"\n\n[tool.pytest.ini_options]\nmarkers = ["a"]\n',
     False),
    ("tox.ini", "[tox]\nenvlist = py\n", "[tox]\nenvlist = py\n\n[pytest]\nmarkers = a\n", False),
    ("pytest.ini", INI, "[pytest\nmarkers = a\n", False),  # unreadable
    ("package.json", "{}", '{"markers": 1}', False),  # not pytest's settings
])
def test_a_settings_change_that_only_declares_markers_is_told_apart(path: str, before: str, after: str,
                                                                     only: bool) -> None:
    assert declares_only(path, before, after) is only


def test_the_judged_tree_puts_back_the_bases_tests_and_leaves_new_harness_out() -> None:
    base = {"tests/test_a.py": "A", "stats.py": "S", "pyproject.toml": "[tool.pytest.ini_options]\naddopts='-q'\n",
            "tests/test_gone.py": "G"}
    now = {"tests/test_a.py": "A2", "stats.py": "S2", "pyproject.toml": base["pyproject.toml"] + "[project]\n",
           "tests/test_new.py": "N", "conftest.py": "C", "tests/test_gone.py": None, "tests/test_repro.py": "R2"}
    overlay = judged_files(now, base.get, now.get, frozen={"tests/test_repro.py": "R"})
    assert overlay == {"tests/test_a.py": b"A", "conftest.py": None, "tests/test_gone.py": b"G",
                       "tests/test_repro.py": b"R"}
    assert "tests/test_a.py" not in judged_files(now, base.get, now.get, allowed=["tests/test_a.py"])


# ------------------------------------------------------------------ every file the runners read for their settings


@pytest.mark.parametrize("path", [
    ".pytest.ini", "pytest.toml", ".pytest.toml", "sub/pytest.ini", "tox.toml", "noxfile.py", "jest.config.mjs",
    "jest.setup.ts", "vitest.config.mts", "vitest.workspace.ts", "babel.config.js", ".babelrc", ".babelrc.json",
    ".mocharc.yml", "ava.config.cjs", ".taprc", "node.config.json", ".config/nextest.toml", ".cargo/config.toml",
    ".mvn/maven.config", ".mvn/jvm.config", ".mvn/extensions.xml", "CTestCustom.cmake", "build/CTestTestfile.cmake",
])
def test_every_runner_configuration_is_harness(path: str) -> None:
    assert is_whole_harness(path) and is_harness_path(path) and not is_test_path(path)


@pytest.mark.parametrize("path", ["vite.config.ts", "web/vite.config.js", "go.mod", "go.work", "CMakePresets.json",
                                  "settings.gradle.kts", "buildSrc/src/main/kotlin/java-conventions.gradle.kts",
                                  ".npmrc", "pyproject.toml", "setup.cfg"])
def test_files_that_hold_test_settings_beside_other_ones_are_harness_in_part(path: str) -> None:
    assert is_harness_path(path) and not is_whole_harness(path)


@pytest.mark.parametrize("path", ["src/config.py", "vite-env.d.ts", "go.sum", "package-lock.json", "pytest_notes.md",
                                  "docs/pytest.ini.md"])
def test_files_named_like_configuration_are_not(path: str) -> None:
    assert not is_harness_path(path)


def test_every_file_pytest_reads_its_settings_from_is_known() -> None:
    from _pytest.config import findpaths

    names = getattr(findpaths, "CONFIG_LOADERS_BY_NAME", None)
    if names is None:  # pytest before 9 keeps the list inside locate_config
        pytest.skip("this pytest has no CONFIG_LOADERS_BY_NAME")
    assert list(names) == list(PYTEST_CONFIGS)
    assert all(is_harness_path(name) for name in names)


@pytest.mark.parametrize(("path", "text", "same", "other"), [
    ("go.mod", "module m\n\nrequire a v1.0.0\n", "module m\n\nrequire a v1.1.0\n",
     "module m\n\nrequire a v1.0.0\nreplace github.com/stretchr/testify => ./fake\n"),
    ("go.work", "go 1.22\n\nuse .\n", "go 1.23\n\nuse .\n", "go 1.22\n\nuse .\n\nreplace (\n\ta => ./b\n)\n"),
    ("web/vite.config.ts", "export default { server: { port: 3000 }, test: { environment: 'jsdom' } }",
     "export default { server: { port: 4000 }, test: { environment: 'jsdom' } }",
     "export default { server: { port: 3000 }, test: { environment: 'jsdom', setupFiles: ['evil.ts'] } }"),
    ("CMakePresets.json", '{"configurePresets": [], "testPresets": [{"name": "all"}]}',
     '{"configurePresets": [{"name": "x"}], "testPresets": [{"name": "all"}]}',
     '{"configurePresets": [], "testPresets": [{"name": "all", "filter": {"exclude": {"name": "even"}}}]}'),
    (".npmrc", "registry=https://registry.example/\n", "registry=https://mirror.example/\n",
     "registry=https://registry.example/\nnode-options=--require ./hook.js\n"),
    ("pyproject.toml", "[project]\nname = 'p'\n", "[project]\nname = 'p'\nversion = '2'\n",
     "[project]\nname = 'p'\n\n[project.entry-points.pytest11]\nflip = 'p.flip'\n"),
    ("setup.cfg", "[metadata]\nname = p\n", "[metadata]\nname = q\n",
     "[metadata]\nname = p\n\n[options.entry_points]\npytest11 =\n    flip = p.flip\n"),
])
def test_the_test_part_of_more_files_is_read(path: str, text: str, same: str, other: str) -> None:
    assert harness_part(path, text) == harness_part(path, same)
    assert harness_part(path, text) != harness_part(path, other)


def test_a_new_file_that_holds_test_settings_is_new_harness() -> None:
    assert is_new_harness("pyproject.toml", "[tool.pytest.ini_options]\naddopts = '-p flip'\n")
    assert not is_new_harness("pyproject.toml", "[project]\nname = 'p'\n")
    assert is_new_harness(".pytest.ini", "") and not is_new_harness("stats/core.py", "x = 1\n")


# ------------------------------------------------------------------ a new conftest.py: fixtures for the new tests, or harness

FIXTURES = ('"""Fixtures for the new tests."""\nimport sys\nfrom pathlib import Path\n\nimport pytest\n\n'
            'if sys.version_info < (3, 11):\n    import tomli as tomllib\nelse:\n    import tomllib\n'
            'HERE, (FIRST, *REST) = Path(__file__).parent, (1, 2)\n\n\n@pytest.fixture(name="cases")\n'
            'def _cases():\n    return [1, 2]\n\n\nclass Box:\n    value: int = 1\n')


@pytest.mark.parametrize(("text", "found"), [
    (FIXTURES, None),
    ("def pytest_runtest_makereport(item, call):\n    pass\n", "line 1: the hook or setting `pytest_runtest_makereport`"),
    ("collect_ignore = ['tests/test_a.py']\n", "line 1: the hook or setting `collect_ignore`"),
    ("pytest_plugins = ['flip']\n", "line 1: the hook or setting `pytest_plugins`"),
    ("from tests.hooks import pytest_collection_modifyitems as pytest_collection_modifyitems\n",
     "line 1: the hook or setting `pytest_collection_modifyitems`"),
    ("from tests.hooks import *\n", "line 1: a star import from tests.hooks (it may bring hooks in)"),
    ("import sys\nsys.path.insert(0, 'lib')\n", "line 2: `sys.path.insert(0, 'lib')` runs as the file loads"),
    ("import stats\nstats.median = len\n", "line 2: `stats.median = len` changes a value outside the file as it loads"),
    ("try:\n    import flip\nexcept ImportError:\n    def pytest_configure(config):\n        pass\n",
     "line 4: the hook or setting `pytest_configure`"),
    ("def broken(:\n", "it does not parse"),
])
def test_a_conftest_that_only_defines_fixtures_and_helpers_is_told_from_harness(text: str, found: str | None) -> None:
    assert conftest_harness(text) == found
    assert runs_apart("tests/new/conftest.py", text) is (found is None)
    assert not runs_apart("tests/pytest.ini", "") and not runs_apart("tests/new/helpers.py", FIXTURES)


BASE_TESTS = {"tests/test_a.py": "def test_a(tmp_path, data):\n    pass\n",
              "tests/conftest.py": "import pytest\n\n\n@pytest.fixture\ndef data(db):\n    return db\n",
              "tests/unit/test_b.py": "import pytest\n\n\n@pytest.mark.usefixtures('clean')\ndef test_b():\n    pass\n",
              "conftest.py": "def pytest_configure(config):\n    pass\n"}
AUTOUSE = "import pytest\n\n\n@pytest.fixture(autouse=True)\ndef patched(monkeypatch):\n    pass\n"


@pytest.mark.parametrize(("path", "text", "found"), [
    ("tests/unit/conftest.py", AUTOUSE, "an autouse fixture would run around the existing tests in tests/unit/"),
    ("tests/unit/conftest.py", AUTOUSE.replace("autouse=True", "autouse=False"), None),
    ("tests/new/conftest.py", AUTOUSE, None),  # no base test sits there: it runs around the new tests alone
    ("conftest.py", "import pytest\nfrom helpers import make\n\n\n@pytest.fixture\ndef four():\n    return 4\n", None),
    ("tests/unit/conftest.py", "import pytest\n\n\n@pytest.fixture\ndef clean():\n    yield\n",
     "it defines `clean`, which the existing tests there request as a fixture"),
    ("tests/unit/conftest.py", "import pytest\n\n\n@pytest.fixture(name='db')\ndef fake_db():\n    return {}\n",
     "it defines `db`, which the existing tests there request as a fixture"),  # through the base's tests/conftest.py
    ("tests/new/conftest.py", "import pytest\n\n\n@pytest.fixture\ndef tmp_path():\n    return 1\n", None),
])
def test_a_new_conftest_reaches_the_bases_tests_in_its_folder_only_through_autouse_or_their_fixture_names(
        path: str, text: str, found: str | None) -> None:
    assert conftest_reach(path, text, list(BASE_TESTS), BASE_TESTS.get) == found


BASE_CONFTEST = BASE_TESTS["tests/conftest.py"]
FOUR = "\n\n@pytest.fixture\ndef four():\n    return 4\n"


@pytest.mark.parametrize(("after", "added"), [
    (BASE_CONFTEST + FOUR, FOUR.strip() + "\n"),  # the decorator goes with its fixture
    (BASE_CONFTEST.replace("return db", "return {}") + FOUR, None),  # a fixture of the base's changed too
    (BASE_CONFTEST.replace("def data(db):\n    return db\n", "") + FOUR, None),  # one removed
    (BASE_CONFTEST + AUTOUSE.split("\n\n\n", 1)[1], None),  # autouse: around the base's tests too
    (BASE_CONFTEST + "\n\n@pytest.fixture\ndef db():\n    return {}\n", None),  # a name the base's tests request
    (BASE_CONFTEST + "\n\ndef pytest_configure(config):\n    pass\n", None),  # a hook
    (BASE_CONFTEST, None),  # nothing added
])
def test_an_existing_conftest_that_only_gains_fixtures_for_new_tests_gives_what_it_gained(after: str,
                                                                                       added: str | None) -> None:
    assert conftest_additions("tests/conftest.py", BASE_CONFTEST, after, list(BASE_TESTS), BASE_TESTS.get) == added
    assert conftest_additions("tests/test_a.py", BASE_CONFTEST, after, list(BASE_TESTS), BASE_TESTS.get) is None


# ------------------------------------------------------------------ modules that shadow the standard library or runner


@pytest.mark.parametrize(("path", "module"), [
    ("argparse.py", "argparse"), ("json/__init__.py", "json"), ("src/json.py", "json"), ("tests/types.py", "types"),
    ("tests/unit/email.py", "email"), ("pluggy.py", "pluggy"), ("_pytest/__init__.py", "_pytest"),
    ("pytest.py", "pytest"), ("unittest/__init__.py", "unittest"), ("ensemble_pytest_progress.py",
                                                                     "ensemble_pytest_progress"),
    ("pkg/sitecustomize.py", "sitecustomize"), ("iniconfig.py", "iniconfig"),
])
def test_a_new_module_named_like_the_standard_librarys_or_the_runners_shadows_it(path: str, module: str) -> None:
    assert shadowed_module(path) == module and shadows_runner(path)


@pytest.mark.parametrize("path", ["stats/json.py", "stats/argparse/__init__.py", "mymodule.py", "tests/test_json.py",
                                  "json.txt", "docs/json.md", "src/pytest_helpers.py", "json/schema.json",
                                  "lib/json.py"])
def test_modules_not_imported_by_their_bare_name_or_named_otherwise_do_not(path: str) -> None:
    assert shadowed_module(path) is None and not shadows_runner(path)


def test_pytests_pythonpath_puts_more_folders_on_sys_path() -> None:
    configs = {"pytest.ini": "[pytest]\npythonpath = lib tools\n"}
    assert pytest_pythonpath(configs.get) == ["lib", "tools"]
    assert shadowed_module("lib/json.py", pytest_pythonpath(configs.get)) == "json"
    toml = {"pytest.toml": "[pytest]\n", "pyproject.toml": "[tool.pytest.ini_options]\npythonpath = ['lib']\n"}
    assert pytest_pythonpath(toml.get) == []  # pytest.toml is the settings file, even empty: pyproject is not read
    assert pytest_pythonpath({"pyproject.toml": toml["pyproject.toml"]}.get) == ["lib"]
    assert shadows_runner("x.pth") and shadows_runner("deep/in/a.pth")


# ------------------------------------------------------------------ test data


@pytest.mark.parametrize(("path", "data"), [
    ("fixtures/median.json", True), ("app/fixtures/users.json", True), ("pkg/testdata/in.txt", True),
    ("__fixtures__/a.js", True), ("test_data/x.csv", True), ("test-data/x.csv", True),
    ("src/__snapshots__/a.test.js.snap", True), ("src/snapshots/crate__name.snap", True), ("out.golden", True),
    ("src/fixtures.py", False), ("docs/index.md", False), ("stats/core.py", False), ("data/x.json", False),
])
def test_data_folders_and_snapshot_files_are_the_tests(path: str, data: bool) -> None:
    assert is_test_data_path(path) is data and is_test_data(path) is data


@pytest.mark.parametrize(("path", "data"), [
    ("data/expected.json", True), ("docs/example.txt", True), ("stats/core.py", False), ("web/app.ts", False),
    ("package-lock.json", False), ("requirements-dev.txt", False), ("Cargo.lock", False), ("go.sum", False),
    ("pyproject.toml", False), ("tests/test_core.py", False), (".gitignore", False),
])
def test_files_the_base_tests_read_are_data_unless_code_manifests_or_locks(path: str, data: bool) -> None:
    assert is_test_data(path, {path}) is data


def test_the_files_a_test_names_in_a_string_literal_are_found() -> None:
    tree = ["fixtures/cases.json", "data/expected.json", "tests/golden.txt", "tests/unit/input.csv", "examples/a.txt",
            "examples/b.txt", "examples/c.py", "stats/core.py", "README.md", "config/settings.yaml", "other.txt"]
    tests = {
        "tests/test_a.py": 'CASES = json.loads((Path(__file__).parent.parent / "fixtures" / "cases.json").read_text())\n'
                           'EXPECTED = open("data/expected.json").read()\nGOLD = here("golden.txt")\n'
                           'for p in glob("examples/*.*"): pass\nimport_module("stats/core.py")\n'
                           'URL = "https://example.com/other.txt"\nMSG = "a sentence, not a file."\n',
        "tests/unit/test_b.py": 'ROWS = read(os.path.join(HERE, "input.csv"))\nSETTINGS = load("../../config/settings.yaml")\n',
    }
    assert data_named_by_tests(tests, tree) == {"fixtures/cases.json", "data/expected.json", "tests/golden.txt",
                                                "examples/a.txt", "examples/b.txt", "tests/unit/input.csv",
                                                "config/settings.yaml"}
    assert data_named_by_tests({"x_test.go": 'os.ReadFile(filepath.Join("testdata", "in.txt"))'},
                               ["testdata/in.txt"]) == {"testdata/in.txt"}
    assert data_named_by_tests({"tests/test_a.py": 'open("../../etc/passwd")'}, ["etc/passwd"]) == set()


@pytest.mark.parametrize(("shown", "new"), [
    ("tests/test_core.py", "tests/test_core_repro.py"),
    ("k/k_test.go", "k/k_repro_test.go"),
    ("src/stats.test.js", "src/stats_repro.test.js"),
    # Surefire runs `*Test.java`, `*Tests.java`, `*TestCase.java` and `Test*.java`: `StatsTest_repro.java` it never ran
    ("src/test/java/example/StatsTest.java", "src/test/java/example/Stats_reproTest.java"),
    ("src/test/java/example/StatsTests.java", "src/test/java/example/Stats_reproTests.java"),
    ("src/test/kotlin/example/StatsTestCase.kt", "src/test/kotlin/example/Stats_reproTestCase.kt"),
    ("src/test/java/example/TestStats.java", "src/test/java/example/TestStats_repro.java"),
])
def test_a_new_test_file_is_named_as_its_runner_finds_tests(shown: str, new: str) -> None:
    assert fresh_test_path(shown, lambda _path: False) == new
    assert fresh_test_path(shown, lambda path: path == new).replace("_repro2", "_repro") == new  # a free name beside it
    assert is_test_name(new) or is_test_path(new)
