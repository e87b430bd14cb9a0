"""The module import graph holds the layering docs/architecture.md states, and has no cycles.

Every import counts: at the top of a module, inside a function, and under `TYPE_CHECKING`. An
import hidden in a function still ties the two modules together; it only hides the tie from the
reader and from the interpreter until the call.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("actions", "bot", "indexer", "sandbox", "common")
# what runs the product without being it: the shared fakes, the benchmark scripts, the tests
HARNESS = ("fakes", "bench", "tests")
# package -> the project packages it may import (docs/architecture.md: actions -> bot -> indexer, sandbox -> common;
# the product never imports the harness, and bench/ runs without tests/)
MAY_IMPORT = {
    "actions": {"actions", "bot", "indexer", "sandbox", "common"},
    "bot": {"bot", "indexer", "sandbox", "common"},
    "indexer": {"indexer", "common"},
    "sandbox": {"sandbox", "common"},
    "common": {"common"},
    "fakes": {*PACKAGES, "fakes"},
    "bench": {*PACKAGES, "fakes", "bench"},
    "tests": {*PACKAGES, *HARNESS},
}
NOT_THE_PROJECT = ("bench/tasks",)  # the benchmark's task repositories: their own code, with their own tests


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` (bench/'s scripts count as `bench.<name>`)."""
    found = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if path.relative_to(root).as_posix().startswith(NOT_THE_PROJECT):
                continue
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imported_names(path: Path, module: str) -> Iterator[str]:
    """Every name `path` imports, absolute, wherever the import statement is."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)


def graph(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the project modules it imports (a name imported from a module counts as that module)."""
    def resolve(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    edges: dict[str, set[str]] = {}
    for module, path in known.items():
        targets = {resolve(name) for name in imported_names(path, module)}
        # a package importing its own submodules is how a package re-exports; a module never counts itself
        edges[module] = {t for t in targets if t and t != module and not t.startswith(module + ".")}
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def layer_violations(edges: dict[str, set[str]]) -> list[str]:
    """Each import of a package that MAY_IMPORT does not allow its importer, in words."""
    return sorted(f"{module} imports {target}" for module, targets in edges.items() for target in targets
                  if target.split(".")[0] not in MAY_IMPORT[module.split(".")[0]])


@pytest.fixture(scope="module")
def edges() -> dict[str, set[str]]:
    return graph(modules())


def test_the_project_has_no_import_cycles(edges: dict[str, set[str]]) -> None:
    assert cycles(edges) == []


def test_every_package_imports_only_the_layers_below_it() -> None:
    assert layer_violations(graph(modules(ROOT, PACKAGES + HARNESS))) == []


# a role's package and its face: nothing outside the package imports its inner modules (docs/architecture.md)
FACES = ("bot.ensemble.judge", "bot.ensemble.coder")


def face_violations(edges: dict[str, set[str]], faces: tuple[str, ...] = FACES) -> list[str]:
    """Each import of a role's inner module from outside its package, in words."""
    return sorted(f"{module} imports {target}, inside {face}" for face in faces for module, targets in edges.items()
                  if module != face and not module.startswith(face + ".")
                  for target in targets if target.startswith(face + "."))


def test_no_module_reaches_past_a_roles_face(edges: dict[str, set[str]]) -> None:
    assert face_violations(edges) == []


def test_reaching_past_a_face_is_found(tmp_path: Path) -> None:
    (tmp_path / "bot" / "ensemble" / "judge").mkdir(parents=True)
    for init in ("bot", "bot/ensemble", "bot/ensemble/judge"):
        (tmp_path / init / "__init__.py").write_text("")
    (tmp_path / "bot" / "ensemble" / "judge" / "twins.py").write_text("")
    (tmp_path / "bot" / "ensemble" / "team.py").write_text("from bot.ensemble.judge import twins\n")
    (tmp_path / "bot" / "ensemble" / "rounds.py").write_text("def f():\n    from bot.ensemble.judge.twins import x\n")
    found = face_violations(graph(modules(tmp_path, ("bot",))))
    assert found == ["bot.ensemble.rounds imports bot.ensemble.judge.twins, inside bot.ensemble.judge",
                     "bot.ensemble.team imports bot.ensemble.judge.twins, inside bot.ensemble.judge"]


def test_the_product_importing_the_fakes_and_bench_importing_tests_are_found(tmp_path: Path) -> None:
    for package in (*PACKAGES, *HARNESS):
        (tmp_path / package).mkdir()
        if package != "bench":  # bench/ is a folder of scripts
            (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "fakes" / "github_server.py").write_text("import bot\n")
    (tmp_path / "tests" / "conftest.py").write_text("from fakes.github_server import FakeGitHub\n")
    (tmp_path / "bot" / "cli.py").write_text("def main():\n    from fakes import github_server\n")
    (tmp_path / "bench" / "load.py").write_text("import sys\nfrom tests.conftest import hub  # noqa: E402\n")
    (tmp_path / "bench" / "tasks" / "t1" / "tests").mkdir(parents=True)
    (tmp_path / "bench" / "tasks" / "t1" / "app.py").write_text("from tests import helpers\n")  # not ours
    found = layer_violations(graph(modules(tmp_path, PACKAGES + HARNESS)))
    assert found == ["bench.load imports tests.conftest", "bot.cli imports fakes", "bot.cli imports fakes.github_server"]


def test_a_cycle_hidden_in_a_function_or_under_type_checking_is_found(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "__init__.py").write_text("")
    (tmp_path / "common" / "a.py").write_text("from typing import TYPE_CHECKING\n"
                                              "if TYPE_CHECKING:\n    from common.b import B\n")
    (tmp_path / "common" / "b.py").write_text("def f():\n    from . import a\n    return a\n")
    (tmp_path / "common" / "c.py").write_text("import common.a\n")
    for package in PACKAGES[:-1]:
        (tmp_path / package).mkdir()
    assert cycles(graph(modules(tmp_path))) == [["common.a", "common.b"]]
