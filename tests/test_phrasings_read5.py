"""Phrasings read in the session of fresh24, through the whole rules pipeline and checked against an analyst's SQL:
what a third party did, a time pointed back at, a relative 'who', a question word in what was said, a value said
again after 'marked', a slash between street names, each of two named features, a value naming a document, a
question naming nothing after a statement."""
from __future__ import annotations

from conftest import rows, scalar
from test_phrasings_read import ask

_NEAR_SCHOOL = """SELECT count(*) FROM ma.cambridge_crash c WHERE c.pedestrian_involved AND EXISTS (
    SELECT 1 FROM ma.school s WHERE s.site_name = '{}' AND ST_DWithin(c.geom, s.geom, 160))"""


def test_what_a_third_party_did_asks_nothing(pipeline, admin):
    a = ask(pipeline, "The auditor ranked counties by injuries in a memo. How many collisions in Lynn were fatal?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                                           AND crash_severity_descr = 'Fatal injury'""")


def test_a_time_pointed_back_at(pipeline, admin):
    a = ask(pipeline, "The leaflet covered 2011 to 2013. Count city police crash reports with a cyclist in those years.")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash WHERE bicycle_involved
                                           AND year BETWEEN 2011 AND 2013""")


def test_a_relative_who_and_a_slash_between_streets(pipeline, admin):
    a = ask(pipeline, "A cyclist who commutes past Hampshire St/Broadway says it is scary. How many city police crash "
                      "reports within 30 m of that intersection?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c WHERE EXISTS (
        SELECT 1 FROM ma.intersection i WHERE i.intersection = 'Broadway & Hampshire St'
        AND ST_DWithin(c.geom, i.geom, 30))""")


def test_each_of_two_schools_named_in_what_was_said(pipeline, admin):
    a = ask(pipeline, "Two teachers debated which school is safer, the Morse School or the Baldwin School. Pedestrian "
                      "crash reports within 160 m of each?")
    assert a.frame["intent"] == "compare"
    want = [scalar(admin, _NEAR_SCHOOL.format("Morse School")), scalar(admin, _NEAR_SCHOOL.format("Baldwin School"))]
    assert [r[-1] for r in a.rows] == want


def test_a_value_said_again_after_marked(pipeline, admin):
    a = ask(pipeline, "count of ramps with puddling marked YES")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp WHERE puddling = 'YES'")


def test_a_value_naming_a_document_is_no_condition(pipeline, admin):
    a = ask(pipeline, "We are writing our cyclist safety grant application. How many collisions in Lynn were fatal?")
    assert a.frame["target"] == "crash"
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                                           AND crash_severity_descr = 'Fatal injury'""")


def test_a_question_naming_nothing_asks_of_the_statement(pipeline):
    a = pipeline.ask("salem fatal crashes on zorbled roads - list")
    assert a.status != "answered"
    assert "zorbled" in a.answer


def test_an_exclusion_in_brackets_stops_at_the_bracket(pipeline, admin):
    a = ask(pipeline, "yearly bicycle crashes where control device was just traffic signal (but not the flashing ones), "
                      "2019 to 2021")
    assert [r[-1] for r in a.rows] == [r[0] for r in rows(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash
        WHERE traffic_control_device_type ILIKE '%%traffic control signal%%'
        AND traffic_control_device_type NOT ILIKE '%%flashing%%'
        AND extract(year FROM date_time) BETWEEN 2019 AND 2021 GROUP BY extract(year FROM date_time)
        ORDER BY extract(year FROM date_time)""")]


