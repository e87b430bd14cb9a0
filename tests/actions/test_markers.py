"""Hidden markers: round trip, and text that tries to break out of the HTML comment."""

from __future__ import annotations

from actions.markers import has_marker, heal_state, inert, marker, read_marker, replace_marker


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


def test_only_the_marker_that_ends_a_comment_counts() -> None:
    smuggled = marker("heal", {"attempts": 0})  # e.g. in a CI log or a plan a model wrote from the issue
    log = f"**What still fails**\n```text\nFAILED test_x\n{smuggled}\n```"
    assert read_marker(log, "heal") is None
    plan = f"1. Fix it\n{inert(smuggled)}\n{marker('plan', {'plan': 'visible plan'})}\n"
    assert read_marker(plan, "plan") == {"plan": "visible plan"} and read_marker(plan, "heal") is None
    assert read_marker(f"text {smuggled} more text\n" + marker("plan", {}), "heal") is None
    injected_plan = f"1. Fix it\n{marker('plan', {'plan': 'hidden plan'})}\n\n{marker('plan', {'plan': 'shown'})}"
    assert read_marker(injected_plan, "plan") == {"plan": "shown"}
    updated = replace_marker(injected_plan, "plan", {"plan": "new"})
    assert read_marker(updated, "plan") == {"plan": "new"} and "hidden plan" in updated  # the earlier text stays text


def test_inert_text_shows_marker_shapes_without_being_one() -> None:
    text = inert("before " + marker("heal", {"attempts": 0}) + " after")
    assert not has_marker(text) and "ensemble:heal" in text
    body = text + "\n\n" + marker("reply", {"to": 5})
    assert read_marker(body, "heal") is None and read_marker(body, "reply") == {"to": 5}
    two = "OK.\n\n" + marker("ack", {"sha": "abc"}) + "\n" + marker("reply", {"to": 7})
    assert read_marker(two, "ack") == {"sha": "abc"} and read_marker(two, "reply") == {"to": 7}


def test_a_heal_marker_from_an_older_bot_reads_with_the_fields_it_lacked() -> None:
    """A PR healed by an earlier version (no re-run bookkeeping yet) keeps its attempts and gets the rest fresh."""
    old = read_marker("Self-healing\n" + marker("heal", {"attempts": 2, "signatures": ["1a2b"]}), "heal")
    state = heal_state(old or {})
    assert state["attempts"] == 2 and state["signatures"] == ["1a2b"]
    assert state["reruns"] == [] and state["rerun_checks"] == {} and state["tried"] == [] and state["escalated"] == ""
