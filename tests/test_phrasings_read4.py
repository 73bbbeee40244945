"""Phrasings read in the session of fresh20, through the whole rules pipeline and checked against an analyst's SQL:
several places left out, month names misspelt, a lead that checks one thing against another, an impression of a
number, a sentence that limits the list, a census year said with its population, a season named by its months,
values of one field listed with an ambiguous one, a partitive 'which of the', a feature named in a purpose and
referred back to."""
from __future__ import annotations

from conftest import rows, scalar
from test_phrasings_read import ask


def test_several_places_left_out(pipeline, admin):
    a = ask(pipeline, "fatal or injury collisions in Hampden County, leaving out Springfield or Holyoke")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'HAMPDEN'
        AND city_town_name NOT IN ('SPRINGFIELD', 'HOLYOKE')
        AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")


def test_a_month_name_misspelt(pipeline, admin):
    a = ask(pipeline, "collisions in Lynn during Septmber")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                                           AND extract(month FROM crash_date) = 9""")
    assert {"from": "septmber", "to": "september", "why": "spelling"} in pipeline.annotator().annotate(
        "collisions in Lynn during Septmber").corrections


def test_a_lead_checking_one_thing_against_another(pipeline, admin):
    a = ask(pipeline, "Verifying our slide against the 2017 statewide collision sample: count of fatal crashes in Lynn?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                                           AND crash_severity_descr = 'Fatal injury'""")


def test_an_impression_of_a_number_is_background(pipeline, admin):
    a = ask(pipeline, "Their rush-hour figure seems off. How many Salem collisions happened on a Friday?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                                           AND extract(isodow FROM crash_date) = 5""")


def test_a_sentence_that_limits_the_ranking(pipeline, admin):
    a = ask(pipeline, "Rank the towns of Essex County by injury collisions (2017). The top 3 will do.")
    assert len(a.rows) == 3
    assert [r[1] for r in a.rows] == [r[1] for r in rows(admin, """SELECT city_town_name, count(*) FROM ma.massdot_crash
        WHERE cnty_name = 'ESSEX' AND crash_severity_descr = 'Non-fatal injury' GROUP BY 1 ORDER BY 2 DESC LIMIT 3""")]


def test_a_census_year_said_with_its_population(pipeline, admin):
    a = ask(pipeline, "towns with under 2,000 residents (2010 census): the 3 with the most collisions?")
    want = rows(admin, """SELECT c.city_town_name, count(*) FROM ma.massdot_crash c JOIN ma.town t ON t.town = c.city_town_name
        WHERE t.pop2010 < 2000 GROUP BY 1 ORDER BY 2 DESC LIMIT 3""")
    assert [r[1] for r in a.rows] == [r[1] for r in want]


def test_a_season_named_by_the_months_said(pipeline, admin):
    a = ask(pipeline, "summer months (May-Sep) collisions in Salem, per month")
    assert dict(map(tuple, a.rows)) == dict(map(tuple, rows(admin, """SELECT extract(month FROM crash_date)::int, count(*)
        FROM ma.massdot_crash WHERE city_town_name = 'SALEM' AND extract(month FROM crash_date) BETWEEN 5 AND 9
        GROUP BY 1""")))


def test_an_ambiguous_value_listed_with_values_of_one_field(pipeline, admin):
    a = ask(pipeline, "how many Worcester collisions where the pavement had slush, snow or ice")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'WORCESTER'
                                           AND road_surf_cond_descr IN ('Slush', 'Snow', 'Ice')""")


def test_which_of_the_features_lists_them(pipeline, admin):
    a = ask(pipeline, "which of the signals belong to DCR?")
    assert a.frame["intent"] == "list"
    assert len(a.rows) == scalar(admin, """SELECT count(*) FROM ma.traffic_signal
        WHERE jurisdiction = 'Massachusetts Dept. Conservation & Recreation'""")


def test_a_feature_named_in_a_purpose_and_referred_back_to(pipeline, admin):
    a = ask(pipeline, "For the crossing guard plan at Graham and Parks School: count pedestrian crashes in the "
                      "police reports within 250 m of the school")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c WHERE pedestrian_involved AND
        EXISTS (SELECT 1 FROM ma.school s WHERE s.site_name ILIKE 'Graham%%Parks%%' AND ST_DWithin(c.geom, s.geom, 250))""")


