"""Approved recipes: trigger matching, typed parameters from the question, and the same guard and audit."""
from __future__ import annotations

from conftest import rows


def test_school_zone_recipe_fills_parameters_and_matches_analyst_sql(pipeline, admin):
    a = pipeline.ask("school zone pedestrian crashes within 200 m of public schools since 2014")
    assert a.status == "answered" and a.recipe["id"] == "school_zone_pedestrian"
    assert a.recipe["params"] == {"distance_m": 200.0, "since_year": "2014-01-01", "school_kind": "public_school"}
    assert len(a.candidates) == 2  # the rules frame is kept for review next to the recipe's
    ref = dict(rows(admin, """SELECT s.site_name, count(c.gid) FROM ma.school s LEFT JOIN ma.cambridge_crash c
                              ON c.pedestrian_involved AND c.year >= 2014 AND ST_DWithin(c.geom, s.geom, 200)
                              WHERE s.school_type = 'public' GROUP BY 1"""))
    got = dict(zip([r[0] for r in a.rows], [r[1] for r in a.rows]))
    assert got == ref
    assert pipeline.audit_log[-1]["recipe"]["id"] == "school_zone_pedestrian"


def test_recipe_defaults_apply_when_the_question_is_silent(pipeline, admin):
    a = pipeline.ask("epdo ranking")
    assert a.recipe["params"] == {"limit": 10} and len(a.rows) == 10
    ref = rows(admin, """SELECT city_town_name, sum(CASE WHEN crash_severity_descr IN ('Fatal injury','Non-fatal injury')
                         THEN 21 ELSE 1 END) e FROM ma.massdot_crash GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10""")
    assert [tuple(r[:2]) for r in a.rows] == [tuple(r) for r in ref]


def test_questions_without_a_trigger_use_the_rules_frame(pipeline):
    a = pipeline.ask("how many crashes near bus stops")
    assert a.recipe is None and a.frame["source"] == "rules"
