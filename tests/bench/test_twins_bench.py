"""bench/twins.py's totals: what the twins and stand-ins cost, the median and the worst run, and what was refused."""

from __future__ import annotations

from tests.bench.loading import load_bench

twins = load_bench("twins")


def record(task: str, planted: int, with_s: float, without_s: float, refused: tuple[str, ...] = ()) -> dict:
    return {"task": task, "twins": planted, "stand_ins": planted, "delivered": not refused, "refused": list(refused),
            "with": with_s, "without": without_s}


def test_the_totals_name_the_median_and_the_worst_cost_and_its_task() -> None:
    line = twins.summary([record("a", 1, 3.0, 2.0), record("b", 2, 9.5, 2.5), record("c", 1, 2.5, 2.0),
                          record("d", 0, 1.0, 4.0)])
    assert line.startswith("4 reference fixes: 4 delivered with twins and stand-ins, 0 refused; 3 tasks had twins "
                           "(4 in all, 4 stand-ins)")
    # the task without twins (which ran quicker with them) is in neither figure
    assert line.endswith("cost where twinned: median +1.00 s a run, worst +7.00 s (b)")


def test_a_refusal_is_counted_and_no_twins_says_so() -> None:
    line = twins.summary([record("a", 0, 2.0, 2.0, refused=("calc/ops.py: the change reads its test",))])
    assert "0 delivered with twins and stand-ins, 1 refused; 0 tasks had twins" in line
    assert line.endswith("cost where twinned: none twinned")