def test_two_codes_of_one_number_field_are_either(pipeline, admin):
    a = ask(pipeline, "Cambridge bus stops not flagged wheelchair accessible: no info or inaccessible. List them.")
    assert len(a.rows) == scalar(admin, """SELECT count(*) FROM ma.mbta_stop WHERE vehicle_type = 3
        AND municipality = 'Cambridge' AND wheelchair_boarding IN (0, 2)""")


def test_a_plus_between_two_values(pipeline, admin):
    a = ask(pipeline, "count fatal+injury collisions in Quincy")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'QUINCY'
        AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")


def test_the_record_numbers_ask_for_the_records(pipeline, admin):
    a = ask(pipeline, "Rear-end collisions in Quincy on a wet road. Only the crash numbers please.")
    assert a.frame["intent"] == "list" and not a.frame.get("group_by")
    assert len(a.rows) == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'QUINCY'
        AND manr_coll_descr = 'Rear-end' AND road_surf_cond_descr = 'Wet'""")


def test_a_count_condition_beside_a_rate_keeps_groups_by_their_count(pipeline, admin):
    a = ask(pipeline, "of the towns with at least 100 collisions, the top 3 by collision rate per 1,000 inhabitants")
    want = rows(admin, """SELECT c.city_town_name FROM ma.massdot_crash c JOIN ma.town t ON t.town = c.city_town_name
        GROUP BY 1, t.pop2010 HAVING count(*) >= 100 ORDER BY count(*) * 1000.0 / t.pop2010 DESC LIMIT 3""")
    assert [r[0] for r in a.rows] == [r[0] for r in want]


def test_a_size_said_in_a_sentence_of_its_own(pipeline, admin):
    a = ask(pipeline, "Which 4 towns show the lowest collision rate per 1,000 inhabitants? Just towns with at least 30,000 people.")
    want = rows(admin, """SELECT c.city_town_name FROM ma.massdot_crash c JOIN ma.town t ON t.town = c.city_town_name
        WHERE t.pop2010 >= 30000 GROUP BY 1, t.pop2010 ORDER BY count(*) * 1000.0 / t.pop2010 LIMIT 4""")
    assert [r[0] for r in a.rows] == [r[0] for r in want]


def test_labels_after_an_exclusion_that_would_leave_nothing_are_kept(pipeline, admin):
    a = pipeline.ask("count the ramps rated other than good (E, F or P)")  # (asked back or not, as read:)
    kept = [p for p in a.frame["filters"] if p.get("field") == "condition" and not p.get("negate")]
    assert [sorted(p["values"]) for p in kept] == [["E", "F", "P"]]


def test_a_list_of_kinds_runs_past_the_kinds_named(pipeline, admin):
    a = ask(pipeline, "bike file crashes at an intersection, whether T, traffic circle or Y, per year")
    want = rows(admin, """SELECT year, count(*) FROM ma.cambridge_bicycle_crash WHERE trim(roadway_junction_type)
        IN ('T-INTERSECTION', 'TRAFFIC CIRCLE', 'Y-INTERSECTION') GROUP BY 1""")
    assert dict(map(tuple, a.rows)) == dict(map(tuple, want))


def test_a_source_named_by_a_name_of_its_own(pipeline, admin):
    a = ask(pipeline, "share of Cambridge MBTA bus stops, going by the GTFS, marked wheelchair accessible")
    want = scalar(admin, """SELECT 100.0 * count(*) FILTER (WHERE wheelchair_boarding = 1) / count(*) FROM ma.mbta_stop
        WHERE vehicle_type = 3 AND municipality = 'Cambridge'""")
    assert abs(a.rows[0][-1] - float(want)) < 0.01


def test_a_blank_field_said_with_the_records_word(pipeline, admin):
    a = ask(pipeline, "Salem collisions between 9 pm and 3 am, skipping those with no crash time")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
        AND crash_time IS NOT NULL AND (extract(hour FROM crash_time) >= 21 OR extract(hour FROM crash_time) < 3)""")


