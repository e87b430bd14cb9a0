"""Model replies scripted for the sample repository's median() bug (`bot.ensemble.demo.create_sample_repo`).

The planner's plan and its explorer's "enough", the coder's reproduction test and fix (and a wrong
fix, and an edit whose SEARCH part matches nothing), and the critic's two verdicts.
"""

from __future__ import annotations

PLAN = {"summary": "Average the two middle values when the count is even.", "files": ["stats/core.py"],
        "steps": ["Reproduction test: tests/test_repro_median.py", "Fix median() in stats/core.py"],
        "questions": []}
REPRO = """tests/test_repro_median.py
```python
<<<<<<< SEARCH
=======
from stats import median


def test_even_count_is_mean_of_middles():
    assert median([4, 1, 3, 2]) == 2.5
>>>>>>> REPLACE
```"""
FIX = """stats/core.py
<<<<<<< SEARCH
    middle = len(ordered) // 2
    return ordered[middle]
=======
    middle = len(ordered) // 2
    if len(ordered) % 2 == 0:
        return (ordered[middle - 1] + ordered[middle]) / 2
    return ordered[middle]
>>>>>>> REPLACE"""
# a change special-cased to the reproduction test's input (it writes the test's values into the code, so the hidden
# check is asked for it, and refuses it), and the fix that takes it back out
SPECIAL = """stats/core.py
<<<<<<< SEARCH
    ordered = sorted(values)
=======
    ordered = sorted(values)
    if ordered == [1, 2, 3, 4]:
        return 2.5
>>>>>>> REPLACE"""
FIX_AFTER_SPECIAL = """stats/core.py
<<<<<<< SEARCH
    ordered = sorted(values)
    if ordered == [1, 2, 3, 4]:
        return 2.5
=======
    ordered = sorted(values)
>>>>>>> REPLACE

""" + FIX
BAD_FIX = """stats/core.py
<<<<<<< SEARCH
    middle = len(ordered) // 2
    return ordered[middle]
=======
    middle = len(ordered) // 2
    return ordered[middle - 1]
>>>>>>> REPLACE"""
NO_MATCH = """stats/core.py
<<<<<<< SEARCH
    return values[len(values) / 2]
=======
    return 0
>>>>>>> REPLACE"""
ENOUGH = '{"search": [], "open": [], "symbols": []}'
ACCEPT = {"verdict": "accept", "feedback": "Correct and tested."}
REVISE = {"verdict": "revise", "feedback": "Still wrong for even counts."}
