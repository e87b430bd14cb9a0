"""A direct attempt: when the base's tests already fail, the coder tries first, with no exploring or planning call.

Run through `run_task` on the sample repository (median() is wrong for even counts and its test fails
at the base), deterministic models, real git and pytest on the host.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from bot.config import Config, Models, RoleModel, TeamModelsSpec
from bot.ensemble.planner import mentioned_paths
from bot.ensemble.runner import direct_first
from fakes.median_replies import ACCEPT, BAD_FIX, FIX
from tests.ensemble.conftest import ScriptedModels, happy_script, run_scripted

run = run_scripted


def coder_prompts(models: ScriptedModels) -> list[str]:
    return ["\n".join(m.content for m in messages) for role, messages in models.prompts if role == "coder"]


def test_a_direct_attempt_fixes_the_bug_with_one_coder_call_and_one_review(sample: Path) -> None:
    result, models = run(sample, {("coder", None): [FIX], ("critic", "review"): [ACCEPT]}, first_attempt="direct")
    assert result.success and result.stop_reason == "accepted"
    assert models.calls == [("coder", None, "a"), ("critic", "review", "a")]
    assert "stats/core.py" in result.plan.files
    prompt = coder_prompts(models)[0]
    # the coder reads the failing test's output and the failing test's file, not a plan
    assert "<<<BEGIN tests that fail now>>>" in prompt and "test_median_even" in prompt
    assert "<<<BEGIN test tests/test_core.py>>>" in prompt and "<<<BEGIN plan>>>" not in prompt
    # the judge's test is there to read: the rules name only the code as the files to edit
    # (core.py, which defines the median() the task names, first)
    assert "named exactly like this: stats/core.py, stats/__init__.py." in prompt
    show = subprocess.run(["git", "show", "ensemble/median:stats/core.py"], cwd=sample, capture_output=True,
                          text=True, check=True).stdout
    assert "return (ordered[middle - 1] + ordered[middle]) / 2" in show


def test_direct_rounds_go_on_from_the_test_output_and_the_planner_comes_in_when_a_failure_repeats(
        sample: Path) -> None:
    # Two rounds fail the same way (the same test, the same wrong value): then the planner explores and plans,
    # with the rounds as its history, and the planned round fixes it. Failing rounds are not reviewed.
    again = BAD_FIX.replace("    return ordered[middle]\n=======", "    return ordered[middle - 1]\n=======")
    again = again.replace("return ordered[middle - 1]\n>>>>>>>", "return ordered[middle - 1] + 0\n>>>>>>>")
    fix = FIX.replace("    return ordered[middle]\n=======", "    return ordered[middle - 1] + 0\n=======")
    script = {**happy_script(), ("coder", None): [BAD_FIX, again, fix], ("critic", "review"): [ACCEPT]}
    result, models = run(sample, script, first_attempt="direct")
    assert result.success and result.stop_reason == "accepted"
    roles = [c[0] for c in models.calls]
    assert roles[:2] == ["coder", "coder"] and "planner" in roles and roles.count("critic") == 1
    assert roles.index("planner") == 2  # asked only once the same failure came back
    planner_prompt = "\n".join(m.content for role, messages in models.prompts if role == "planner" for m in messages)
    assert "round 1: tests fail" in planner_prompt and "round 2: tests fail" in planner_prompt
    second = coder_prompts(models)[1]
    assert "Your edits were applied. Tests fail." in second  # the next round reads what its change gave


def test_no_direct_attempt_when_no_test_fails_at_the_base(sample: Path) -> None:
    # With median fixed at the base nothing fails: there is nothing to judge a direct attempt by, so the team
    # plans (and writes a reproduction test) first.
    core = sample / "stats" / "core.py"
    core.write_text(core.read_text().replace("return ordered[middle]",
                                             "return ordered[middle] if len(ordered) % 2 else "
                                             "(ordered[middle - 1] + ordered[middle]) / 2"))
    subprocess.run(["git", "commit", "-qam", "fixed"], cwd=sample, check=True)
    script = {**happy_script(), ("critic", "review"): [ACCEPT]}
    _, models = run(sample, script, first_attempt="direct")
    assert models.calls[0] == ("planner", "explore", "a")


def test_first_attempt_auto_goes_direct_only_when_the_planner_is_the_coders_model() -> None:
    local = RoleModel("openai", "qwen2.5-coder-1.5b-instruct", base_url="http://127.0.0.1:8080/v1")
    same = Config(models=Models(planner=local, coder=local, critic=local))
    assert direct_first(same, 0)
    assert not direct_first(Config(), 0)  # gpt-4o plans for gpt-4o-mini: the slow thinker plans first
    assert not direct_first(Config(first_attempt="plan", models=same.models), 0)
    assert direct_first(Config(first_attempt="direct"), 0)
    # a team with its own planner is judged by its own models
    own = Config(models=same.models, team_models=(TeamModelsSpec(), TeamModelsSpec(planner=RoleModel("openai", "o3"))))
    assert direct_first(own, 0) and not direct_first(own, 1)
    scripted = RoleModel("scripted", "demo.jsonl")
    assert not direct_first(Config(models=Models(planner=scripted, coder=scripted, critic=scripted)), 0)


def test_traceback_paths_are_found_in_the_repository_by_their_tail() -> None:
    files = {"appconfig/loader.py", "serve.py", "tests/test_loader.py"}
    text = ('  File "/srv/shop/serve.py", line 11, in main\n'
            '  File "/srv/shop/appconfig/loader.py", line 16, in load\n'
            '  File "/usr/lib/python3.11/configparser.py", line 1273, in __getitem__\n'
            "at tests/test_loader.py:9 in test_port_defaults\n")
    assert mentioned_paths(text, files.__contains__) == ["serve.py", "appconfig/loader.py", "tests/test_loader.py"]


def test_the_file_that_defines_what_the_task_names_is_shown_first() -> None:
    """Two failing tests name two files; the one whose failure the task calls unrelated comes first in the frames.
    The file that defines what the task names goes first, as a small coder sends the first file it is shown."""
    from bot.ensemble.planner import direct_plan
    from bot.ensemble.types import Exploration, Retrieved, Task

    files = {"status.py": "def service_up(url):\n    return ping(url)\n",
             "textkit.py": "def slugify(title):\n    return '-'.join(title.split())\n"}
    failures = ("FAILED tests/test_status.py::test_up\n  at status.py:2 service_up\n"
                "FAILED tests/test_textkit.py::test_lower\n  at textkit.py:2 slugify\n")
    # as retrieval found it, the assertion failing in the test's own frame
    found = Exploration(retrieved=[Retrieved("textkit.py", "search", 1.0, 1, 2)])
    only_status = "FAILED tests/test_status.py::test_up\n  at status.py:2 service_up\n"
    task = Task("slugify() keeps upper-case letters", "`slugify('Hello World')` should give `hello-world`.")
    assert direct_plan(task, Exploration(), failures, files.get).files == ("textkit.py", "status.py")
    assert direct_plan(task, found, only_status, files.get).files == ("textkit.py", "status.py")
    # naming nothing either file defines, the frames' order stands
    other = Task("Slugs are wrong", "URLs must be lower case.")
    assert direct_plan(other, Exploration(), failures, files.get).files == ("status.py", "textkit.py")


def test_the_failing_tests_file_stays_in_view_after_a_round_whose_edits_did_not_apply(sample: Path) -> None:
    from fakes.median_replies import NO_MATCH

    result, models = run(sample, {("coder", None): [NO_MATCH, NO_MATCH, FIX], ("critic", "review"): [ACCEPT]},
                         first_attempt="direct")
    assert result.success
    prompts = coder_prompts(models)
    after_miss = [p for p in prompts[1:] if "Your edits were NOT applied" in p or "did NOT apply" in p]
    assert after_miss and all("<<<BEGIN test tests/test_core.py>>>" in p for p in after_miss)
