"""The one atomic file writer: a reader, or a crash, sees the old file or the new one, never half of either.

The data goes to a temporary file beside the target (same directory, so the rename cannot cross
file systems), is flushed and fsynced, and is renamed over the target with `os.replace`. Where the
rename itself must survive a power cut (the index's manifest, which names the live generation),
`sync_dir` also fsyncs the directory. Any failure, a full disk or Ctrl-C included, removes the
temporary file and leaves the old target as it was.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

Writer = Callable[[BinaryIO], object]


def write_atomic(path: Path, data: bytes | Writer, *, mode: int = 0o666, sync_dir: bool = False) -> None:
    """Replace `path` with `data` (bytes, or a function that writes to the open file); parents are created.

    `mode` is the new file's permission bits before the umask (0o600 keeps it the owner's alone).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                data(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    if sync_dir:
        _fsync_dir(path.parent)


def _fsync_dir(folder: Path) -> None:
    """Make a rename in `folder` durable (POSIX; Windows has no directory handles to sync)."""
    if os.name != "posix":
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
