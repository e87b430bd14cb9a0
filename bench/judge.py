#!/usr/bin/env python
"""An independent judge of benchmark results: did an agent's tree fix the task without breaking tests?

    verdict = judge(Path("bench/tasks/paginate_off_by_one"), Path("/tmp/agent-result"))
    verdict.fixed, verdict.broken, verdict.solved
    python bench/judge.py bench/tasks/ID RESULT_DIR [--json]

A task folder holds `repo/` (the repository as shipped), `task.md` and `task.json`
(`fail_to_pass`, and optionally `runner` and `test`); an optional `judge/` folder holds test
files as the task wants them (a task that asks for a test to change ships the changed test
there), laid over the original's tests on both sides of the comparison.

The judge owns the tests. It copies the result tree to a scratch folder and puts back every
test file the agent edited and every harness file (conftest.py, pytest.ini, pyproject.toml,
package.json, Cargo.toml, go.mod, ...: what decides what the runner collects), removes harness
files the agent added, keeps the agent's other new files, runs the task's whole suite and
compares it test by test with the same suite on the original repository:

- fixed: every `fail_to_pass` test passes;
- broken: tests that passed on the original and fail or are gone (a test file the agent
  deleted stays deleted, so its tests are gone);
- solved: fixed and nothing broken.

Runners, picked from the task repository's files or task.json's `runner`: pytest (JUnit XML),
`go test -json`, `cargo test` (its text report) and `node --test` (with a reporter of ours).
task.json's `test` replaces the command; `{python}` is this Python and `{report}` marks where
the judge's reporting options go (appended when absent). A failing or timed-out suite is a
result; a missing toolchain raises `JudgeError`. Standard library only, and nothing of the
engine: the judge judges any agent.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

DEFAULT_TIMEOUT_S = 300.0
OUTPUT_TAIL = 4000
# build output and caches: never part of a result
SKIPPED_NAMES = {".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", "node_modules", ".ensemble",
                 ".venv", ".tox"}
SKIPPED_AT_ROOT = {"target"}  # cargo's build folder
TEST_DIRS = {"tests", "test", "__tests__", "testdata"}
TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "*_test.go", "*.test.js", "*.test.mjs", "*.test.cjs",
                      "*.test.ts", "*.test.jsx", "*.test.tsx", "*.spec.*")
HARNESS_NAMES = {"conftest.py", "pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml", "noxfile.py",
                 "package.json", "Cargo.toml", "Cargo.lock", "go.mod", "go.sum", "Makefile", "pom.xml",
                 "build.gradle", "build.gradle.kts"}
HARNESS_PATTERNS = ("jest.config.*", "vitest.config.*", ".mocharc*", "babel.config.*")

NODE_REPORTER = """\
// bench/judge.py's reporter for node --test: one JSON line per finished test
const stacks = new Map();
export default async function* reporter(source) {
  for await (const event of source) {
    const d = event.data || {};
    const stack = stacks.get(d.file) || [];
    stacks.set(d.file, stack);
    if (event.type === 'test:start') { stack.length = d.nesting; stack.push(d.name); continue; }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const names = stack.slice(0, d.nesting).concat([d.name]);
    const outcome = event.type === 'test:fail' ? 'failed' : (d.skip || d.todo ? 'skipped' : 'passed');
    yield JSON.stringify({file: d.file, names, outcome, suite: (d.details || {}).type === 'suite'}) + '\\n';
  }
}
"""


class JudgeError(RuntimeError):
    """The judge could not run a suite at all: a malformed task or a missing toolchain."""


# ---------------------------------------------------------------- the task


@dataclass(frozen=True)
class Runner:
    """A test runner: its command (with `{report}`) and the reporting options the judge adds."""

    name: str
    tool: str
    command: str
    report: str


RUNNERS = {
    "pytest": Runner("pytest", "", "{python} -m pytest -q -p no:cacheprovider {report}",
                     "--rootdir . --continue-on-collection-errors -o junit_family=xunit1 --junitxml={junit}"),
    "go": Runner("go", "go", "go test {report} ./...", "-json"),
    "cargo": Runner("cargo", "cargo", "cargo test --offline --no-fail-fast {report}", ""),
    "node": Runner("node", "node", "node --test {report}", "--test-reporter={reporter}"),
}


@dataclass(frozen=True)
class TaskSpec:
    """What the judge reads from a task folder."""

    folder: Path
    fail_to_pass: tuple[str, ...]
    preexisting_failures: tuple[str, ...]
    runner: Runner
    command: str

    @property
    def repo(self) -> Path:
        return self.folder / "repo"

    @property
    def overlay(self) -> Path:
        """Test files as the task wants them (a task that asks for a test to change)."""
        return self.folder / "judge"


def detect_runner(repo: Path) -> str:
    """The runner a repository's files call for: cargo, go, node, else pytest."""
    if (repo / "Cargo.toml").is_file():
        return "cargo"
    if (repo / "go.mod").is_file():
        return "go"
    if (repo / "package.json").is_file():
        return "node"
    return "pytest"


