#!/usr/bin/env python
"""What a server's prompt-prefix cache saves on one coder request: the request read cold, read again, read with a
new last message after it, and read with a different system prompt (the round's edit format changed).

    .venv/bin/python bench/prefix_read.py --base-url http://127.0.0.1:8080/v1 --requests DIR/task/ensemble/model.jsonl

`--requests` is the model.jsonl bench/peers.py's counting proxy writes for a task (one request and its answer a
line); the first coder request in it is the one timed, and the next coder request with another system prompt, when
there is one, is the changed-format case. Each request is sent with `max_tokens` 8, so the time is the prompt's
reading (and eight tokens written). Between cases the server's cache is left as the last request made it, which is
what llama.cpp's server and llama-cpp-python's keep: the prompt it read last.
"""

from __future__ import annotations

import argparse
import json
import time
import urllib.request
from pathlib import Path
from typing import Any

FEEDBACK = ("<<<BEGIN feedback on your last attempt>>>\nYour edits were applied. Tests fail.\nFAILED "
            "tests/test_x.py::test_y\n  assert 2 == 3\n<<<END feedback on your last attempt>>>\n\nChange the code so "
            "that the task is done and the failing tests pass.")


def send(base_url: str, request: dict[str, Any]) -> tuple[float, int]:
    """Seconds the request took with an 8-token reply, and its prompt tokens as the server counted them."""
    body = {k: v for k, v in request.items() if k not in ("stop", "stream", "stream_options", "response_format")}
    body["max_tokens"] = 8
    started = time.monotonic()
    req = urllib.request.Request(f"{base_url}/chat/completions", data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=900) as reply:  # noqa: S310 - a local server the user names
        answer = json.loads(reply.read())
    return time.monotonic() - started, int(answer["usage"]["prompt_tokens"])


def coder_requests(path: Path) -> list[dict[str, Any]]:
    """The coder's requests in a proxy log, in order."""
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        request = json.loads(line)["request"]
        request = json.loads(request) if isinstance(request, str) else request
        messages = request.get("messages") or []
        if messages and messages[0]["content"].startswith("You are the coder"):
            found.append(request)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--requests", type=Path, required=True, help="a task's model.jsonl from bench/peers.py")
    args = parser.parse_args()
    requests = coder_requests(args.requests)
    if not requests:
        raise SystemExit(f"{args.requests}: no coder request in it")
    first = requests[0]
    continued = json.loads(json.dumps(first))
    continued["messages"] += [{"role": "assistant", "content": "shop/cart.py\n```\n# the coder's reply\n```"},
                              {"role": "user", "content": FEEDBACK}]
    other = next((r for r in requests[1:] if r["messages"][0]["content"] != first["messages"][0]["content"]), None)
    cases = [("cold", first), ("the same again", first), ("a new last message after it", continued)]
    cases += [("another system prompt", other)] if other else []
    for name, request in cases:
        seconds, tokens = send(args.base_url, request)
        print(f"{name:<28} {tokens:>6} prompt tokens  {seconds:6.1f} s")


if __name__ == "__main__":
    main()
