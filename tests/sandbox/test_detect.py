"""Detection of language, setup and test commands, and the image, from a repository's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sandbox import SandboxSpec, detect_project


def make(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest.mark.parametrize(("files", "language", "test"), [
    ({"pyproject.toml": "[tool.pytest.ini_options]\n", "tests/test_a.py": ""}, "python", "python3 -m pytest -q"),
    ({"tests/test_a.py": "import unittest\n"}, "python", "python3 -m unittest discover -v"),
    ({"test_a.py": "def test_a():\n    assert True\n"}, "python", "python3 -m pytest -q"),
    ({"tox.ini": "[tox]\nenvlist = py312\n"}, "python", 'tox --workdir "$ENSEMBLE_ENV/tox"'),
    ({"noxfile.py": "import nox\n"}, "python", 'nox -R --envdir "$ENSEMBLE_ENV/nox"'),
    ({"package.json": json.dumps({"scripts": {"test": "jest"}}), "yarn.lock": ""}, "javascript", "yarn test"),
    ({"package.json": json.dumps({"scripts": {"test": "vitest"}}), "pnpm-lock.yaml": ""}, "javascript", "pnpm test"),
    ({"package.json": json.dumps({"scripts": {"test": "mocha"}})}, "javascript", "npm test"),
    ({"package.json": json.dumps({"scripts": {"test": "jest --ci"}, "devDependencies": {"jest-junit": "^16"}})},
     "javascript", "npm test -- --reporters=default --reporters=jest-junit"),
    ({"package.json": json.dumps({"scripts": {"test": "jest"}, "devDependencies": {"jest-junit": "^16"}}),
      "yarn.lock": ""}, "javascript", "yarn test --reporters=default --reporters=jest-junit"),
    ({"go.mod": "module x\n"}, "go", "go test -json ./..."),
    ({"Cargo.toml": "[package]\n"}, "rust", "cargo test --no-fail-fast 2>&1"),
    ({"package.json": "{}", "test/stats.test.js": ""}, "javascript", "node --test --test-reporter=tap"),
    ({"package.json": json.dumps({"scripts": {"test": "node --test"}})}, "javascript", "npm test"),
    ({"pom.xml": "<project/>"}, "java-maven", 'mvn -B -o test -Dmaven.repo.local="$ENSEMBLE_ENV/m2"'),
    ({"build.gradle": "", "gradlew": ""}, "java-gradle", "./gradlew test --offline"),
    ({"Makefile": "build:\n\ttrue\ntest: build\n\t./run-tests\n"}, "make", "make test"),
    ({"CMakeLists.txt": "enable_testing()\n", "Makefile": "test:\n\ttrue\n"}, "cmake",
     'cmake -S . -B "$TMPDIR/build" -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build "$TMPDIR/build" --parallel 2 '
     '&& ctest --test-dir "$TMPDIR/build" --output-on-failure --no-tests=error '
     '--output-junit "$ENSEMBLE_RESULTS/ctest-junit.xml"'),
])
def test_detects_language_and_test_command(tmp_path: Path, files: dict[str, str], language: str, test: str) -> None:
    project = detect_project(make(tmp_path, files))
    assert (project.language, project.test) == (language, test)


def test_npm_placeholder_script_is_not_a_test_command(tmp_path: Path) -> None:
    package = {"scripts": {"test": 'echo "Error: no test specified" && exit 1'}}
    project = detect_project(make(tmp_path, {"package.json": json.dumps(package), "package-lock.json": "{}"}))
    assert project.language == "javascript" and project.test is None and project.setup == "npm ci"


def test_python_setup_installs_requirements_and_the_package_with_test_extras(tmp_path: Path) -> None:
    pyproject = '[project]\nname = "x"\n[project.optional-dependencies]\ntest = ["pytest"]\n'
    project = detect_project(make(tmp_path, {"pyproject.toml": pyproject, "requirements-dev.txt": "requests\n"}))
    assert project.setup is not None
    assert "venv" in project.setup and "-r requirements-dev.txt" in project.setup
    assert "pip install -q -e '.[test]'" in project.setup
    assert project.dependency_files == ("pyproject.toml", "requirements-dev.txt")


def test_config_overrides_detection(tmp_path: Path) -> None:
    repo = make(tmp_path, {"go.mod": "module x\n"})
    spec = SandboxSpec(image="golang:1.23", setup="", test="go test -run Fast ./...")
    project = detect_project(repo, spec, env={"ENSEMBLE_SANDBOX_IMAGE": "ignored:latest"})
    assert (project.image, project.setup, project.test) == ("golang:1.23", None, "go test -run Fast ./...")


def test_image_defaults_by_language_and_the_env_override(tmp_path: Path) -> None:
    repo = make(tmp_path, {"requirements.txt": "pytest\n"})
    assert detect_project(repo, env={}).image == "python:3.12-slim"
    assert detect_project(repo, env={"ENSEMBLE_SANDBOX_IMAGE": "ensemble-base:bookworm"}).image == \
        "ensemble-base:bookworm"


def test_unknown_project_has_no_test_command(tmp_path: Path) -> None:
    project = detect_project(make(tmp_path, {"README.md": "hi"}))
    assert project.language == "unknown" and project.test is None


def test_a_repository_without_tests_asks_for_sandbox_test(tmp_path: Path) -> None:
    from sandbox import Environment, NoTestCommand

    repo = make(tmp_path, {"README.md": "hi"})
    env = Environment(repo, SandboxSpec(), detect_project(repo), "img", "docker", "k", True)
    with pytest.raises(NoTestCommand, match="sandbox.test") as caught:
        _ = env.test_command
    assert caught.value.exit_code == 2


def test_the_bot_config_sandbox_section_is_the_sandbox_spec() -> None:
    from bot.config import parse_config
    from bot.errors import ConfigError

    spec = parse_config("sandbox: {test: pytest -x, memory: 1g}\n").sandbox
    assert isinstance(spec, SandboxSpec)
    assert spec.test == "pytest -x" and spec.memory == "1g" and spec.image is None and spec.pids == 512
    with pytest.raises(ConfigError, match="sandbox.output_limit: unknown key"):  # internal, not configuration
        parse_config("sandbox: {output_limit: 5}\n")


def test_a_node_project_without_dependencies_needs_no_install(tmp_path: Path) -> None:
    plain = detect_project(make(tmp_path / "plain", {"package.json": json.dumps({"scripts": {"test": "node --test"}})}))
    assert plain.setup is None
    deps = {"scripts": {"test": "mocha"}, "devDependencies": {"mocha": "^10"}}
    assert detect_project(make(tmp_path / "deps", {"package.json": json.dumps(deps)})).setup == "npm install"


def test_languages_without_a_registry_image_get_none_so_the_toolchain_image_serves(tmp_path: Path) -> None:
    assert detect_project(make(tmp_path, {"CMakeLists.txt": ""}), env={}).image is None
