"""Detection: the language, setup command, test command and image, from the repository's files.

Commands refer to two shell variables both backends set: `$ENSEMBLE_ENV`, a directory that
outlives the setup phase (venvs, module caches), and `$ENSEMBLE_WORKSPACE`, the repository copy.
Values in `ProjectInfo.env` may use `{env}` and `{tmp}`, which each backend expands.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import tomllib
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from common.languages import is_language, is_test_name
from common.testfiles import is_test_path
from sandbox.ci_recipe import read_recipe, recipe_image
from sandbox.images import configured_image, default_image
from sandbox.model import ProjectInfo, SandboxSpec, ServiceSpec
from sandbox.recipe import Recipe, Service, project_env, service, setup_command, test_command, variables
from sandbox.scripts import BUILD_CACHE, BUILD_CACHE_COPY, CTEST_JUNIT, JEST_JUNIT

DEPENDENCY_GLOBS = (
    "requirements*.txt", "requirements/*.txt", "pyproject.toml", "setup.cfg", "setup.py", "tox.ini", "noxfile.py",
    "Pipfile.lock", "poetry.lock", "uv.lock", "package.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml",
    "go.mod", "go.sum", "Cargo.toml", "Cargo.lock", "pom.xml", "build.gradle", "build.gradle.kts",
    "settings.gradle", "settings.gradle.kts", "gradle.lockfile",
)
NPM_PLACEHOLDER = "no test specified"
NODE_RUNS = (".js", ".mjs", ".cjs")  # what `node --test` runs without a loader
NOT_THE_PROJECTS = {"node_modules", "vendor", "site-packages", "venv", "__pycache__", "dist", "build", "target"}
MAX_TEST_FILES = 2000
PYTEST = "python3 -m pytest -q"
VENV = 'python3 -m venv --system-site-packages "$ENSEMBLE_ENV/venv" && . "$ENSEMBLE_ENV/venv/bin/activate"'


def dependency_files(repo_dir: Path) -> tuple[str, ...]:
    """The files whose contents decide the environment (relative paths, sorted)."""
    found = {p.relative_to(repo_dir).as_posix() for g in DEPENDENCY_GLOBS for p in repo_dir.glob(g) if p.is_file()}
    return tuple(sorted(found))


def detect_project(repo_dir: Path, spec: SandboxSpec | None = None, env: Mapping[str, str] | None = None) -> ProjectInfo:
    """Detect the project; `spec` (setup, test, image, services) and ENSEMBLE_SANDBOX_IMAGE override detection, and
    where `spec` names no setup or test command, the CI job that runs the tests gives them (sandbox/ci_recipe.py)."""
    repo_dir = Path(repo_dir)
    spec = spec or SandboxSpec()
    found = None
    for detector in (_python, _javascript, _go, _rust, _maven, _gradle, _cmake, _make):
        if found := detector(repo_dir):
            break
    found = found or ProjectInfo("unknown", None)
    image = configured_image(spec.image, env or {}) or default_image(found.language)
    project = ProjectInfo(
        language=found.language,
        test=spec.test or found.test,
        setup=found.setup if spec.setup is None else (spec.setup or None),
        image=image,
        env=found.env,
        dependency_files=dependency_files(repo_dir),
        result_paths=found.result_paths,
    )
    if spec.setup is None and spec.test is None and (recipe := read_recipe(repo_dir, spec.setup_env)):
        language = recipe.language or found.language
        # a venv of its own, as setup-python gives: the workflow installs what its tests need (pytest too)
        venv = VENV.replace(" --system-site-packages", "")
        project = with_recipe(project, recipe, venv if language == "python" else None, configured_image(
            spec.image, env or {}) or recipe_image(recipe) or default_image(language))
    return project if spec.services is None else replace(project, services=services_from_config(spec.services))


def with_recipe(project: ProjectInfo, recipe: Recipe, prelude: str | None, image: str | None) -> ProjectInfo:
    """`project` (as detected) with the CI recipe's commands, variables, services and image."""
    return replace(project, language=recipe.language or project.language, test=test_command(recipe),
                   setup=setup_command(recipe, prelude), image=image or project.image,
                   env=project_env(recipe, project.env), services=recipe.services, recipe=recipe)


def services_from_config(specs: Mapping[str, ServiceSpec]) -> tuple[Service, ...]:
    """`sandbox.services` from the config, read as a workflow's `services:` is."""
    return tuple(service(name, spec.image, variables(spec.env), list(spec.ports), spec.options)
                 for name, spec in specs.items())


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


