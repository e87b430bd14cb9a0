"""`ensemble doctor`: plain-words report, essentials decide the exit code."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.cli import main
from bot.doctor import (
    DoctorContext,
    check_base_image,
    check_config,
    check_docker,
    check_embedding_model,
    check_github_token,
    check_instructions,
    check_model_keys,
    render,
)
from fakes.github_server import FakeGitHub

NO_ENGINE = {"DOCKER_HOST": "unix:///nonexistent/docker.sock"}


def test_without_a_docker_engine_it_says_so_and_how_to_fix(tmp_path: Path) -> None:
    docker_check = check_docker(DoctorContext(tmp_path, NO_ENGINE))
    image_check = check_base_image(DoctorContext(tmp_path, NO_ENGINE))
    assert not docker_check.ok and not docker_check.essential
    assert "no engine answers at unix:///nonexistent/docker.sock" in docker_check.detail
    assert "dockerd" in docker_check.fix and "weaker local sandbox" in docker_check.fix
    assert not image_check.ok and "ensemble-base:bookworm" in image_check.detail


def test_docker_becomes_essential_when_the_config_requires_it(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text("sandbox: {require_docker: true}\n")
    ctx = DoctorContext(tmp_path, NO_ENGINE)
    assert check_config(ctx).ok
    assert check_docker(ctx).essential


@pytest.mark.docker
def test_with_a_docker_engine_it_reports_version_and_base_image(tmp_path: Path) -> None:
    docker_check = check_docker(DoctorContext(tmp_path, {}))
    image_check = check_base_image(DoctorContext(tmp_path, {}))
    assert docker_check.ok and "API" in docker_check.detail
    assert image_check.ok, image_check.detail


def test_model_keys_are_reported_present_or_missing_never_by_value(tmp_path: Path) -> None:
    ctx = DoctorContext(tmp_path, {"OPENAI_API_KEY": "sk-secret-value-123456789012"})
    check_config(ctx)
    checks = {c.name: c for c in check_model_keys(ctx)}
    assert checks["Model for planner"].ok and "OPENAI_API_KEY set" in checks["Model for planner"].detail
    assert not checks["Model for critic"].ok and "no GEMINI_API_KEY or GOOGLE_API_KEY" in checks["Model for critic"].detail
    assert "sk-secret" not in render(list(checks.values()))


@pytest.mark.slow
def test_full_report_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["doctor", "--repo", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Embedding model" in out and "static:all-MiniLM-L6-v2 loads offline, 256 dimensions" in out  # the default
    assert "valid (no config file, all defaults)" in out and out.rstrip().endswith("ready")

    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text("ensembels: 2\n")
    assert main(["doctor", "--repo", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "MISSING  Configuration" in out
    assert "ensemble.yml:1: ensembels: unknown key; did you mean 'ensembles'?" in out
    assert "not ready: Configuration" in out


def test_help_starts_fast_without_heavy_imports() -> None:
    code = ("import sys, time; t = time.time(); from bot.cli import main; rc = main(['--help']); "
            "heavy = [m for m in ('torch', 'sentence_transformers', 'faiss', 'docker', 'openai', 'github', 'google.genai') "
            "if m in sys.modules]; print(heavy, rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().endswith("[] 0")


def test_a_broken_embedding_model_folder_is_reported_not_raised(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.mkdir()
    (model / "modules.json").write_text("{not json")
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text(f"index: {{embedding_model: '{model}'}}\n")
    ctx = DoctorContext(tmp_path, {})
    check_config(ctx)
    result = check_embedding_model(ctx)
    assert not result.ok and result.essential
    assert str(model) in result.detail and "does not load" in result.detail and "modules.json" in result.detail


@pytest.fixture
def github(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(tmp_path / "github") as fake:
        fake.add_repo("octo/demo", {"README.md": "demo\n"})
        yield fake


def _token_env(fake: FakeGitHub, token: str, **extra: str) -> dict[str, str]:
    return {"GITHUB_TOKEN": token, "GITHUB_REPOSITORY": "octo/demo", "GITHUB_API_URL": fake.api_url, **extra}


def test_token_that_can_push_and_an_installation_token_pass(tmp_path: Path, github: FakeGitHub) -> None:
    github.add_user_token("github_pat_writer0123456789", "writer")
    github.set_permission("octo/demo", "writer", "write")
    [check] = check_github_token(DoctorContext(tmp_path, _token_env(github, "github_pat_writer0123456789")))
    assert check.ok and check.detail == "reads and pushes to octo/demo"
    [check] = check_github_token(DoctorContext(tmp_path, _token_env(github, github.token)))
    assert check.ok and "installation token" in check.detail


def test_token_problems_are_named_with_the_fix(tmp_path: Path, github: FakeGitHub) -> None:
    github.add_user_token("github_pat_reader0123456789", "reader")
    github.set_permission("octo/demo", "reader", "read")
    [check] = check_github_token(DoctorContext(tmp_path, _token_env(github, "github_pat_reader0123456789")))
    assert not check.ok and check.detail == "reads octo/demo but may not push to it" and "Contents: write" in check.fix
    [check] = check_github_token(DoctorContext(tmp_path, _token_env(github, "ghp_wrong0123456789", GITHUB_ACTIONS="true")))
    assert not check.ok and check.essential and "rejected (401" in check.detail
    assert "ghp_wrong0123456789" not in check.detail + check.fix
    env = _token_env(github, github.token, GITHUB_REPOSITORY="octo/missing")
    [check] = check_github_token(DoctorContext(tmp_path, env))
    assert not check.ok and "octo/missing is not visible" in check.detail and not check.essential


def test_the_token_check_waits_out_a_rate_limit_and_a_passing_502_as_a_run_would(tmp_path: Path,
                                                                                  github: FakeGitHub) -> None:
    github.fail_next(retry_after=0, path_pattern=r"/repos/octo/demo$")
    github.fail_next(status=502, message="Bad Gateway", retry_after=None, path_pattern=r"/repos/octo/demo$")
    [check] = check_github_token(DoctorContext(tmp_path, _token_env(github, github.token)))
    assert check.ok and "installation token" in check.detail
    assert [r.status for r in github.calls("GET", r"/repos/octo/demo$")] == [403, 502, 200]


def test_default_token_without_heal_workflows_warns_that_prs_go_untested(tmp_path: Path, github: FakeGitHub) -> None:
    ctx = DoctorContext(tmp_path, _token_env(github, github.token, ENSEMBLE_DEFAULT_TOKEN="true"))
    assert check_config(ctx).ok  # loads the (default) config the next check reads
    token, ci = check_github_token(ctx)
    assert token.ok and not ci.ok and "heal.workflows" in ci.fix
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text("heal: {workflows: [ci.yml]}\n")
    ctx = DoctorContext(tmp_path, ctx.env)
    assert check_config(ctx).ok
    assert len(check_github_token(ctx)) == 1


def test_without_a_token_no_github_check_runs(tmp_path: Path) -> None:
    assert check_github_token(DoctorContext(tmp_path, {"GITHUB_REPOSITORY": "octo/demo"})) == []


def test_the_repository_instructions_found_are_named(tmp_path: Path) -> None:
    [check] = [check_instructions(DoctorContext(tmp_path, {}))]
    assert check.ok and check.detail.startswith("none found") and "AGENTS.md" in check.detail
    (tmp_path / "pkg").mkdir()
    (tmp_path / "CLAUDE.md").write_text("Use tabs.\n")
    (tmp_path / "pkg" / "AGENTS.md").write_text("No globals in pkg.\n")
    (tmp_path / "GEMINI.md").write_text("Not read: CLAUDE.md comes first.\n")
    for args in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "i"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    ctx = DoctorContext(tmp_path, {})
    check_config(ctx)
    check = check_instructions(ctx)
    assert check.ok and check.detail == "CLAUDE.md, pkg/AGENTS.md (as committed at HEAD)"
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text("instructions: " + "x" * 9000 + "\n")
    check_config(ctx)
    check = check_instructions(ctx)
    assert not check.ok and "instructions: in the config" in check.detail and "the first 8000" in check.detail
    assert "Repository instructions" in render([check])
