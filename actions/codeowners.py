"""CODEOWNERS as GitHub reads it: who owns a path. Pure: the file's text in, owners out.

GitHub looks for the file in `.github/`, the root, then `docs/`, and uses the first it finds. Each line
is a pattern and its owners (`@login`, `@org/team`, or an e-mail address); for a path, the last line
whose pattern matches wins, and a matching line with no owners leaves the path unowned.

Patterns are matched with the project's one glob engine (`common.globs`, gitignore rules), which is
how GitHub describes them, with GitHub's exceptions: a pattern starting with `!` (negation) or
holding `[` (a character range) is not supported by GitHub and its line is skipped here, as GitHub
skips an invalid line; `\\#` escapes are not supported either (a `#` starts a comment). E-mail owners
cannot be matched to a login and are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

from common.globs import PathPatterns

LOCATIONS = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")


@dataclass(frozen=True)
class Rule:
    """One CODEOWNERS line: its pattern (compiled) and its owners (`login` or `org/team`, without `@`)."""

    pattern: str
    owners: tuple[str, ...]
    line: int

    def matches(self, path: str) -> bool:
        """True when the rule's pattern selects the repository-relative `path`."""
        return PathPatterns([self.pattern]).matches(path)


def parse_codeowners(text: str) -> list[Rule]:
    """The rules of a CODEOWNERS file, in file order; unsupported and ownerless-by-mistake lines as GitHub treats them."""
    rules = []
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        pattern, *owners = line.split()
        if pattern.startswith("!") or "[" in pattern:
            continue  # not supported by GitHub: the line is invalid and does nothing
        rules.append(Rule(pattern, tuple(o[1:] for o in owners if o.startswith("@") and len(o) > 1), number))
    return rules


def owners_of(rules: list[Rule], path: str) -> tuple[str, ...]:
    """The owners of `path`: the last matching rule's (none when no rule matches, or the last one names none)."""
    for rule in reversed(rules):
        if rule.matches(path):
            return rule.owners
    return ()
