"""What the bot may commit, decided in code: no secrets, links, submodules, binaries or huge files.

Whatever a model writes, a commit the bot makes never holds a token shape or the value of a
known secret, a new symbolic link, a submodule (gitlink) change, a binary file or a file over
the size limit. `content_problems` judges one file's new text (the edit applier asks it, so the
coder hears why at once); `staged_problems` judges what is staged in a checkout, the last word
before `git commit` (bot/forge/local.py). Refusals name the file and the kind of secret, never
the secret itself. The same holds for a commit's message (`commit_message`): every commit the bot makes
gets its message here, with any secret masked.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from bot.errors import EnsembleError
from bot.redact import clip, process_redactor, scrub
from common.git import git, git_bytes

DEFAULT_MAX_FILE_BYTES = 1024 * 1024  # paths.max_file_kb: real source files are far smaller
BINARY_SNIFF_BYTES = 8000  # as git itself: a NUL byte in the first 8000 bytes means binary
SYMLINK, GITLINK = "120000", "160000"


class ChangeRefused(EnsembleError):
    """A change the bot must not commit; `problems` says, per file, what was wrong and what to do."""

    def __init__(self, problems: list[str]):
        super().__init__("refused to commit: " + "; ".join(problems))
        self.problems = problems


def content_problems(path: str, old: str | None, new: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[str]:
    """Why the bot must not write `new` as `path` (whose text was `old`); empty when it may."""
    size = len(new.encode("utf-8", "replace"))
    if size > max_bytes:
        return [too_large(path, size, max_bytes)]
    if "\0" in new[:BINARY_SNIFF_BYTES]:
        return [f"{path}: the new content is binary (it holds NUL bytes); the bot writes text files only"]
    kinds = process_redactor().introduced(old or "", new)
    if kinds:
        return [f"{path}: the new content holds {', '.join(kinds)}; never write credentials into the repository, "
                "read them from the environment at run time"]
    return []


def too_large(path: str, size: int, max_bytes: int) -> str:
    """The refusal of a file of `size` bytes over the limit."""
    return (f"{path}: the new content is {_size(size)}, over the {_size(max_bytes)} limit (paths.max_file_kb); "
            "write source, not data: generate large files at build or test time")


def commit_message(summary: str, body: str, trailers: dict[str, str]) -> str:
    """The message of a commit the bot makes: the summary line (cut to 72 characters), a blank line, the body, a
    blank line, the trailers; any secret in it masked."""
    lines = [clip(summary.strip().splitlines()[0], 72) if summary.strip() else "ensemble: change"]
    if body.strip():
        lines += ["", body.strip()]
    if trailers:
        lines += [""] + [f"{key}: {value}" for key, value in trailers.items()]
    return scrub("\n".join(lines) + "\n")


@dataclass(frozen=True)
class _Staged:
    old_mode: str
    new_mode: str
    old_sha: str
    new_sha: str
    status: str
    path: str


def staged_problems(checkout: Path, max_bytes: int = DEFAULT_MAX_FILE_BYTES) -> list[str]:
    """Why the changes staged in `checkout` (against HEAD) must not be committed; empty when they may."""
    problems: list[str] = []
    blobs: list[_Staged] = []
    for entry in _staged(checkout):
        if GITLINK in (entry.old_mode, entry.new_mode) or entry.path == ".gitmodules":
            problems.append(f"{entry.path}: a submodule (gitlink) change; the bot never adds, moves or updates "
                            "submodules, a maintainer does")
        elif entry.new_mode == SYMLINK and entry.status != "D":
            problems.append(f"{entry.path}: a symbolic link; the bot commits no links, write a regular file")
        elif entry.status != "D":
            blobs.append(entry)
    for entry, (size, new, old) in zip(blobs, _contents(checkout, blobs, max_bytes), strict=True):
        if size > max_bytes:
            problems.append(too_large(entry.path, size, max_bytes))
        elif b"\0" in new[:BINARY_SNIFF_BYTES]:
            problems.append(f"{entry.path}: a binary file; the bot commits text files only")
        else:
            problems += content_problems(entry.path, old.decode("utf-8", "replace"),
                                         new.decode("utf-8", "replace"), max_bytes)
    return problems


def _staged(checkout: Path) -> list[_Staged]:
    out = git(checkout, "diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", "HEAD")
    fields = out.split("\0")
    entries = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(":"):
            continue
        old_mode, new_mode, old_sha, new_sha, status = meta[1:].split()[:5]
        entries.append(_Staged(old_mode, new_mode, old_sha, new_sha, status[:1], path))
    return entries


def _contents(checkout: Path, entries: list[_Staged], max_bytes: int) -> list[tuple[int, bytes, bytes]]:
    """(size, new bytes, old bytes) per entry; contents over the limit are not read."""
    sizes = _batch(checkout, [e.new_sha for e in entries], check_only=True)
    wanted = [sha for e, size in zip(entries, sizes, strict=True) if int(size or 0) <= max_bytes
              for sha in (e.new_sha, e.old_sha) if set(sha) != {"0"}]
    read = dict(zip(wanted, _batch(checkout, wanted, check_only=False), strict=True))
    return [(int(size or 0), read.get(e.new_sha, b""), read.get(e.old_sha, b"")) for e, size in zip(entries, sizes,
                                                                                                    strict=True)]


def _batch(checkout: Path, shas: list[str], check_only: bool) -> list[bytes]:
    """`git cat-file --batch(-check)` for `shas`: sizes as text, or contents."""
    if not shas:
        return []
    mode = "--batch-check=%(objectsize)" if check_only else "--batch"
    out = git_bytes(checkout, "cat-file", mode, stdin="\n".join(shas) + "\n")
    if check_only:
        return out.split()
    results, at = [], 0
    for _ in shas:
        header_end = out.index(b"\n", at)
        size = int(out[at:header_end].split()[-1])
        results.append(out[header_end + 1:header_end + 1 + size])
        at = header_end + 1 + size + 1
    return results


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n / 1024:.0f} KB"
