from pathlib import Path

import pytest

from subshift.cli import main, shift
from subshift.srt import Cue, dump, parse, read_file

EPISODE = """1
00:00:01,500 --> 00:00:03,000
Previously on...

2
00:01:02,040 --> 00:01:04,900
Where were you?
I waited all night.
"""


def test_parse():
    assert parse(EPISODE) == [Cue(1, 1500, 3000, "Previously on..."),
                              Cue(2, 62040, 64900, "Where were you?\nI waited all night.")]


def test_windows_line_endings():
    assert parse(EPISODE.replace("\n", "\r\n")) == parse(EPISODE)


def test_dump_round_trips():
    assert dump(parse(EPISODE)) == EPISODE


def test_a_bad_timing_line_is_reported():
    with pytest.raises(ValueError, match="bad timing line in cue 1"):
        parse("1\n00:00:01 --> 00:00:02\nHi\n")


def test_shift_never_goes_below_zero():
    assert shift(parse(EPISODE), -2000)[0] == Cue(1, 0, 1000, "Previously on...")


def test_cli_shifts_a_file(tmp_path: Path):
    path = tmp_path / "episode.srt"
    path.write_text(EPISODE, encoding="utf-8")
    assert main([str(path), "2.5", "-o", str(tmp_path / "out.srt")]) == 0
    assert [c.start_ms for c in read_file(tmp_path / "out.srt")] == [4000, 64540]


def test_a_file_that_starts_with_a_byte_order_mark(tmp_path: Path):
    path = tmp_path / "episode.srt"
    path.write_bytes(b"\xef\xbb\xbf" + EPISODE.replace("\n", "\r\n").encode("utf-8"))
    assert read_file(path) == parse(EPISODE)


def test_cli_shifts_a_file_with_a_byte_order_mark(tmp_path: Path):
    path = tmp_path / "episode.srt"
    path.write_bytes(b"\xef\xbb\xbf" + EPISODE.encode("utf-8"))
    assert main([str(path), "-1"]) == 0
    assert path.read_text(encoding="utf-8").startswith("1\n00:00:00,500 --> 00:00:02,000\n")
