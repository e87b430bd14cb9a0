"""The edit-format instructions: the task's real paths, and a worked example the coder cannot mistake for its task."""

from __future__ import annotations

from bot.ensemble.coder import prompts as coder_prompts
from bot.ensemble.coder.apply import apply_edit_blocks, parse_edit_blocks
from bot.ensemble.coder.formats import BLOCKS, EXAMPLE, EXAMPLE_FILE, EXAMPLE_PATH, EXAMPLE_WHY, WHOLE
from bot.ensemble.planner import parse_plan
from bot.ensemble.types import Task


def test_the_rules_name_the_tasks_real_paths_and_no_placeholder() -> None:
    text = BLOCKS.rules(["stats/core.py", "tests/test_core.py"])
    assert "stats/core.py, tests/test_core.py" in text
    assert "path/to" not in text and "path/to" not in BLOCKS.example_answer(())


def test_the_worked_example_parses_back_to_its_block_and_applies_to_its_toy_file() -> None:
    parsed = parse_edit_blocks(BLOCKS.example_answer(()))
    assert [(b.path, b.search, b.replace) for b in parsed.blocks] == [EXAMPLE]
    result = apply_edit_blocks(parsed.blocks, {EXAMPLE_PATH: EXAMPLE_FILE})
    assert result.complete and "price or 0" in result.changes[EXAMPLE_PATH]


def test_the_example_is_an_earlier_exchange_before_the_task() -> None:
    plan = parse_plan({"summary": "s", "files": ["stats/core.py"], "steps": ["Reproduction test: tests/t.py"]})
    messages = coder_prompts.coder_messages(Task("bug", "median is wrong"), plan, {"stats/core.py": "x = 1\n"}, "", "", "")
    assert [m.role for m in messages] == ["system", "user", "assistant", "user"]
    assert EXAMPLE_PATH in messages[1].content and messages[2].content == BLOCKS.example_answer(())
    assert "stats/core.py, tests/t.py" in messages[-1].content  # the reproduction test's path too
    assert "<<<BEGIN task>>>" in messages[3].content and EXAMPLE_PATH not in messages[3].content


def test_the_example_never_shares_a_file_or_folder_name_with_the_task() -> None:
    # A task whose own file is shop/cart.py: shown a toy shop/cart.py too, a small coder mixed the two up.
    plan = parse_plan({"summary": "s", "files": ["shop/cart.py"], "steps": ["fix"]})
    messages = coder_prompts.coder_messages(Task("bug", "cart"), plan, {"shop/cart.py": "class Cart: ...\n"}, "", "", "")
    toy = messages[2].content.splitlines()[0]
    assert toy != "shop/cart.py" and not {"shop", "cart.py"} & set(toy.split("/"))
    assert "shop/cart.py" not in messages[1].content + messages[2].content
    # a copy of the example as shown is still recognised as the example, not applied
    from bot.ensemble.coder.formats import example
    from bot.ensemble.coder.turns import _without_example

    parsed = parse_edit_blocks(messages[2].content)
    kept, copied = _without_example(parsed, example(["shop/cart.py"]))
    assert not kept.blocks and copied and copied[0].reason == "example"


def test_whole_file_listings_are_read_with_their_paths_and_never_from_a_cut_or_block_fence() -> None:
    from bot.ensemble.coder.parsing import parse_whole_files

    reply = ("I will pad the numbers.\n\ntimefmt.py\n```python\ndef f():\n    return 1\n```\n\n"
             "```python src/y.py\ny = 2\n```\n"
             "b.py\n```\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n"
             "cut.py\n```\nnever closed\n")
    assert parse_whole_files(reply) == [("timefmt.py", "def f():\n    return 1\n"), ("src/y.py", "y = 2\n")]


def test_a_listing_names_its_file_in_a_first_line_comment_or_is_the_one_file_to_change() -> None:
    from bot.ensemble.coder.parsing import parse_whole_files

    commented = "Here it is:\n```python\n# shop/cart.py\nx = 2\n```\n```js\n// lib/emitter.js\nlet y = 1;\n```\n"
    assert parse_whole_files(commented) == [("shop/cart.py", "x = 2\n"), ("lib/emitter.js", "let y = 1;\n")]
    current = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    pathless = "The fix:\n```python\ndef f():\n    return 3\n\n\ndef g():\n    return 2\n```\n"
    assert parse_whole_files(pathless, ("m.py", current)) == [("m.py", "def f():\n    return 3\n\n\ndef g():\n    return 2\n")]
    # never without the one file to change, and never a listing that is something else (a new test, say)
    assert parse_whole_files(pathless) == []
    other = "```python\nimport unittest\n\n\nclass T(unittest.TestCase):\n    pass\n```\n"
    assert parse_whole_files(other, ("m.py", current)) == []
    # a shebang or a prose comment is no path
    assert parse_whole_files("```\n#!/usr/bin/env python\nx = 1\n```\n") == []


def test_the_whole_format_asks_for_whole_files_and_shows_its_example_so() -> None:
    from bot.ensemble.coder.parsing import parse_whole_files

    assert "complete file" in WHOLE.rules(["a.py"]) and "SEARCH" not in WHOLE.rules(["a.py"])[:200]
    path, search, content = WHOLE.example(["a.py"])
    assert parse_whole_files(WHOLE.example_answer(["a.py"])) == [(path, content)] and search == ""
    assert "price or 0" in content and "def count(items)" in content
    # what is wrong and the change, said before the file: the rules ask for it and the example answer shows it
    assert "First say in one or two sentences what is wrong" in WHOLE.rules(["a.py"])
    assert WHOLE.example_answer(["a.py"]).startswith(EXAMPLE_WHY + "\n\n" + path + "\n```")


