"""The loop where real repositories and real models differ from a perfect script.

A test that already fails, a "fix" that deletes tests, a reply that is half right or cut off,
a file too large to show whole, a failing progress view, Ctrl-C, a broken round after a good
one, a broken reproduction attempt, a coder that asks for code first.
"""

from __future__ import annotations

import _thread
import json
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from bot.config import Config
from bot.ensemble.runner import Components, run_task
from bot.ensemble.types import Task
from fakes.engine_parts import FileRetriever, HostPytest
from fakes.median_replies import ACCEPT, FIX, PLAN, REPRO, REVISE
from tests.ensemble.conftest import Said, ScriptedModels, happy_script

TASK = Task("median() is wrong for an even number of values", "median([1, 2, 3, 4]) returns 3; expected 2.5.",
            slug="median")
FLAKY = "def test_needs_the_network():\n    raise ConnectionError('no network in the sandbox')\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout


def commit_file(repo: Path, rel: str, text: str) -> None:
    (repo / rel).parent.mkdir(parents=True, exist_ok=True)
    (repo / rel).write_text(text)
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", f"add {rel}")


def run(sample: Path, script: dict, task: Task = TASK, progress=None, **config: object):
    models, runner = ScriptedModels(script), HostPytest()
    parts = Components(models=models, retriever=FileRetriever(sample), runner=runner, progress=progress)
    return run_task(sample, task, Config(ensembles=1, **config), {}, parts), models, runner


def coder_prompts(models: ScriptedModels) -> list[str]:
    return ["\n".join(m.content for m in messages) for role, messages in models.prompts if role == "coder"]


def test_a_test_that_already_fails_neither_blocks_nor_reaches_the_coder(sample: Path) -> None:
    commit_file(sample, "tests/test_online.py", FLAKY)
    result, _, runner = run(sample, happy_script())
    assert result.success and result.stop_reason == "accepted"
    assert result.commits and result.judgement is not None
    assert "tests/test_core.py::test_median_even" in result.judgement.fixed
    assert result.judgement.still_failing == ("tests/test_online.py::test_needs_the_network",)
    assert result.pre_existing_failures == ("tests/test_core.py::test_median_even",
                                            "tests/test_online.py::test_needs_the_network")
    # the base run; round 0's reproduction test alone (the base's tests' process would run the base's tree again);
    # the fix's round in two processes (the base's tests, then the new reproduction test) and, as it passed the tests
    # it must fix and is good, one more: their stand-ins in their place (twins.stand_ins)
    assert len(runner.known) == 5
    # once the reproduction test shows the bug, the unrelated failure is no longer shown to the coder
    assert runner.known[1] == frozenset()
    # the bug's own failing test exercises the code the fix edits (median), so it stays in view
    assert runner.known[2] == runner.known[3] == runner.known[4] == {"tests/test_online.py::test_needs_the_network"}
    data = result.to_dict()
    assert list(data["judgement"]["still_failing"]) == ["tests/test_online.py::test_needs_the_network"]


DELETE_TEST = """tests/test_core.py
<<<<<<< SEARCH
def test_median_even():
    assert median([1, 2, 3, 4]) == 2.5
=======
>>>>>>> REPLACE"""
WEAKEN_TEST = """tests/test_core.py
<<<<<<< SEARCH
def test_median_odd():
    assert median([3, 1, 2]) == 2
=======
def test_median_odd():
    assert True
>>>>>>> REPLACE"""


def test_a_fix_that_deletes_or_weakens_tests_is_refused_and_fed_back(sample: Path) -> None:
    script = {**happy_script(), ("coder", None): [REPRO, DELETE_TEST + "\n" + WEAKEN_TEST, FIX]}
    result, models, _ = run(sample, script, max_iterations=3)
    assert result.success  # the honest fix of a later turn is what lands
    refusals = "\n".join(result.refused)
    assert "test_median_even was deleted" in refusals and "test_median_odd lost assertions" in refusals
    branch = git(sample, "show", f"{result.branch}:tests/test_core.py")
    assert "def test_median_even" in branch and "assert True" not in branch
    follow_up = coder_prompts(models)[2]
    assert "fix the code, not the test" in follow_up