def _python(repo: Path) -> ProjectInfo | None:
    markers = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "noxfile.py", "pytest.ini", "conftest.py")
    requirements = sorted(p.name for p in repo.glob("requirements*.txt"))
    test_files = find_test_files(repo, "python", by_name=True)  # what pytest collects, conftest.py with them
    if not (any((repo / m).exists() for m in markers) or requirements or test_files):
        return None
    pyproject = _toml(repo / "pyproject.toml")
    steps = [VENV] + [f"python3 -m pip install -q -r {shlex.quote(r)}" for r in requirements]
    if "project" in pyproject or (repo / "setup.py").exists():
        extras = [e for e in ("test", "tests", "testing", "dev")
                  if e in _table(_table(pyproject, "project"), "optional-dependencies")]
        target = f".[{extras[0]}]" if extras else "."
        steps.append(f"python3 -m pip install -q -e {shlex.quote(target)}")
    test = _python_test_command(repo, pyproject, requirements, test_files)
    if test.startswith("python3 -m pytest"):
        steps.append('{ python3 -c "import pytest" 2>/dev/null || python3 -m pip install -q pytest; }')
    elif test.startswith("tox"):
        steps.append('python3 -m pip install -q tox && tox --notest --workdir "$ENSEMBLE_ENV/tox"')
    elif test.startswith("nox"):
        steps.append('python3 -m pip install -q nox && nox --install-only --envdir "$ENSEMBLE_ENV/nox"')
    return ProjectInfo("python", test, " && ".join(steps), env=(("PIP_DISABLE_PIP_VERSION_CHECK", "1"),))


def _python_test_command(repo: Path, pyproject: dict[str, object], requirements: list[str], test_files: list[Path]) -> str:
    texts = [_read(repo / r) for r in requirements] + [_read(repo / "setup.cfg"), _read(repo / "tox.ini")]
    pytest_signals = (
        (repo / "pytest.ini").exists() or (repo / "conftest.py").exists() or (repo / "tests/conftest.py").exists()
        or "pytest" in _table(pyproject, "tool") or "pytest" in json.dumps(_table(pyproject, "project"))
        or any(re.search(r"^\s*pytest\b|\[tool:pytest\]|^\[pytest\]", t, re.M) for t in texts)
        or any("import pytest" in _read(f) for f in test_files[:50])
    )
    if pytest_signals:
        return PYTEST
    if (repo / "noxfile.py").exists():
        return 'nox -R --envdir "$ENSEMBLE_ENV/nox"'
    if (repo / "tox.ini").exists():
        return 'tox --workdir "$ENSEMBLE_ENV/tox"'
    if test_files and all("unittest" in _read(f) for f in test_files[:50]):
        return "python3 -m unittest discover -v"
    return PYTEST  # plain `def test_...` functions are pytest's


def _toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(_read(path))
    except tomllib.TOMLDecodeError:
        return {}


def _table(document: dict[str, object], key: str) -> dict[str, object]:
    """The TOML table at `key`; empty when it is absent or not a table."""
    found = document.get(key)
    return found if isinstance(found, dict) else {}


def _javascript(repo: Path) -> ProjectInfo | None:
    try:
        package = json.loads(_read(repo / "package.json"))
    except json.JSONDecodeError:
        return None
    script = (package.get("scripts") or {}).get("test") if isinstance(package, dict) else None
    setup: str | None
    if (repo / "pnpm-lock.yaml").exists():
        setup, manager = "corepack enable pnpm && pnpm install --frozen-lockfile", "pnpm"
    elif (repo / "yarn.lock").exists():
        setup, manager = "yarn install --frozen-lockfile", "yarn"
    else:
        setup = "npm ci" if (repo / "package-lock.json").exists() else "npm install"
        manager = "npm"
    test = f"{manager} test" if script and NPM_PLACEHOLDER not in script else None
    deps = {**(package.get("dependencies") or {}), **(package.get("devDependencies") or {})}
    if test and re.search(r"\bjest\b", script or "") and "jest-junit" in deps:
        # jest writes JUnit only through the jest-junit reporter; the default one keeps the usual output
        test += f"{' --' if manager == 'npm' else ''} --reporters=default --reporters=jest-junit"
    elif test is None and _node_test_files(repo):
        test = "node --test --test-reporter=tap"  # Node's own runner; TAP gives per-test results
    if not deps and not (repo / "package-lock.json").exists():
        setup = None  # nothing to install: Node alone runs the tests
    # jest-junit takes its environment over its reporter options: the report goes to the run's own folder
    env = (("npm_config_cache", "{tmp}/npm-cache"), ("JEST_JUNIT_OUTPUT_DIR", "{results}"),
           ("JEST_JUNIT_OUTPUT_NAME", JEST_JUNIT), ("JEST_JUNIT_OUTPUT_FILE", f"{{results}}/{JEST_JUNIT}"))
    return ProjectInfo("javascript", test, setup, env=env)


