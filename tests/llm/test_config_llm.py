"""The `llm:` section of .github/ensemble.yml: typed, checked, and used by ModelManager."""

from __future__ import annotations

import pytest

from bot.config import parse_config
from bot.errors import ConfigError, ModelAuthError
from bot.llm import Message, ModelManager

YAML = """
models:
  critic: {provider: openai, model: gpt-4o-mini, fallback: [{provider: gemini, model: gemini-2.5-flash}]}
budget_usd: 0.5
budget_tokens: 200000
llm:
  timeout_s: 30
  max_attempts: 3
  max_retry_wait_s: 45
  cache: false
  prices: [{model: gpt-4o-mini, input: 1.0, cached_input: 0.5, output: 4.0}]
"""


def test_llm_section_reaches_the_manager(tmp_path):
    manager = ModelManager.from_config(parse_config(YAML), {}, tmp_path / "cache")
    assert manager.cache is None  # llm.cache: false wins over a cache directory
    assert (manager.policy.max_attempts, manager.policy.max_wait_s, manager.timeout_s) == (3, 45.0, 30.0)
    assert [link.label for link in manager.chain("critic")] == ["openai/gpt-4o-mini", "gemini/gemini-2.5-flash"]
    assert manager.ledger.prices.lookup("gpt-4o-mini").output == 4.0
    assert (manager.ledger.budget_usd, manager.ledger.budget_tokens) == (0.5, 200000)


def test_bad_llm_keys_are_named():
    with pytest.raises(ConfigError) as caught:
        parse_config("llm:\n  max_attemps: 3\n  prices: [{model: x, input: -1}]\n")
    message = str(caught.value)
    assert "llm.max_attemps: unknown key; did you mean 'max_attempts'?" in message
    assert "llm.prices[0].input" in message and "minimum 0.0" in message


LOCAL = """
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: qwen2.5-coder, base_url: "{local}", api_key_env: LOCAL_KEY,
          fallback: [{provider: openai, model: gpt-4o-mini}]}
team_models:
  - {critic: {provider: openai, model: llama3.1, base_url: "{local}", api_key_env: LOCAL_KEY}}
"""


def test_a_role_can_use_its_own_server_and_key(openai_server, make_manager, env):
    from fakes.openai_server import FakeOpenAI

    with FakeOpenAI(api_key="local-secret") as local:
        local.set_default("local code")
        openai_server.set_default("hosted")
        env["LOCAL_KEY"] = "local-secret"
        manager = make_manager(parse_config(LOCAL.replace("{local}", local.url)))
        assert manager.complete("coder", [Message("user", "code")]).text == "local code"
        assert manager.complete("planner", [Message("user", "plan")]).text == "hosted"
        assert manager.complete("critic@a", [Message("user", "review")]).text == "local code"
        assert [link.model.base_url for link in manager.chain("coder")] == [local.url, openai_server.url]
    assert [r.model for r in local.requests] == ["qwen2.5-coder", "llama3.1"]
    assert [r.model for r in openai_server.requests] == ["gpt-4o"]


def test_a_missing_role_key_names_its_variable(make_manager, env):
    from fakes.openai_server import FakeOpenAI

    with FakeOpenAI(api_key="local-secret") as local:
        local_only = LOCAL.replace("{local}", local.url).replace("fallback: [{provider: openai, model: gpt-4o-mini}]",
                                                                  "temperature: 0.1")
        with pytest.raises(ModelAuthError, match="LOCAL_KEY was rejected"):
            make_manager(parse_config(local_only)).complete("coder", [Message("user", "x")])


def test_bad_base_url_and_key_variable_are_named():
    with pytest.raises(ConfigError) as caught:
        parse_config("models:\n  coder: {base_url: 8080, api_key_env: 'MY KEY', fallback: [{base_ur: x}]}\n")
    message = str(caught.value)
    assert "models.coder.base_url: expected a string, got an integer 8080" in message
    assert "models.coder.api_key_env: 'MY KEY' is not valid" in message
    assert "models.coder.fallback[0].base_ur: unknown key; did you mean 'base_url'?" in message
    with pytest.raises(ConfigError, match="like http://127.0.0.1:8080/v1"):
        parse_config("models:\n  coder: {base_url: localhost:8080}\n")


def test_the_output_cap_default_is_sane():
    assert parse_config("llm: {timeout_s: 600}\n").llm.max_output_tokens == 4096
