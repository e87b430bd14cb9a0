"""The configuration file: defaults, every kind of bad input, and environment overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import CONFIG_PATH, Config, ModelChoice, load_config, parse_config
from bot.errors import ConfigError


def write_config(repo: Path, text: str) -> Path:
    path = repo / CONFIG_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def issues_of(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "ensemble.yml")
    return [str(issue) for issue in info.value.issues]


def test_missing_file_gives_every_default(tmp_path: Path) -> None:
    config = load_config(tmp_path, env={})
    assert config == Config()
    assert config.trigger_label == "ensemble"
    assert config.models.planner.provider == "openai" and config.models.planner.model == "gpt-4o"
    assert config.models.critic.provider == "gemini"
    assert (config.ensembles, config.max_iterations, config.max_heal_attempts) == (2, None, 3)
    assert config.round_cap() == 4  # no budget bounds the rounds: the default count

    assert config.budget_usd == 2.0
    assert config.sandbox.timeout_s == 600 and config.sandbox.memory == "2g"
    assert ".github/workflows/**" in config.paths.deny
    assert config.on_approval == "ready_for_review"


def test_empty_file_is_all_defaults() -> None:
    assert parse_config("", "x.yml") == Config(source="x.yml")


def test_full_file_is_read_into_typed_objects(tmp_path: Path) -> None:
    write_config(tmp_path, """\
trigger_label: bot-please
models:
  planner: {provider: gemini, model: gemini-2.5-pro, fallback: [{provider: openai, model: gpt-4o}]}
  coder: {model: qwen2.5-coder}
