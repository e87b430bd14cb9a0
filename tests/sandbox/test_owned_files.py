"""The files a run's caller owns (the judge's tests and data) stay as they were put in, whatever the command does.

Every Python process of a run refuses, from an audit hook it cannot remove, to write, remove, replace or rename
an owned file or a folder above one, or to make a file the runner or the interpreter would load (a `conftest.py`, a
`sitecustomize.py`, a `.pth`), in both backends, and each refused change is a finding naming the file and
the code that tried (evidence, though nothing changed); new files beside them and the repository's other files
stay writable. In Docker the owned files are also root's and read-only, in root's sticky folders, so a process
that is not Python (a shell) is refused too. The local sandbox cannot refuse a shell running as root: there what
such a process changed is a finding found after the run.
"""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from sandbox import LocalSandbox, Sandbox, SandboxSpec
from sandbox.model import OWNED_CHANGED
from sandbox.workspace import OWNED_FOLDER_MODE, SANDBOX_UID, build_tar
from tests.sandbox.conftest import base_image, write_sample

# Each step tries one change and prints whether it was refused; the run goes on either way.
ATTEMPTS = '''import os, pathlib

def attempt(name, step):
    try:
        step()
        print(f"{name}: done")
    except OSError as exc:
        print(f"{name}: refused ({type(exc).__name__})")

data = pathlib.Path("tests/data/cases.json")
attempt("write data", lambda: data.write_text("[]"))
attempt("remove data", lambda: data.unlink())
attempt("replace data", lambda: os.replace("calc.py", data))
attempt("write test", lambda: pathlib.Path("tests/test_calc.py").write_text("def test_adds(): pass\\n"))
os.makedirs("tests/__pycache__", exist_ok=True)
attempt("plant compiled test", lambda: pathlib.Path("tests/__pycache__/test_calc.cpython-311.pyc").write_bytes(b"x"))
attempt("plant conftest", lambda: pathlib.Path("tests/conftest.py").write_text("def pytest_runtest_makereport(): pass\\n"))
attempt("plant start-up file", lambda: pathlib.Path("sitecustomize.py").write_text("import calc\\n"))
attempt("new file beside", lambda: pathlib.Path("tests/data/new.txt").write_text("mine"))
attempt("write source", lambda: pathlib.Path("calc.py").write_text("def add(a, b):\\n    return a + b\\n"))
attempt("rename tests folder", lambda: os.rename("tests", "tests_away"))
'''
CHANGES = ("write data", "remove data", "replace data", "write test", "plant compiled test", "plant conftest",
           "plant start-up file", "rename tests folder")
OWNED = ("tests/data/cases.json", "tests/test_calc.py")
SEALED = "plant compiled test"  # the sealed __pycache__ folders are Docker's (sandbox/workspace.py)


def _repo(tmp_path: Path) -> Path:
    repo = write_sample(tmp_path / "repo")
    (repo / "tests" / "data").mkdir()
    (repo / "tests" / "data" / "cases.json").write_text("[[2, 2, 4]]")
    (repo / "attempts.py").write_text(ATTEMPTS)
    return repo


def _outcomes(output: str) -> dict[str, str]:
    """Each attempt's outcome, "done" or "refused", from the script's lines."""
    return {name: rest.split()[0] for line in output.splitlines() for name, _, rest in [line.partition(": ")] if rest}


def test_a_run_cannot_change_the_files_its_caller_owns(backend: Sandbox, tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=30, memory="256m"))
    result = backend.run(env, "python3 attempts.py", owned=OWNED)
    outcomes = _outcomes(result.stdout)
    assert outcomes["new file beside"] == "done" and outcomes["write source"] == "done", result.stdout + result.stderr
    refused = [step for step in CHANGES if step != SEALED or not isinstance(backend, LocalSandbox)]
    assert {step: outcomes[step] for step in refused} == dict.fromkeys(refused, "refused"), result.stdout
    # each refused change is evidence: the file (or the folder above it) and the code that tried, once each
    findings = {f.detail.split(": ")[0]: f.detail for f in result.findings if f.kind == OWNED_CHANGED}
    # a new conftest.py or start-up file is the judge's too: what the runner or the interpreter loads once it is made
    assert sorted(findings) == sorted(["tests", *OWNED, "tests/conftest.py", "sitecustomize.py"]), findings
    assert all("was refused" in f and f.endswith("from attempts.py") for f in findings.values()), findings
    assert "open, os.remove, os.rename" in findings["tests/data/cases.json"], findings
    assert "os.rename" in findings["tests"] and "open" in findings["tests/test_calc.py"], findings
    assert (repo / "tests" / "data" / "cases.json").read_text() == "[[2, 2, 4]]"  # the checkout is never touched


def test_a_shell_in_the_run_is_refused_in_docker_and_found_out_in_the_local_sandbox(backend: Sandbox,
                                                                                    tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=30, memory="256m"))
    result = backend.run(env, "chmod u+w tests/data/cases.json; echo '[]' > tests/data/cases.json; cat "
                              "tests/data/cases.json", owned=OWNED)
    changed = [f.detail for f in result.findings if f.kind == OWNED_CHANGED]
    if isinstance(backend, LocalSandbox):  # no audit hook in a shell, and root (or the owner) may write: found after
        assert result.stdout.strip() == "[]" and [f.split(":")[0] for f in changed] == ["tests/data/cases.json"]
        assert "the test run changed this file" in changed[0], changed
    else:
        assert result.stdout.strip() == "[[2, 2, 4]]" and not changed, result.stdout + result.stderr


def test_an_honest_run_leaves_no_finding_and_a_run_owning_nothing_is_as_before(backend: Sandbox,
                                                                              tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    env = backend.prepare(repo, SandboxSpec(image=base_image(), setup="", timeout_s=30, memory="256m"))
    honest = backend.run(env, "python3 -m pytest -q -p no:cacheprovider tests", owned=OWNED)
    assert honest.exit_code == 0 and not honest.findings, honest.stdout + honest.stderr
    free = backend.run(env, "python3 attempts.py")
    assert {step: _outcomes(free.stdout)[step] for step in CHANGES} == dict.fromkeys(CHANGES, "done"), free.stdout
    assert not free.findings


def test_owned_files_go_in_read_only_and_roots_in_sticky_folders(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    archive = build_tar(repo, overlay={"tests/extra/new_test.py": b"x = 1\n"}, owned=[*OWNED, "tests/extra/new_test.py"])
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        entries = {m.name: m for m in tar.getmembers()}
    for name in (*OWNED, "tests/extra/new_test.py"):
        assert (entries[name].uid, entries[name].mode & 0o222) == (0, 0), name
    for name in ("tests", "tests/data", "tests/extra"):
        assert (entries[name].uid, entries[name].mode) == (0, OWNED_FOLDER_MODE), name
    assert (entries["calc.py"].uid, entries["calc.py"].mode & 0o200) == (SANDBOX_UID, 0o200)
    for name in ("__pycache__", "tests/__pycache__", "tests/data/__pycache__"):  # no compiled test can be planted
        assert (entries[name].uid, entries[name].mode, entries[name].isdir()) == (0, 0o555, True), name
    plain = build_tar(repo)  # a run that owns nothing is as it was
    with tarfile.open(fileobj=io.BytesIO(plain)) as tar:
        assert all(m.uid == SANDBOX_UID and "__pycache__" not in m.name for m in tar.getmembers())
