"""Phrasings read in the session of fresh31, through the whole rules pipeline: exclusions said in a sentence of their
own, 'drop', '+', 'not only', a declined exclusion, a reason closing a sentence, a purpose naming a piece of
writing and its topic, a source named in a sentence set aside, a blank said of a field by a pronoun, a place's
outline. Each answer is checked against SQL written here."""
from __future__ import annotations

from conftest import scalar
from test_phrasings_read import ask


def count(a) -> int:
    return int(a.rows[0][-1])


def test_an_exclusion_sentence_reaches_the_days_after_anything_on(pipeline, admin):
    a = ask(pipeline, "Collisions in Salem during 2017? Skip anything on a Tuesday or a Thursday.")
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                            AND extract(isodow FROM crash_date) NOT IN (2, 4)""")
    assert a.status == "answered" and count(a) == want


def test_a_field_that_was_not_filled_in_left_out(pipeline, admin):
    a = ask(pipeline, "police reports on a Monday in 2012. Skip reports whose day of week wasn't filled in.")
    want = scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE day_of_week = 'Monday' AND year = 2012")
    assert count(a) == want
    assert not any(p["op"] == "blank" and not p["negate"] for p in a.frame["filters"])


def test_drop_leaves_out_a_year_but_not_a_change_or_a_noun(pipeline):
    a = ask(pipeline, "Bike collisions by year, bicycle crash file, since 2019, drop 2025 since it is partial")
    years = [int(r[0]) for r in a.rows]
    assert 2025 not in years and min(years) == 2019
    b = pipeline.ask("did bike collisions (bicycle crash file) drop after 2020")
    assert 2020 not in (b.frame["time"]["years"] or [])  # (a change asked about, not a year left out)
    c = ask(pipeline, "We study the evening drop-off. Bike crash file: collisions on a Friday?")
    assert c.frame["time"]["isodow"] == [5]


def test_a_plus_between_values_of_one_field_adds_them_up(pipeline, admin):
    a = ask(pipeline, "fatal + non-fatal injury collisions in Lynn")
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                            AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")
    assert count(a) == want
    b = ask(pipeline, "bicycle crash file: signal controlled + wet road collisions")
    assert len(b.frame["filters"]) == 2  # (values of two fields: both hold)


def test_not_only_a_place_keeps_the_wider_area(pipeline, admin):
    a = ask(pipeline, "Essex County collisions (the whole county, not just the city of Lynn) on icy roads")
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'ESSEX'
                            AND road_surf_cond_descr = 'Ice'""")
    assert count(a) == want


def test_a_declined_exclusion_is_context(pipeline):
    a = ask(pipeline, "police crashes, one row per day of week, blank days as a row of their own instead of dropping them")
    assert a.status == "answered" and not a.understood["unused"]
    assert any(r[0] is None for r in a.rows) and len(a.rows) > 1


def test_a_reason_closing_a_sentence_is_a_remark(pipeline):
    a = ask(pipeline, "bicycle crash file, collisions in July for 2019 through 2023 but skip 2021 "
                      "since a new form changed the fields")
    assert a.status == "answered" and sorted(a.frame["time"]["years"]) == [2019, 2020, 2022, 2023]


def test_a_purpose_naming_a_piece_and_its_topic_is_context(pipeline, admin):
    a = ask(pipeline, "We are drafting a chapter about senior drivers, so I need a figure from the state sample: "
                      "collisions in Salem on wet roads.")
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                            AND road_surf_cond_descr = 'Wet'""")
    assert count(a) == want


def test_a_source_named_in_a_sentence_set_aside_is_the_records_meant(pipeline):
    a = ask(pipeline, "The bicycle crash file has a weather column, and I wonder about rain. "
                      "Count the crashes in rain in 2019.")
    assert a.frame["target"] == "bicycle_crash"


def test_a_pronoun_before_a_blank_word_is_the_field_said_last(pipeline, admin):
    a = ask(pipeline, "bicycle crash file: collisions per junction type, keeping those where it is left blank")
    want = scalar(admin, "SELECT count(DISTINCT trim(roadway_junction_type)) + 1 FROM ma.cambridge_bicycle_crash")
    assert a.status == "answered" and len(a.rows) == want


def test_a_city_outline_is_the_polygon_even_for_a_source_of_that_city(pipeline, admin):
    a = ask(pipeline, "pedestrian police reports that fall inside the city boundary")
    want = scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c WHERE c.pedestrian_involved AND EXISTS
                            (SELECT 1 FROM ma.city_boundary b WHERE ST_Intersects(b.geom, c.geom))""")
    assert count(a) == want
    b = ask(pipeline, "pedestrian police reports in Cambridge")
    assert count(b) == scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE pedestrian_involved")


