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


def specs_by_role(plan):
    out = {}
    for spec in plan.specs:
        assert spec.role not in out, spec.role
        out[spec.role] = spec
    return out


def test_one_number_for_one_place_draws_the_records_it_counted_and_the_place(pipeline, pack, admin):
    a = ask(pipeline, "how many crashes in cambridge had injuries")
    specs = specs_by_role(plan_layers(a, pack))
    assert set(specs) == {"result", "place"}
    records, place = specs["result"], specs["place"]
    assert records.kind == "records" and records.entity == a.frame["target"]
    got = run(admin, records.sql)
    assert len(got) == a.rows[0][0] == 22  # the records counted, each once
    names = cols(admin, records.sql)
    assert len({r[names.index(records.key)] for r in got}) == len(got)
    town = names.index("city_town_name")
    assert {r[town] for r in got} == {"CAMBRIDGE"}
    (row,) = run(admin, place.sql)
    assert row[cols(admin, place.sql).index("count")] == a.rows[0][0]


def test_a_count_near_a_class_of_features_draws_records_number_support_and_search_area(pipeline, pack, admin):
    a = ask(pipeline, "bike crashes within 50 m of traffic signals")
    specs = specs_by_role(plan_layers(a, pack))
    assert set(specs) == {"result", "number", "support", "search area"}
    assert len(run(admin, specs["result"].sql)) == a.rows[0][0] == 728
    (number,) = run(admin, specs["number"].sql)
    assert number[cols(admin, specs["number"].sql).index("geom")] is not None
    assert specs["search area"].buffer_m == 50 and specs["search area"].sql == specs["support"].sql


def test_reference_features_are_limited_to_the_place_and_distance_of_the_question(pipeline, pack, admin):
    a = ask(pipeline, "crashes within 100 m of bus stops in somerville")
    specs = specs_by_role(plan_layers(a, pack))
    stops = run(admin, specs["support"].sql)
    assert 0 < len(stops) < 200  # not the region's 5,000 stops cut at the row cap
    key = cols(admin, specs["support"].sql).index(specs["support"].key)
    (far,) = rows(admin, f"""SELECT count(*) FROM ma.mbta_stop s WHERE s.gid = ANY(%s) AND NOT EXISTS (
                               SELECT 1 FROM ma.massdot_crash c WHERE c.city_town_name = 'SOMERVILLE'
                               AND ST_DWithin(c.geom, s.geom, 100))""", [r[key] for r in stops])[0]
    assert far == 0  # every stop drawn is within the distance of a counted crash in the town
    assert len(run(admin, specs["result"].sql)) == a.rows[0][0]
    assert "search area" in specs and "place" in specs


def test_a_share_draws_the_records_its_numerator_counted(pipeline, pack, admin):
    a = ask(pipeline, "share of crashes at night in cambridge")
    specs = specs_by_role(plan_layers(a, pack))
    assert len(run(admin, specs["result"].sql)) == a.rows[0][a.columns.index("matching")] == 19
    near = ask(pipeline, "share of crashes within 50 m of traffic signals")
    specs = specs_by_role(plan_layers(near, pack))
    assert len(run(admin, specs["result"].sql)) == near.rows[0][near.columns.index("matching")] == 41


def test_proximity_answers_draw_exactly_the_support_features(pipeline, pack, admin):
    a = ask(pipeline, "show crashes within 1000 feet of cambridgeport school")
    result, support, area = plan_layers(a, pack).specs
    assert support.role == "support" and area.role == "search area" and area.buffer_m == pytest.approx(304.8)
    (anchor,) = run(admin, support.sql)
    assert anchor[cols(admin, support.sql).index(support.label_column)] == a.frame["near"]["anchor"]["name"]
    grouped = ask(pipeline, "pedestrian crashes within 150 m of cambridge public schools by school")
    specs = specs_by_role(plan_layers(grouped, pack))  # the counted schools are the support: graduated, with areas
    assert set(specs) == {"result", "counted", "search area"}
    assert specs["result"].geometry == "point" and len(run(admin, specs["result"].sql)) == len(grouped.rows)
    assert specs["search area"].buffer_m == 150
    counted = run(admin, specs["counted"].sql)
    (distinct,) = rows(admin, """SELECT count(DISTINCT c.gid) FROM ma.cambridge_crash c JOIN ma.school s
                                 ON ST_DWithin(c.geom, s.geom, 150) WHERE c.pedestrian_involved
                                 AND s.school_type = 'public'""")[0]
    assert len(counted) == distinct > 0


def test_answers_without_a_map_get_no_layer(pipeline, pack):
    for question in ("trend of pedestrian crashes over the years", "compare crashes in cambridge and somerville",
                     "crashes by weather"):
        plan = plan_layers(ask(pipeline, question), pack)
        assert plan.specs == [] and plan.no_map, question
    plan = plan_layers(pipeline.ask("crashes in paris"), pack)
    assert plan.specs == [] and not plan.no_map  # not answered: nothing to say about a map


def test_every_map_statement_passes_the_guard(pipeline, pack):
    guard = Guard(pack)
    for question in ("how many crashes in cambridge had injuries", "pedestrian crashes near schools in cambridge",
                     "crashes within 100 m of bus stops in somerville", "share of crashes within 50 m of traffic signals",
                     "epdo in cambridge", "crash rate per 1000 residents in cambridge", "the nearest signal to cambridgeport school"):
        plan = plan_layers(ask(pipeline, question), pack)
        assert plan.specs and not plan.skipped, (question, plan.skipped)
        for spec in plan.specs:
            report = guard.check(spec.sql)
            assert report.ok and spec.guard["ok"] and report.sql == spec.sql, (question, spec.role)


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


def test_a_ranking_of_features_draws_only_the_records_of_the_features_it_kept(pipeline, pack, admin):
    a = ask(pipeline, "top 3 schools with the most pedestrian crashes within 150 m")
    specs = specs_by_role(plan_layers(a, pack))
    kept = [r[a.columns.index("site_name")] for r in a.rows]
    assert len(kept) == 3 and len(run(admin, specs["result"].sql)) == 3
    (want,) = rows(admin, """SELECT count(DISTINCT c.gid) FROM ma.cambridge_crash c JOIN ma.school s
                             ON ST_DWithin(c.geom, s.geom, 150) WHERE c.pedestrian_involved
                             AND s.site_name = ANY(%s)""", kept)[0]
    assert len(run(admin, specs["counted"].sql)) == want > 0
