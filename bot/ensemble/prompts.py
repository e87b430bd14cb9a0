"""The prompts of the planner and the critic: pure functions from plain data to messages.

Built from the shared parts (bot/ensemble/prompt_parts.py: the data fence, the rules, the order from what changes
least to what changes most, the team's name last); the coder's prompts, the hidden check's among them (a request the
judge makes of the coder's model, judge/hidden.py), are the coder's (bot/ensemble/coder/prompts.py). The
planner's system prompt is one for exploring and planning, so its calls of a run open alike. The rendered prompts
are golden-file tested (tests/ensemble/golden/; update with UPDATE_GOLDEN=1).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.ensemble.prompt_parts import (
    DATA_RULE,
    PLANNER_CONTEXT_TOKENS,
    conventions_piece,
    conventions_rule,
    data,
    fitted_messages,
    signed,
)
from bot.ensemble.types import Task
from bot.llm.tokens import ContextPiece
from bot.llm.types import Message

PLANNER_ROLE = ("You are the planner: a careful senior engineer who thinks before acting. Before you plan, you "
                "explore the repository until you have found the code that must change; then you write the plan, "
                "a coder turns it into edits and the repository's tests judge them. ")
CRITIC_CONVENTIONS = " Revise a change that breaks one of the repository conventions, naming the convention."
CRITIC_RUNNER = (" The change reaches into the test runner (the lines under test-runner changes); the task allowed it, "
                 "but revise unless each line is what the task asks for, since such a line can make failing tests "
                 "pass.")


def localization_messages(task: Task, repo_map: str, context: str, insights: str, round_no: int,
                          team: str = "a", max_rounds: int = 4, history: str = "",
                          budget: int | None = None, conventions: str = "") -> list[Message]:
    """Ask the planner what else it needs to read before planning (the `explore` reply)."""
    pieces = [
        conventions_piece(conventions),
        ContextPiece("repo map", data("repo map", repo_map), 40),
        ContextPiece("task", data("task", task.text), 100),
        ContextPiece("context", data("context so far", context or "(none)"), 60, "tail"),
        ContextPiece("insights", data("lessons from earlier runs", insights), 30) if insights else None,
        ContextPiece("history", data("what was tried so far in this run", history), 80) if history else None,
    ]
    instructions = (
        f"Exploration round {round_no} of {max_rounds}. Reply with JSON: "
        '{"search": [queries for the code index], "grep": [exact text to find, such as an error message '
        'or a name], "open": [file paths], "symbols": [function or class names], "done": false} '
        f"(at most {4} of each). When you have found the code to change, reply "
        '{"search": [], "grep": [], "open": [], "symbols": [], "done": true}. Reply with JSON only.')
    return fitted_messages(PLANNER_ROLE + DATA_RULE + conventions_rule(conventions), pieces,
                           signed(instructions, "planner", team), budget or PLANNER_CONTEXT_TOKENS)


def planner_messages(task: Task, repo_map: str, context: str, insights: str, history: str = "",
                     team: str = "a", budget: int | None = None, conventions: str = "") -> list[Message]:
    """Ask for the `plan` reply: summary, files, steps and questions."""
    pieces = [
        conventions_piece(conventions),
        ContextPiece("repo map", data("repo map", repo_map), 40),
        ContextPiece("task", data("task", task.text), 100),
        ContextPiece("context", data("relevant code", context or "(none)"), 60),
        ContextPiece("insights", data("lessons and the other team's notes", insights), 30) if insights else None,
        ContextPiece("history", data("what was tried so far in this run", history), 80) if history else None,
    ]
    instructions = (
        "Reply with the plan as JSON: summary (one paragraph), files (the paths to change or create), "
        "steps (short imperative steps), questions (empty unless the task is too ambiguous to act on; "
        "then ask what you need to know and nothing else).\n"
        "If the task is a bug, the FIRST step must be 'Reproduction test: <path of a new test file>' naming "
        "a test that fails now and will pass after the fix; if no test can be written, make the first step "
        "'Reproduction test: none - <why>'.")
    return fitted_messages(PLANNER_ROLE + DATA_RULE + conventions_rule(conventions), pieces,
                           signed(instructions, "planner", team), budget or PLANNER_CONTEXT_TOKENS)


def critic_messages(task: Task, diff: str, test_summary: str, team: str = "a",
                    budget: int | None = None, conventions: str = "", runner_changes: str = "") -> list[Message]:
    """Ask for the `review` reply: accept or revise, with feedback for the coder; `runner_changes` lists the lines
    of the change that reach into the test runner (bot/ensemble/judge/screen.py), which the task allowed."""
    system = "You are the critic: you review a change like a strict maintainer. " + DATA_RULE + conventions_rule(conventions)
    pieces = [  # the task, the judgement and the diff: what a wrong change shows itself in, and cheap to read
        conventions_piece(conventions),
        ContextPiece("task", data("task", task.text), 100),
        ContextPiece("tests", data("test results", test_summary), 80, "tail"),
        ContextPiece("runner", data("test-runner changes", runner_changes), 90) if runner_changes.strip() else None,
        ContextPiece("diff", data("diff", diff or "(no changes)"), 70),
    ]
    instructions = ('Reply with JSON: {"verdict": "accept" or "revise", "feedback": "..."}. Accept only a '
                    "change that does what the task asks, with passing tests and no unrelated edits; "
                    "otherwise say precisely what to change. When the tests pass, revise only for a defect you "
                    "can point at in the diff: quote the line or name that is wrong. Revise a change that answers the "
                    "tests' own inputs instead of fixing the logic (a branch on the exact values a test uses, a table "
                    "of expected outputs): quote that line. Tests that already failed "
                    "before the change are not the change's to fix." + (CRITIC_CONVENTIONS if conventions.strip() else "")
                    + (CRITIC_RUNNER if runner_changes.strip() else ""))
    return fitted_messages(system, pieces, signed(instructions, "critic", team), budget or PLANNER_CONTEXT_TOKENS)


def pull_review_messages(title: str, body: str, diff: str, evidence: str, limit: int,
                         budget: int | None = None) -> list[Message]:
    """Ask the critic for the `findings` reply on someone's pull request: at most `limit` defects, each on a line the
    pull request added, read with what the judge's runs proved (`evidence`)."""
    system = ("You are the critic: you review someone's pull request like a strict maintainer, after the tests have "
              "run. " + DATA_RULE)
    pieces = [
        ContextPiece("pull request", data("pull request", f"{title}\n\n{body}".strip()), 90),
        ContextPiece("evidence", data("what the tests prove", evidence), 95),
        ContextPiece("diff", data("diff", diff or "(no changes)"), 70),
    ]
    instructions = ('Reply with JSON: {"findings": [{"path": "file", "line": number, "comment": "..."}]}, at most '
                    f"{limit} findings, each on a line the diff adds (its number in the new file), each a defect you "
                    "can point at: a wrong result, a case the change misses, a test that checks less than it claims, "
                    "code that answers the tests' own inputs. No praise, no style remarks; reply "
                    '{"findings": []} when you find no defect.')
    return fitted_messages(system, pieces, instructions, budget or PLANNER_CONTEXT_TOKENS)


def render_history(lines: Sequence[str]) -> str:
    """Earlier rounds, one line each, for a re-plan."""
    return "\n".join(lines)
