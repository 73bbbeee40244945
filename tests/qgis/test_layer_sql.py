"""Map-layer SQL (pure Python, real database): features as answered, grouped rows on their areas, all guard-checked."""

import copy

import pytest
from conftest import rows

from plugin.core.guard import Guard
from plugin.core.layer_sql import context_specs, plan_layers, value_column


def ask(pipeline, q):
    a = pipeline.ask(q)
    assert a.status == "answered", (q, a.answer)
    return a


def run(admin, sql):
    return rows(admin, f"SELECT * FROM ({sql}) AS layer_rows")


def cols(admin, sql):
    with admin.cursor() as cur:
        cur.execute(f"SELECT * FROM ({sql}) AS layer_rows LIMIT 0")
        return [d.name for d in cur.description]


def test_feature_answers_keep_their_rows_and_key(pipeline, pack, admin):
    a = ask(pipeline, "map the crashes in the port")
    (spec,) = plan_layers(a, pack).specs
    assert (spec.role, spec.kind, spec.key) == ("result", "features", pack.entities[a.frame["target"]].key)
    assert Guard(pack).check(spec.sql).ok and spec.guard["ok"]
    got = run(admin, spec.sql)
    key = cols(admin, spec.sql).index(spec.key)
    assert sorted(r[key] for r in got) == sorted(r[a.columns.index(spec.key)] for r in a.rows)


def test_feature_layers_respect_the_row_cap(pipeline, pack, admin):
    a = ask(pipeline, "map the crashes in the port")
    (spec,) = plan_layers(a, pack, row_cap=3).specs
    assert len(run(admin, spec.sql)) == 3


@pytest.mark.parametrize("question", ["crashes by neighborhood", "top 5 towns with the most crashes",
                                      "crash rate per 1000 residents by town", "epdo by town"])
def test_grouped_answers_land_on_their_area_with_the_same_values(pipeline, pack, admin, question):
    a = ask(pipeline, question)
    (spec,) = plan_layers(a, pack).specs
    assert spec.kind == "areas" and spec.geometry == "polygon" and spec.value_column == value_column(a.columns)
    names = cols(admin, spec.sql)
    got = {r[names.index(spec.label_column)]: r[names.index(spec.value_column)] for r in run(admin, spec.sql)}
    want = {r[a.columns.index(spec.label_column)]: r[a.columns.index(spec.value_column)] for r in a.rows}
    assert got and set(got) <= set(want)
    assert all(abs(float(got[k]) - float(want[k])) < 1e-9 for k in got)
    assert len(got) >= len([k for k in want if k]) - 1  # at most an unnamed group has no area
    assert len({r[names.index(spec.key)] for r in run(admin, spec.sql)}) == len(got)  # unique key


def test_place_field_in_another_letter_case_still_finds_its_area(pipeline, pack, admin):
    a = ask(pipeline, "bus stops by town")
    (spec,) = plan_layers(a, pack).specs
    assert "UPPER" in spec.sql  # the stop table writes town names in title case, the town table in capitals
    assert len(run(admin, spec.sql)) >= len(a.rows) - 1


def test_one_number_for_one_place_draws_that_place(pipeline, pack, admin):
    a = ask(pipeline, "how many crashes in cambridge")
    (spec,) = plan_layers(a, pack).specs
    (row,) = run(admin, spec.sql)
    assert row[cols(admin, spec.sql).index("count")] == a.rows[0][0]


def test_proximity_answers_draw_exactly_the_support_features(pipeline, pack, admin):
    a = ask(pipeline, "show crashes within 1000 ft of cambrigeport school")
    result, support = plan_layers(a, pack).specs
    assert support.role == "support" and support.buffer_m == pytest.approx(304.8)
    (anchor,) = run(admin, support.sql)
    assert anchor[cols(admin, support.sql).index(support.label_column)] == a.frame["near"]["anchor"]["name"]
    grouped = ask(pipeline, "pedestrian crashes within 150 m of cambridge public schools by school")
    (spec,) = plan_layers(grouped, pack).specs  # the counted schools are the support: one layer, with buffers
    assert spec.geometry == "point" and spec.buffer_m == 150 and len(run(admin, spec.sql)) == len(grouped.rows)


def test_answers_without_a_map_get_no_layer(pipeline, pack):
    assert plan_layers(ask(pipeline, "trend of pedestrian crashes over the years"), pack).specs == []
    assert plan_layers(pipeline.ask("crashes in paris"), pack).specs == []


def test_a_statement_the_guard_refuses_never_becomes_a_layer(pipeline, pack):
    a = copy.deepcopy(ask(pipeline, "map the crashes in the port"))
    a.sql = a.sql.replace('"ma"."massdot_crash"', "pg_catalog.pg_authid")
    plan = plan_layers(a, pack)
    assert plan.specs == [] and "refused by the guard" in plan.skipped[0]


def test_context_layers_are_checked_and_bounded(pack, admin):
    plan = context_specs(pack, (225000, 895000, 240000, 910000), row_cap=50)
    assert plan.specs and plan.skipped == []
    for spec in plan.specs:
        assert spec.role == "context" and Guard(pack).check(spec.sql).ok
        assert 0 < len(run(admin, spec.sql)) <= 50