def _node_test_files(repo: Path) -> bool:
    """Files `node --test` finds: JavaScript test files (`x.test.js`, `x-test.mjs`, scripts in test/), not JSX."""
    return any(p.suffix in NODE_RUNS for p in find_test_files(repo, "javascript"))


def find_test_files(repo: Path, *languages: str, by_name: bool = False, limit: int = MAX_TEST_FILES) -> list[Path]:
    """The repository's test files in `languages`, as the one registry decides (common/testfiles.py); with
    `by_name`, only those named as tests (not every file under tests/). Vendored and hidden folders are skipped."""
    found: list[Path] = []
    for root, dirs, names in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in NOT_THE_PROJECTS)
        for name in sorted(names):
            rel = (Path(root) / name).relative_to(repo).as_posix()
            if is_language(rel, *languages) and (is_test_name(rel) if by_name else is_test_path(rel)):
                found.append(Path(root) / name)
                if len(found) >= limit:
                    return found
    return found


def _go(repo: Path) -> ProjectInfo | None:
    if not (repo / "go.mod").exists():
        return None
    # Setup warms a build cache by compiling the base's tests without running them (`-exec true`); each run starts
    # from a copy of it (scripts.RUN_SCRIPT, BUILD_CACHE), so no run's writes reach another's: without it, every
    # judged run compiled what the tests need again (about a second of a small package's 1.4 s run).
    env = (("GOMODCACHE", "{env}/go/mod"), ("GOCACHE", "{tmp}/go-build"), ("GOFLAGS", "-mod=mod"),
           ("GOTOOLCHAIN", "local"), (BUILD_CACHE_COPY, "{tmp}/go-build"))
    warm = f'GOCACHE="$ENSEMBLE_ENV/{BUILD_CACHE}" go test -exec true -run "^$" ./... >/dev/null 2>&1'
    return ProjectInfo("go", "go test -json ./...", f"go mod download && {{ {warm} || true; }}", env=env)


def _rust(repo: Path) -> ProjectInfo | None:
    if not (repo / "Cargo.toml").exists():
        return None
    # every test target runs (no fail-fast) and cargo's "Running <target>" lines join the test lines on stdout
    return ProjectInfo("rust", "cargo test --no-fail-fast 2>&1", "cargo fetch", env=(
        ("CARGO_HOME", "{env}/cargo"), ("CARGO_TERM_COLOR", "never")))


def _maven(repo: Path) -> ProjectInfo | None:
    if not (repo / "pom.xml").exists():
        return None
    local = '-Dmaven.repo.local="$ENSEMBLE_ENV/m2"'
    # Surefire's reportsDirectory has no user property: only the pom moves it, so its usual folder is read
    return ProjectInfo("java-maven", f"mvn -B -o test {local}", f"mvn -B -q dependency:go-offline {local}",
                       result_paths=("target/surefire-reports",))


def _gradle(repo: Path) -> ProjectInfo | None:
    if not any((repo / n).exists() for n in ("build.gradle", "build.gradle.kts")):
        return None
    gradle = "./gradlew" if (repo / "gradlew").exists() else "gradle"
    # the report folder is the build script's (`reports.junitXml.outputLocation`): read where it usually is
    return ProjectInfo("java-gradle", f"{gradle} test --offline", f"{gradle} --no-daemon dependencies",
                       env=(("GRADLE_USER_HOME", "{env}/gradle"),), result_paths=("build/test-results",))


def _cmake(repo: Path) -> ProjectInfo | None:
    """CMake with CTest: configure and build out of tree in the run's scratch space, CTest writes JUnit."""
    if not (repo / "CMakeLists.txt").exists():
        return None
    build = '"$TMPDIR/build"'
    test = (f"cmake -S . -B {build} -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build {build} --parallel 2 && "
            f"ctest --test-dir {build} --output-on-failure --no-tests=error "
            f'--output-junit "$ENSEMBLE_RESULTS/{CTEST_JUNIT}"')
    return ProjectInfo("cmake", test)


def _make(repo: Path) -> ProjectInfo | None:
    if re.search(r"^test\s*:", _read(repo / "Makefile"), re.M):
        return ProjectInfo("make", "make test")
    return None