ensembles: 1
budget_usd: 0.5
sandbox: {image: "python:3.12-slim", test: "pytest -q", timeout_s: 120, cpus: 1}
paths: {deny: ["secrets/**"]}
on_approval: merge
""")
    config = load_config(tmp_path, env={})
    assert config.trigger_label == "bot-please"
    assert config.models.planner.provider == "gemini"
    assert config.models.planner.fallback == (ModelChoice("openai", "gpt-4o"),)
    assert config.models.coder.provider == "openai"  # keys not given keep their default
    assert config.models.coder.model == "qwen2.5-coder"
    assert config.sandbox.cpus == 1.0 and isinstance(config.sandbox.cpus, float)
    assert config.paths.deny == ("secrets/**",)
    assert config.on_approval == "merge"
    assert config.source.endswith(CONFIG_PATH)


def test_typo_wrong_type_and_negative_budget_are_three_messages_with_lines() -> None:
    found = issues_of("max_iteratons: 3\nensembles: two\nbudget_usd: -1\n")
    assert len(found) == 3
    assert found[0] == "ensemble.yml:1: max_iteratons: unknown key; did you mean 'max_iterations'?"
    assert found[1] == "ensemble.yml:2: ensembles: expected a whole number, got a string 'two'"
    assert found[2].startswith("ensemble.yml:3: budget_usd: -1 is below the minimum 0.0")


def test_unknown_key_without_a_close_match_lists_the_valid_keys() -> None:
    (message,) = issues_of("sandbox:\n  flavour: spicy\n")
    assert message.startswith("ensemble.yml:2: sandbox.flavour: unknown key; valid keys here: image, setup, test")


def test_invalid_yaml_names_the_line() -> None:
    (message,) = issues_of("models:\n  planner: {provider: openai\nensembles: 2\n")
    assert message.startswith("ensemble.yml:3: invalid YAML")
    assert "indentation" in message


def test_list_where_a_mapping_belongs() -> None:
    assert issues_of("models:\n  - planner\n") == [
        "ensemble.yml:1: models: expected a mapping of keys to values, got a list"]
    assert issues_of("- a\n- b\n") == ["ensemble.yml: (top level): expected a mapping of keys to values, got a list"]


def test_unknown_provider_lists_the_choices() -> None:
    (message,) = issues_of("models:\n  critic:\n    provider: anthropic\n")
    assert message == ("ensemble.yml:3: models.critic.provider: unknown provider 'anthropic'; "
                       "expected one of openai, gemini, scripted")


def test_bad_items_inside_lists_and_nested_fallbacks() -> None:
    found = issues_of("paths:\n  deny: [ok, 3]\nmodels:\n  coder:\n    fallback:\n      - {provider: x}\n")
    assert found == [
        "ensemble.yml:2: paths.deny[1]: expected a string, got an integer 3",
        "ensemble.yml:6: models.coder.fallback[0].provider: unknown provider 'x'; expected one of openai, gemini, scripted",
    ]


def test_booleans_are_not_numbers_and_patterns_are_checked() -> None:
    found = issues_of("max_iterations: true\nsandbox: {memory: lots}\non_approval: yes\n")
    assert found[0] == "ensemble.yml:1: max_iterations: expected a whole number, got a boolean True"
    assert "sandbox.memory: 'lots' is not valid; expected a value like 512m or 2g" in found[1]
    assert "on_approval: unknown value True; expected one of ready_for_review, merge" in found[2]


def test_environment_overrides_model_choices_and_budget(tmp_path: Path) -> None:
    env = {"ENSEMBLE_CODER_PROVIDER": "gemini", "ENSEMBLE_CODER_MODEL": "gemini-2.5-flash",
           "ENSEMBLE_PLANNER_MODEL": "llama3.1:70b", "ENSEMBLE_BUDGET_USD": "0.25"}
    config = load_config(tmp_path, env=env)
    assert (config.models.coder.provider, config.models.coder.model) == ("gemini", "gemini-2.5-flash")
    assert (config.models.planner.provider, config.models.planner.model) == ("openai", "llama3.1:70b")
    assert config.budget_usd == 0.25


def test_bad_environment_overrides_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={"ENSEMBLE_CRITIC_PROVIDER": "nope", "ENSEMBLE_BUDGET_USD": "-3"})
    text = str(info.value)
    assert "environment: ENSEMBLE_CRITIC_PROVIDER: unknown provider 'nope'" in text
    assert "environment: ENSEMBLE_BUDGET_USD: '-3' is not a non-negative number" in text


def test_an_explicit_path_that_does_not_exist_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_config(tmp_path, env={}, path="conf/ensemble.yml")


def test_config_objects_are_frozen() -> None:
    config = Config()
    with pytest.raises(AttributeError):
        config.budget_usd = 10  # type: ignore[misc]


def test_a_partly_given_role_keeps_that_roles_defaults(tmp_path: Path) -> None:
    (tmp_path / ".github").mkdir()
    (tmp_path / ".github" / "ensemble.yml").write_text("models:\n  critic: {temperature: 0.2}\n  planner: {fallback: []}\n")
    models = load_config(tmp_path, {}).models
    assert (models.critic.provider, models.critic.model, models.critic.temperature) == ("gemini", "gemini-2.5-flash", 0.2)
    assert (models.planner.provider, models.planner.model) == ("openai", "gpt-4o")


def test_nan_and_infinite_numbers_are_refused(tmp_path: Path) -> None:
    # `.nan` would switch the budget check off (every comparison with NaN is false)
    messages = issues_of("budget_usd: .nan\nllm: {timeout_s: .inf}\n")
    assert any("budget_usd" in m and "finite" in m for m in messages), messages
    assert any("llm.timeout_s" in m and "finite" in m for m in messages), messages
    for raw in ("nan", "inf", "-inf"):
        with pytest.raises(ConfigError) as info:
            load_config(tmp_path, env={"ENSEMBLE_BUDGET_USD": raw})
        assert "ENSEMBLE_BUDGET_USD" in str(info.value)


def test_secret_env_names_further_secret_variables() -> None:
    config = parse_config("secret_env: [MY_DEPLOY_KEY, NPM_TOKEN]\n")
    assert config.secret_env == ("MY_DEPLOY_KEY", "NPM_TOKEN")
    assert any("secret_env" in m for m in issues_of("secret_env: MY_DEPLOY_KEY\n"))


def test_team_models_override_single_roles_of_single_teams() -> None:
    config = parse_config("team_models:\n  - {}\n  - {coder: {provider: gemini, model: gemini-2.5-pro}}\n")
    assert config.team_role(0, "coder") is None and config.team_role(1, "planner") is None
    own = config.team_role(1, "coder")
    assert own is not None and (own.provider, own.model) == ("gemini", "gemini-2.5-pro")
    assert config.team_role(5, "coder") is None
    assert any("team_models[0].codr" in m and "did you mean 'coder'" in m
               for m in issues_of("team_models:\n  - {codr: {model: x}}\n"))


def test_instructions_is_a_text_for_every_role() -> None:
    config = parse_config("instructions: |\n  Use pathlib, never os.path.\n  Keep functions short.\n")
    assert config.instructions == "Use pathlib, never os.path.\nKeep functions short.\n"
    assert Config().instructions == ""
    assert any("instructions" in m and "expected a string" in m for m in issues_of("instructions: [a, b]\n"))


def test_spend_caps_across_runs_and_run_usd_as_the_per_run_cap() -> None:
    config = parse_config("budget:\n  run_usd: 0.5\n  issue_usd: 3\n  day_usd: 20\n")
    assert config.budget_usd == 0.5  # the cap the engine and the model manager use
    assert (config.budget.issue_usd, config.budget.day_usd) == (3.0, 20.0) and config.budget.across_runs
    assert parse_config("budget_usd: 0.5\nbudget: {run_usd: 0.5}\n").budget_usd == 0.5  # both, the same: fine
    assert not Config().budget.across_runs and Config().budget.day_usd is None  # no cap unless given


def test_budget_mistakes_are_named_with_their_fix() -> None:
    [differ] = issues_of("budget_usd: 2\nbudget:\n  run_usd: 1\n")
    assert differ.startswith("ensemble.yml:3: budget.run_usd: 1.0 differs from budget_usd 2.0")
    assert "keep only budget.run_usd" in differ
    [below] = issues_of("budget:\n  run_usd: 2\n  day_usd: 1.5\n")
    assert below == ("ensemble.yml:3: budget.day_usd: 1.5 is below the per-run cap 2.0, so every run would be "
                     "refused; raise budget.day_usd or lower budget.run_usd")
    found = issues_of("budget: {issue_usd: -1, dayusd: 5}\n")
    assert "budget.issue_usd: -1 is below the minimum 0.0" in found[0] and "did you mean 'day_usd'?" in found[1]


def test_the_budget_variable_overrides_the_per_run_cap_within_the_caps(tmp_path: Path) -> None:
    write_config(tmp_path, "budget: {run_usd: 1, day_usd: 4}\n")
    config = load_config(tmp_path, env={"ENSEMBLE_BUDGET_USD": "3"})
    assert config.budget_usd == 3.0 and config.budget.run_usd == 3.0
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path, env={"ENSEMBLE_BUDGET_USD": "5"})
    assert "ENSEMBLE_BUDGET_USD: 5.0 is above budget.day_usd (4.0 in" in str(info.value)
    assert "lower it (the action's budget-usd) or raise budget.day_usd" in str(info.value)


def test_approvers_is_write_codeowners_or_a_list_of_logins_and_teams() -> None:
    assert Config().approvers == "write"
    assert parse_config("approvers: codeowners").approvers == "codeowners"
    assert parse_config('approvers: [mona, "@octo-org/core.team"]').approvers == ("mona", "@octo-org/core.team")
    assert issues_of("approvers: admins") == [
        "ensemble.yml:1: approvers: unknown value 'admins'; expected one of write, codeowners, or a list of logins "
        "and org/team slugs, like [alice, octo-org/maintainers]"]
    assert issues_of("approvers: []") == [
        "ensemble.yml:1: approvers: the list is empty; give at least 1 entry, or remove the key"]
    assert issues_of("approvers: [mona, 'octo org/team', 7]") == [
        "ensemble.yml:1: approvers[1]: 'octo org/team' is not valid; expected a value naming a GitHub login like "
        "alice, or a team like octo-org/maintainers",
        "ensemble.yml:1: approvers[2]: expected a string, got an integer 7"]


def test_services_and_setup_secrets_are_read_as_a_workflow_writes_them() -> None:
    config = parse_config("""sandbox:
  services:
    postgres:
      image: postgres:16
      env: {POSTGRES_PASSWORD: test, POSTGRES_PORT: 5432}
      ports: ["5433:5432", 6379]
      options: --health-cmd pg_isready
  setup_env:
    PIP_INDEX_URL: PRIVATE_INDEX
    NPM_TOKEN: ${{ secrets.NPM_TOKEN }}
