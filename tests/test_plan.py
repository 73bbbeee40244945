"""The plan drives the compiler: typed steps, one render function each, the recorded plan is the compiled one, and
the quantified proximity steps (at least one / no feature within a distance) against SQL written here."""
from __future__ import annotations

import inspect
import json

import pytest

from conftest import rows, scalar
from plugin.core import dag
from plugin.core.compile_sql import RENDER, Compiler
from plugin.core.dag import (Aggregate, Filter, GroupColumn, Load, MeasureSpec, Node, OrderKey, Output, Plan,
                             Support)
from plugin.core.errors import CompileError
from plugin.core.frame import Frame, Group, Near, Predicate, frame_from_dict
from plugin.core.guard import Guard
from plugin.core.plan import plan


def _kinds() -> set[type]:
    return {c for _, c in inspect.getmembers(dag, inspect.isclass) if issubclass(c, Node) and c.op}


def test_every_kind_of_step_has_one_render_function():
    assert _kinds() == set(RENDER)
    assert len({k.op for k in _kinds()}) == len(_kinds())  # each kind is named once in the plan's dicts


@pytest.mark.parametrize("question", [
    "pedestrian crashes within 150 m of cambridge public schools by school",
    "top 5 towns with the most crashes",
    "compare crashes in boston vs worcester",
    "crashes by day of week",
    "what percentage of crashes happened at night",
    "top 10 towns by crashes per 1000 residents",
    "the nearest traffic signal to cambridgeport school",
])
def test_the_recorded_plan_is_the_one_compiled(pipeline, pack, question):
    a = pipeline.ask(question)
    assert a.status == "answered" and a.plan
    again = plan(frame_from_dict(a.frame), pack, pipeline.compiler.sizes)
    assert json.dumps(again.to_dict(), default=str) == json.dumps(a.plan, default=str)
    assert Guard(pack).check(Compiler(pack).compile(again).sql).sql == a.sql
    assert a.plan[-1]["op"] == "output" and all(n["op"] for n in a.plan)


def test_a_plan_written_by_hand_compiles_without_a_frame(pack, admin):
    """The compiler reads nothing but the plan: pedestrian police crashes per year, built step by step."""
    steps = Plan([
        Load(id="load", entity="police_crash"),
        Filter(id="filtered", inputs=["load"], entity="police_crash",
               predicates=[Predicate(field="pedestrian_involved", op="eq", values=[True])]),
        Aggregate(id="aggregated", inputs=["filtered"], entity="police_crash",
                  groups=[GroupColumn("time", "year", "year", sorted=True)], measure=MeasureSpec()),
        Output(id="output", inputs=["aggregated"], order=[OrderKey("year")], order_matters=True),
    ])
    rep = Guard(pack).check(Compiler(pack).compile(steps).sql)
    assert rep.ok, rep.reason
    want = rows(admin, "SELECT year, count(*) FROM ma.cambridge_crash WHERE pedestrian_involved "
                       "GROUP BY year ORDER BY year")
    got = rows(admin, rep.sql)
    assert [tuple(r) for r in got] == [tuple(r) for r in want] and len(want) > 3


def test_the_plan_check_refuses_bad_edges(pack):
    load = Load(id="load", entity="crash")
    out = Output(id="output", inputs=["aggregated"])
    support = Support(id="support", entity="school")
    wrong = Aggregate(id="aggregated", inputs=["support"], entity="crash")  # features are not the records
    with pytest.raises(CompileError, match="takes"):
        Plan([load, support, wrong, out]).check()
    with pytest.raises(CompileError, match="before it is defined"):
        Plan([load, out, Aggregate(id="aggregated", inputs=["load"], entity="crash")]).check()
    with pytest.raises(CompileError, match="output"):
        Plan([load]).check()
    with pytest.raises(CompileError, match="output"):
        Compiler(pack).compile(Plan([load, Filter(id="filtered", inputs=["load"], entity="police_crash")]))


# ---- quantified proximity: 'at least one school within 200 m' (exists), 'no school within 200 m' (anti-join)
NEAR_200 = "ST_DWithin(c.geom, s.geom, 200)"


def _count(pipeline, quantifier: str, group: list[Group] | None = None, target: str = "police_crash"):
    f = Frame(intent="count", target=target, group_by=group or [],
              near=Near(entity="school", distance_m=200.0, quantifier=quantifier))
    a = pipeline.ask("", frame=f)
    assert a.status == "answered", a.answer
    return a


def test_no_feature_within_is_an_anti_join(pipeline, admin):
    a = _count(pipeline, "none")
    assert [n["op"] for n in a.plan if n["id"] == "near"] == ["near_none"]
    want = scalar(admin, "SELECT count(*) FROM ma.cambridge_crash c WHERE c.geom IS NOT NULL AND NOT EXISTS "
                         f"(SELECT 1 FROM ma.school s WHERE {NEAR_200})")
    assert a.rows[0][0] == want > 0


def test_a_record_without_a_location_is_not_far_from_anything(pipeline, admin):
    a = _count(pipeline, "none", target="crash")
    far = f"NOT EXISTS (SELECT 1 FROM ma.school s WHERE {NEAR_200})"
    want = scalar(admin, f"SELECT count(*) FROM ma.massdot_crash c WHERE c.geom IS NOT NULL AND {far}")
    unlocated = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE geom IS NULL")
    assert a.rows[0][0] == want and unlocated > 0
    assert scalar(admin, f"SELECT count(*) FROM ma.massdot_crash c WHERE {far}") == want + unlocated


def test_at_least_one_feature_within_is_counted_once(pipeline, admin):
    a = _count(pipeline, "some")
    assert [n["op"] for n in a.plan if n["id"] == "near"] == ["near_some"]
    # a crash near three schools is one crash
    want = scalar(admin, f"SELECT count(DISTINCT c.gid) FROM ma.cambridge_crash c JOIN ma.school s ON {NEAR_200}")
    assert a.rows[0][0] == want > 0
    located = scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE geom IS NOT NULL")
    assert a.rows[0][0] + _count(pipeline, "none").rows[0][0] == located


def test_no_feature_within_per_group(pipeline, admin):
    a = _count(pipeline, "none", [Group("field", "year")])
    want = rows(admin, "SELECT year, count(*) FROM ma.cambridge_crash c WHERE c.geom IS NOT NULL AND NOT EXISTS "
                       f"(SELECT 1 FROM ma.school s WHERE {NEAR_200}) GROUP BY year")
    assert {r[0]: r[1] for r in a.rows} == dict(want) and len(want) > 3


def test_no_feature_within_is_a_condition_not_a_nearest(pack):
    f = Frame(intent="list", target="police_crash",
              near=Near(entity="school", mode="nearest", k=3, quantifier="none"))
    with pytest.raises(CompileError, match="no feature within"):
        plan(f, pack)


def test_frame_hashes_recorded_before_the_quantifier_stand():
    # the hash this frame had before `Near.quantifier` existed (audit entries and approved examples keep it)
    f = Frame(intent="count", target="police_crash", near=Near(entity="school", distance_m=200.0))
    assert f.hash() == "f4edc6e945f41b15"
    assert Frame(intent="count", target="police_crash",
                 near=Near(entity="school", distance_m=200.0, quantifier="none")).hash() != f.hash()
