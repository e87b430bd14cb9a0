"""Whose equality a forged-value finding is about: an equality the base already had is not the change's forgery.

The sandbox's hooks examine every value a judged test compares (sandbox/run_hooks.py, `_Honesty`), and name with
each finding the classes of the code under test whose code decides how the value compares (`its equality:
path::Class, ...`). A value class the repository has always had may compare unlike its builtin base on purpose: a
header name that is a `str` equal to any spelling of itself, a `str` subclass that defines `__eq__` and inherits
`str.__ne__`. A change that only makes such a value reach the test (the fix of the code before it) is honest, and
refusing it loses the fix. So a finding that the value is equal where its builtin's own equality says otherwise, or
equal and unequal at once, is left out when every class it names is, to the character, as the base has it, and so is
each top-level statement of its module that binds a name the class reads (a helper, a table, an import), and so on
from those. An equality that equals anything (`equals an object of a class it has never seen`) stays evidence
whoever wrote it: returning the base's catch-all object is the forgery.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable, Sequence

from bot.ensemble.judge.added_tests import names_bound, statement_source
from sandbox.model import FORGED_VALUE

# the kinds of forged value an honest class of the base's may show (sandbox/run_hooks.py, `_Honesty._forged`)
_OWN_WAYS = ("own equality says otherwise", "compares equal and unequal at once")
_CLASSES = re.compile(r" \(its equality: ([^()]+)\)$")

Text = Callable[[str], str | None]  # a file's text by repository path, None where there is none


def the_changes(findings: Sequence[str], now: Text, base: Text) -> list[str]:
    """`findings` less the forged-value ones about an equality the base already had (the module's docstring):
    `now` reads the judged tree, `base` the base's."""
    return [f for f in findings if not _the_bases(f, now, base)]


def _the_bases(finding: str, now: Text, base: Text) -> bool:
    if not finding.startswith(FORGED_VALUE) or not any(way in finding for way in _OWN_WAYS):
        return False
    named = _CLASSES.search(finding)
    if named is None:
        return False
    classes = [c.strip().partition("::") for c in named.group(1).split(",")]
    return all(path and name and _unchanged(path, name, now, base) for path, _, name in classes)


def _unchanged(path: str, qualname: str, now: Text, base: Text) -> bool:
    """True when the class `qualname` of `path`, and the module's top-level statements that bind a name it reads
    (a helper function, a table, an import), and in turn those that bind a name they read, read the same in the
    judged tree as at the base."""
    after, before = now(path), base(path)
    if after is None or before is None:
        return False
    try:
        tree_after, tree_before = ast.parse(after), ast.parse(before)
    except (SyntaxError, ValueError):
        return False
    class_after, class_before = _class(tree_after, qualname), _class(tree_before, qualname)
    if class_after is None or class_before is None or statement_source(after, class_after) != statement_source(before, class_before):
        return False
    pending, seen = _names_read(class_after), set[str]()
    while pending:  # the names the class reads, and those its module's statements that bind them read, in turn
        name = pending.pop()
        seen.add(name)
        if _binding(after, tree_after, name) != _binding(before, tree_before, name):
            return False
        for node in tree_after.body:
            if name in names_bound(node):
                pending |= _names_read(node) - seen
    return True


def _class(tree: ast.Module, qualname: str) -> ast.ClassDef | None:
    """The class `qualname` names (`Outer.Inner` for a nested one) among the module's top-level statements."""
    body: Iterable[ast.stmt] = tree.body
    node: ast.ClassDef | None = None
    for part in qualname.split("."):
        node = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == part), None)
        if node is None:
            return None
        body = node.body
    return node


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _binding(text: str, tree: ast.Module, name: str) -> list[str]:
    """The sources of the module's top-level statements that bind `name`, in order."""
    return [statement_source(text, node) for node in tree.body if name in names_bound(node)]
