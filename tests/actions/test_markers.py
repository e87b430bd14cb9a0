"""Hidden markers: round trip, and text that tries to break out of the HTML comment."""

from __future__ import annotations

from actions.markers import has_marker, marker, read_marker, replace_marker


def test_round_trip_with_hostile_text() -> None:
    data = {"signature": "--> <script> -- done", "attempts": 2}
    text = f"Visible\n{marker('heal', data)}"
    assert "-->" not in text.split("<!--", 1)[1][:-3]
    assert read_marker(text, "heal") == data
    assert has_marker(text)


def test_absent_and_empty_markers() -> None:
    assert read_marker("plain comment", "heal") is None
    assert read_marker(marker("refusal"), "refusal") == {}
    assert not has_marker("<!-- just a comment -->")


def test_replace_keeps_the_visible_text() -> None:
    body = "Progress\n" + marker("progress", {"stage": "planned"})
    new = replace_marker(body, "progress", {"stage": "coded"})
    assert new.startswith("Progress\n") and read_marker(new, "progress") == {"stage": "coded"}
    assert read_marker(replace_marker("x", "heal", {"a": 1}), "heal") == {"a": 1}
