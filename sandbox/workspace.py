"""Moving files across the sandbox boundary: the repository in as a tar, result files out, capped.

Going in, symlinks are stored as links (never followed, so nothing outside the repository leaks
in), set-uid bits are stripped and host-side environments (`.git`, `.venv`, `node_modules`, ...)
stay out. Coming out, archives are parsed in memory, never extracted to disk: only regular files
are read, links are skipped, and every size is capped.

The files a run's caller owns (`owned`: the judge's tests, harness and test data) go in owned by root and
read-only, in folders owned by root with the sticky bit (writable by all, as /tmp is): the test process, which
runs as the sandbox user, can add files beside them but cannot change, remove or rename them, nor the folders
above them. The workspace's root is such a folder too (sandbox/docker_sandbox.py mounts it so). Each of these
folders also gets an empty `__pycache__` of root's that nobody can write: Python would load a compiled test
module planted there (a forged `.pyc` stamped with the source's size and time) instead of the source; without a
cache a fresh run's test modules compile from source, as they would anyway.
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
from collections.abc import Collection, Iterable, Iterator, Mapping
from pathlib import Path, PurePosixPath

from sandbox.errors import WorkspaceError

EXCLUDED = frozenset({".git", ".ensemble", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".nox",
                      ".pytest_cache", ".mypy_cache", ".ruff_cache", ".ensemble-results", ".ensemble-plugins"})
Overlay = Mapping[str, "bytes | None"]  # repository-relative path -> the content a run sees instead (None: absent)
SANDBOX_UID = 1000
OWNED_FOLDER_MODE = 0o1777  # a folder above an owned file: anyone adds files, only their owner removes them
SEALED_CACHE = "__pycache__"  # in each folder above an owned file: empty, root's, read-only (the module's docstring)


def repo_entries(repo_dir: Path, skip: Iterable[str] = ()) -> Iterator[Path]:
    """Every file, directory and symlink to copy, without descending into excluded or linked dirs.

    `skip` names repository-relative files left out (an overlay replaces or removes them)."""
    skipped = set(skip)
    for root, dirs, files in os.walk(repo_dir, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in EXCLUDED)
        base = Path(root)
        for name in dirs + sorted(files):
            path = base / name
            if name not in EXCLUDED and (not skipped or path.relative_to(repo_dir).as_posix() not in skipped):
                yield path


def checked_overlay(files: Overlay) -> dict[str, bytes | None]:
    """`files` with every path checked to stay inside the repository."""
    for rel in files:
        parts = PurePosixPath(rel).parts
        if not parts or rel.startswith("/") or ".." in parts or parts[0] in EXCLUDED:
            raise WorkspaceError(f"overlay path {rel!r} is not a path inside the repository")
    return dict(files)


def build_tar(repo_dir: Path, prefix: str = "", max_bytes: int = 1 << 30,
              extra: Iterable[tuple[str, bytes]] = (), overlay: Overlay | None = None,
              owned: Collection[str] = ()) -> bytes:
    """A tar of the repository (under `prefix`), owned by the sandbox user, plus `extra` files.

    `overlay` replaces files (bytes) or leaves them out (None), creating the folders a file needs. `owned`
    (repository-relative paths) go in read-only and owned by root, in root's sticky folders (the module's
    docstring)."""
    overlay = checked_overlay(overlay or {})
    owned = {PurePosixPath(prefix, rel).as_posix() for rel in owned}
    above = {folder.as_posix() for name in owned for folder in PurePosixPath(name).parents[:-1]}
    sealed = [PurePosixPath(folder, SEALED_CACHE).as_posix() for folder in sorted({*above, prefix or "."})] \
        if owned else []
    extra = [*((PurePosixPath(prefix, rel).as_posix(), data) for rel, data in overlay.items() if data is not None),
             *extra]
    if not repo_dir.is_dir():
        raise WorkspaceError(f"repository directory {repo_dir} does not exist; pass the path of a checkout")
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        present = set()
        for path in repo_entries(repo_dir, skip=overlay):
            info = _tarinfo(path, PurePosixPath(prefix, path.relative_to(repo_dir).as_posix()).as_posix())
            if info is None:
                continue
            present.add(info.name)
            total += info.size
            if total > max_bytes:
                raise WorkspaceError(f"{repo_dir} holds more than {max_bytes >> 20} MiB of files; raise "
                                     "`sandbox.workspace_size` or remove large files from the checkout")
            _own(info, owned, above)
            if info.isreg():
                with open(path, "rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
        for name, data in extra:
            for folder in reversed(PurePosixPath(name).parents[:-1]):  # all but "."
                if folder.as_posix() not in present:
                    present.add(folder.as_posix())
                    tar.addfile(_own(_folder_info(folder.as_posix()), owned, above))
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.uid, info.gid = len(data), 0o644, SANDBOX_UID, SANDBOX_UID
            tar.addfile(_own(info, owned, above), io.BytesIO(data))
        for name in sealed:  # __pycache__ never comes from the checkout (EXCLUDED)
            info = _folder_info(name)
            info.uid, info.gid, info.mode = 0, 0, 0o555
            tar.addfile(info)
    return buffer.getvalue()


def _own(info: tarfile.TarInfo, owned: Collection[str], above: Collection[str]) -> tarfile.TarInfo:
    """`info` as the run's test process must find it: an owned file read-only and root's, a folder above one
    root's and sticky; anything else as it is."""
    if info.name in owned and info.isreg():
        info.uid = info.gid = 0
        info.mode = (info.mode & 0o555) | 0o444
    elif info.name in above and info.isdir():
        info.uid = info.gid = 0
        info.mode = OWNED_FOLDER_MODE
    return info


