"""`ensemble doctor`'s model lines: provider and model per role, keys, fallbacks and unpriced models."""

from __future__ import annotations

from pathlib import Path

from bot.doctor import DoctorContext, check_config, check_model_keys, render

CONFIG = """
models:
  planner: {provider: openai, model: gpt-4o, fallback: [{provider: gemini, model: gemini-2.5-pro}]}
  coder: {provider: openai, model: qwen2.5-coder:7b}
  critic: {provider: scripted, model: demo/critic.jsonl}
llm:
  prices: [{model: my-tuned-model, input: 1.0, cached_input: 0.5, output: 2.0}]
"""


def doctor(repo: Path, env: dict[str, str]) -> dict[str, object]:
    ctx = DoctorContext(repo, env)
    assert check_config(ctx).ok
    return {c.name: c for c in check_model_keys(ctx)}


def test_roles_show_provider_model_keys_and_fallbacks(tmp_path):
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text(CONFIG)
    checks = doctor(tmp_path, {"OPENAI_BASE_URL": "http://localhost:11434/v1"})
    planner = checks["Model for planner"]
    assert planner.ok and planner.detail.startswith("openai / gpt-4o: OPENAI_BASE_URL set")
    assert "then gemini / gemini-2.5-pro (no GEMINI_API_KEY or GOOGLE_API_KEY)" in planner.detail
    critic = checks["Model for critic"]
    assert not critic.ok and "transcript demo/critic.jsonl not found" in critic.detail
    assert "Price for planner" not in checks
    price = checks["Price for coder"]
    assert not price.ok and "qwen2.5-coder:7b not in the price table" in price.detail and "llm.prices" in price.fix
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo" / "critic.jsonl").write_text('{"reply": "ok"}\n')
    assert doctor(tmp_path, {})["Model for critic"].ok


def test_missing_key_says_what_to_export(tmp_path):
    checks = doctor(tmp_path, {"GEMINI_API_KEY": "AIza-not-shown-0000000000000000000000"})
    report = render(list(checks.values()))
    assert "no OPENAI_API_KEY or OPENAI_BASE_URL" in checks["Model for planner"].detail
    assert "export OPENAI_API_KEY=..." in report and "AIza-not-shown" not in report
    assert checks["Model for critic"].ok
