"""The chunker on tricky Python and on other text."""

from __future__ import annotations

from indexer.chunking import chunk_file, module_name

TRICKY = '''\
import functools

CONSTANT = 1


@functools.lru_cache()
@staticmethod
def decorated(a, b):
    return a + b


class Outer:
    """Outer docs."""

    limit = 3

    class Inner:
        def deep(self, x: int) -> int:
            return x

    async def fetch(self, url):
        await something(url)


async def top_level_async():
    pass
'''


def by_symbol(chunks):
    return {c.symbol: c for c in chunks}


def test_decorators_belong_to_their_function():
    chunk = by_symbol(chunk_file("m.py", TRICKY))["decorated"]
    assert chunk.kind == "function"
    assert chunk.start_line == 6 and chunk.end_line == 9
    assert chunk.text.startswith("@functools.lru_cache()")


def test_nested_classes_and_async_methods_carry_their_class():
    chunks = by_symbol(chunk_file("m.py", TRICKY))
    assert chunks["Outer.Inner.deep"].kind == "method"
    assert "class Inner:" in chunks["Outer.Inner.deep"].text  # the class context travels with the method
    assert chunks["Outer.fetch"].kind == "method"
    assert chunks["Outer.fetch"].signature == "    async def fetch(self, url):"
    assert chunks["top_level_async"].kind == "function"
    assert "limit = 3" in chunks["Outer"].text and "async def fetch(self, url): ..." in chunks["Outer"].text


def test_module_chunk_holds_imports_and_globals():
    module = [c for c in chunk_file("pkg/m.py", TRICKY) if c.kind == "module"]
    assert len(module) == 1
    assert "import functools" in module[0].text and "CONSTANT = 1" in module[0].text
    assert "def decorated" not in module[0].text


def test_syntax_error_falls_back_to_windows():
    text = "def broken(:\n" + "\n".join(f"x{i} = {i}" for i in range(100))
    chunks = chunk_file("broken.py", text)
    assert chunks and all(c.kind == "window" for c in chunks)
    assert chunks[0].start_line == 1
    assert chunks[-1].end_line == 101
    # windows overlap, so a line near a boundary is never cut off from its neighbours
    assert chunks[1].start_line <= chunks[0].end_line


def test_other_text_is_windowed_and_empty_files_have_no_chunks():
    assert chunk_file("notes.txt", "   \n\n") == []
    chunks = chunk_file("README.md", "hello\nworld\n")
    assert [(c.start_line, c.end_line, c.kind) for c in chunks] == [(1, 2, "window")]


def test_module_names_follow_python_imports():
    assert module_name("src/pkg/sub/mod.py") == "pkg.sub.mod"
    assert module_name("pkg/__init__.py") == "pkg"
