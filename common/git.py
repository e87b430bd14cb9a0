"""The git facade: every git command the project runs goes through `git`, `git_bytes` or `git_succeeds`.

A thin layer over the `git` executable (argv lists, never a shell). A command that fails raises
`GitError`, whose message names the command, the folder, git's exit status and git's own words,
so a user can run the same command and see. Credentials never travel in argv: callers pass them
in `env` (e.g. `GIT_CONFIG_*` variables), which no message repeats.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

__all__ = ["GitError", "git", "git_bytes", "git_succeeds"]

MAX_STDERR_CHARS = 2000  # of git's words kept in a message: the end, where git says what went wrong
MAX_COMMAND_CHARS = 300  # of the command shown in a message


class GitError(Exception):
    """A git command failed (or git is missing); the message carries the command and git's stderr.

    `command` is the argv after `git`, `cwd` the folder, `returncode` git's exit status (None when
    git could not be started) and `stderr` git's own words.
    """

    exit_code = 1  # the CLI boundary turns this into a one-line message and exit status 1

    def __init__(self, message: str, command: Sequence[str] = (), cwd: Path | str | None = None,
                 returncode: int | None = None, stderr: str = ""):
        self.command = tuple(command)
        self.cwd = cwd
        self.returncode = returncode
        self.stderr = stderr
        super().__init__(message)

    @classmethod
    def failed(cls, args: Sequence[str], cwd: Path | str, returncode: int, stderr: str,
               hint: str = "") -> GitError:
        """The error for a command that exited non-zero: command, folder, exit status and stderr."""
        words = stderr.strip()
        if len(words) > MAX_STDERR_CHARS:
            words = "…" + words[-MAX_STDERR_CHARS:]
        message = f"`{describe(args)}` failed in {cwd} (exit {returncode}): {words or '(git printed nothing)'}"
        return cls(message + (f"; {hint}" if hint else ""), args, cwd, returncode, words)


def describe(args: Sequence[str]) -> str:
    """The command as a user would type it (`git log --oneline`), cut short when very long."""
    text = shlex.join(["git", *args])
    return text if len(text) <= MAX_COMMAND_CHARS else text[:MAX_COMMAND_CHARS] + "…"


def _run(cwd: Path | str, args: Sequence[str], stdin: str | bytes | None,
         env: Mapping[str, str] | None) -> subprocess.CompletedProcess[bytes]:
    data = stdin.encode("utf-8") if isinstance(stdin, str) else stdin
    full_env = {**os.environ, **env} if env else None
    try:
        return subprocess.run(["git", *args], cwd=cwd, input=data, capture_output=True, env=full_env,
                              stdin=None if data is not None else subprocess.DEVNULL, check=False)
    except FileNotFoundError as exc:
        missing = not Path(cwd).is_dir()
        message = (f"`{describe(args)}` could not run: the folder {cwd} does not exist" if missing else
                   f"`{describe(args)}` could not run: git is not installed; install git (e.g. apt-get install git)")
        raise GitError(message, args, cwd) from exc


def git_bytes(cwd: Path | str, *args: str, check: bool = True, stdin: str | bytes | None = None,
              env: Mapping[str, str] | None = None, hint: str = "") -> bytes:
    """Run `git args...` in `cwd` and return its raw stdout; raise GitError on failure when `check`."""
    result = _run(cwd, args, stdin, env)
    if check and result.returncode != 0:
        stderr = result.stderr.decode("utf-8", "replace") or result.stdout.decode("utf-8", "replace")
        raise GitError.failed(args, cwd, result.returncode, stderr, hint)
    return result.stdout


def git(cwd: Path | str, *args: str, check: bool = True, stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None, hint: str = "") -> str:
    """Run `git args...` in `cwd` and return stdout as text (undecodable bytes replaced).

    With `check` (the default) a non-zero exit raises GitError; `hint` is added to its message
    to say how to fix the situation. With `check=False` the output is returned whatever happened.
    """
    return git_bytes(cwd, *args, check=check, stdin=stdin, env=env, hint=hint).decode("utf-8", "replace")


def git_succeeds(cwd: Path | str, *args: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether `git args...` exits 0: for questions git answers with its exit status (check-ignore, merge-base)."""
    return _run(cwd, args, None, env).returncode == 0