def load_spec(task_dir: Path) -> TaskSpec:
    """Read a task folder; JudgeError names what is wrong with it."""
    task_dir = Path(task_dir).resolve()
    meta_file = task_dir / "task.json"
    if not (task_dir / "repo").is_dir() or not meta_file.is_file():
        raise JudgeError(f"{task_dir} is not a task folder: it needs repo/ and task.json")
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    fail_to_pass = tuple(meta.get("fail_to_pass") or ())
    if not fail_to_pass:
        raise JudgeError(f"{meta_file}: `fail_to_pass` names no test; list the tests the fix must make pass")
    name = meta.get("runner") or detect_runner(task_dir / "repo")
    if name not in RUNNERS:
        raise JudgeError(f"{meta_file}: unknown runner {name!r}; choose from {', '.join(RUNNERS)}")
    runner = RUNNERS[name]
    command = meta.get("test") or runner.command
    if "{report}" not in command:
        command += " {report}"
    return TaskSpec(task_dir, fail_to_pass, tuple(meta.get("preexisting_failures") or ()), runner, command)


def plain_command(spec: TaskSpec) -> str:
    """The suite's command as a person (or an agent) would type it: no reporting options."""
    return " ".join(spec.command.replace("{report}", "").replace("{python}", shlex.quote(sys.executable)).split())


# ---------------------------------------------------------------- the trees


def is_harness_file(rel: str) -> bool:
    """Files that decide what the runner collects and how: always the original's."""
    name = PurePosixPath(rel).name
    return name in HARNESS_NAMES or any(fnmatch.fnmatch(name, p) for p in HARNESS_PATTERNS)


def is_test_file(rel: str) -> bool:
    """A test file by its folder (tests/, test/, __tests__/, testdata/) or its name."""
    path = PurePosixPath(rel)
    return bool(TEST_DIRS & set(path.parts[:-1])) or any(fnmatch.fnmatch(path.name, p) for p in TEST_FILE_PATTERNS)


def tree_files(root: Path) -> set[str]:
    """Every file under `root` as a POSIX path relative to it, build output and caches left out."""
    found = set()
    for path in root.rglob("*"):
        rel = path.relative_to(root)
        if _skipped(rel.parts) or not (path.is_file() or path.is_symlink()):
            continue
        found.add(rel.as_posix())
    return found


def _skipped(parts: tuple[str, ...]) -> bool:
    return bool(SKIPPED_NAMES & set(parts)) or (bool(parts) and parts[0] in SKIPPED_AT_ROOT) \
        or any(p.endswith((".pyc", ".pyo")) for p in parts[-1:])


def copy_tree(source: Path, dest: Path) -> None:
    """`source` into the new folder `dest`, build output and caches left out."""
    def ignore(folder: str, names: list[str]) -> set[str]:
        at_root = Path(folder) == source
        return {n for n in names if n in SKIPPED_NAMES or (at_root and n in SKIPPED_AT_ROOT)
                or n.endswith((".pyc", ".pyo"))}

    shutil.copytree(source, dest, symlinks=True, ignore=ignore)


