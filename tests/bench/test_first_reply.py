"""bench/first_reply.py without a model: recorded first requests replayed on the fake OpenAI server, judged."""

from __future__ import annotations

import json
from pathlib import Path

from fakes.openai_server import FakeOpenAI
from tests.bench.loading import load_bench

first_reply = load_bench("first_reply")
TASK = "mean_integer_division"
FIXED_MEAN = ('def mean(values: list[float]) -> float:\n    """The arithmetic mean of `values` (which must not be '
              'empty)."""\n    if not values:\n        raise ValueError("mean of no values")\n'
              '    return total(values) / len(values)\n')


def _recorded(out_dir: Path, *requests: dict[str, object]) -> Path:
    """A bench/peers.py --out-dir whose engine sent `requests` on TASK."""
    log = out_dir / TASK / "ensemble" / "model.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("".join(json.dumps({"request": r, "answer": ""}) + "\n" for r in requests), encoding="utf-8")
    return out_dir


def _request(role: str) -> dict[str, object]:
    return {"model": "m", "temperature": 0.0, "stream": True, "max_tokens": 300,
            "messages": [{"role": "system", "content": f"You are the {role}: …"}, {"role": "user", "content": "fix"}]}


def test_the_first_coder_reply_is_applied_as_the_engine_reads_it_and_judged(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    """The planner's request is passed over; the coder's is sent as recorded but not streamed; its reply (the one
    function it fixed, under a word that is no path, as the local 1.5B coder writes it) is applied to a copy of the
    task and judged by the task's tests."""
    requests = _recorded(tmp_path / "out", _request("planner"), _request("coder"))
    with FakeOpenAI() as server:
        server.reply(f"mean floors the result.\n\ntask\n```\n{FIXED_MEAN}```\n", usage=(900, 80, 0))
        assert first_reply.main(["--base-url", server.url, "--tasks", TASK, "--requests", str(requests),
                                 "--json", str(tmp_path / "r.json")]) == 0
        sent = server.requests[-1].body
    assert sent["stream"] is False and sent["max_tokens"] == 300 and "coder" in sent["messages"][0]["content"]
    [record] = json.loads((tmp_path / "r.json").read_text())
    assert record["changed"] == ["stats.py"] and record["solved"] is True and record["prompt_tokens"] == 900
    assert "that solved the task: 1" in capsys.readouterr().out


def test_a_reply_that_changes_nothing_or_the_wrong_thing_is_counted_so(tmp_path: Path) -> None:
    requests = _recorded(tmp_path / "out", _request("coder"))
    for reply, changed, solved in (("Sorry, I cannot see the bug.", [], None),
                                   (f"stats.py\n```\n{FIXED_MEAN.replace(' / ', ' * ')}```\n", ["stats.py"], False)):
        with FakeOpenAI() as server:
            server.reply(reply)
            first_reply.main(["--base-url", server.url, "--tasks", TASK, "--requests", str(requests),
                              "--json", str(tmp_path / "r.json")])
        [record] = json.loads((tmp_path / "r.json").read_text())
        assert (record["changed"], record["solved"]) == (changed, solved)
