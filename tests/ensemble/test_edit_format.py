"""The edit-format instructions: the task's real paths, and a worked example the coder cannot mistake for its task."""

from __future__ import annotations

from bot.ensemble.coder import prompts as coder_prompts
from bot.ensemble.coder.apply import apply_edit_blocks, parse_edit_blocks
from bot.ensemble.coder.formats import BLOCKS, EXAMPLE, EXAMPLE_FILE, EXAMPLE_PATH, EXAMPLE_WHY, WHOLE
from bot.ensemble.planner import parse_plan
from bot.ensemble.types import Task


def test_the_request_ends_on_the_replys_form_and_the_tasks_real_paths_never_a_placeholder() -> None:
    """The last words before the coder writes say the reply's form again and name the task's files; the rules the
    system prompt holds, the same for every task, name none."""
    from bot.ensemble.coder import MIXED

    for edit_format in (BLOCKS, WHOLE, MIXED):
        text = edit_format.closing(["stats/core.py", "tests/test_core.py"])
        assert text.endswith("named exactly like this: stats/core.py, tests/test_core.py.")
        assert "path/to" not in text + edit_format.rules() + edit_format.example_answer(())
        assert "stats/core.py" not in edit_format.rules()
    assert "<<<<<<< SEARCH" in BLOCKS.closing(["a.py"]) and "```" not in BLOCKS.closing(["a.py"])
    assert "whole file between a line ```" in WHOLE.closing(["a.py"]) and "SEARCH" not in WHOLE.closing(["a.py"])


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
    assert parse_whole_files(pathless, {"m.py": current}) == [("m.py", "def f():\n    return 3\n\n\ndef g():\n    return 2\n")]
    # never without the one file to change, and never a listing that is something else (a new test, say)
    assert parse_whole_files(pathless) == []
    other = "```python\nimport unittest\n\n\nclass T(unittest.TestCase):\n    pass\n```\n"
    assert parse_whole_files(other, {"m.py": current}) == []
    # a shebang or a prose comment is no path
    assert parse_whole_files("```\n#!/usr/bin/env python\nx = 1\n```\n") == []


def test_the_whole_format_asks_for_whole_files_and_shows_its_example_so() -> None:
    from bot.ensemble.coder.parsing import parse_whole_files

    assert "complete file" in WHOLE.rules() and "SEARCH" not in WHOLE.rules()[:200]
    path, search, content = WHOLE.example(["a.py"])
    assert parse_whole_files(WHOLE.example_answer(["a.py"])) == [(path, content)] and search == ""
    assert "price or 0" in content and "def count(items)" in content
    # what is wrong and the change, said before the file: the rules ask for it and the example answer shows it
    assert "First say in one or two sentences what is wrong" in WHOLE.rules()
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
    parsed = WHOLE.parse(f"appconfig/loader.py\n```python\n{fixed}```\n", files.get, files)
    assert not parsed.failures
    result = apply_edit_blocks(parsed.blocks, files, (), shown=list(files))
    assert result.changes == {"appconfig/loader.py": LOADER.replace(function, fixed)}
    # a whole file, however shortened, is the file; a function written anew replaces that function, not the file
    whole = LOADER.replace("def names(path):\n    return list(load(path))\n", "")
    parsed = WHOLE.parse(f"appconfig/loader.py\n```\n{whole}```\n", files.get, files)
    assert [(b.search, b.replace) for b in parsed.blocks] == [(LOADER, whole)]
    anew = 'def load(path):\n    return {}\n'
    parsed = WHOLE.parse(f"appconfig/loader.py\n```\n{anew}```\n", files.get, files)
    assert [(b.search, b.replace) for b in parsed.blocks] == [(function, anew)]


LISTING = ('"""Splitting long lists into pages for display."""\n\n\ndef page_count(total: int, per_page: int) -> int:\n'
           '    if per_page <= 0:\n        raise ValueError("per_page must be positive")\n'
           '    return (total + per_page - 1) // per_page\n\n\n'
           'def paginate(items: list, page: int, per_page: int = 10) -> list:\n'
           '    """The items on page `page`; pages are numbered from 1."""\n    if page < 1:\n'
           '        raise ValueError("pages are numbered from 1")\n    start = page * per_page\n'
           '    return items[start:start + per_page]\n')