def _folder_info(name: str) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.uid, info.gid = tarfile.DIRTYPE, 0o755, SANDBOX_UID, SANDBOX_UID
    return info


def write_overlay(work: Path, files: Overlay) -> None:
    """Apply an overlay to a copy of the repository: files written over, or removed where None."""
    for rel, data in checked_overlay(files).items():
        target = work / rel
        if target.is_symlink() or target.is_file():
            target.unlink()
        if data is not None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)


def digests(work: Path, paths: Iterable[str]) -> dict[str, str | None]:
    """The SHA-256 of each file of `paths` under `work` (None where there is no regular file): what a run found, to
    compare with what it left."""
    found: dict[str, str | None] = {}
    for rel in paths:
        path = work / rel
        found[rel] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() and not path.is_symlink() \
            else None
    return found


def _tarinfo(path: Path, name: str) -> tarfile.TarInfo | None:
    st = path.lstat()
    info = tarfile.TarInfo(name)
    info.uid = info.gid = SANDBOX_UID
    info.mtime = int(st.st_mtime)
    info.mode = stat.S_IMODE(st.st_mode) & 0o777  # no set-uid, set-gid or sticky bits
    if stat.S_ISLNK(st.st_mode):
        info.type, info.linkname = tarfile.SYMTYPE, os.readlink(path)
    elif stat.S_ISDIR(st.st_mode):
        info.type = tarfile.DIRTYPE
    elif stat.S_ISREG(st.st_mode):
        info.size = st.st_size
    else:
        return None  # sockets, fifos and devices stay behind
    return info


def read_tar_files(chunks: Iterable[bytes], max_total: int, max_file: int) -> dict[str, bytes]:
    """Regular files from a tar stream, reading at most `max_total` bytes and skipping big files and links."""
    buffer = bytearray()
    for chunk in chunks:
        buffer += chunk[: max_total - len(buffer)]
        if len(buffer) >= max_total:
            break
    files: dict[str, bytes] = {}
    try:
        with tarfile.open(fileobj=io.BytesIO(bytes(buffer)), mode="r:") as tar:
            for member in tar:
                if not member.isreg() or member.size > max_file:
                    continue  # symlinks, hard links and devices are never followed
                handle = tar.extractfile(member)
                if handle is not None:
                    files[member.name] = handle.read()
    except (tarfile.TarError, EOFError, OSError):
        pass  # a truncated archive still yields the files before the cut
    return files