def test_the_speaker_telling_about_themselves_beside_a_request(pipeline, admin):
    a = ask(pipeline, "Yearly bicycle collisions, city police data, 2012 to 2016. I am redoing a chart from a report.")
    assert dict(map(tuple, a.rows)) == dict(map(tuple, rows(admin, """SELECT year, count(*) FROM ma.cambridge_crash
        WHERE bicycle_involved AND year BETWEEN 2012 AND 2016 GROUP BY 1""")))


def test_a_list_of_years_after_from(pipeline, admin):
    a = ask(pipeline, "police crash reports from 2011, 2013 and 2014 in Cambridgeport")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c JOIN ma.neighborhood n
        ON ST_Intersects(c.geom, n.geom) WHERE n.name = 'Cambridgeport' AND c.year IN (2011, 2013, 2014)""")


def test_hours_said_again_on_the_twelve_hour_clock(pipeline, admin):
    a = ask(pipeline, "Lynn collisions between 5 and 8 pm (5:00 to 7:59)")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
        AND extract(hour FROM crash_time) BETWEEN 17 AND 19""")


def test_a_label_of_many_fields_is_of_the_field_grouped_by(pipeline, admin):
    a = pipeline.ask("collisions in Salem for each light condition, skip Unknown")  # (asked back or not, as read:)
    assert [p["field"] for p in a.frame["filters"] if p.get("negate")] == ["ambnt_light_descr"]


def test_a_side_said_again_is_that_side_alone(pipeline, admin):
    a = ask(pipeline, "fatal collisions on wet roads vs on dry roads, statewide; wet means the Wet code")
    got = dict((r[0], r[1]) for r in a.rows)
    assert sorted(got.values()) == sorted([scalar(admin, f"""SELECT count(*) FROM ma.massdot_crash
        WHERE crash_severity_descr = 'Fatal injury' AND road_surf_cond_descr = '{v}'""") for v in ("Wet", "Dry")])


def test_abbreviations_of_a_field_word_and_an_exclusion(pipeline, admin):
    a = ask(pipeline, "Lynn collisions by light cond, excl dusk")
    assert dict(map(tuple, a.rows)) == dict(map(tuple, rows(admin, """SELECT ambnt_light_descr, count(*)
        FROM ma.massdot_crash WHERE city_town_name = 'LYNN' AND ambnt_light_descr <> 'Dusk' GROUP BY 1""")))


def test_the_groups_listed_after_the_field_grouped_by(pipeline, admin):
    a = ask(pipeline, "ramp tally per rating of condition (E, G, F or P); add a line for those with no rating")
    assert dict(map(tuple, a.rows)) == dict(map(tuple, rows(admin, """SELECT condition, count(*)
        FROM ma.pedestrian_ramp GROUP BY 1""")))


def test_a_count_claimed_in_a_quote_is_no_condition(pipeline, admin):
    a = ask(pipeline, 'Fact check: "more than 500 collisions in Cambridgeport". Count the city police reports '
                      'located in Cambridgeport.')
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c JOIN ma.neighborhood n
        ON ST_Intersects(c.geom, n.geom) WHERE n.name = 'Cambridgeport'""")


def test_the_busiest_part_of_time_is_one(pipeline, admin):
    a = ask(pipeline, "busiest weekday for Salem collisions")
    assert len(a.rows) == 1


def test_kinds_said_bare_before_the_head_of_the_last(pipeline, admin):
    a = ask(pipeline, "yearly counts of bicycle file collisions at a T or Y intersection")
    assert dict(map(tuple, a.rows)) == dict(map(tuple, rows(admin, """SELECT year, count(*) FROM ma.cambridge_bicycle_crash
        WHERE trim(roadway_junction_type) IN ('T-INTERSECTION', 'Y-INTERSECTION') GROUP BY 1""")))
