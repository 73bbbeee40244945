"""bench/same_results.py: the before/after check finds every question and flags any change of status or rows."""
from __future__ import annotations

from bench.run import load_questions
from bench.same_results import all_questions, compare, record
from plugin.core.pipeline import Answer


def _answer(status: str, rows: list[list]) -> Answer:
    return Answer(question="q", status=status, columns=["town", "count"], rows=rows, order_matters=True)


def test_every_bench_question_and_the_demo_and_test_questions_are_asked():
    qs = all_questions()
    ids = [i for i, _ in qs]
    assert len(ids) == len(set(ids)) and {q["id"] for q in load_questions()} <= set(ids)
    assert any(i.startswith("demo-") for i in ids) and any(i.startswith("test-") for i in ids)
    assert "how many crashes in cambridge" in {q for _, q in qs}


def test_a_change_of_status_rows_or_order_is_flagged():
    base = {"a": record(_answer("answered", [["X", 1], ["Y", 2]])), "b": record(_answer("clarify", []))}
    same = {"a": record(_answer("answered", [["X", 1], ["Y", 2]])), "b": record(_answer("clarify", []))}
    assert compare(base, same)["differ"] == [] and compare(base, same)["same_rows"] == 2
    reordered = dict(same, a=record(_answer("answered", [["Y", 2], ["X", 1]])))
    c = compare(base, reordered)
    assert c["differ"] == ["a"] and c["same_rows"] == 2 and c["same_order"] == 1
    changed = dict(same, a=record(_answer("answered", [["X", 1], ["Y", 3]])), b=record(_answer("answered", [])))
    c = compare(base, changed)
    assert c["differ"] == ["a", "b"] and c["same_status"] == 1 and c["same_rows"] == 1
