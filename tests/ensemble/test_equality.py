"""Whose equality a forged-value finding is about (bot/ensemble/judge/equality.py): the base's is not the change's."""

from __future__ import annotations

import pytest

from bot.ensemble.judge.equality import the_changes

BASE = """from names.normal import fold


def _key(text):
    return fold(text)


class Name(str):
    class Part(str):
        def __eq__(self, other):
            return _key(self) == _key(other)

    def __eq__(self, other):
        return isinstance(other, str) and _key(self) == _key(other)


def parse(line):
    return Name(line.split(': ')[0])
"""
OWN = ("forged_value: tests/test_names.py:6: a names.core.Name of the code under test is equal where str's own "
       "equality says otherwise: a comparison with it proves nothing (its equality: names/core.py::Name)")


def kept(finding: str, now: str, base: str | None = BASE) -> bool:
    return the_changes([finding], {"names/core.py": now}.get, {"names/core.py": base}.get) == [finding]


def test_an_equality_the_base_had_is_not_the_changes_though_the_file_changed() -> None:
    fixed = BASE.replace("line.split(': ')[0]", "line.split(':', 1)[0].strip()")
    assert not kept(OWN, fixed)
    unequal = OWN.replace("is equal where str's own equality says otherwise", "compares equal and unequal at once")
    assert not kept(unequal, fixed)
    nested = OWN.replace("names/core.py::Name)", "names/core.py::Name.Part)")
    assert not kept(nested, fixed)


CHANGES = {
    "the method": ("isinstance(other, str) and _key(self)", "isinstance(other, str) or _key(self)"),
    "a decorator": ("class Name(str):", "@register\nclass Name(str):"),
    "a helper it calls": ("    return fold(text)", "    return ''"),
    "an import it reads through": ("from names.normal import fold", "from names.loose import fold"),
}


@pytest.mark.parametrize("change", list(CHANGES))
def test_an_equality_the_change_touched_stays_evidence(change: str) -> None:
    old, new = CHANGES[change]
    assert kept(OWN, BASE.replace(old, new))


def test_what_equals_anything_new_classes_and_unnamed_ones_stay_evidence() -> None:
    anything = OWN.replace("is equal where str's own equality says otherwise",
                           "equals an object of a class it has never seen")
    assert kept(anything, BASE)  # the base's catch-all returned by the change is the forgery
    assert kept(OWN, BASE, base=None)  # a module the base did not have
    assert kept(OWN.replace("names/core.py::Name", "names/core.py::Other"), BASE)
    assert kept(OWN.replace(" (its equality: names/core.py::Name)", ""), BASE)
    two = OWN.replace("names/core.py::Name)", "names/core.py::Name, names/extra.py::Loose)")
    assert kept(two, BASE)  # every class named must be the base's
