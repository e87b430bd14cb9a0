"""The one atomic writer: a failure mid-write, Ctrl-C included, leaves the old file whole and no temporary file."""

from __future__ import annotations

import errno
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import BinaryIO

import pytest

from common.atomic import write_atomic

ROOT = Path(__file__).resolve().parents[2]


def half_then(error: BaseException):
    def write(handle: BinaryIO) -> None:
        handle.write(b"half of the new ")
        handle.flush()
        raise error
    return write


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt(),
                                   ValueError("a bug in the caller's writer")], ids=["disk full", "ctrl-c", "bug"])
def test_a_failure_mid_write_leaves_the_old_file_and_no_temporary_file(tmp_path: Path, error: BaseException) -> None:
    target = tmp_path / "manifest.json"
    target.write_bytes(b"the old file")
    with pytest.raises(type(error)):
        write_atomic(target, half_then(error))
    assert target.read_bytes() == b"the old file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]


def test_a_first_write_that_fails_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_atomic(tmp_path / "new" / "x.npy", half_then(OSError(errno.EIO, "I/O error")))
    assert list((tmp_path / "new").iterdir()) == []


def test_bytes_or_a_writer_replace_the_file_and_folders_are_made(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "cache.json"
    write_atomic(target, b"one")
    write_atomic(target, lambda handle: handle.write(b"two"), sync_dir=True)
    assert target.read_bytes() == b"two" and [p.name for p in target.parent.iterdir()] == ["cache.json"]


def test_mode_is_the_callers_and_the_umask_applies(tmp_path: Path) -> None:
    write_atomic(tmp_path / "private", b"x", mode=0o600)
    write_atomic(tmp_path / "shared", b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "shared").stat().st_mode) == 0o666 & ~umask


def test_a_process_killed_mid_write_leaves_the_old_file_readable(tmp_path: Path) -> None:
    target = tmp_path / "lessons.json"
    target.write_text('{"old": true}')
    script = textwrap.dedent("""
        import os, signal, sys
        from pathlib import Path
        from common.atomic import write_atomic
        def write(handle):
            handle.write(b'{"new": ')
            handle.flush()
            os.kill(os.getpid(), signal.SIGKILL)
        write_atomic(Path(sys.argv[1]), write)
    """)
    killed = subprocess.run([sys.executable, "-c", script, str(target)], cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False)
    assert killed.returncode == -9
    assert target.read_text() == '{"old": true}'  # the half-written temporary file never replaced it
