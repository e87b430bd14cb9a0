"""The `llm:` section of .github/ensemble.yml: typed, checked, and used by ModelManager."""

from __future__ import annotations

import pytest

from bot.config import parse_config
from bot.errors import ConfigError
from bot.llm import ModelManager

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