def test_a_date_in_digits_is_read_as_a_date(pipeline, admin):
    a = ask(pipeline, "injury collisions 10/2-10/8/2017 in the state sample")
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE crash_date BETWEEN '2017-10-02' AND '2017-10-08'
                            AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")
    assert count(a) == want
    b = pipeline.ask("collisions in Salem on 2017-03-14")
    assert b.frame["time"]["date_from"] == b.frame["time"]["date_to"] == "2017-03-14"


def test_every_year_across_the_file_is_no_grouping(pipeline):
    a = ask(pipeline, "bicycle crash file collisions in May, across all the years it covers")
    assert a.frame["group_by"] == [] and len(a.rows) == 1


def test_a_value_of_another_field_beside_compared_values_holds_for_both_sides(pipeline, admin):
    a = ask(pipeline, "icy road - angle vs head-on collisions")
    assert len(a.rows) == 2
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE road_surf_cond_descr = 'Ice'
                            AND manr_coll_descr = 'Angle'""")
    assert want in [int(r[-1]) for r in a.rows]


def test_a_share_out_of_each_groups_own_records(pipeline, admin):
    a = ask(pipeline, "For each county, the percent of collisions on icy roads out of every one of that county's collisions")
    want = scalar(admin, """SELECT round(100.0 * count(*) FILTER (WHERE road_surf_cond_descr = 'Ice') / count(*), 2)
                            FROM ma.massdot_crash WHERE cnty_name = 'ESSEX'""")
    got = {r[0]: r[-1] for r in a.rows}
    assert round(float(got["ESSEX"]), 2) == float(want)


def test_each_record_counted_once_past_an_auxiliary(pipeline):
    a = ask(pipeline, "bicycle crash file: collisions within 80 m of bus stops. Each collision should be counted once.")
    assert a.frame["group_by"] == [] and len(a.rows) == 1


def test_the_group_outside_every_area_left_off(pipeline):
    a = ask(pipeline, "pedestrian police reports per neighbourhood; any that fall outside all 13 neighbourhoods can be left off")
    assert len(a.rows) == 13 and all(r[0] for r in a.rows)


def test_whatever_after_sibling_values_keeps_the_value_they_are_kinds_of(pipeline, admin):
    a = ask(pipeline, "how many collisions in Lynn after dark? lit road, unlit road, whatever")
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                            AND ambnt_light_descr LIKE 'Dark%%'""")
    assert count(a) == want


def test_a_sentence_opening_with_a_remark_keeps_nothing(pipeline):
    a = ask(pipeline, "bicycle crash file collisions per year since 2020. I know 2025 is still partial; keep it in.")
    years = [int(r[0]) for r in a.rows]
    assert min(years) == 2020 and 2025 in years and len(years) > 1


def test_a_habit_said_in_a_statement_is_no_time(pipeline):
    a = pipeline.ask("We cycle past King Open School each afternoon. Police reports with a bicycle within 300 m of it?")
    assert not a.frame["time"]["hours"]


def test_two_ages_joined_by_or_are_the_band_between_them(pipeline, admin):
    b = ask(pipeline, "state sample collisions whose youngest driver was 16 or 17")
    assert count(b) == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE age_drvr_yngst = '16-17'")
    c = pipeline.ask("state sample collisions whose youngest driver was aged 17 or 18")
    assert c.status == "clarify" and "17 or 18" in c.answer  # (no band lies within: asked back, naming it)


def test_fall_beside_another_season_is_the_season(pipeline):
    a = ask(pipeline, "bicycle crash file: spring vs fall collisions since 2019")
    assert len(a.rows) == 2


def test_the_start_of_a_year_and_value_producing_records(pipeline, admin):
    a = ask(pipeline, "injury-producing collisions in Lynn since the start of 2017")
    want = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                            AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")
    assert count(a) == want


def test_a_fields_own_words_are_no_street_name(pipeline):
    a = ask(pipeline, "list bicycle crash file collisions on ice with street and cross street")
    assert a.frame["near"] is None