LOADER = ('"""Reading the settings."""\n\nimport configparser\n\nfrom appconfig.defaults import DEFAULTS\n\n\n'
          'def load(path):\n    """The settings."""\n    parser = configparser.ConfigParser()\n    parser.read(path)\n'
          '    section = parser["server"]\n    return {\n        "host": section.get("host", DEFAULTS["host"]),\n'
          '        "port": int(section["port"]),\n    }\n\n\ndef names(path):\n    return list(load(path))\n')


def test_a_part_of_a_file_sent_as_the_whole_file_replaces_that_part_only() -> None:
    """The local 1.5B coder sent only the function it changed as `appconfig/loader.py`: written as the file, the
    module lost its imports and the fix failed. It replaces the function it begins and ends like."""
    from bot.ensemble.coder import WHOLE
    from bot.ensemble.coder.apply import apply_edit_blocks

    function = LOADER[LOADER.index("def load"):LOADER.index("\n\n\ndef names")] + "\n"
    fixed = function.replace('int(section["port"])', 'int(section.get("port", DEFAULTS["port"]))')
    files = {"appconfig/loader.py": LOADER}
    parsed = WHOLE.parse(f"appconfig/loader.py\n```python\n{fixed}```\n", files.get, frozenset(files))
    assert not parsed.failures
    result = apply_edit_blocks(parsed.blocks, files, (), shown=list(files))
    assert result.changes == {"appconfig/loader.py": LOADER.replace(function, fixed)}
    # a whole file, however shortened, and a file written anew (no one span it opens and ends like) are the file
    for whole in (LOADER.replace("def names(path):\n    return list(load(path))\n", ""), 'def load(path):\n    return {}\n'):
        parsed = WHOLE.parse(f"appconfig/loader.py\n```\n{whole}```\n", files.get, frozenset(files))
        assert [(b.search, b.replace) for b in parsed.blocks] == [(LOADER, whole)]


def test_a_reply_is_complete_once_the_one_file_to_change_is_listed_and_its_fence_line_has_ended() -> None:
    """Where a whole-file reply can stop being read: after its listing of the file, however that listing names it,
    never at a fence still being written (it may be the start of an opening one), never inside another file's."""
    from bot.ensemble.coder.parsing import listing_end

    listing = "Pad the numbers.\n\ntimefmt.py\n```python\ndef f():\n    return 1\n```\n"
    tail = "\nWith this change the tests pass.\n\ntests/test_timefmt.py\n```python\nimport timefmt\n```\n"
    assert listing_end(listing + tail, ["timefmt.py"]) == len(listing)
    assert listing_end(listing[:-1], ["timefmt.py"]) is None  # "```" may go on as "```python"
    moved = listing.replace("timefmt.py\n```python", "```python src/timefmt.py")  # in the info string, a folder more
    assert listing_end(moved + tail, ["timefmt.py"]) == len(moved)
    commented = "```js\n// lib/emitter.js\nlet y = 1;\n```\n"
    assert listing_end(commented + "Done.\n", ["lib/emitter.js"]) == len(commented)
    other = "tests/test_timefmt.py\n```python\nimport timefmt\n```\n"
    assert listing_end(other, ["timefmt.py"]) is None  # another file's listing is not the one to change
    assert listing_end(other + listing, ["timefmt.py"]) == len(other + listing)
    current = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
    pathless = "```python\ndef f():\n    return 3\n\n\ndef g():\n    return 2\n```\n"
    assert listing_end(pathless + "Done.\n", ["m.py"], ("m.py", current)) == len(pathless)
    assert listing_end(pathless, ["m.py"]) is None
    assert listing_end("<think>timefmt.py\n```\nx\n```\n</think>\n" + listing, ["timefmt.py"]) is None


def test_a_round_ends_its_reply_after_the_listing_only_when_it_asks_for_one_file_sent_whole() -> None:
    from bot.ensemble.coder.formats import BLOCKS, MIXED, WHOLE, reply_end

    small, large = "x = 1\n", "".join(f"value_{n} = {n}\n" for n in range(200))
    files = {"a.py": small, "big.py": large}
    shown = dict(files)
    end = reply_end(WHOLE, shown, files.get, ["a.py"])
    assert end is not None and end.cut("a.py\n```\nx = 2\n```\nThat is all.\n") == "a.py\n```\nx = 2\n```\n"
    assert reply_end(BLOCKS, shown, files.get, ["a.py"]) is None  # blocks end with no mark of the last
    assert reply_end(WHOLE, shown, files.get, ["a.py", "big.py"]) is None  # several files may come
    fitted = MIXED.fitted(shown, files.get)
    assert reply_end(fitted, shown, files.get, ["a.py"]) is not None
    assert reply_end(fitted, shown, files.get, ["big.py"]) is None  # a large file takes blocks in this format
    assert reply_end(WHOLE, shown, files.get, ["tests/test_new.py"]) is not None  # a new file is listed whole
