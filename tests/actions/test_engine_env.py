"""The engine's environment is an allow-list: model keys and what it needs, never a GitHub credential."""

from __future__ import annotations

import logging
import os

import pytest

from actions.engine_env import engine_environment
from bot.config import Config, parse_config

TOKEN = "ghs_jobtoken0123456789abcdefABCDEF0123"
JOB = {
    "PATH": "/usr/bin:/bin", "HOME": "/home/runner", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
    "XDG_CACHE_HOME": "/home/runner/.cache", "DOCKER_HOST": "unix:///var/run/docker.sock",
    "HTTPS_PROXY": "http://proxy:3128", "SSL_CERT_FILE": "/etc/ssl/certs/ca.pem", "RUNNER_TEMP": "/tmp/runner",
    "ENSEMBLE_RUNS_DIR": "/tmp/runner/ensemble-runs", "ENSEMBLE_BUDGET_USD": "1.5",
    "OPENAI_API_KEY": "sk-model-key-0123456789abcdef", "INPUT_OPENAI-API-KEY": "sk-model-key-0123456789abcdef",
    "OPENAI_BASE_URL": "http://127.0.0.1:8080/v1", "GEMINI_API_KEY": "AIza-gemini-key-0123456789",
    "GITHUB_TOKEN": TOKEN, "GH_TOKEN": TOKEN, "INPUT_GITHUB-TOKEN": TOKEN,
    "GITHUB_REPOSITORY": "octo/demo", "GITHUB_API_URL": "https://api.github.com", "GITHUB_EVENT_PATH": "/e.json",
    "ACTIONS_RUNTIME_TOKEN": "eyJ0eXAiOiJKV1QiLCJhbGciOi.runtime.sig", "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "oidc-req-99f1",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://pipelines.example/oidc",
    "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.https://github.com/.extraheader",
    "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {TOKEN}", "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock",
    "DEPLOY_SECRET": "deploy-secret-value-31c9", "AWS_SECRET_ACCESS_KEY": "aws-secret-0f9e8d7c",
}


def test_the_engine_gets_what_it_needs_and_no_github_or_actions_credential() -> None:
    env = engine_environment(JOB, Config())
    for name in ("PATH", "HOME", "LANG", "LC_ALL", "XDG_CACHE_HOME", "DOCKER_HOST", "HTTPS_PROXY", "SSL_CERT_FILE",
                 "RUNNER_TEMP", "ENSEMBLE_RUNS_DIR", "ENSEMBLE_BUDGET_USD", "OPENAI_API_KEY", "OPENAI_BASE_URL",
                 "GEMINI_API_KEY"):
        assert env[name] == JOB[name], name
    assert not [name for name in env if name.startswith(("GITHUB_", "GH_", "ACTIONS_", "INPUT_", "GIT_CONFIG_K",
                                                         "GIT_CONFIG_V", "SSH_"))]
    assert not [name for name, value in env.items() if TOKEN in value or "runtime" in value]
    assert "DEPLOY_SECRET" not in env and "AWS_SECRET_ACCESS_KEY" not in env  # unrelated secrets stay behind
    # git asks nobody for a password and reads no machine or user configuration (credential helpers)
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull and env.get("GIT_CONFIG_COUNT") is None


def test_withheld_variables_that_hold_no_secret_do_not_withhold_others() -> None:
    job = {**JOB, "GITHUB_REF": "refs/heads/main", "ENSEMBLE_RUNS_DIR": "/tmp/octo/demo/refs/heads/main/runs"}
    assert engine_environment(job, Config())["ENSEMBLE_RUNS_DIR"] == job["ENSEMBLE_RUNS_DIR"]


def test_the_config_passes_its_own_keys_but_never_a_github_credential() -> None:
    config = parse_config("models:\n  coder: {provider: openai, model: local, api_key_env: LOCAL_LLM_KEY}\n"
                          "secret_env: [DEPLOY_SECRET, GITHUB_TOKEN, INPUT_GITHUB-TOKEN, ACTIONS_RUNTIME_TOKEN]\n")
    env = engine_environment({**JOB, "LOCAL_LLM_KEY": "local-key-1234abcd"}, config)
    assert env["LOCAL_LLM_KEY"] == "local-key-1234abcd" and env["DEPLOY_SECRET"] == JOB["DEPLOY_SECRET"]
    assert not {"GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "ACTIONS_RUNTIME_TOKEN"} & set(env)


def test_a_variable_holding_a_github_credential_is_withheld_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    job = {**JOB, "ENSEMBLE_EXTRA_HEADER": f"Bearer {TOKEN}", "OPENAI_API_KEY": TOKEN,
           "HTTPS_PROXY": f"http://x:{JOB['ACTIONS_RUNTIME_TOKEN']}@proxy:3128"}
    with caplog.at_level(logging.WARNING):
        env = engine_environment(job, Config())
    assert not {"ENSEMBLE_EXTRA_HEADER", "OPENAI_API_KEY", "HTTPS_PROXY"} & set(env)
    assert "OPENAI_API_KEY is not passed to the engine" in caplog.text
    assert TOKEN not in caplog.text


def test_the_secrets_setup_env_names_reach_the_engine_for_its_setup_phase() -> None:
    config = parse_config("sandbox: {setup_env: {PIP_INDEX_URL: PRIVATE_INDEX}}\n")
    passed = engine_environment({"PRIVATE_INDEX": "https://user:pw@index.example/simple", "UNNAMED": "x"}, config)
    assert passed["PRIVATE_INDEX"] == "https://user:pw@index.example/simple" and "UNNAMED" not in passed