""")
    postgres = config.sandbox.services["postgres"]
    assert (postgres.image, postgres.ports, postgres.options) == ("postgres:16", ("5433:5432", 6379), "--health-cmd pg_isready")
    assert dict(postgres.env) == {"POSTGRES_PASSWORD": "test", "POSTGRES_PORT": 5432}
    assert dict(config.sandbox.setup_env) == {"PIP_INDEX_URL": "PRIVATE_INDEX", "NPM_TOKEN": "${{ secrets.NPM_TOKEN }}"}
    assert Config().sandbox.services is None and parse_config("sandbox: {services: {}}").sandbox.services == {}


def test_bad_services_and_setup_secrets_name_the_key() -> None:
    assert issues_of("sandbox:\n  services:\n    db: {env: {A: 1}}\n") == [
        "ensemble.yml:3: sandbox.services.db.image: is required here; give the service's image, like postgres:16"]
    assert issues_of("sandbox:\n  services: [postgres]\n") == [
        "ensemble.yml:2: sandbox.services: expected a mapping of names to values, got a list"]
    problems = issues_of("sandbox:\n  setup_env:\n    bad-name: X\n    TOKEN: not a secret name\n")
    assert "sandbox.setup_env.bad-name: 'bad-name' is not a valid name here; expected a variable name" in problems[0]
    assert "sandbox.setup_env.TOKEN: 'not a secret name' is not valid; expected a value naming a secret" in problems[1]


def test_setup_secrets_are_secrets_of_the_run() -> None:
    from bot.ensemble.runner import config_secret_names

    config = parse_config("sandbox: {setup_env: {PIP_INDEX_URL: PRIVATE_INDEX, X: '${{ secrets.OTHER }}'}}\n")
    assert {"PRIVATE_INDEX", "OTHER"} <= set(config_secret_names(config))


def test_a_budget_bounds_the_rounds_unless_max_iterations_caps_them() -> None:
    assert parse_config("deadline_minutes: 5\n", "x").round_cap() is None
    assert parse_config("budget_tokens: 50000\n", "x").round_cap() is None
    assert parse_config("deadline_minutes: 5\nmax_iterations: 6\n", "x").round_cap() == 6
    assert parse_config("max_iterations: 2\n", "x").round_cap() == 2


def test_verify_is_off_by_default_auto_for_short_and_a_section_for_the_review() -> None:
    assert (Config().verify.when, Config().verify.review) == ("off", "off")
    assert parse_config("verify: auto\n").verify.when == "auto"
    assert parse_config("verify: {when: auto, review: on}\n").verify.review == "on"  # YAML's `on` is a boolean
    assert parse_config("verify: off\n").verify.when == "off"
    with pytest.raises(ConfigError, match=r"verify.when: unknown value 'always'; expected one of off, auto"):
        parse_config("verify: always\n")
    with pytest.raises(ConfigError, match=r"verify.reviews: unknown key; did you mean 'review'"):
        parse_config("verify: {reviews: on}\n")
