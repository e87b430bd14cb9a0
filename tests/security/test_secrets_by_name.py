"""Secrets by name: a variable named like a secret is one, whether or not the config lists it.

The end-to-end run sets DEPLOY_SECRET, SLACK_BOT_TOKEN and DATABASE_PASSWORD to values of no token
shape, names none of them in `secret_env`, and has the models echo them in the plan, the coder's
prose and edit blocks, and the review; nothing the run leaves may hold one, nor the first or last
six characters of one. Around it: what the name sweep takes and leaves, `not_secret_env`, and
the new token shapes.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from bot import redact
from bot.cli import main
from bot.config import parse_config
from bot.ensemble.demo import TASK_BODY, TASK_TITLE
from bot.ensemble.types import Task
from bot.errors import ConfigError
from bot.forge.policy import content_problems
from bot.redact import MASK, Redactor, could_be_secret, is_secret_name, scrub
from fakes.median_replies import ENOUGH, FIX, REPRO
from fakes.openai_server import FakeOpenAI
from tests.security.conftest import RUN_CONFIG, Checkout, git_objects

SECRETS = {"DEPLOY_SECRET": "quietharbor7lantern29meadow", "SLACK_BOT_TOKEN": "cobaltriver48summit1willow",
           "DATABASE_PASSWORD": "amberforest63tunnel5violet"}
SAY = " ".join(SECRETS.values())
PLAN = {"summary": f"Average the middle values; deploy with {SAY}.", "files": ["stats/core.py"],
        "steps": ["Reproduction test: tests/test_repro_median.py", f"Fix median(); keys {SAY}"], "questions": []}
SECRET_EDIT = FIX.replace("    if len(ordered) % 2 == 0:",
                          f"    # slack {SECRETS['SLACK_BOT_TOKEN']}\n    if len(ordered) % 2 == 0:")
# A reply whose block does not apply is kept in the trace cut to its first 1,500 characters
# (REPLY_TRACE_CHARS): this one has a secret straddling that cut.
STRADDLING = "." * 1490 + SECRETS["DEPLOY_SECRET"] + "\n\nstats/core.py\n<<<<<<< SEARCH\nno such line\n=======\nx = 1\n" \
    ">>>>>>> REPLACE\n"
REVIEW = {"verdict": "accept", "feedback": f"Looks right. The password is {SECRETS['DATABASE_PASSWORD']}, {SAY}."}


def pieces(secrets: dict[str, str]) -> list[str]:
    """What must not survive of each secret: the whole, and its first and last six characters."""
    return [p for value in secrets.values() for p in (value, value[:6], value[-6:])]


def holders(blobs: dict[str, bytes], secrets: dict[str, str]) -> list[str]:
    """`where: piece` for each blob that holds a piece of a secret."""
    return [f"{name}: {piece}" for name, data in blobs.items() for piece in pieces(secrets) if piece.encode() in data]


@pytest.fixture
def checkout(checkout_with: Checkout) -> tuple[Path, FakeOpenAI]:
    return checkout_with(RUN_CONFIG, {**SECRETS, "OPENAI_API_KEY": "sk-fake-key-for-the-fake-server-0001"})


@pytest.mark.slow
def test_secrets_known_only_by_their_names_leave_no_trace_of_a_run(checkout: tuple[Path, FakeOpenAI],
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    repo, openai = checkout
    openai.reply(data=PLAN, schema="plan", times=0)
    openai.reply(ENOUGH, marker="You are the planner", times=0)
    openai.reply(REPRO, marker="You are the coder")
    openai.reply(STRADDLING, marker="You are the coder")
    openai.reply(f"Here is the fix. Note {SAY}.\n\n{SECRET_EDIT}", marker="You are the coder")
    openai.reply(FIX, marker="You are the coder", times=0)
    openai.reply(data=REVIEW, schema="review", times=0)

    code = main(["run", "--repo", str(repo), "--task", f"{TASK_TITLE}\n\n{TASK_BODY}", "--json"])
    out, err = capsys.readouterr()
    result = json.loads(out)

    assert code == 0, result
    assert "(ordered[middle - 1] + ordered[middle]) / 2" in subprocess.run(
        ["git", "show", f"{result['branch']}:stats/core.py"], cwd=repo, capture_output=True, text=True).stdout
    assert "the value of a secret variable" in "\n".join(result["refused"])  # the echoing edit was refused
    traces = list((repo / ".ensemble" / "runs").rglob("trace.jsonl"))
    assert traces and any('"reply_head"' in t.read_text() for t in traces)  # the cut reply was traced
    log = subprocess.run(["git", "log", "-p", "--all"], cwd=repo, capture_output=True, check=True).stdout
    blobs = {str(p): p.read_bytes() for p in (repo / ".ensemble").rglob("*") if p.is_file()}
    blobs.update({"git objects": git_objects(repo), "git log -p --all": log, "stdout": out.encode(),
                  "stderr": err.encode()})
    assert holders(blobs, SECRETS) == []
    sent = json.dumps([r.messages for r in openai.requests])  # nor sent on to the provider in a later prompt
    assert [name for name, value in SECRETS.items() if value in sent] == []


@pytest.mark.parametrize("name", ["DEPLOY_SECRET", "SLACK_BOT_TOKEN", "DATABASE_PASSWORD", "DB_PASS", "NPM_AUTH",
                                  "STRIPE_KEY", "AWS_SECRET_ACCESS_KEY", "DJANGO_SECRET_KEY", "MYAPIKEY",
                                  "GOOGLE_PRIVATE_KEY", "AZURE_CREDENTIALS", "INPUT_DEPLOY-TOKEN"])
def test_a_variable_named_like_a_secret_is_masked_without_being_listed(name: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(name, "plain7value4with9no4shape")
    assert scrub("it is plain7value4with9no4shape here") == f"it is {MASK} here"


@pytest.mark.parametrize(("name", "value"), [
    ("TOKENIZERS_PARALLELISM", "plain7value4with9no4shape"), ("KEY_COLUMN", "plain7value4with9no4shape"),
    ("PRIMARY_KEY", "plain7value4with9no4shape"), ("PASSWORD_STORE_DIR", "plain7value4with9no4shape"),
    ("GIT_AUTHOR_NAME", "plain7value4with9no4shape"), ("GITHUB_TOKEN_URL", "plain7value4with9no4shape"),
    ("HOME", "plain7value4with9no4shape"), ("PATH", "plain7value4with9no4shape"),
    ("API_TOKEN", "false"), ("AUTH_MODE_SECRET", "disabled"), ("SESSION_TOKEN", "120000"),
    ("DEPLOY_TOKEN", "/usr/local/bin"), ("DEPLOY_TOKEN", "1.24.3"), ("AUTH_SECRET", "bearer"),
    ("OAUTH_TOKEN", "https://auth.example.com/token"),
])
def test_names_and_values_that_are_plainly_not_secrets_blank_nothing(name: str, value: str,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(name, value)
    text = f"see {value} and plain7value4with9no4shape in the log"
    assert scrub(text) == text


def test_the_sweep_words_are_whole_words_for_short_ones_and_anywhere_for_long_ones() -> None:
    assert is_secret_name("GH_TOKEN") and is_secret_name("DBPASSWORD") and not is_secret_name("TOKENIZERS_PARALLELISM")
    assert not is_secret_name("COMPASS_HOME") and is_secret_name("SMTP_PASS") and not is_secret_name("SSH_AUTH_SOCK")
    assert could_be_secret("hunter2hunter2") and could_be_secret("postgres://app:pw12345@db/app")
    assert not could_be_secret("postgres://db.internal:5432/app") and not could_be_secret("TRUE")


def test_not_secret_env_exempts_a_false_positive_and_secret_env_still_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(redact, "_not_secret", frozenset())
    config = parse_config("secret_env: [BUILD_LABEL]\nnot_secret_env: [PUBLIC_TOKEN_NAME_OF_BUCKET, BUILD_LABEL]\n")
    monkeypatch.setenv("PUBLIC_TOKEN_NAME_OF_BUCKET", "public9bucket4name")
    monkeypatch.setenv("BUILD_LABEL", "listed7as9secret")
    assert scrub("public9bucket4name") == MASK  # named like a secret: masked until exempted
    redact.exempt_secret_names(config.not_secret_env)
    assert scrub("public9bucket4name") == "public9bucket4name"
    assert MASK in Redactor.from_env({"BUILD_LABEL": "listed7as9secret"}, config.secret_env).text("listed7as9secret")


def test_not_secret_env_is_a_list_of_names() -> None:
    with pytest.raises(ConfigError, match="not_secret_env"):
        parse_config("not_secret_env: AUTH_MODE\n")


NEW_SHAPES = {
    "slack": ("xoxb-2048-4096-" + "Ab3" * 8, "a Slack token"),
    "stripe-live": ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "a Stripe key"),
    "stripe-test": ("sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc", "a Stripe key"),
    "stripe-restricted": ("rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "a Stripe key"),
    "hugging-face": ("hf_" + "aBcDeFgHiJkLmNoPqRsTuVwXyZ012345678", "a Hugging Face token"),
    "gitlab": ("glpat-" + "xY9" * 7, "a GitLab token"),
    "npm": ("npm_" + "a1B2" * 9, "an npm token"),
    "pypi": ("pypi-AgEIcHlwaS5vcmc" + "CJDk5ZDZh" * 8, "a PyPI token"),
}


@pytest.mark.parametrize("name", list(NEW_SHAPES))
def test_new_token_shapes_are_masked_and_refused_in_a_commit(name: str) -> None:
    token, kind = NEW_SHAPES[name]
    assert Redactor().text(f"key={token};") == f"key={MASK};"
    problems = content_problems("app/settings.py", "", f"KEY = '{token}'\n")
    assert problems and kind in problems[0] and token not in problems[0]


def test_json_web_tokens_and_url_passwords_are_masked_but_placeholders_may_be_committed() -> None:
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
    url = "postgres://app:s3cr3t-Pa55word@db.internal:5432/app"
    assert Redactor().text(f"{jwt} {url}") == f"{MASK} postgres://app:{MASK}@db.internal:5432/app"
    assert content_problems("tests/test_auth.py", "", f"TOKEN = '{jwt}'\nDB = '{url}'\n") == []


def test_a_secret_in_a_task_never_names_the_branch(monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.forge.local import slugify

    monkeypatch.setenv("DEPLOY_SECRET", SECRETS["DEPLOY_SECRET"])
    slug = slugify(Task(f"rotate {SECRETS['DEPLOY_SECRET']} now", "").title)
    assert SECRETS["DEPLOY_SECRET"][:6] not in slug and slug.startswith("rotate-")