BAD_BLOCK = """stats/core.py
<<<<<<< SEARCH
    return values[0]
=======
    return values[-1]
>>>>>>> REPLACE"""


def test_a_partly_failing_reply_keeps_the_good_block_and_shows_the_coder_its_own_reply(sample: Path) -> None:
    thinking = "<think>\nstats/core.py\n<<<<<<< SEARCH\n    return ordered[middle]\n=======\n    return 0\n" \
               ">>>>>>> REPLACE\n</think>\n"
    script = {**happy_script(), ("coder", None): [REPRO, thinking + BAD_BLOCK + "\n\n" + FIX, "nothing more"]}
    result, models, _ = run(sample, script)
    assert result.success and result.stop_reason == "accepted"
    assert "return 0" not in git(sample, "show", f"{result.branch}:stats/core.py")  # the draft in <think> is ignored
    roles = [(role, [m.role for m in messages]) for role, messages in models.prompts if role == "coder"]
    # the follow-up inside round 1: system, the worked example's exchange, the task, its reply, what failed
    assert roles[2] == ("coder", ["system", "user", "assistant", "user", "assistant", "user"])
    follow_up = models.prompts[[i for i, (r, _) in enumerate(models.prompts) if r == "coder"][2]][1]
    assert follow_up[4].content.startswith("<think>")
    assert "1 of your edit blocks applied" in follow_up[5].content
    hint = follow_up[5].content
    assert "did NOT apply" in hint and "closest" in hint
    assert "```\n    return sum(values) / len(values)\n```" in hint  # copyable lines, no line-number prefixes
    assert len(result.teams) == 1 and result.teams[0].rounds == 1
    spans = [json.loads(line) for line in Path(result.trace).read_text().splitlines()]
    edits = [s["attributes"] for s in spans if s["name"] == "ensemble.edits"]
    assert [e["failures"] for e in edits] == [[], ["no_match: stats/core.py"]]  # then "nothing more": done
    assert "return values[0]" in edits[1]["reply_head"] and edits[0]["reply_head"] == ""


def test_a_reply_cut_off_by_length_applies_what_is_whole_and_asks_for_the_rest(sample: Path) -> None:
    cut = FIX + "\n\nstats/__init__.py\n<<<<<<< SEARCH\n__all__ = [\"mean\", \"median\"]\n======="
    script = {**happy_script(), ("coder", None): [REPRO, Said(cut, finish_reason="length"), "done"]}
    result, models, _ = run(sample, script)
    assert result.success
    follow_up = coder_prompts(models)[2]
    assert "cut off" in follow_up and "smaller" in follow_up


def test_the_end_of_a_file_larger_than_the_coders_budget_is_shown(sample: Path) -> None:
    filler = "".join(f"def helper_{i}(x):\n    \"\"\"Helper {i}.\"\"\"\n    return x + {i}\n\n\n" for i in range(3000))
    commit_file(sample, "stats/core.py", (sample / "stats/core.py").read_text() + "\n\n" + filler
                + "def last_function(values):\n    return values[len(values) // 2]  # the end of the file\n")
    plan = {**PLAN, "summary": "Fix median() and last_function() at the end of stats/core.py."}
    script = {**happy_script(), ("planner", "plan"): [plan]}
    _, models, _ = run(sample, script)
    prompt = coder_prompts(models)[-1]
    assert len((sample / "stats/core.py").read_text()) > 80_000
    assert "    return values[len(values) // 2]  # the end of the file" in prompt
    assert "    middle = len(ordered) // 2\n    return ordered[middle]" in prompt  # median's window, verbatim


def test_a_failing_progress_view_does_not_stop_the_run(sample: Path) -> None:
    def broken(team: str, phase: str, rnd: int, detail: str) -> None:
        raise RuntimeError("GitHub answered 502")

    result, _, _ = run(sample, happy_script(), progress=broken)
    assert result.success and result.stop_reason == "accepted"


