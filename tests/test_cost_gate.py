"""The optional EXPLAIN cost gate: off by default; on, a question whose checked query the planner estimates over the
limit is refused with its reason code and audited, and only the executor ever builds the EXPLAIN."""
from __future__ import annotations

import pytest

from conftest import READER_DSN
from plugin.core.errors import CostLimitError, ExecutionError
from plugin.core.execute import Executor
from plugin.core.guard import Guard
from plugin.core.pipeline import Pipeline

HEAVY = "crashes within 500 m of mbta stops by stop"   # a proximity join over every stop: a high estimate
LIGHT = "how many crashes in cambridge"


@pytest.fixture(scope="module")
def estimates(pack) -> dict[str, float]:
    """The planner's estimates, read through the gate with a limit nothing reaches (they follow the data and the
    compiler, so the tests derive their limit from them rather than hard-coding one)."""
    p = Pipeline(pack, READER_DSN, max_cost=1e300)
    try:
        out = {q: p.ask(q).cost["estimate"] for q in (HEAVY, LIGHT)}
    finally:
        p.executor.close()
    assert out[HEAVY] > 10 * out[LIGHT], out
    return out


@pytest.fixture(scope="module")
def gated(pack, estimates):
    entries: list[dict] = []
    limit = round((estimates[HEAVY] * estimates[LIGHT]) ** 0.5)  # well between the two
    p = Pipeline(pack, READER_DSN, audit=entries.append, max_cost=limit)
    p.entries = entries
    yield p
    p.executor.close()


def test_off_by_default_answers_the_heavy_question(pipeline):
    a = pipeline.ask(HEAVY)
    assert pipeline.max_cost is None and pipeline.executor.max_cost is None
    assert a.status == "answered" and a.rows and a.cost is None  # no EXPLAIN was run at all


def test_on_with_a_low_limit_refuses_the_heavy_question_with_its_reason(gated):
    a = gated.ask(HEAVY)
    assert a.status == "refused" and not a.rows and a.error.startswith("too_costly:")
    assert a.cost["limit"] == gated.max_cost and a.cost["estimate"] > gated.max_cost
    assert "too_costly" in a.answer and f"{gated.max_cost:,.0f}" in a.answer and "settings" in a.answer
    assert a.guard["ok"] and a.sql  # the guard accepted it: the gate refused it, before anything ran
    entry = gated.entries[-1]
    assert (entry["question"], entry["status"], entry["cost"], entry["row_count"]) == (HEAVY, "refused", a.cost, 0)
    assert entry["error"] == a.error and entry["sql"] == a.sql


def test_on_a_light_question_still_answers_and_records_its_estimate(gated, pipeline):
    a = gated.ask(LIGHT)
    assert a.status == "answered" and a.rows == pipeline.ask(LIGHT).rows
    assert 0 < a.cost["estimate"] <= gated.max_cost and gated.entries[-1]["cost"] == a.cost


def test_the_gate_covers_the_answer_query_only(pack):
    """With an absurd limit every question is refused by the gate, not failed: the pipeline's own bounded
    look-ups (place names, table sizes, missing locations) are not gated."""
    p = Pipeline(pack, READER_DSN, max_cost=0.001)
    try:
        for q in (LIGHT, HEAVY):
            a = p.ask(q)
            assert a.status == "refused" and a.error.startswith("too_costly"), (q, a.status, a.error)
    finally:
        p.executor.close()


def test_an_explain_from_outside_is_never_accepted(pack):
    guard = Guard(pack)
    sql = guard.check(f"SELECT count(*) FROM {pack.schema}.{pack.entity('crash').table}").sql
    for text in (f"EXPLAIN {sql}", f"EXPLAIN (FORMAT JSON) {sql}", f"EXPLAIN ANALYZE {sql}"):
        assert not guard.check(text).ok
    ex = Executor(READER_DSN, timeout_ms=2000)
    try:
        # the executor makes anything it is handed a sub-query, where EXPLAIN is a syntax error
        with pytest.raises(ExecutionError) as e:
            ex.run(f"EXPLAIN {sql}", max_cost=1e12)
        assert not isinstance(e.value, CostLimitError) and e.value.kind == "42601"
        with pytest.raises(CostLimitError) as e:
            ex.run(sql, max_cost=0.001)
        assert e.value.kind == "too_costly" and e.value.cost > e.value.limit
    finally:
        ex.close()
