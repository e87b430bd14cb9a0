"""Repository instructions: which files count, nearest-in-tree selection, fallbacks, the config's text, bounds."""

from __future__ import annotations

from bot.ensemble.instructions import MAX_CHARS, find_instructions


def _found(files: dict[str, str], config_text: str = ""):
    return find_instructions(files.get, [*files, "src/app.py", "pkg/sub/mod.py"], config_text)


def test_agents_md_wins_over_its_fallbacks_in_the_same_directory() -> None:
    found = _found({"AGENTS.md": "use tabs", "CLAUDE.md": "use spaces", "GEMINI.md": "x",
                    ".github/copilot-instructions.md": "y"})
    assert found.found == ("AGENTS.md",)
    assert "use tabs" in found.render() and "use spaces" not in found.render()


def test_without_agents_md_the_fallbacks_are_read_in_order() -> None:
    assert _found({"CLAUDE.md": "a", "GEMINI.md": "b"}).found == ("CLAUDE.md",)
    assert _found({".github/copilot-instructions.md": "a", "GEMINI.md": "b"}).found == (
        ".github/copilot-instructions.md",)
    assert _found({"GEMINI.md": "b"}).found == ("GEMINI.md",)
    assert _found({"README.md": "not instructions"}).found == ()
    assert _found({"AGENTS.md": "  \n", "CLAUDE.md": "real"}).found == ("CLAUDE.md",)  # an empty file does not count


def test_a_nested_file_applies_only_below_its_directory_and_the_nearest_wins() -> None:
    found = _found({"AGENTS.md": "root rules", "pkg/AGENTS.md": "pkg rules", "pkg/sub/CLAUDE.md": "sub rules",
                    "docs/AGENTS.md": "docs rules"})
    assert found.found == ("AGENTS.md", "docs/AGENTS.md", "pkg/AGENTS.md", "pkg/sub/CLAUDE.md")
    assert found.applying_to([]).found == ("AGENTS.md",)
    assert found.applying_to(["src/app.py"]).found == ("AGENTS.md",)
    assert found.applying_to(["pkg/x.py"]).found == ("AGENTS.md", "pkg/AGENTS.md")
    assert found.applying_to(["pkg/sub/mod.py", "pkg/x.py"]).found == ("AGENTS.md", "pkg/sub/CLAUDE.md",
                                                                        "pkg/AGENTS.md")
    assert found.applying_to(["pkgs/x.py"]).found == ("AGENTS.md",)  # a prefix of a name is not a directory
    text = found.applying_to(["pkg/x.py"]).render()
    assert "# AGENTS.md (applies to the whole repository)\nroot rules" in text
    assert "# pkg/AGENTS.md (applies to files under pkg/)\npkg rules" in text
    assert text.index("root rules") < text.index("pkg rules") and "nearest" in text


def test_the_config_text_comes_last_and_alone_it_is_enough() -> None:
    text = _found({"AGENTS.md": "root rules"}, "  Run `make lint` first.\n").render()
    assert text.endswith("# instructions in .github/ensemble.yml\nRun `make lint` first.")
    assert _found({}, "only config").render() == "# instructions in .github/ensemble.yml\nonly config"
    assert _found({}).render() == ""


def test_instructions_are_bounded_with_a_note_and_short_ones_stay_whole() -> None:
    found = _found({"AGENTS.md": "A" * 20_000, "pkg/AGENTS.md": "short pkg rule"}, "config rule")
    text = found.applying_to(["pkg/x.py"]).render()
    assert len(text) <= MAX_CHARS
    assert "short pkg rule" in text and "config rule" in text  # the big file gives way, not the small ones
    assert "cut: the bot reads the first part of these instructions (20000 characters in all)" in text
    assert len(found.render(500)) <= 500
    many = find_instructions(lambda p: "rule " * 200, [f"d{i}/AGENTS.md" for i in range(80)])
    assert len(many.found) == 50 and len(many.render(1000)) <= 1000


def test_files_the_reader_cannot_read_are_skipped() -> None:
    found = find_instructions(lambda path: None if path == "AGENTS.md" else "claude rules",
                              ["AGENTS.md", "CLAUDE.md"])
    assert found.found == ("CLAUDE.md",)
