#!/usr/bin/env python
"""The engine's first coder request on bench tasks, replayed: does the model's first reply fix the bug?

    .venv/bin/python bench/first_reply.py --base-url http://127.0.0.1:8080/v1 [--tasks ID ...] [--requests DIR]

On a local model a task's time is mostly its requests, and the first reply decides whether there is a second: this
measures that reply alone, a minute or two a task instead of a whole run. Each task's first coder request is built
as the engine builds it: bench/peers.py runs the engine against a stand-in server on localhost that logs every
request and answers each with a refusal (a few seconds a task, no model). With `--requests DIR` the requests come
instead from a bench/peers.py `--out-dir` (`TASK/ensemble/model.jsonl`): what an earlier commit sent.

Each request is sent to `--base-url` as recorded (temperature 0, its stop sequences, its output cap; not streamed),
and the reply is read the way the engine reads a round in the `auto` format's first form (each small file whole,
edit blocks in a large one), against the task's files as they are (every file taken as shown whole: the engine may
have shown a large one in part). Its changes are applied to a copy of the task's repository, which bench/judge.py
judges with the task's own tests. One line per task: seconds, prompt and completion tokens, the files the reply
changed and whether they fixed the task; then the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
# bench/ off the path, the repository on it: run as a script, bench/sandbox.py would shadow the engine's `sandbox`
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != BENCH]
if not os.environ.get("PYTHONPATH"):  # an explicit PYTHONPATH picks the engine under test
    sys.path.insert(0, str(ROOT))

from bot.ensemble.coder import MIXED  # noqa: E402 - after the repository is on the path
from bot.ensemble.coder.apply import apply_edit_blocks  # noqa: E402

REFUSAL = "I cannot help with that."
CAPTURE_BUDGET_S = 12  # enough for the engine's base run and its first coder request


class _StandIn(BaseHTTPRequestHandler):
    """An OpenAI-compatible server that answers every chat request with REFUSAL (streamed or not)."""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self._send("application/json", json.dumps({"object": "list", "data": []}).encode())

    def do_POST(self) -> None:  # noqa: N802
        request = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        usage = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        if not request.get("stream"):
            message = {"role": "assistant", "content": REFUSAL}
            self._send("application/json", json.dumps({
                "id": "x", "object": "chat.completion", "created": 0, "model": request.get("model", ""),
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}], "usage": usage}).encode())
            return
        chunks = [{"role": "assistant", "content": REFUSAL}, {}]
        events = [{"id": "x", "object": "chat.completion.chunk", "created": 0, "model": request.get("model", ""),
                   "choices": [{"index": 0, "delta": delta, "finish_reason": "stop" if not delta else None}],
                   **({"usage": usage} if not delta else {})} for delta in chunks]
        self._send("text/event-stream", b"".join(b"data: " + json.dumps(e).encode() + b"\n\n" for e in events)
                   + b"data: [DONE]\n\n")

    def _send(self, kind: str, body: bytes) -> None:
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def capture(tasks: list[str], model: str, out_dir: Path) -> Path:
    """Each task's engine run against the stand-in server, its requests logged under `out_dir` (peers' layout)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _StandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        subprocess.run([sys.executable, str(BENCH / "peers.py"), "--base-url",
                        f"http://127.0.0.1:{server.server_address[1]}/v1", "--model", model, "--agents", "ensemble",
                        "--tasks", *tasks, "--budget-s", str(CAPTURE_BUDGET_S), "--edit-format", "auto",
                        "--out-dir", str(out_dir), "--quiet"], check=True, stdout=subprocess.DEVNULL)
    finally:
        server.shutdown()
    return out_dir


def first_request(requests: Path, task: str) -> dict[str, Any] | None:
    """The task's first coder request in a peers `--out-dir` (None when the engine sent none, or a planner's)."""
    log = requests / task / "ensemble" / "model.jsonl"
    if not log.is_file():
        return None
    for line in log.read_text(encoding="utf-8").splitlines():
        request = json.loads(line)["request"]
        if request["messages"][0]["content"].startswith("You are the coder"):
            return dict(request)
    return None


def ask(base_url: str, request: dict[str, Any]) -> dict[str, Any]:
    """The server's reply to `request`, not streamed."""
    body = json.dumps({**request, "stream": False}).encode()
    http = urllib.request.Request(f"{base_url.rstrip('/')}/chat/completions", body,
                                  {"Content-Type": "application/json", "Authorization": "Bearer local"})
    with urllib.request.urlopen(http, timeout=900) as reply:  # noqa: S310 - the URL is the user's own server
        return dict(json.loads(reply.read()))


def fixes(task_id: str, text: str) -> tuple[list[str], bool | None]:
    """The files `text` changes in a copy of the task's repository, and whether bench/judge.py finds the task
    solved there (None when nothing changed)."""
    real_model = _real_model()
    task = real_model.load_task(task_id)
    with tempfile.TemporaryDirectory() as temp:
        repo = Path(temp) / "repo"
        shutil.copytree(task["repo"], repo, ignore=shutil.ignore_patterns("__pycache__", "target", "node_modules"))
        files = {p: (repo / p).read_text(encoding="utf-8") for p in sorted(real_model.judge.tree_files(repo))
                 if (repo / p).suffix not in {".json", ".lock", ".toml", ".ini", ".cfg"}}
        reader = MIXED.fitted(files, files.get)
        result = apply_edit_blocks(reader.parse(text, files.get, files).blocks, files, (), shown=list(files))
        changed = sorted(p for p, new in result.changes.items() if new != files.get(p))
        if not changed:
            return [], None
        for path in changed:
            (repo / path).write_text(result.changes[path], encoding="utf-8")
        return changed, bool(real_model.judge.judge(task["folder"], repo).solved)


def _real_model() -> Any:
    return _load("bench_real_model", BENCH / "real_model.py")


def _load(name: str, path: Path) -> Any:
    import importlib.util

    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--base-url", required=True, help="the OpenAI-compatible server to replay on")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--tasks", nargs="+", help="task ids (default: the design set's)")
    parser.add_argument("--requests", type=Path, help="a bench/peers.py --out-dir to take the requests from")
    parser.add_argument("--json", type=Path, help="write one record per task to this file")
    args = parser.parse_args(argv)
    tasks = args.tasks or _real_model().task_ids("design")
    with tempfile.TemporaryDirectory() as temp:
        requests = args.requests or capture(tasks, args.model, Path(temp))
        records = []
        for task in tasks:
            request = first_request(requests, task)
            if request is None:
                print(f"{task}: no coder request (the engine planned first, or never asked)", flush=True)
                continue
            started = time.monotonic()
            reply = ask(args.base_url, request)
            seconds = round(time.monotonic() - started, 1)
            changed, solved = fixes(task, reply["choices"][0]["message"].get("content") or "")
            usage = reply.get("usage") or {}
            record = {"task": task, "seconds": seconds, "prompt_tokens": usage.get("prompt_tokens"),
                      "completion_tokens": usage.get("completion_tokens"), "changed": changed, "solved": solved}
            records.append(record)
            print(f"{task}: {seconds} s, prompt {record['prompt_tokens']} completion {record['completion_tokens']} changed "
                  f"{', '.join(changed) or '-'} solved {solved}", flush=True)
    print(f"first replies that changed a file: {sum(bool(r['changed']) for r in records)} of {len(records)}; "
          f"that solved the task: {sum(bool(r['solved']) for r in records)}")
    if args.json:
        args.json.write_text(json.dumps(records, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
