"""What the issue text names (links, tracebacks of several shapes, `Class.method`) and how the channels fuse."""

from __future__ import annotations

import numpy as np

from indexer import FusionParams
from indexer.chunks import Chunk
from indexer.query import analyze_query
from indexer.retrieval import SymbolTable, analysis_scores, file_channels, fuse_files

FILES = ["src/pkg/types.py", "src/pkg/core.py", "src/pkg/cli.py", "tests/test_types.py"]


def _chunks() -> list[Chunk]:
    return [Chunk("src/pkg/types.py", 1, 5, "Path.convert", "method", "def convert(self, value): ..."),
            Chunk("src/pkg/core.py", 1, 5, "Option.convert", "method", "def convert(self, value): ..."),
            Chunk("src/pkg/core.py", 6, 9, "run", "function", "def run(): ..."),
            Chunk("src/pkg/cli.py", 1, 3, "main", "function", "def main(): run()")]


def _boosts(text: str) -> dict[str, float]:
    chunks = _chunks()
    return analysis_scores(analyze_query(text), chunks, SymbolTable(chunks), FILES)


def test_a_link_to_a_file_counts_as_naming_it():
    text = "The check is here: https://github.com/org/pkg/blob/c9f7d9d/src/pkg/types.py#L929C64-L929C75."
    assert "github.com/org/pkg/blob/c9f7d9d/src/pkg/types.py" in analyze_query(text).paths
    boosts = _boosts(text)
    assert max(boosts, key=boosts.__getitem__) == "src/pkg/types.py"


def test_ipython_and_pytest_traceback_frames_are_read_in_order():
    text = ("File ~/venv/lib/python3.12/site-packages/pkg/cli.py:12, in main\n"
            "src/pkg/core.py:40: in run\n"
            '  File "/venv/lib/site-packages/pkg/types.py", line 7, in convert\n')
    frames = analyze_query(text).frames
    assert [f[0] for f in frames] == ["~/venv/lib/python3.12/site-packages/pkg/cli.py", "src/pkg/core.py",
                                      "/venv/lib/site-packages/pkg/types.py"]
    assert frames[1] == ("src/pkg/core.py", 40, "run")


def test_the_innermost_frame_in_the_repository_outranks_the_outer_ones():
    text = ('Traceback (most recent call last):\n  File "/site-packages/pkg/cli.py", line 3, in <module>\n'
            '  File "/site-packages/pkg/core.py", line 8, in go\n  File "/usr/lib/python3/json/decoder.py", '
            "line 2, in decode\nValueError: bad\n")
    boosts = _boosts(text)
    assert boosts["src/pkg/core.py"] > boosts["src/pkg/cli.py"] > 0  # json/decoder.py is not in the repository


def test_a_qualified_method_name_points_at_its_class_not_at_every_same_named_method():
    boosts = _boosts("Calling `Path.convert` with bytes warns.")
    assert boosts["src/pkg/types.py"] > boosts.get("src/pkg/core.py", 0.0)


def test_fusion_drops_tests_entirely_when_their_prior_is_zero():
    chunks = [*_chunks(), Chunk("tests/test_types.py", 1, 3, "test_convert", "function", "...")]
    lexical = np.array([0.5, 0.2, 0.0, 0.0, 3.0], dtype=np.float32)
    channels = file_channels(lexical, {}, {}, chunks, 0.0)
    kept = fuse_files(channels, FusionParams(dense=0.0, boosts=0.0, test_factor=0.5))
    assert max(kept, key=kept.__getitem__) == "tests/test_types.py"
    dropped = fuse_files(channels, FusionParams(dense=0.0, boosts=0.0, test_factor=0.0))
    assert max(dropped, key=dropped.__getitem__) == "src/pkg/types.py"
    assert dropped["tests/test_types.py"] == 0.0