FIXED_PAGINATE = ('def paginate(items: list, page: int, per_page: int = 10) -> list:\n'
                  '    """The items on page `page`; pages are numbered from 1."""\n    if page < 1:\n'
                  '        raise ValueError("pages are numbered from 1")\n    start = (page - 1) * per_page\n'
                  '    return items[start:start + per_page]\n')


def test_a_function_sent_under_a_word_that_is_no_path_changes_the_one_file_it_is_a_part_of() -> None:
    """The local 1.5B coder, shown its task between `<<<BEGIN task>>>` markers, wrote `task` where the path goes and
    sent the one function it fixed (bench/peers.py, paginate_off_by_one): read as no change, the round was lost. The
    function is a part of one file the coder was shown to change, so it replaces that part there."""
    from bot.ensemble.coder import MIXED
    from bot.ensemble.coder.apply import apply_edit_blocks

    files = {"listing.py": LISTING, "tests/test_listing.py": "from listing import paginate\n"}
    parsed = MIXED.parse(f"task\n```\n{FIXED_PAGINATE}```", files.get, files)
    assert not parsed.failures
    result = apply_edit_blocks(parsed.blocks, files, (), shown=list(files))
    assert result.changes == {"listing.py": LISTING.replace("start = page * per_page", "start = (page - 1) * per_page")}
    # shown two files, the function goes to the one it is a part of; a listing that fits neither or both is no change
    other = {"other.py": '"""Other."""\n\n\ndef other():\n    return 1\n\n\ndef more():\n    return 2\n'}
    both = {**files, **other}
    assert [b.path for b in MIXED.parse(f"```\n{FIXED_PAGINATE}```", both.get, both).blocks] == ["listing.py"]
    twin = {**files, "copy/listing.py": LISTING}
    assert not MIXED.parse(f"```\n{FIXED_PAGINATE}```", twin.get, twin).blocks
    assert not MIXED.parse("task\n```\ndef unrelated():\n    return 3\n```", both.get, both).blocks


def test_a_method_sent_from_column_zero_replaces_the_method_indented_as_it_is() -> None:
    """The local 1.5B coder sent the methods of a class it fixed without the class, from column 0 (bench/peers.py,
    cart_add_same_item): put in as sent, they would have left the class. They take the indentation of the part of
    the file they replace."""
    from bot.ensemble.coder import MIXED
    from bot.ensemble.coder.apply import apply_edit_blocks

    cart = ('"""The cart."""\n\n\nclass Cart:\n    def __init__(self):\n        self.lines = {}\n\n'
            '    def add(self, sku, n=1):\n        self.lines[sku] = n\n\n    def count(self, sku):\n'
            '        return self.lines.get(sku, 0)\n')
    sent = "def add(self, sku, n=1):\n    self.lines[sku] = self.lines.get(sku, 0) + n\n"
    files = {"shop/cart.py": cart}
    parsed = MIXED.parse(f"The count is lost.\n\nshop/cart.py\n```\n{sent}```\n", files.get, files)
    result = apply_edit_blocks(parsed.blocks, files, (), shown=list(files))
    assert result.changes == {"shop/cart.py": cart.replace("self.lines[sku] = n", "self.lines[sku] = "
                                                           "self.lines.get(sku, 0) + n")}
    # a function the change adds goes in after the one sent before it; in a brace language the closing line is the
    # block's too
    helper = "def _clean(sku):\n    return sku.strip()\n"
    parsed = MIXED.parse(f"shop/cart.py\n```\n{sent}\n\n{helper}```\n", files.get, files)
    fixed = apply_edit_blocks(parsed.blocks, files, (), shown=list(files)).changes["shop/cart.py"]
    assert "+ n\n\n\n    def _clean(sku):\n        return sku.strip()\n\n    def count(self, sku):" in fixed
    # sent indented, but less than in the file (2 spaces where the class has 4): moved by the difference, not padded
    two = "  def add(self, sku, n=1):\n      self.lines[sku] = self.lines.get(sku, 0) + n\n"
    parsed = MIXED.parse(f"shop/cart.py\n```\n{two}```\n", files.get, files)
    assert apply_edit_blocks(parsed.blocks, files, (), shown=list(files)).changes == result.changes
    js = "// Events.\nconst x = 1;\n\nfunction once(f) {\n  return f;\n}\n\nfunction twice(f) {\n  return f;\n}\n"
    sent_js = "function once(f) {\n  let done = false;\n  return () => done ? undefined : (done = true, f());\n}\n"
    parsed = MIXED.parse(f"lib/ev.js\n```js\n{sent_js}```\n", {"lib/ev.js": js}.get, {"lib/ev.js": js})
    assert [(b.search, b.replace) for b in parsed.blocks] == [("function once(f) {\n  return f;\n}\n", sent_js)]
    # lines of a function's body, one of them changed, are one span of it: never a line put in beside the old one
    body = "    if page < 1:\n        raise ValueError('no')\n    start = (page - 1) * per_page\n    return items[start:]\n"
    paged = ('"""Pages."""\n\nper_page = 10\n\n\ndef paginate(items, page):\n    if page < 1:\n'
             "        raise ValueError('no')\n")
    paged += "    start = page * per_page\n    return items[start:]\n\n\ndef other():\n    return 1\n"
    parsed = MIXED.parse(f"paged.py\n```\n{body}```\n", {"paged.py": paged}.get, {"paged.py": paged})
    assert [b.search for b in parsed.blocks] == [paged[paged.index("    if page"):paged.index("\n\n\ndef other")] + "\n"]