def test_ctrl_c_stops_the_teams_and_reports_a_stop(sample: Path, request: pytest.FixtureRequest) -> None:
    # Ctrl-C as in a terminal, even where the suite was started in the background (SIGINT ignored then)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))

    stop = threading.Event()

    def interrupt(team: str, phase: str, rnd: int, detail: str) -> None:
        if phase == "planning":
            _thread.interrupt_main()  # what Ctrl-C does: KeyboardInterrupt in the main thread
            assert stop.wait(60)  # the main thread takes it (within half a second, longer on a busy machine)

    models = ScriptedModels(happy_script())
    parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest(), progress=interrupt,
                       stop=stop)
    result = run_task(sample, TASK, Config(ensembles=1), {}, parts)
    assert result.stop_reason == "stopped" and not result.success and not result.commits
    assert [c for c in models.calls if c[0] == "coder"] == []


SYNTAX_ERROR = """stats/core.py
<<<<<<< SEARCH
def mean(values):
=======
def mean(values)
>>>>>>> REPLACE"""


def test_a_broken_round_after_a_passing_one_is_not_in_the_reported_diff(sample: Path) -> None:
    script = {**happy_script(), ("coder", None): [REPRO, FIX, SYNTAX_ERROR], ("critic", "review"): [REVISE]}
    result, _, _ = run(sample, script, max_iterations=2)
    assert result.success and result.commits
    published = git(sample, "diff", "main", result.branch)
    assert "def mean(values)\n" not in result.diff
    assert result.diff.count("\n+") == published.count("\n+") and result.diff.count("\n-") == published.count("\n-")


BROKEN_REPRO = REPRO.replace("def test_even_count_is_mean_of_middles():", "def test_even_count(:")


def test_a_failed_reproduction_attempt_leaves_no_broken_test_behind(sample: Path) -> None:
    script = {**happy_script(), ("coder", None): [BROKEN_REPRO, BROKEN_REPRO, FIX]}
    result, _, _ = run(sample, script)
    assert result.success
    assert result.reproduction is not None and "could not write" in result.reproduction.note
    assert "tests/test_repro_median.py" not in git(sample, "ls-tree", "-r", "--name-only", result.branch)


def test_the_coder_may_read_code_before_editing(sample: Path) -> None:
    script = {**happy_script(), ("coder", None): [REPRO, "READ stats/__init__.py\nFIND ordered[middle]", FIX],
              ("critic", "review"): [ACCEPT]}
    result, models, _ = run(sample, script)
    assert result.success
    answer = coder_prompts(models)[2]
    assert "from stats.core import mean, median" in answer
    assert "stats/core.py:17:     return ordered[middle]" in answer


def test_a_copy_of_the_format_example_is_never_applied(sample: Path) -> None:
    from bot.ensemble.coder.formats import BLOCKS, EXAMPLE_FILE, EXAMPLE_PATH

    commit_file(sample, EXAMPLE_PATH, EXAMPLE_FILE)  # even where the toy file exists, the copy is refused
    script = {**happy_script(), ("coder", None): [REPRO, BLOCKS.example_answer(()), FIX]}
    result, models, _ = run(sample, script)
    assert result.success
    assert git(sample, "show", f"{result.branch}:{EXAMPLE_PATH}") == EXAMPLE_FILE
    # the copy buys no follow-up turn (the model sends it back): the next round is told, with fresh instructions
    assert "the format example" in coder_prompts(models)[2] and "edit results" not in coder_prompts(models)[2]
    assert result.teams[0].rounds == 2


def test_a_reply_with_the_example_beside_its_change_is_tested_without_a_follow_up(sample: Path) -> None:
    from bot.ensemble.coder.formats import BLOCKS

    script = {**happy_script(), ("coder", None): [REPRO, BLOCKS.example_answer(()) + "\n\n" + FIX]}
    result, models, _ = run(sample, script)
    assert result.success and result.teams[0].rounds == 1
    assert [c[0] for c in models.calls].count("coder") == 2  # the reproduction and the round's one turn


