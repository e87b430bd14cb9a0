"""Chunking: Python by `ast`, other languages by tree-sitter when a grammar is installed, else line windows.

Pure functions over text: no I/O. Every chunk carries its path, 1-based inclusive line range,
symbol (dotted, e.g. `Class.method`) and kind (`function`, `method`, `class`, `module`, `window`, ...).
"""

from __future__ import annotations

import ast

from common.languages import is_language
from indexer.chunks import MAX_CHUNK_LINES, Chunk, chunk_windows
from indexer.treesitter import chunk_with_tree_sitter

# Bump when chunking or the BM25 tokenization changes: indexes built before are then rebuilt.
# 2: tree-sitter grammars from per-language packages, names of Go, Rust and C/C++ definitions.
# 3: Go methods named with their receiver's type (Stack.Push).
# 4: TS/JS functions bound to names (`const f = () =>`), abstract classes, type aliases, Rust `mod` and
#    generic impls (`impl<C> Bucket<C>` is Bucket), each spec of Go's grouped `type ( ... )`.
CHUNKER_VERSION = 4


def chunk_file(path: str, text: str) -> list[Chunk]:
    """Split one file into chunks, choosing the chunker by file extension."""
    if not text.strip():
        return []
    if is_language(path, "python"):
        chunks = chunk_python(path, text)
        if chunks is not None:
            return chunks
    else:
        chunks = chunk_with_tree_sitter(path, text)
        if chunks is not None:
            return chunks
    return chunk_windows(path, text)


def chunk_python(path: str, text: str) -> list[Chunk] | None:
    """Functions, methods (with their class as context), classes and a module chunk; None on a syntax error."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    lines = text.splitlines()
    chunks: list[Chunk] = []
    module_lines: list[int] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            chunks.extend(_python_definition(path, lines, node, prefix="", context=""))
        else:
            module_lines.extend(range(_first_line(node), (node.end_lineno or node.lineno) + 1))
    if module_lines:
        chunks.insert(0, _module_chunk(path, lines, sorted(set(module_lines))))
    return chunks


def _first_line(node: ast.stmt) -> int:
    """The statement's first line: its first decorator's, for a decorated definition."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return node.lineno


def _python_definition(path: str, lines: list[str], node: ast.AST, prefix: str, context: str) -> list[Chunk]:
    assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    start, end = _first_line(node), node.end_lineno or node.lineno
    symbol = f"{prefix}{node.name}"
    signature = _signature(lines, node)
    if isinstance(node, ast.ClassDef):
        return _python_class(path, lines, node, symbol, signature, context)
    kind = "method" if prefix else "function"
    body = "\n".join(lines[start - 1:end])
    text = f"{context}\n{body}" if context else body
    if end - start + 1 > MAX_CHUNK_LINES:
        head = f"{context}\n{signature}" if context else signature
        return [Chunk(path, c.start_line, c.end_line, symbol, kind, f"{head}\n{c.text}", signature)
                for c in chunk_windows(path, body, MAX_CHUNK_LINES // 2, 10, start, symbol)]
    return [Chunk(path, start, end, symbol, kind, text, signature)]


def _python_class(path: str, lines: list[str], node: ast.ClassDef, symbol: str, signature: str,
                  context: str) -> list[Chunk]:
    """A class chunk (header, docstring, attributes) plus one chunk per method or nested class."""
    members = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)]
    member_lines = {ln for n in members for ln in range(_first_line(n), (n.end_lineno or n.lineno) + 1)}
    start, end = _first_line(node), node.end_lineno or node.lineno
    own = [lines[i - 1] for i in range(start, end + 1) if i not in member_lines]
    own += [f"    {_signature(lines, m).strip()} ..." for m in members]
    class_context = f"{context}\n{signature}" if context else signature
    text = "\n".join(own[:MAX_CHUNK_LINES])
    chunks = [Chunk(path, start, end, symbol, "class", f"{context}\n{text}" if context else text, signature)]
    for member in members:
        chunks.extend(_python_definition(path, lines, member, prefix=f"{symbol}.", context=class_context))
    return chunks


def _signature(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> str:
    """The `def`/`class` header lines up to the body, without decorators."""
    first = node.lineno
    last = max(first, node.body[0].lineno - 1) if node.body else first
    header = [line.rstrip() for line in lines[first - 1:last]]
    text = "\n".join(h for h in header if h.strip())
    return text.rstrip() or lines[first - 1].rstrip()


def _module_chunk(path: str, lines: list[str], numbers: list[int]) -> Chunk:
    """Imports, globals and top-level statements, capped in length."""
    kept = numbers[:MAX_CHUNK_LINES]
    text = "\n".join(lines[i - 1] for i in kept if i - 1 < len(lines))
    return Chunk(path, kept[0], kept[-1], module_name(path), "module", text)


def module_name(path: str) -> str:
    """`src/pkg/mod.py` -> `pkg.mod`; the dotted name issues use for a module."""
    stem = path.rsplit(".", 1)[0] if "." in path.rsplit("/", 1)[-1] else path
    parts = [p for p in stem.split("/") if p not in ("src", "lib")]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)
