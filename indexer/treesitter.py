"""Tree-sitter chunking for languages other than Python, when a grammar is installed locally.

Grammars come from the per-language packages the project depends on (`tree_sitter_javascript`,
`tree_sitter_typescript`, `tree_sitter_go`, `tree_sitter_rust`, `tree_sitter_java`, `tree_sitter_c`,
`tree_sitter_cpp`), or from `tree-sitter-language-pack` when it already holds a grammar (Ruby and
others); nothing is ever downloaded. Without a
grammar, or when parsing fails, the caller falls back to line windows.
"""

from __future__ import annotations

import importlib
import logging
import posixpath
from functools import cache
from typing import TYPE_CHECKING

from common.languages import tree_sitter_grammars
from indexer.chunks import MAX_CHUNK_LINES, Chunk, chunk_windows

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

log = logging.getLogger(__name__)

LANGUAGES = tree_sitter_grammars()  # suffix -> grammar, from the one language registry
# Node types that make a chunk of their own; the key is the kind reported on the chunk.
DEFINITIONS = {
    "function": {"function_declaration", "function_definition", "function_item", "method_declaration",
                 "method_definition", "constructor_declaration", "generator_function_declaration", "method"},
    "class": {"class_declaration", "class_definition", "class_specifier", "struct_item", "impl_item",
              "interface_declaration", "enum_declaration", "trait_item", "struct_specifier", "type_declaration",
              "enum_item", "class", "module", "abstract_class_declaration", "type_alias_declaration", "mod_item"},
}
CONTAINERS = {"class_body", "declaration_list", "field_declaration_list", "body_statement", "program",
              "source_file", "translation_unit", "export_statement", "lexical_declaration", "variable_declaration"}
# `const parse = (s) => ...`, `static wrap = function () {}`: a name bound to a function is a function
FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
BINDINGS = {"variable_declarator", "public_field_definition", "field_definition"}


# language -> (grammar package module, its factory function); the packages are dependencies.
GRAMMARS = {"typescript": ("tree_sitter_typescript", "language_typescript"),
            "tsx": ("tree_sitter_typescript", "language_tsx")}


@cache
def _parser(language: str) -> Parser | None:
    """A parser for `language` from a locally installed grammar, or None."""
    try:
        from tree_sitter import Language, Parser

        module_name, factory_name = GRAMMARS.get(language, (f"tree_sitter_{language}", "language"))
        factory = getattr(importlib.import_module(module_name), factory_name)
        return Parser(Language(factory()))
    except Exception:  # noqa: BLE001 - no per-language package: try the language pack's local cache
        pass
    try:
        import tree_sitter_language_pack as pack

        if language in set(pack.downloaded_languages()):
            return pack.get_parser(language)
    except Exception as exc:  # noqa: BLE001
        log.debug("no tree-sitter grammar for %s: %s", language, exc)
    return None


def syntax_tree(path: str, text: str) -> Node | None:
    """The root of `text`'s tree-sitter tree (parsed as UTF-8 bytes, so node offsets are byte offsets), for a file
    whose language has a grammar here; None without one, or when parsing fails."""
    language = LANGUAGES.get(posixpath.splitext(path)[1])
    parser = _parser(language) if language else None
    if parser is None:
        return None
    try:
        return parser.parse(text.encode("utf-8", "replace")).root_node
    except Exception:  # noqa: BLE001 - a grammar crash is no tree, not an error
        return None


def chunk_with_tree_sitter(path: str, text: str) -> list[Chunk] | None:
    """Definitions found by tree-sitter, or None when no grammar is available or parsing fails."""
    root = syntax_tree(path, text)
    if root is None or (root.has_error and root.child_count == 0):
        return None
    lines = text.splitlines()
    chunks: list[Chunk] = []
    _walk(path, lines, root, "", chunks)
    if root.has_error and not chunks:
        return None  # nothing recognisable in a file that does not parse: line windows serve better
    covered = {ln for c in chunks for ln in range(c.start_line, c.end_line + 1)}
    rest = [i + 1 for i in range(len(lines)) if i + 1 not in covered and lines[i].strip()]
    if rest:
        kept = rest[:MAX_CHUNK_LINES]
        chunks.insert(0, Chunk(path, kept[0], kept[-1], "", "module", "\n".join(lines[i - 1] for i in kept)))
    return chunks