def test_a_change_that_fixes_nothing_is_not_a_success(sample: Path) -> None:
    comment_only = "stats/core.py\n<<<<<<< SEARCH\ndef mean(values):\n=======\n# averages\ndef mean(values):\n" \
                   ">>>>>>> REPLACE\n"
    plan = {**PLAN, "steps": ["Reproduction test: none - the failing test shows it", "Fix median()"]}
    task = Task("median() is wrong for an even number of values", "It returns the upper middle value.", slug="m")
    script = {**happy_script(), ("planner", "plan"): [plan], ("coder", None): [comment_only, "no more"],
              ("critic", "review"): [ACCEPT]}
    result, models, _ = run(sample, script, task=task, max_iterations=1)
    assert not result.success and not result.commits
    assert result.judgement is not None and "fixes nothing" in result.judgement.reason


def test_a_prompt_the_model_finds_too_long_is_asked_again_smaller(sample: Path) -> None:
    from bot.ensemble.asking import SHRINK, ask
    from bot.errors import ContextTooLong
    from bot.llm.types import Message

    class TightWindow:
        """A model whose window is smaller than the engine's estimate: it refuses long prompts."""

        def __init__(self, limit: int) -> None:
            self.limit, self.asked = limit, []

        def complete(self, role, messages, schema=None, temperature=None, stop=(), by=None, max_tokens=None, until=None):
            size = sum(len(m.content) for m in messages)
            self.asked.append(size)
            if size > self.limit:
                raise ContextTooLong("This model's maximum context length is 8192 tokens", 400)
            return Said("ok")

    budgets: list[int] = []

    def build(budget: int) -> list[Message]:
        budgets.append(budget)
        return [Message("user", "x" * budget)]

    model = TightWindow(limit=600)
    assert ask(model, "coder", build, 1000).text == "ok"
    assert budgets == [1000, int(1000 * SHRINK), int(int(1000 * SHRINK) * SHRINK)]
    assert model.asked == budgets

    class RefusesFirstCoderPrompt(ScriptedModels):
        refused = 0

        def complete(self, role, messages, schema=None, temperature=None, stop=(), by=None, max_tokens=None, until=None):
            if role == "coder" and not self.refused:
                self.refused += 1
                raise ContextTooLong("the prompt is longer than the model's context window", 400)
            return super().complete(role, messages, schema, temperature, stop, by)

    models = RefusesFirstCoderPrompt(happy_script())
    parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest())
    result = run_task(sample, TASK, Config(ensembles=1), {}, parts)
    assert result.success and models.refused == 1


WEAK_REPRO = """tests/test_repro_median.py
<<<<<<< SEARCH
=======
from stats import median


def test_even_count_is_mean_of_middles():
    assert median([40, 10, 30, 20]) == 25
>>>>>>> REPLACE"""
HALF_FIX = """stats/core.py
<<<<<<< SEARCH
    middle = len(ordered) // 2
    return ordered[middle]
=======
    middle = len(ordered) // 2
    if ordered == [1, 2, 3, 4]:
        return ordered[middle]
    if len(ordered) % 2 == 0:
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[middle]
>>>>>>> REPLACE"""


def test_a_fix_that_passes_its_own_reproduction_but_leaves_the_bugs_test_red_is_not_a_success(sample: Path) -> None:
    task = Task("median() is wrong for an even number of values", "It returns the upper middle value.", slug="m")
    script = {**happy_script(), ("coder", None): [WEAK_REPRO, HALF_FIX, "nothing more"],
              ("critic", "review"): [ACCEPT]}
    result, _, _ = run(sample, script, task=task, max_iterations=1)
    assert result.reproduction is not None and result.reproduction.failed_before
    assert not result.success
    assert result.judgement is not None and "tests/test_core.py::test_median_even" in result.judgement.required_failing


def test_a_follow_up_that_repeats_the_same_failure_ends_the_round_s_turns(sample: Path) -> None:
    script = {**happy_script(), ("coder", None): [REPRO, FIX + "\n\n" + BAD_BLOCK, FIX + "\n\n" + BAD_BLOCK]}
    result, models, _ = run(sample, script)
    assert result.success
    # round 1: the first turn and one follow-up that changed nothing and failed the same way (the round's own
    # reply again: not asked for warmer); no third turn
    assert len(coder_prompts(models)) == 1 + 2