@dataclass(frozen=True)
class Preparation:
    """What the judge changed in the agent's tree before running it."""

    restored: tuple[str, ...] = ()   # test and harness files put back to the original's
    deleted_tests: tuple[str, ...] = ()  # test files the agent deleted: their tests are gone
    removed: tuple[str, ...] = ()    # harness files the agent added


def _lay(source_root: Path, rel: str, dest_root: Path) -> None:
    target = dest_root / rel
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.is_dir():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source_root / rel, target)


def lay_overlay(spec: TaskSpec, dest: Path) -> list[str]:
    """The task's `judge/` test files over `dest`; returns their paths."""
    if not spec.overlay.is_dir():
        return []
    files = sorted(tree_files(spec.overlay))
    for rel in files:
        _lay(spec.overlay, rel, dest)
    return files


def prepare_result(spec: TaskSpec, result_dir: Path, dest: Path) -> Preparation:
    """The agent's tree at `dest` as the judge runs it: the original's tests and harness laid over it."""
    copy_tree(result_dir, dest)
    original, result = tree_files(spec.repo), tree_files(dest)
    restored, deleted = [], []
    for rel in sorted(original):
        if is_harness_file(rel) or (is_test_file(rel) and rel in result):
            if rel not in result or (dest / rel).read_bytes() != (spec.repo / rel).read_bytes():
                restored.append(rel)
            _lay(spec.repo, rel, dest)
        elif is_test_file(rel):
            deleted.append(rel)
    removed = sorted(rel for rel in result - original if is_harness_file(rel))
    for rel in removed:
        (dest / rel).unlink()
    overlaid = set(lay_overlay(spec, dest))
    restored = [rel for rel in restored if rel not in overlaid] + sorted(overlaid)
    return Preparation(tuple(restored), tuple(deleted), tuple(removed))


def prepare_base(spec: TaskSpec, dest: Path) -> None:
    """The original repository at `dest`, the task's `judge/` test files laid over it."""
    copy_tree(spec.repo, dest)
    lay_overlay(spec, dest)


# ---------------------------------------------------------------- running a suite


@dataclass(frozen=True)
class SuiteRun:
    """One run of a suite: each test's outcome (passed, failed, skipped) and how the run ended."""

    outcomes: dict[str, str]
    returncode: int | None
    timed_out: bool = False
    output: str = ""

    def passed(self, test_id: str) -> bool:
        return self.outcomes.get(test_id) == "passed"


