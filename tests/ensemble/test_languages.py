"""Go, Rust, JavaScript and C repositories fixed end to end by `ensemble run` with scripted replies, their
tests running in containers whose toolchains came from Debian packages (no image registry needed);
Java detected, with a clear message where its dependencies cannot be fetched; a missing tool stops
the run before any model is asked, and `--json` still prints JSON.

The toolchain images are built once per machine (scripts/setup.sh --dev builds them before the
suite on CI) and reused by every test here.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.cli import main
from bot.ensemble.demo import commit_sample
from bot.ensemble.demo.languages import SAMPLES, create_language_sample
from sandbox.images import BASE_IMAGE
from sandbox.toolchains import TOOLCHAINS, ensure_toolchain_image

pytestmark = [pytest.mark.docker, pytest.mark.slow]
CONFIG = "ensembles: 1\nmax_iterations: 2\nsandbox: {require_docker: true, timeout_s: 300}\n"
TOOLCHAIN_OF = {"go": "go", "rust": "rust", "js": "node", "c": "c"}


@pytest.fixture(scope="session")
def toolchain_images() -> Iterator[dict[str, str]]:
    """The toolchain images, built from the base image when this machine has none yet (minutes, once)."""
    from tests.conftest import docker_engine

    with docker_engine() as client:
        yield {name: ensure_toolchain_image(client, TOOLCHAINS[name], BASE_IMAGE)[0].tags[0]
               for name in (*TOOLCHAIN_OF.values(), "java")}


def _scripted(monkeypatch: pytest.MonkeyPatch, transcript: Path) -> None:
    for role in ("PLANNER", "CODER", "CRITIC"):
        monkeypatch.setenv(f"ENSEMBLE_{role}_PROVIDER", "scripted")
        monkeypatch.setenv(f"ENSEMBLE_{role}_MODEL", str(transcript))


def _with_config(repo: Path, config: str) -> Path:
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / "ensemble.yml").write_text(config)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "ensemble config"], cwd=repo, check=True)
    return repo


def _run(repo: Path, task: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any], str]:
    code = main(["run", "--repo", str(repo), "--task", task, "--json", "--no-cache"])
    out, err = capsys.readouterr()
    return code, json.loads(out), err


@pytest.mark.parametrize("language", sorted(TOOLCHAIN_OF))
def test_a_bug_is_fixed_end_to_end_in_a_toolchain_built_from_debian_packages(
        language: str, toolchain_images: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = tmp_path / language
    sample = create_language_sample(language, repo)
    _with_config(repo, CONFIG)
    _scripted(monkeypatch, sample.transcript)

    code, result, _ = _run(repo, sample.task, capsys)

    assert code == 0 and result["success"], result.get("stop_detail") or result
    assert toolchain_images[TOOLCHAIN_OF[language]] in result["environment"]
    assert "toolchain from Debian packages" in result["environment"]
    assert sample.failing_test in result["tests_before"]["failing"]
    assert sample.failing_test in result["judgement"]["fixed"]  # red -> green, by name
    assert result["reproduction"]["failed_before"] and result["reproduction"]["passed_after"]
    assert not result["judgement"]["broken"]
    assert result["branch"] in subprocess.run(["git", "branch"], cwd=repo, capture_output=True, text=True).stdout


MAKE_ONLY = {"Makefile": "test:\n\tcc -o /tmp/t t.c && /tmp/t\n", "t.c": "int main(void) { return 1; }\n"}


@pytest.mark.parametrize(("language", "error_type", "missing", "packages"), [
    ("make", "ToolMissing", "make", "build-essential, cmake"),  # the test command: exit 127 at the base
    ("go", "SetupFailed", "go", "golang-go"),  # the setup phase: `go mod download`
    ("rust", "SetupFailed", "cargo", "cargo, rustc"),
    ("js", "ToolMissing", "npm", "nodejs, npm"),
    ("c", "ToolMissing", "cmake", "build-essential, cmake"),
])
def test_a_missing_tool_stops_before_any_model_call_and_json_still_prints(
        language: str, error_type: str, missing: str, packages: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    if language == "make":
        repo = commit_sample(tmp_path / language, MAKE_ONLY, "C sample")
    else:
        create_language_sample(language, repo := tmp_path / language)
    # the base image has Python and git only; a chosen image is never replaced by a toolchain image
    _with_config(repo, f"sandbox: {{image: {BASE_IMAGE}, require_docker: true}}\n")
    transcript = tmp_path / "empty.jsonl"
    transcript.write_text("# no replies: any model call would fail the run differently\n")
    _scripted(monkeypatch, transcript)

    code, result, err = _run(repo, "Fix the tests\n\nThey fail.", capsys)

    assert code == 1 and result["success"] is False and result["stop_reason"] == "environment"
    assert result["error_type"] == error_type
    assert f"`{missing}: not found`" in result["error"] and "sandbox.image" in result["error"]
    assert f"Debian packages {packages}" in result["error"]  # the toolchain path that would provide it
    assert f"`{missing}: not found`" in err


JAVA = {
    "pom.xml": """<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>stats</artifactId>
  <version>1.0</version>
  <dependencies>
    <dependency>
      <groupId>junit</groupId><artifactId>junit</artifactId><version>4.13.2</version><scope>test</scope>
    </dependency>
  </dependencies>
</project>
""",
    "src/main/java/example/Stats.java": "package example;\n\npublic class Stats {\n"
                                        "    public static double mean(double[] v) { return v[0]; }\n}\n",
    "src/test/java/example/StatsTest.java": "package example;\n\nimport org.junit.Test;\n"
                                            "import static org.junit.Assert.assertEquals;\n\npublic class StatsTest {\n"
                                            "    @Test public void mean() { assertEquals(2.0, Stats.mean(new double[]{1, 3}), 0); }\n}\n",
}


def test_java_is_detected_and_unfetchable_dependencies_are_named(
        toolchain_images: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    repo = _with_config(commit_sample(tmp_path / "java", JAVA, "Java sample"),
                        "sandbox: {require_docker: true, setup_timeout_s: 300}\n")
    transcript = tmp_path / "empty.jsonl"
    transcript.write_text("# no replies\n")
    _scripted(monkeypatch, transcript)

    code, result, _ = _run(repo, "Fix mean\n\nStatsTest fails.", capsys)

    assert code == 1 and result["stop_reason"] == "environment" and result["error_type"] == "SetupFailed"
    assert "mvn -B -q dependency:go-offline" in result["error"]
    assert toolchain_images["java"] in result["error"] or "ensemble-toolchain:java" in result["error"]
    assert "the dependencies could not be downloaded" in result["error"]
    assert "settings.xml" in result["error"]


def test_every_demo_language_has_a_transcript() -> None:
    assert all(sample.transcript.is_file() for sample in SAMPLES.values())
