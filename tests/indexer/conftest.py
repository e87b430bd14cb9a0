"""Indexer fixtures: a small deterministic embedder and synthetic git repositories."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from indexer.tokens import tokenize
from tests.conftest import git


class HashingEmbedder:
    """A real (if simple) Embedder: hashed bag of code tokens, normalized; counts what it embeds."""

    name = "test-hashing"
    dim = 64

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.embedded.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                out[row, int(hashlib.md5(token.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)


@pytest.fixture
def embedder() -> HashingEmbedder:
    return HashingEmbedder()


def commit_all(repo: Path, message: str = "change") -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)


@pytest.fixture
def code_repo(repo: Path) -> Path:
    """A small Python project: an HTTP session, a parser and tests."""
    (repo / "pkg").mkdir()
    (repo / "tests").mkdir()
    (repo / ".gitignore").write_text(".ensemble/\n")
    (repo / "pkg" / "__init__.py").write_text("from pkg.session import Session\n")
    (repo / "pkg" / "session.py").write_text(
        "import socket\n\nTIMEOUT = 30\n\n\nclass Session:\n    \"\"\"Keeps cookies between requests.\"\"\"\n\n"
        "    def resolve_redirects(self, response, max_redirects=30):\n        \"\"\"Follow Location headers.\"\"\"\n"
        "        if max_redirects < 0:\n            raise TooManyRedirects('Exceeded the redirect limit')\n"
        "        return response.headers['location']\n\n    def send(self, request):\n        return request\n")
    (repo / "pkg" / "parser.py").write_text(
        "def parse_header_line(line):\n    name, _, value = line.partition(':')\n    return name.strip(), value\n\n\n"
        "def parse_chunked_body(stream):\n    return b''.join(stream)\n")
    (repo / "tests" / "test_session.py").write_text(
        "from pkg.session import Session\n\n\ndef test_redirects():\n    assert Session().send(1) == 1\n")
    commit_all(repo, "project")
    return repo