def _kind(node: Node) -> str | None:
    """'function', 'class', or None for a node that defines nothing by itself."""
    if node.type in BINDINGS:
        value = node.child_by_field_name("value")
        return "function" if value is not None and value.type in FUNCTION_VALUES else None
    if node.type == "type_declaration" and _grouped(node):
        return None  # Go's `type ( A ...; B ... )`: each spec is a definition of its own
    if node.type == "type_spec":
        return "class" if node.parent is not None and _grouped(node.parent) else None
    return next((k for k, types in DEFINITIONS.items() if node.type in types), None)


def _grouped(declaration: Node) -> bool:
    return sum(1 for c in declaration.named_children if c.type == "type_spec") > 1


def _walk(path: str, lines: list[str], node: Node, prefix: str, out: list[Chunk]) -> None:
    for child in node.named_children:  # not keywords: the `class` token is no class
        kind = _kind(child)
        if kind is None:
            if child.type == "type_declaration":
                _walk(path, lines, child, prefix, out)
                continue
            if child.type in CONTAINERS or child.child_count and child.type.endswith(("_statement", "declaration")):
                _walk(path, lines, child, prefix, out)
            continue
        name = _name(child)
        symbol = f"{prefix}{name}" if name else prefix.rstrip(".")
        start, end = child.start_point[0] + 1, child.end_point[0] + 1
        signature = lines[start - 1].strip() if start - 1 < len(lines) else ""
        body = "\n".join(lines[start - 1:end])
        if kind == "class":
            inner: list[Chunk] = []
            _walk(path, lines, child, f"{symbol}.", inner)
            if inner:
                header = "\n".join(lines[start - 1:min(end, start + 4)])
                out.append(Chunk(path, start, end, symbol, "class", header, signature))
                out.extend(inner)
                continue
        if end - start + 1 > MAX_CHUNK_LINES:
            out.extend(Chunk(path, c.start_line, c.end_line, symbol, kind, c.text, signature)
                       for c in chunk_windows(path, body, MAX_CHUNK_LINES // 2, 10, start, symbol))
        else:
            out.append(Chunk(path, start, end, symbol, kind, body, signature))


def _name(node: Node) -> str:
    """The name a definition declares, wherever its grammar keeps it."""
    field = "type" if node.type == "impl_item" else "name"  # Rust: `impl Stack { ... }`
    if (found := node.child_by_field_name(field)) is not None:
        if node.type == "impl_item" and found.type != "type_identifier":  # `impl<C> Bucket<C>`: Bucket
            found = _first(found, "type_identifier") or found
        receiver = node.child_by_field_name("receiver") if node.type == "method_declaration" else None
        owner = _first(receiver, "type_identifier") if receiver is not None else None
        return f"{_text(owner)}.{_text(found)}" if owner is not None else _text(found)  # Go: (s *Stack) Push
    declarator = node.child_by_field_name("declarator")  # C/C++: `int add(int a)` nests the name
    while declarator is not None:
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            return _text(declarator) if declarator.type.endswith("identifier") else ""
        declarator = inner
    for child in node.named_children:  # Go: `type Stack struct` keeps it in a type_spec
        if child.type.endswith("_spec") and (found := child.child_by_field_name("name")) is not None:
            return _text(found)
    return ""


def _first(node: Node, kind: str) -> Node | None:
    """The first node of type `kind` under `node`, depth first."""
    if node.type == kind:
        return node
    for child in node.named_children:
        if (found := _first(child, kind)) is not None:
            return found
    return None


def _text(node: Node) -> str:
    return bytes(node.text or b"").decode("utf-8", "replace")