def run_suite(spec: TaskSpec, tree: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> SuiteRun:
    """Run the task's whole suite in `tree` and read each test's outcome."""
    runner = spec.runner
    if runner.tool and shutil.which(runner.tool) is None:
        raise JudgeError(f"the {runner.name} tasks need `{runner.tool}` on PATH; install its toolchain")
    with tempfile.TemporaryDirectory(prefix="judge-report-") as scratch:
        junit, reporter = Path(scratch) / "junit.xml", Path(scratch) / "reporter.mjs"
        reporter.write_text(NODE_REPORTER, encoding="utf-8")
        report = runner.report.format(junit=shlex.quote(str(junit)), reporter=shlex.quote(str(reporter)))
        command = spec.command.replace("{python}", shlex.quote(sys.executable)).replace("{report}", report)
        temp = Path(scratch) / "tmp"  # the suite's own temporary folder (pytest's tmp_path too): see suite_env
        temp.mkdir()
        returncode, output, timed_out = _run(command, tree, timeout_s, temp)
        if runner.name == "pytest":
            outcomes = parse_junit(junit.read_text(encoding="utf-8", errors="replace")) if junit.is_file() else {}
        elif runner.name == "go":
            outcomes = parse_go_json(output)
        elif runner.name == "cargo":
            outcomes = parse_cargo(output)
        else:
            outcomes = parse_node_events(output, tree)
    return SuiteRun(outcomes, returncode, timed_out, output[-OUTPUT_TAIL:])


def suite_env(temp: Path) -> dict[str, str]:
    """This process's environment, less what would change which code or options the suite picks up, with the
    suite's temporary files in `temp`: a pytest run otherwise numbers its folder among the machine's own
    (/tmp/pytest-of-<user>) and removes older ones there, which took 20 to 45 s once a large suite had left one."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTEST_ADDOPTS", "PYTEST_PLUGINS", "NODE_OPTIONS", "GOFLAGS", "RUSTFLAGS")}
    env.update(PYTHONDONTWRITEBYTECODE="1", CI="true", RUST_BACKTRACE="0", NO_COLOR="1")
    env["TMPDIR"] = str(temp)
    # the pytest plugins installed beside the bench (anyio's, xdist) are no task's, and loading them was a third
    # of a small suite's run
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def _run(command: str, cwd: Path, timeout_s: float, temp: Path) -> tuple[int | None, str, bool]:
    """Run a shell command in its own process group; on time-out the whole group is killed."""
    with subprocess.Popen(command, shell=True, cwd=cwd, env=suite_env(temp), stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True) as proc:
        try:
            out, _ = proc.communicate(timeout=timeout_s)
            return proc.returncode, out.decode("utf-8", "replace"), False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return None, out.decode("utf-8", "replace"), True


# ---------------------------------------------------------------- reading reports


def _worse(old: str | None, new: str) -> str:
    order = {"passed": 0, "skipped": 1, "failed": 2}
    return new if old is None or order[new] > order[old] else old


def parse_junit(text: str) -> dict[str, str]:
    """pytest's JUnit XML (xunit1: with `file`) as {node id: outcome}; a teardown error fails its test."""
    outcomes: dict[str, str] = {}
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return outcomes
    for case in root.iter("testcase"):
        file, classname, name = case.get("file") or "", case.get("classname") or "", case.get("name") or ""
        module = file[:-3].replace("/", ".") if file.endswith(".py") else ""
        if not file or not module or not (classname == module or classname.startswith(module + ".")):
            test_id = f"{classname}::{name}" if classname else name  # a collection error, say
        else:
            classes = classname[len(module) + 1:].split(".") if classname != module else []
            test_id = "::".join([file, *[c for c in classes if c], name])
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "failed"
        elif case.find("skipped") is not None:
            outcome = "skipped"
        else:
            outcome = "passed"
        outcomes[test_id] = _worse(outcomes.get(test_id), outcome)
    return outcomes


def parse_go_json(text: str) -> dict[str, str]:
    """`go test -json` events as {"<package>::<Test>": outcome}; a package that does not build has none."""
    outcomes: dict[str, str] = {}
    actions = {"pass": "passed", "fail": "failed", "skip": "skipped"}
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("Test") and event.get("Action") in actions:
            outcomes[f"{event.get('Package', '')}::{event['Test']}"] = actions[event["Action"]]
    return outcomes


def parse_cargo(text: str) -> dict[str, str]:
    """`cargo test`'s report as {"<target>::<test>": outcome}: `tests/parse.rs::negative`, `src/lib.rs::tests::x`."""
    outcomes: dict[str, str] = {}
    target = ""
    results = {"ok": "passed", "FAILED": "failed", "ignored": "skipped"}
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Running "):
            words = stripped.split()
            target = words[2] if len(words) > 2 and words[1] == "unittests" else words[1]
        elif stripped.startswith("Doc-tests "):
            target = "doc:" + stripped.split()[1]
        elif line.startswith("test ") and " ... " in line:
            name, _, result = line[5:].rpartition(" ... ")
            outcome = results.get(result.split()[0] if result.split() else "")
            if outcome:
                name = name.removesuffix(" - should panic").strip()
                outcomes[f"{target}::{name}"] = outcome
    return outcomes


def parse_node_events(text: str, tree: Path) -> dict[str, str]:
    """Our reporter's lines as {"<file>::<suite> > <test>": outcome}; a file that does not load fails as a whole."""
    outcomes: dict[str, str] = {}
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if not isinstance(event, dict) or "names" not in event or (event.get("suite") and event["outcome"] != "failed"):
            continue
        file = str(event.get("file") or "")
        with contextlib.suppress(ValueError):  # a file outside the tree keeps its own path
            file = Path(file).resolve().relative_to(tree.resolve()).as_posix()
        names = [str(n) for n in event["names"]]
        test_id = file if names == [event.get("file")] else f"{file}::{' > '.join(names)}"
        outcomes[test_id] = _worse(outcomes.get(test_id), event["outcome"])
    return outcomes


# ---------------------------------------------------------------- the verdict


@dataclass(frozen=True)
class Verdict:
    """The judge's findings on one result tree."""

    task: str
    fixed: bool
    broken: tuple[str, ...]
    still_failing: tuple[str, ...]  # fail_to_pass tests that do not pass
    preparation: Preparation = field(default_factory=Preparation)
    before: SuiteRun | None = None
    after: SuiteRun | None = None

    @property
    def solved(self) -> bool:
        return self.fixed and not self.broken

    def as_dict(self, outputs: bool = False) -> dict[str, Any]:
        """Plain data for JSON records; the suites' output tails only when asked."""
        data = asdict(self)
        data["solved"] = self.solved
        for side in ("before", "after"):
            if data[side] is not None and not outputs:
                data[side].pop("output")
        return json.loads(json.dumps(data))  # tuples as lists, as they read back from a file


def baseline(task_dir: Path, timeout_s: float = DEFAULT_TIMEOUT_S) -> SuiteRun:
    """The task's suite on its original repository (with the `judge/` tests): the 'before' side."""
    spec = load_spec(task_dir)
    with tempfile.TemporaryDirectory(prefix="judge-base-") as scratch:
        tree = Path(scratch) / "repo"
        prepare_base(spec, tree)
        return run_suite(spec, tree, timeout_s)


def judge(task_dir: Path, result_dir: Path, *, before: SuiteRun | None = None,
          timeout_s: float = DEFAULT_TIMEOUT_S) -> Verdict:
    """Judge the tree at `result_dir` against the task in `task_dir` (pass `before` to reuse a baseline)."""
    spec = load_spec(task_dir)
    if not Path(result_dir).is_dir():
        raise JudgeError(f"no result tree at {result_dir}")
    before = before if before is not None else baseline(spec.folder, timeout_s)
    with tempfile.TemporaryDirectory(prefix="judge-result-") as scratch:
        tree = Path(scratch) / "repo"
        preparation = prepare_result(spec, Path(result_dir), tree)
        after = run_suite(spec, tree, timeout_s)
    still_failing = tuple(t for t in spec.fail_to_pass if not after.passed(t))
    broken = tuple(sorted(t for t, outcome in before.outcomes.items()
                          if outcome == "passed" and not after.passed(t)))
    return Verdict(spec.folder.name, not still_failing, broken, still_failing, preparation, before, after)


def describe(verdict: Verdict) -> str:
    """A few lines for people."""
    word = "solved" if verdict.solved else ("fixed, but broke tests" if verdict.fixed else "not fixed")
    lines = [f"{verdict.task}: {word}"]
    lines += [f"  still failing: {t}" for t in verdict.still_failing]
    lines += [f"  broken: {t}" for t in verdict.broken]
    prep = verdict.preparation
    lines += [f"  put back: {p}" for p in prep.restored] + [f"  deleted by the agent: {p}" for p in prep.deleted_tests]
    lines += [f"  removed (harness the agent added): {p}" for p in prep.removed]
    if verdict.after is not None and verdict.after.timed_out:
        lines.append("  the suite ran out of time")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", type=Path, help="the task folder, bench/tasks/<id>")
    parser.add_argument("result", type=Path, help="the repository after the agent worked")
    parser.add_argument("--timeout-s", type=float, default=DEFAULT_TIMEOUT_S, help="per suite run")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    args = parser.parse_args(argv)
    try:
        verdict = judge(args.task, args.result, timeout_s=args.timeout_s)
    except JudgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(verdict.as_dict(outputs=True), indent=2) if args.json else describe(verdict))
    return 0 if verdict.solved else 1


if __name__ == "__main__":
    sys.exit(main())