def test_a_function_whose_signature_changed_replaces_that_function_and_a_part_found_nowhere_is_refused() -> None:
    """The local 1.5B coder added a parameter and sent the one function (bench/peers.py, top_words_limit_two_files):
    its first line is in no place of the file, so the function is found by its name. A part of a file that matches
    no place is refused with how to send it: taken for the file, it dropped the module's other functions and every
    test failed on an import."""
    from bot.ensemble.coder import MIXED

    report = ('"""Word statistics."""\n\nfrom collections import Counter\n\n\ndef words(text):\n'
              '    return text.split()\n\n\ndef top_words(text: str) -> list:\n    counts = Counter(words(text))\n'
              '    return counts.most_common(10)\n\n\ndef word_count(text):\n    return len(words(text))\n')
    sent = "def top_words(text: str, limit: int = 10) -> list:\n    counts = Counter(words(text))\n" \
           "    return counts.most_common(limit)\n"
    files = {"report.py": report}
    parsed = MIXED.parse(f"report.py\n```\n{sent}```\n", files.get, files)
    assert [(b.search, b.replace) for b in parsed.blocks] == \
        [(report[report.index("def top_words"):report.index("\n\n\ndef word_count")] + "\n", sent)]
    nowhere = "    total = 0\n    for w in words(text):\n        total += 1\n    return total\n"
    parsed = MIXED.parse(f"report.py\n```\n{nowhere}```\n", files.get, files)
    assert not parsed.blocks and "matches no one place in it" in parsed.failures[0].message


def test_a_function_of_a_file_shown_in_part_applies_only_where_the_coder_was_shown_it() -> None:
    """A large file is shown as an outline with windows of code: the function the coder fixed, sent as a listing,
    replaces that function when the coder was shown it as it is; a listing of any other part would change lines it
    never saw, and is refused with how to change that file."""
    from bot.ensemble.coder import MIXED

    big = LISTING + "".join(f"\n\ndef helper_{i}(x):\n    return x + {i}\n" for i in range(200))
    window = LISTING[LISTING.index("def paginate"):]
    parsed = MIXED.parse(f"listing.py\n```\n{FIXED_PAGINATE}```", {"listing.py": big}.get,
                         {"listing.py": f"def paginate (lines 9-14)\n@@ lines 9-14 of 600 @@\n{window}"})
    assert [(b.path, b.search) for b in parsed.blocks] == [("listing.py", window)] and not parsed.failures
    unseen = "def page_count(total: int, per_page: int) -> int:\n    return 0\n"
    parsed = MIXED.parse(f"listing.py\n```\n{unseen}```", {"listing.py": big}.get,
                         {"listing.py": f"@@ lines 9-14 of 600 @@\n{window}"})
    assert not parsed.blocks and [f.reason for f in parsed.failures] == ["parse"]


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
    assert listing_end(pathless + "Done.\n", ["m.py"], {"m.py": current}) == len(pathless)
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
