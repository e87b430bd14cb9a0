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
# the fix with a worked example in a comment: it writes the reproduction test's values (4 and 2.5) into the code, so
# the hidden check could refuse it and is written for it (a fix that writes none of them needs none)
FIX_WITH_EXAMPLE = FIX.replace("    if len(ordered) % 2 == 0:\n",
                               "    if len(ordered) % 2 == 0:  # [4, 1, 3, 2] -> (2 + 3) / 2 == 2.5\n")
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
