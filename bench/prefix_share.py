#!/usr/bin/env python
"""How much of the hidden check's request a prefix cache can reuse: the demo's sample task, replayed.

    .venv/bin/python bench/prefix_share.py

The demo as scripts/demo.sh runs it without keys (the sample median() repository, its task, the scripted
transcript bot/ensemble/demo/transcript.jsonl for every role, the default config), with pytest on the host
(`fakes.engine_parts.HostPytest`) and file retrieval (`fakes.engine_parts.FileRetriever`) so no Docker or index is
needed. Every model request is recorded. For each team's hidden-check request it prints the request's tokens and
the tokens it opens with alike with that team's coder request just before it (the fix that first passed), which is
what a server that caches prompt prefixes (llama.cpp's `cache_prompt`, OpenAI's and Gemini's automatic caching)
reads once for both: the messages rendered in ChatML (the local Qwen coder's template), counted by bot.llm's token
counter.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# bench/ itself off the path: bench/sandbox.py would shadow the `sandbox` package (installed or not)
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bot.config import load_config  # noqa: E402
from bot.ensemble.coder import HIDDEN_CHECK_GOAL  # noqa: E402
from bot.ensemble.demo import TASK_BODY, TASK_TITLE, TRANSCRIPT, create_sample_repo  # noqa: E402
from bot.ensemble.ports import ModelClient, ModelReply  # noqa: E402
from bot.ensemble.runner import Components, run_task  # noqa: E402
from bot.ensemble.types import Task  # noqa: E402
from bot.llm.budget import SpendSummary  # noqa: E402
from bot.llm.manager import ModelManager  # noqa: E402
from bot.llm.tokens import count_tokens  # noqa: E402
from bot.llm.types import Message, ReplyEnd  # noqa: E402
from fakes.engine_parts import FileRetriever, HostPytest  # noqa: E402

HIDDEN_ASK = HIDDEN_CHECK_GOAL.split("{", 1)[0]


class Recorder:
    """A model client that records each request (role, messages) and passes it on."""

    def __init__(self, models: ModelClient):
        self.models = models
        self.requests: list[tuple[str, list[Message]]] = []

    def complete(self, role: str, messages: Sequence[Message], schema: str | None = None,
                 temperature: float | None = None, stop: Sequence[str] = (), by: float | None = None,
                 max_tokens: int | None = None, until: ReplyEnd | None = None) -> ModelReply:
        self.requests.append((role, list(messages)))
        return self.models.complete(role, messages, schema, temperature, stop, by, max_tokens, until)

    def prompt_budget(self, role: str) -> int:
        return self.models.prompt_budget(role)

    def has_role(self, role: str) -> bool:
        return self.models.has_role(role)

    def spend(self) -> SpendSummary:
        return self.models.spend()


def chatml(messages: Sequence[Message]) -> str:
    """The prompt as a ChatML template renders it (the text a local server tokenizes)."""
    return "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in messages)


def shared(a: str, b: str) -> str:
    """The text `a` and `b` open with alike."""
    return a[:next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))]


def team_of(messages: Sequence[Message]) -> str:
    return (re.findall(r"of team (\w)", messages[-1].content) or ["?"])[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--ensembles", type=int, default=0, metavar="N", help="teams (default: the demo's config)")
    args = parser.parse_args(argv)
    env = {f"ENSEMBLE_{role}_{key}": value for role in ("PLANNER", "CODER", "CRITIC")
           for key, value in (("PROVIDER", "scripted"), ("MODEL", str(TRANSCRIPT)))}
    with tempfile.TemporaryDirectory(prefix="prefix-share-") as tmp:
        sample = create_sample_repo(Path(tmp) / "stats")
        config = load_config(sample, env)
        config = dataclasses.replace(config, ensembles=args.ensembles) if args.ensembles else config
        models = Recorder(ModelManager.from_config(config, env, None, use_cache=False))
        parts = Components(models=models, retriever=FileRetriever(sample), runner=HostPytest(), use_cache=False)
        result = run_task(sample, Task(TASK_TITLE, TASK_BODY), config, env, parts)
    print(f"demo run: success {result.success}, {len(models.requests)} model requests")
    print("\n".join(line for line in result.corroboration if "check the coder never saw" in line))
    coder = [messages for role, messages in models.requests if role.split("@")[0] == "coder"]
    for i, messages in enumerate(coder):
        if HIDDEN_ASK not in messages[-1].content:
            continue
        team = team_of(messages)
        before = next((m for m in reversed(coder[:i]) if team_of(m) == team and HIDDEN_ASK not in m[-1].content), [])
        text, head = chatml(messages), shared(chatml(messages), chatml(before))
        total, common = count_tokens(text), count_tokens(head)
        print(f"team {team}: hidden check {total} tokens; opens like the fix request before it for {common} tokens "
              f"({common / max(total, 1):.0%}); read anew: {total - common} tokens")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
