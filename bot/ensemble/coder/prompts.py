"""The coder's prompts: a round's request for a change, with the plan and the files it is shown.

Pure functions from plain data to chat messages, built from the shared parts (bot/ensemble/prompt_parts.py): the
system prompt holds only the role and the edit format's rules, the same for every team, task and round; what the
task names (its paths, its files, the plan) follows in the user message, and the team's name comes last. A round
that refines the last round's change goes on with that round's conversation instead (`continued_messages`): one
new message after the coder's last reply. The rendered prompts are golden-file tested (tests/ensemble/golden/;
update with UPDATE_GOLDEN=1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.ensemble.coder.fileview import failing_tests_only
from bot.ensemble.coder.formats import BLOCKS, EXAMPLE_FILE, EXAMPLE_TASK, EditFormat
from bot.ensemble.judge import task_names_change, tests_in
from bot.ensemble.prompt_parts import (
    CODER_CONTEXT_TOKENS,
    CODER_ROLE,
    DATA_RULE,
    conventions_piece,
    conventions_rule,
    data,
    fitted_messages,
    signed,
)
from bot.ensemble.types import Plan, Task
from bot.llm.tokens import ContextPiece
from bot.llm.types import Message
from common.testfiles import is_test_path
from common.tokens import estimate_tokens

CODE_REQUESTS = ("If you must see more code before you can edit, reply instead with lines `READ path/of/file` "
                 "or `FIND exact text` (at most 3) and nothing else; you will get the code and can then edit.")


@dataclass(frozen=True)
class Opening:
    """How every coder request about a task opens, byte for byte: the system prompt (the role, the rules on data and
    conventions, the edit format's rules), the worked example in that format, and what the user message shows of
    the task before saying what to do (the conventions, the judge's tests, the base's failures, the files, related
    code, the task). A round's request goes on with the plan and the round's results; the hidden check's request
    (hidden_check.py) with its own, so a server that caches prompt prefixes reads the opening once for both."""

    system: str
    example: tuple[Message, ...]
    context: tuple[ContextPiece | None, ...]
    toy: str  # the worked example's file

    def messages(self, rest: Sequence[ContextPiece | None], instructions: str, budget: int | None) -> list[Message]:
        """The request: the opening, then `rest` and `instructions`, the context fitted to `budget` tokens."""
        room = (budget or CODER_CONTEXT_TOKENS) - sum(estimate_tokens(m.content) for m in self.example)
        system, user = fitted_messages(self.system, [*self.context, *rest], instructions, room)
        return [system, *self.example, user]


def coder_opening(task: Task, plan: Plan, files: Mapping[str, str], nearby: str = "", reproduce: bool = False,
                  conventions: str = "", edit_format: EditFormat = BLOCKS, failing: str = "") -> Opening:
    """The opening of the coder's requests on `task` (`coder_messages` says what each argument is). The judge's
    tests come before the code: shown to read, not as files to edit (small models otherwise send them back)."""
    paths = task_paths(files, plan)
    judged = judged_tests(files, task, plan, reproduce)
    toy, answer = edit_format.example(paths)[0], edit_format.example_answer(paths)
    # the worked example, as an earlier exchange: the toy task on a toy file, and the answer in the round's format
    example = (Message("user", f"{data(f'file {toy}', EXAMPLE_FILE)}\n\nAn example, to show the format (not your "
                       f"task): {EXAMPLE_TASK}"), Message("assistant", answer))
    system = (CODER_ROLE + DATA_RULE + conventions_rule(conventions) + "\n\n" + edit_format.rules() + "\n\n"
              + CODE_REQUESTS)
    context = (
        conventions_piece(conventions),
        *[ContextPiece(f"test {path}", data(f"test {path}", failing_tests_only(path, content, failing)), 70)
          for path, content in files.items() if path in judged],
        ContextPiece("failing", data("tests that fail now", failing), 90, "tail") if failing else None,
        *[ContextPiece(f"file {path}", data(f"file {path}", content), 70) for path, content in files.items()
          if path not in judged],
        ContextPiece("nearby", data("related code", nearby), 30) if nearby else None,
        ContextPiece("task", data("task", task.text), 100),
    )
    return Opening(system, example, context, toy)


def coder_messages(task: Task, plan: Plan, files: Mapping[str, str], nearby: str, feedback: str,
                   insights: str, reproduce: bool = False, team: str = "a", budget: int | None = None,
                   conventions: str = "", edit_format: EditFormat = BLOCKS, failing: str = "",
                   opened_in: EditFormat | None = None) -> list[Message]:
    """Ask the coder for edit blocks: the reproduction test only, or the change itself.

    `files` maps each path to what the coder is shown of it (the whole file, or its outline and
    windows around the relevant code); `failing`, the tests that fail at the base (a direct attempt);
    `edit_format`, how the coder writes its change (edit blocks, or whole files).
    A worked example comes first as its own exchange. The evidence comes before the code and the
    task after it: the judge's tests, what they report now, the files to change, then the task and
    plan, so what the model reads last is what to do, not an assertion to rewrite (shown the failing
    output last, a 1.5B coder edited the assertions; shown it before the code, it fixed the code:
    bench/peers.py's first coder calls). The system prompt and the example are the same for every team
    and round; what changes from call to call (the other team's notes, the feedback on the last attempt,
    the team's name) comes last, so a server that caches prompt prefixes reuses the head (`Opening`).
    `opened_in`: the format the team's requests open in (its first round's), when this round writes in another:
    the request opens as the team's others do, rules and example in that format, and says after the context, before
    what to do, that this round's change comes in `edit_format` (`switch_note`), so a server that caches prompt
    prefixes reads only the end of a round that switched format, as it does a round that kept it.
    """
    failing = failing.strip()
    opening = coder_opening(task, plan, files, nearby, reproduce, conventions, opened_in or edit_format, failing)
    planned = bool(plan.summary or plan.steps)  # a direct attempt has no plan, only the files to show
    rest = [
        ContextPiece("plan", data("plan", render_plan(plan)), 95) if planned else None,
        # last: what changes from call to call
        ContextPiece("insights", data("notes from the other team", insights), 20) if insights else None,
        ContextPiece("feedback", data("feedback on your last attempt", feedback), 90, "tail")
        if feedback.strip() and feedback.strip() != failing else None,
    ]
    instructions = _instructions(task, plan, files, reproduce, edit_format)
    if opened_in is not None and opened_in.name != edit_format.name:
        instructions = f"{switch_note(edit_format, task_paths(files, plan))}\n\n{instructions}"
    return opening.messages(rest, signed(instructions, "coder", team), budget)


def switch_note(edit_format: EditFormat, paths: Sequence[str]) -> str:
    """The note that a request's change comes in `edit_format`, not in the form its opening showed: the rules, and
    the worked example answered in that form (a small coder imitates an example more than it reads rules)."""
    return (f"From now on, write your changes in this form instead:\n{edit_format.rules()}\n\nThe example at the "
            f"start, answered in this form:\n{edit_format.example_answer(paths)}")


def continued_messages(earlier: Sequence[Message], task: Task, plan: Plan, files: Mapping[str, str],
                       now: Sequence[str], feedback: str, insights: str, team: str = "a",
                       edit_format: EditFormat = BLOCKS, switched: bool = False) -> list[Message]:
    """A round's request that goes on with the last round's conversation (`earlier`: its last request and the coder's
    reply), so that only its last message is new to a server that caches prompt prefixes: the files among `files`
    named in `now` (not as the conversation last showed them, or not shown yet) as they are now, the other
    team's notes, the feedback on the last attempt, the round's format's rules when it is not the one the
    conversation opened in (`switched`, as a system message of their own: they are instructions, and a model client
    times answers by their instructions, bot/llm/manager.py), and the instructions. A conversation that ended on a
    message to the coder (the code it asked for) goes on in that message."""
    judged = judged_tests(files, task, plan)
    parts = [data(f"test {p}" if p in judged else f"file {p} (as it is now)", files[p]) for p in now if p in files]
    if insights:
        parts.append(data("notes from the other team", insights))
    if feedback.strip():
        parts.append(data("feedback on your last attempt", feedback))
    text = "\n\n".join([*parts, signed(_instructions(task, plan, files, False, edit_format), "coder", team)])
    messages = list(earlier)
    if messages and messages[-1].role == "user":
        text = f"{messages.pop().content}\n\n{text}"
    if switched:  # with the worked example in the new form: a small coder imitates an example more than it reads rules
        messages.append(Message("system", switch_note(edit_format, task_paths(files, plan))))
    return [*messages, Message("user", text)]


def task_paths(files: Mapping[str, str], plan: Plan) -> list[str]:
    """The paths of a round's files: those shown (`files`), then the reproduction test the plan names."""
    return list(dict.fromkeys([*files, *([plan.reproduction_test] if plan.reproduction_test else [])]))


def _instructions(task: Task, plan: Plan, files: Mapping[str, str], reproduce: bool, edit_format: EditFormat) -> str:
    """What a round asks of the coder, last in its request: the goal, and the paths of the files it may change."""
    paths = task_paths(files, plan)
    judged = judged_tests(files, task, plan, reproduce)
    asked = [p for p in files if is_test_path(p) and p not in judged and p != plan.reproduction_test]
    editable = [p for p in paths if p not in judged] or paths
    planned = bool(plan.summary or plan.steps)  # a direct attempt has no plan, only the files to show
    goal = (f"Write ONLY the reproduction test {plan.reproduction_test}: a test that fails on the current "
            "code because of the bug and will pass once it is fixed. Do not fix the bug yet."
            if reproduce else ("Implement the plan." if planned else "Fix the code so that the task is done and the "
            "failing tests pass.") + " The tests are right: change the code, not them (a new test goes in a new test "
            "file)." + (f" Only {', '.join(asked)} you change as the task asks." if asked else ""))
    return f"{goal} Change the files of this task, not the example.\n{edit_format.closing(editable)}"


def judged_tests(files: Mapping[str, str], task: Task, plan: Plan, reproduce: bool = False) -> set[str]:
    """The test files among `files` (path: what the coder is shown of it) that are the judge's: shown to read, not
    to edit. Not the reproduction test being written (once written it is the judge's, like the tests that were
    there), nor a test file the task asks to change by name (guards.task_names_change, which lets such a change
    through)."""
    if reproduce:
        return set()
    return {p for p, text in files.items() if is_test_path(p)
            and (p == plan.reproduction_test or not task_names_change(task.text, p, tests_in(p, text)))}


def render_plan(plan: Plan) -> str:
    """The plan as readable text."""
    steps = "\n".join(f"{i}. {step}" for i, step in enumerate(plan.steps, 1))
    files = ", ".join(plan.files) or "(none named)"
    return f"{plan.summary}\n\nFiles: {files}\n\nSteps:\n{steps}"
