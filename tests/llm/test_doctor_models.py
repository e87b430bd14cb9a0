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


HYBRID = """
models:
  planner: {provider: openai, model: gpt-4o}
  coder: {provider: openai, model: qwen2.5-coder:7b, base_url: "http://127.0.0.1:8080/v1", api_key_env: LOCAL_KEY}
"""

PROFILE = """
ensembles: 1
review: off
explore: {max_tokens: 3000}
models:
  planner: {provider: openai, model: qwen2.5-coder:7b}
  coder: {provider: openai, model: qwen2.5-coder:7b}
  critic: {provider: openai, model: qwen2.5-coder:7b}
llm:
  timeout_s: 900
  max_output_tokens: 2048
  prices: [{model: qwen2.5-coder:7b, context_window: 32768}, {model: gpt-4o-mini}]
"""


def write_config(repo: Path, text: str) -> None:
    (repo / ".github").mkdir(exist_ok=True)
    (repo / ".github" / "ensemble.yml").write_text(text)


def profile(repo: Path, env: dict[str, str]) -> list:
    from bot.doctor import check_local_profile

    ctx = DoctorContext(repo, env)
    assert check_config(ctx).ok
    return check_local_profile(ctx)


def test_a_role_on_a_local_server_gets_the_local_profile_suggested(tmp_path):
    write_config(tmp_path, HYBRID)
    [check] = profile(tmp_path, {"OPENAI_API_KEY": "sk-hosted-0000000000000000"})
    assert not check.ok and "qwen2.5-coder:7b at http://127.0.0.1:8080/v1" in check.detail
    assert "gpt-4o" not in check.detail.replace("qwen", "")  # the hosted planner is not local
    for advice in ("ensembles: 1", "llm.timeout_s: 600 or more", "llm.max_output_tokens: 2048", "explore: {max_tokens: 3000}",
                   "llm.prices: [{model: qwen2.5-coder:7b, context_window: N}]"):
        assert advice in check.fix, advice
    assert "ensembles: 1" in render([check])
    assert "review: off" not in check.fix  # the critic is hosted here: its review stays
    coder = doctor(tmp_path, {})["Model for coder"]
    assert coder.ok and "its own server http://127.0.0.1:8080/v1" in coder.detail  # a local server needs no key


def test_openai_base_url_on_localhost_counts_and_a_config_that_follows_the_profile_passes(tmp_path):
    write_config(tmp_path, PROFILE)
    for url in ("http://localhost:11434/v1", "http://[::1]:8000/v1", "http://127.0.0.1:8080/v1"):
        [check] = profile(tmp_path, {"OPENAI_BASE_URL": url})
        assert check.ok and "follows the local profile" in check.detail, url


def test_a_local_critic_that_still_reviews_gets_review_off_suggested(tmp_path):
    write_config(tmp_path, PROFILE.replace("review: off\n", ""))
    [check] = profile(tmp_path, {"OPENAI_BASE_URL": "http://127.0.0.1:8080/v1"})
    assert not check.ok and check.fix.endswith("stay)") and "review: off (a small local critic" in check.fix


def test_no_local_server_no_profile_line(tmp_path):
    write_config(tmp_path, HYBRID.replace("127.0.0.1", "models.example.com"))
    assert profile(tmp_path, {"OPENAI_BASE_URL": "https://api.example.com/v1"}) == []


def test_a_role_key_variable_is_what_doctor_asks_for(tmp_path):
    write_config(tmp_path, "models:\n  coder: {provider: openai, model: gpt-4o-mini, api_key_env: TEAM_KEY}\n")
    coder = doctor(tmp_path, {"OPENAI_API_KEY": "sk-not-this-one-000000000000"})["Model for coder"]
    assert not coder.ok and "no TEAM_KEY" in coder.detail and "export TEAM_KEY=..." in coder.fix
    assert doctor(tmp_path, {"TEAM_KEY": "sk-team-000000000000000000"})["Model for coder"].ok
