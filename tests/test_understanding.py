"""Questions as people write them (context, typos, exclusions, quantities in words, quantifiers) and knowing when
MapAsk is unsure (read-back, confidence, ask-back, out of the data): against SQL written here, on the real data."""
from __future__ import annotations

import json
import subprocess

from conftest import READER_DSN, ROOT, scalar
from plugin.core.pipeline import Pipeline


def count(a) -> int:
    assert a.status == "answered", (a.question, a.status, a.answer)
    return int(a.rows[0][a.columns.index("count")] if "count" in a.columns else a.rows[0][0])


def test_context_sentence_changes_nothing_and_is_said(pipeline):
    plain = pipeline.ask("How many fatal crashes in Boston?")
    told = pipeline.ask("We're revising the yearly overview. How many fatal crashes in Boston?")
    assert count(told) == count(plain)
    assert "revising" in told.understood["context"] and "context" in told.readback["text"]


def test_a_typo_of_the_vocabulary_is_corrected_and_logged(pipeline, admin):
    a = pipeline.ask("how many fatel crashes in boston")
    assert count(a) == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE crash_severity_descr = "
                                     "'Fatal injury' AND city_town_name = 'BOSTON'")
    assert {"from": "fatel", "to": "fatal", "why": "spelling"} in a.understood["corrections"]


def test_an_exclusion_counts_the_other_records(pipeline, admin):
    a = pipeline.ask("crashes in worcester excluding rear-ends")
    assert count(a) == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'WORCESTER' "
                                     "AND manr_coll_descr IS DISTINCT FROM 'Rear-end'")
    assert "not 'Rear-end'" in a.readback["text"]
    after = pipeline.ask("crashes in worcester, rear end crashes don't count")
    assert count(after) == count(a)


def test_excluded_days_are_the_other_days(pipeline, admin):
    a = pipeline.ask("crashes in springfield excluding weekends")
    assert count(a) == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SPRINGFIELD' "
                                     "AND extract(isodow FROM crash_date) BETWEEN 1 AND 5")


def test_a_place_left_out_is_the_complement_of_that_place(pipeline, admin):
    a = pipeline.ask("suffolk county collisions, except those in boston")
    assert count(a) == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'SUFFOLK' "
                                     "AND city_town_name IS DISTINCT FROM 'BOSTON'") > 0


def test_a_place_both_kept_and_left_out_is_asked_back(pipeline):
    a = pipeline.ask("crashes in boston excluding boston")
    assert a.status == "clarify" and "boston" in a.answer.lower() and not a.rows


def test_a_place_before_an_after_cue_is_not_left_out(pipeline, admin):
    a = pipeline.ask("lowell collisions, head-on ones don't count")
    kept = count(pipeline.ask("head-on collisions in lowell"))
    assert count(a) == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LOWELL'") - kept
    assert kept > 0


def test_quantities_in_words(pipeline):
    words = pipeline.ask("crashes within a quarter mile of schools")
    metres = pipeline.ask("crashes within 402.336 m of schools")
    assert count(words) == count(metres) > 0
    assert "402.3 m" in words.readback["text"]


def test_no_feature_within_a_distance_is_an_anti_join(pipeline, admin):
    a = pipeline.ask("how many crashes in the bike crash data had no traffic signal within 40 m")
    assert count(a) == scalar(admin, "SELECT count(*) FROM ma.cambridge_bicycle_crash c WHERE c.geom IS NOT NULL "
                                     "AND NOT EXISTS (SELECT 1 FROM ma.traffic_signal s "
                                     "WHERE ST_DWithin(c.geom, s.geom, 40))")
    some = pipeline.ask("how many crashes in the bike crash data were within 40 m of at least one traffic signal")
    assert count(some) + count(a) == scalar(admin, "SELECT count(*) FROM ma.cambridge_bicycle_crash "
                                                   "WHERE geom IS NOT NULL")


def test_out_of_the_data_is_refused_with_the_reason(pipeline):
    year = pipeline.ask("How many crashes were there in Lowell in 2021?")
    assert year.status == "refused" and "2017" in year.answer and not year.rows
    away = pipeline.ask("crashes in Portland, Oregon")
    assert away.status == "refused" and "outside" in away.answer
    cost = pipeline.ask("what is the repair cost of crashes in boston")
    assert cost.status == "refused" and "cost" in cost.answer


def test_a_judgement_without_a_measure_is_asked_back_with_measures(pipeline):
    a = pipeline.ask("Which Cambridge neighbourhood is the riskiest?")
    assert a.status == "clarify" and a.clarify[0]["text"] == "riskiest" and len(a.clarify[0]["choices"]) >= 2


def test_below_the_threshold_the_reading_is_offered_and_choosing_it_answers(pack):
    entries: list[dict] = []
    unsure = Pipeline(pack, READER_DSN, audit=entries.append, ask_below=0.999)
    q = "how many fatal crashes in boston"
    a = unsure.ask(q)
    assert a.status == "clarify" and not a.rows and a.clarify[0]["frames"]
    assert a.readback["text"] in a.answer and a.confidence is not None
    chosen = unsure.ask(q, choose=1)
    assert chosen.status == "answered" and chosen.rows and entries[-1]["choice"] == 1
    unsure.executor.close()


def test_cli_json_carries_readback_confidence_and_reasons():
    out = subprocess.run([str(ROOT / "mapask"), "ask", "fatal crashes in boston", "--json", "--audit", ""],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    obj = json.loads(out.stdout)
    assert obj["readback"].startswith("Read as:") and "'Fatal injury'" in obj["readback"]
    assert isinstance(obj["confidence"], float) and isinstance(obj["reasons"], list)


def test_below_the_threshold_other_sources_are_offered_as_readings(pack, admin):
    unsure = Pipeline(pack, READER_DSN, ask_below=0.999)
    q = "bike crashes within 100 m of schools in 2016"
    a = unsure.ask(q)
    readings = a.clarify[0]["choices"]
    assert a.status == "clarify" and len(readings) >= 2 and len(set(readings)) == len(readings)
    targets = [f["target"] for f in a.clarify[0]["frames"]]
    second = unsure.ask(q, choose=targets.index("bicycle_crash") + 1)
    assert second.status == "answered" and second.frame["target"] == "bicycle_crash"
    assert second.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.cambridge_bicycle_crash c WHERE "
                                              "EXISTS (SELECT 1 FROM ma.school s WHERE ST_DWithin(c.geom, s.geom, 100)) "
                                              "AND extract(year FROM c.date_time) = 2016")
    unsure.executor.close()


def test_another_language_is_told_mapask_reads_english(pipeline):
    a = pipeline.ask("cuántos accidentes hay en Boston")
    assert a.status == "clarify" and "reads English" in a.answer and "Spanish" in a.answer and not a.rows


def test_a_town_named_before_its_boundary_layer_is_that_polygon(pipeline, admin):
    """'inside the <town> city boundary': where the records lie in the boundary layer, not their town field; outside
    it, only records with a location."""
    inside = pipeline.ask("statewide sample collisions lying in cambridge's city boundary")
    assert count(inside) == scalar(admin, "SELECT count(*) FROM ma.massdot_crash c JOIN ma.city_boundary b "
                                          "ON ST_Intersects(b.geom, c.geom)")
    outside = pipeline.ask("police crash reports in 2012 outside the cambridge city boundary")
    assert count(outside) == scalar(admin, "SELECT count(*) FROM ma.cambridge_crash c WHERE year = 2012 AND "
                                           "c.geom IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ma.city_boundary b "
                                           "WHERE ST_Intersects(b.geom, c.geom))") > 0
