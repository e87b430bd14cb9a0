"""Capped output, and what crosses the sandbox boundary: the repository in, result files out."""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path

import pytest

from sandbox.errors import WorkspaceError
from sandbox.output import EVIDENCE_MARK, MAX_RECORDS, CappedBuffer, records_of
from sandbox.workspace import build_tar, read_tar_files


def test_capped_buffer_keeps_head_and_tail_with_a_marker() -> None:
    buffer = CappedBuffer(100)
    buffer.write(b"START" + b"x" * 10_000)
    for _ in range(1000):
        buffer.write(b"y" * 1000)
    buffer.write(b"END")
    text = buffer.text()
    assert text.startswith("START") and text.endswith("END")
    assert f"[... {1_010_008 - 100} bytes of output truncated" in text
    assert len(buffer.head) + buffer.tail_size < 2_000  # memory stays flat


def test_small_output_is_untouched() -> None:
    buffer = CappedBuffer(100)
    buffer.write(b"hello ")
    buffer.write(b"world")
    assert buffer.text() == "hello world"


def test_streamed_records_are_kept_apart_whatever_the_cap_drops_and_however_the_chunks_fall() -> None:
    """The judge's records a process streams (sandbox/run_hooks.py) survive output that floods the cap around them,
    a record split between two reads, and output printed on the same line before one; the output reads as printed."""
    buffer = CappedBuffer(100)
    record = EVIDENCE_MARK + b"log\thonesty.log\treads_tests\tcalc.py read tests/test_calc.py"
    buffer.write(b"..." + record[:7])  # pytest's progress dots, then a record cut between two reads
    buffer.write(record[7:] + b"\nafter\n" + b"x" * 10_000)
    buffer.write(EVIDENCE_MARK + b"end\t12\tabc\n" + b"y" * 10_000 + b"\nlast")
    output, records = records_of(buffer.text())
    assert records == [record[len(EVIDENCE_MARK):].decode(), "end\t12\tabc"]
    assert output.startswith("...after\n") and output.endswith("last") and "ensemble-evidence" not in output


def test_output_shaped_like_a_record_but_never_ended_is_output_and_a_flood_of_records_says_so() -> None:
    buffer = CappedBuffer(1_000_000)
    buffer.write(EVIDENCE_MARK + b"z" * 10_000)  # longer than any record: printed, not a record
    buffer.write(b"\n" + EVIDENCE_MARK + b"start\t7")  # the process ended inside it
    output, records = records_of(buffer.text())
    assert records == [] and output.count("z") == 10_000 and output.endswith("start\t7")
    flood = CappedBuffer(100)
    flood.write(b"".join(EVIDENCE_MARK + b"log\tpatches.log\tx\n" for _ in range(MAX_RECORDS + 5)))
    assert records_of(flood.text())[1][-1] == "overflow" and len(records_of(flood.text())[1]) == MAX_RECORDS


def members(data: bytes) -> dict[str, tarfile.TarInfo]:
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return {m.name: m for m in tar}


def test_repository_tar_keeps_links_as_links_and_leaves_host_state_out(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text("[core]")
    (repo / "node_modules" / "x").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / "src" / "a.py").write_text("print(1)")
    (repo / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(repo / "run.sh", 0o4755)
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    (repo / "link").symlink_to(secret)
    (repo / "dirlink").symlink_to(tmp_path)
    tar = members(build_tar(repo))
    assert set(tar) == {"src", "src/a.py", "run.sh", "link", "dirlink"}
    assert tar["link"].issym() and tar["link"].linkname == str(secret) and tar["link"].size == 0
    assert tar["run.sh"].mode == 0o755 and tar["src/a.py"].uid == 1000
    assert b"host secret" not in build_tar(repo)


def test_oversized_repository_is_refused_with_the_fix(tmp_path: Path) -> None:
    (tmp_path / "big.bin").write_bytes(b"0" * 4096)
    with pytest.raises(WorkspaceError, match="sandbox.workspace_size"):
        build_tar(tmp_path, max_bytes=1024)


def archive(entries: list[tuple[str, bytes | None, str]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, data, link in entries:
            info = tarfile.TarInfo(name)
            if link:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            else:
                info.size = len(data or b"")
                tar.addfile(info, io.BytesIO(data or b""))
    return buffer.getvalue()


def test_reading_results_skips_links_and_big_files_and_survives_truncation() -> None:
    data = archive([("r/a.xml", b"<a/>", ""), ("r/shadow.xml", None, "/etc/shadow"), ("r/big.xml", b"z" * 5000, ""),
                    ("../../escape.xml", b"<e/>", "")])
    files = read_tar_files([data[:700], data[700:]], max_total=1 << 20, max_file=1000)
    assert files == {"r/a.xml": b"<a/>", "../../escape.xml": b"<e/>"}  # names are data, never extracted
    assert read_tar_files([data], max_total=1024, max_file=1000) == {"r/a.xml": b"<a/>"}
