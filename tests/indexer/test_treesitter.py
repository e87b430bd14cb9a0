"""Tree-sitter chunking of other languages through the installed grammar packages."""

from __future__ import annotations

import pytest

from indexer.chunking import chunk_file

SAMPLES = {
    "web/stack.js": ("import x from 'y';\nfunction add(a, b) {\n  return a + b;\n}\nclass Stack {\n  push(v) {\n"
                     "    this.items.push(v);\n  }\n}\n",
                     [("add", "function", 2, 4), ("Stack", "class", 5, 9), ("Stack.push", "function", 6, 8)]),
    "src/shape.ts": ("interface Shape {\n  area(): number;\n}\nexport class Circle implements Shape {\n"
                     "  area(): number {\n    return 3.14;\n  }\n}\n",
                     [("Shape", "class", 1, 3), ("Circle", "class", 4, 8), ("Circle.area", "function", 5, 7)]),
    "ui/button.tsx": ("import React from 'react';\nexport function Button(props: {label: string}) {\n"
                      "  return <button>{props.label}</button>;\n}\n", [("Button", "function", 2, 4)]),
    "stack.go": ("package main\n\ntype Stack struct {\n\titems []int\n}\n\nfunc (s *Stack) Push(v int) {\n"
                 "\ts.items = append(s.items, v)\n}\n", [("Stack", "class", 3, 5), ("Stack.Push", "function", 7, 9)]),
    "src/lib.rs": ("struct Stack { items: Vec<i32> }\n\nimpl Stack {\n    fn push(&mut self, v: i32) {\n"
                   "        self.items.push(v);\n    }\n}\n",
                   [("Stack", "class", 1, 1), ("Stack", "class", 3, 7), ("Stack.push", "function", 4, 6)]),
    "Stack.java": ("package x;\n\npublic class Stack {\n    private int n;\n    public void push(int v) {\n"
                   "        n++;\n    }\n}\n", [("Stack", "class", 3, 8), ("Stack.push", "function", 5, 7)]),
    "add.c": ("#include <stdio.h>\n\nint add(int a, int b) {\n    return a + b;\n}\n", [("add", "function", 3, 5)]),
    "stack.cpp": ("#include <vector>\n\nclass Stack {\n public:\n  void push(int v) { items.push_back(v); }\n"
                  " private:\n  std::vector<int> items;\n};\n",
                  [("Stack", "class", 3, 8), ("Stack.push", "function", 5, 5)]),
}


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_definitions_become_chunks_with_names_and_lines(path: str) -> None:
    text, expected = SAMPLES[path]
    chunks = chunk_file(path, text)
    found = [(c.symbol, c.kind, c.start_line, c.end_line) for c in chunks if c.kind != "module"]
    assert found == expected
    assert all(c.kind != "window" and c.path == path for c in chunks)
    assert text.splitlines()[expected[0][2] - 1] in chunks[[c.symbol for c in chunks].index(expected[0][0])].text


def test_a_file_that_does_not_parse_falls_back_to_windows() -> None:
    chunks = chunk_file("broken.js", "function (((( {\n" * 3)
    assert chunks and {c.kind for c in chunks} == {"window"}


def test_a_language_without_a_grammar_falls_back_to_windows() -> None:
    chunks = chunk_file("notes.txt", "plain text\n" * 5)
    assert chunks and {c.kind for c in chunks} == {"window"}
