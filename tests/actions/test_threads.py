"""Which review threads a revision's diff addressed: pure functions over `git diff -U0` text."""

from __future__ import annotations

from actions.github import ReviewThread
from actions.threads import addressed, changed_lines

DIFF = """diff --git a/calc.py b/calc.py
--- a/calc.py
+++ b/calc.py
@@ -2 +2 @@ def add(a, b):
-    return a - b
+    return a + b
@@ -10,0 +11,3 @@ def mul(a, b):
+    # three new lines after line 10
diff --git a/new.py b/new.py
new file mode 100644
--- /dev/null
+++ b/new.py
@@ -0,0 +1 @@
+x = 1
diff --git a/old.py b/old.py
deleted file mode 100644
--- a/old.py
+++ /dev/null
@@ -1,4 +0,0 @@
-gone
"""


def thread(path: str, line: int | None) -> ReviewThread:
    return ReviewThread("PRRT_1", False, False, path, line, 1)


def test_changed_lines_are_the_old_side_of_each_hunk() -> None:
    assert changed_lines(DIFF) == {"calc.py": [(2, 1), (10, 0)], "old.py": [(1, 4)]}


def test_a_thread_is_addressed_when_its_line_or_a_neighbour_changed() -> None:
    hunks = changed_lines(DIFF)
    assert [addressed(thread("calc.py", n), hunks) for n in (1, 2, 3, 4, 9, 11, 12)] == \
        [True, True, True, False, True, True, False]
    assert addressed(thread("old.py", 3), hunks) and addressed(thread("calc.py", None), hunks)
    assert not addressed(thread("other.py", 2), hunks) and not addressed(thread("other.py", None), hunks)