def test_no_feature_within_a_distance_is_none_near(pipeline, admin):
    a = ask(pipeline, "crashes of the bike file with no signal within 200 ft")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash c WHERE NOT EXISTS (
        SELECT 1 FROM ma.traffic_signal s WHERE ST_DWithin(c.geom, s.geom, 60.96))""")


def test_an_english_word_is_no_place_misspelt(pipeline):
    a = pipeline.ask("Yearly counts of bicycle crashes in the dark, bike crash file? The whole range, 2016 to 2024.")
    assert a.status == "answered", a.answer
    assert not a.frame.get("scope")


def test_the_hour_is_given_with_its_published_band(pipeline, admin):
    a = ask(pipeline, "the 2 busiest hours for crashes in Worcester")
    band = a.columns.index("hour_band")
    want = rows(admin, """SELECT crash_hour, count(*) FROM ma.massdot_crash WHERE city_town_name = 'WORCESTER'
        AND crash_hour IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 2""")
    assert [r[band] for r in a.rows] == [w[0] for w in want]


def test_a_feature_on_its_street_is_one_place(pipeline, admin):
    a = ask(pipeline, "how many ramps within 300 m of the Morse School on Granite St are rated fair?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.pedestrian_ramp r WHERE r.condition = 'F' AND EXISTS (
        SELECT 1 FROM ma.school s WHERE s.site_name = 'Morse School' AND ST_DWithin(r.geom, s.geom, 300))""")


def test_a_period_after_an_abbreviation_ends_no_sentence(pipeline):
    from plugin.core.clauses import pieces
    from plugin.core.phrase_rules import rule_files
    got = [c.raw for c in pieces("Our walk starts at the Peabody Jr. School on Rindge Ave. Which collisions are near it?",
                                 rule_files("en")["context"])]
    assert got == ["Our walk starts at the Peabody Jr. School on Rindge Ave.", "Which collisions are near it?"]


def test_a_day_written_before_its_month(pipeline, admin):
    a = ask(pipeline, "collisions in Salem between 1 March 2017 and 15 April 2017, both dates inclusive")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                                           AND crash_date BETWEEN '2017-03-01' AND '2017-04-15'""")


def test_dont_count_before_a_value_covers_only_that_value(pipeline, admin):
    a = ask(pipeline, "rear-end collisions in Lynn on wet roads - don't count pdo")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
        AND manr_coll_descr = 'Rear-end' AND road_surf_cond_descr = 'Wet'
        AND trim(crash_severity_descr) <> 'Property damage only'""")


def test_a_question_opener_is_never_corrected(pipeline):
    ann = pipeline.annotator().annotate("compute the fatal ones as a share of Lynn collisions")
    assert not ann.corrections


def test_the_weights_of_the_measure_said_again_are_no_condition(pipeline, admin):
    a = ask(pipeline, "EPDO of crashes in Salem? Fatal or injury ones at 21, the rest at 1.")
    assert a.rows[0][0] == scalar(admin, """SELECT sum(CASE WHEN crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')
        THEN 21 ELSE 1 END) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'""")


def test_a_part_said_before_as_a_percentage_of(pipeline, admin):
    a = ask(pipeline, "Within Salem records, compute fatal or injury crashes as a percentage of the records, leaving "
                      "out severity Unknown.")
    whole = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                             AND crash_severity_descr NOT IN ('Unknown', 'Not Reported')""")
    part = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                            AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")
    assert list(a.rows[0][:2]) == [part, whole]


def test_a_feature_named_before_and_referred_back_to_beside_a_town(pipeline, admin):
    a = ask(pipeline, "I write for the parents of the Morse School. Count pedestrian collisions 300 m or "
                      "less from the school, Cambridge police crash reports.")
    assert a.rows[0][0] == scalar(admin, _NEAR_SCHOOL.replace("160", "300").format("Morse School"))


def test_rank_the_months(pipeline, admin):
    a = ask(pipeline, "Please rank the months by Lynn crashes, worst two.")
    want = rows(admin, """SELECT extract(month FROM crash_date)::int, count(*) FROM ma.massdot_crash
        WHERE city_town_name = 'LYNN' GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 2""")
    assert [r[1] for r in a.rows] == [w[1] for w in want]


def test_a_value_left_out_of_the_features_near(pipeline, admin):
    a = ask(pipeline, "police crash reports within 250 m of a school, leaving out private ones")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c WHERE EXISTS (
        SELECT 1 FROM ma.school s WHERE s.school_type <> 'private' AND ST_DWithin(c.geom, s.geom, 250))""")
