"""Phrasings read in the session of fresh28, through the whole rules pipeline: numbers the answer restates (the
number of groups, of labels, a weight, the population's year) and places or sources a layer implies are no sign of
a misreading to the verifier."""
from __future__ import annotations

from conftest import scalar
from test_phrasings_read import ask


def feature(a, name: str) -> float:
    return next(f["value"] for f in a.features if f["name"] == name)


def test_the_number_of_groups_restated_is_accounted_for(pipeline):
    a = pipeline.ask("signals by neighbourhood in cambridge, all 13 of them")
    assert len(a.rows) == 13 and feature(a, "numbers_unused") == 0
    b = pipeline.ask("signals by neighbourhood in cambridge, all 12 of them")
    assert feature(b, "numbers_unused") == 1  # a number the answer does not bear out still counts


def test_a_count_of_labels_and_the_weights_restated_are_accounted_for(pipeline):
    a = ask(pipeline, "share of Lynn collisions in the dark, all three dark codes")
    assert feature(a, "numbers_unused") == 0
    b = ask(pipeline, "EPDO by county with injury collisions weighted 21")
    assert feature(b, "numbers_unused") == 0


def test_the_year_of_the_population_a_rate_divides_by_is_accounted_for(pipeline):
    a = ask(pipeline, "Lynn and Salem: collision rate per 10,000 inhabitants, 2010 census count")
    assert feature(a, "numbers_unused") == 0


def test_a_place_and_a_records_word_the_chosen_layer_implies_are_used(pipeline):
    a = ask(pipeline, "which 2 Cambridge private schools have the most bicycle police reports within 300 m")
    assert a.understood["unused"] == []


def test_values_of_one_field_said_together_are_any_of_them_and_no_change_of_meaning(pipeline):
    a = ask(pipeline, "angle collisions in Berkshire and Hampden counties")
    assert "values_any" in [r["code"] for r in a.repairs] and feature(a, "repairs_of_meaning") == 0


def test_the_only_source_that_answers_everything_is_no_guess(pipeline):
    a = ask(pipeline, "bicycle crashes on wet roads since 2019")
    assert a.frame["target"] == "bicycle_crash"
    assert "entity_only" in [r["code"] for r in a.repairs] and feature(a, "entity_guessed") == 0


def test_leaving_out_values_that_say_nothing_narrows_the_whole_of_a_share(pipeline, admin):
    a = ask(pipeline, "percent of Lynn collisions on icy roads, excluding surfaces unknown or not reported")
    want = scalar(admin, """SELECT round(100.0 * count(*) FILTER (WHERE road_surf_cond_descr = 'Ice') / count(*), 2)
                            FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                            AND road_surf_cond_descr NOT IN ('Unknown', 'Not reported')""")
    assert round(float(a.rows[0][-1]), 2) == float(want)


def test_a_fraction_in_digits_is_a_distance(pipeline):
    a = ask(pipeline, "bicycle police reports w/in 1/2 mi of King Open School")
    assert a.frame["near"]["distance_m"] == 804.672


def test_the_records_own_town_in_their_source_name_keeps_the_outside_group(pipeline):
    a = ask(pipeline, "2012 bicycle-involved reports per nbhd, taken from cambridge police data")
    assert a.frame["group_by"][0]["outside"] is True
    b = ask(pipeline, "bicycle police reports per neighborhood in cambridge")
    assert b.frame["group_by"][0]["outside"] is False


def test_records_that_do_not_land_inside_any_area_are_a_group_of_their_own(pipeline):
    a = ask(pipeline, "bicycle police reports of 2013 by neighbourhood, plus a row for reports that don't lie inside any of them")
    assert a.frame["group_by"][0]["outside"] is True


def test_a_bracket_spelling_out_an_abbreviation_keeps_it_with_its_words(pipeline):
    a = ask(pipeline, "how many MBTA (Massachusetts Bay Transportation Authority) bus stops are in The Port")
    assert a.rows == pipeline.ask("The Port: its MBTA bus stop count").rows
    assert "authority" not in a.understood.get("asked_unread", []) + a.understood.get("context", [])


def test_shorthand_for_driver_and_road(pipeline, admin):
    a = ask(pipeline, "wet rd collisions in Lynn, youngest drvr under 18")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LYNN'
                                           AND road_surf_cond_descr = 'Wet' AND age_drvr_yngst IN ('<16', '16-17')""")


def test_days_said_without_a_year_are_the_records_latest_year(pipeline, admin):
    a = ask(pipeline, "statewide sample collisions from halloween to november 7, both days included")
    assert a.frame["time"]["date_from"] == "2017-10-31" and a.frame["time"]["date_to"] == "2017-11-07"
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
                                           WHERE crash_date BETWEEN '2017-10-31' AND '2017-11-07'""")


def test_where_joining_a_condition_to_its_records_asks_how_many(pipeline, admin):
    a = pipeline.ask("icy rd collisions in Salem where the youngest drvr was 16-17")
    assert a.frame["intent"] == "count"
    assert pipeline.ask("where were the icy collisions in Salem").frame["intent"] == "list"


def test_the_field_said_before_its_value_is_no_grouping_and_hours_after_the_records_word_rank(pipeline):
    a = ask(pipeline, "top 2 collision hours for Lynn while the road was icy")
    assert [g["key"] for g in a.frame["group_by"]] == ["hour"] and a.frame["rank"]["limit"] == 2


def test_a_lead_saying_what_the_answer_is_compared_with_is_a_purpose(pipeline, admin):
    a = ask(pipeline, "For comparison with the big cities, count the injury collisions in Essex County other than Lynn")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'ESSEX'
        AND city_town_name <> 'LYNN' AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")


def test_places_or_spots_where_records_happened_are_no_place_names(pipeline):
    a = ask(pipeline, "bicycle file crashes by year at spots with no traffic control, 2019 on")
    assert a.frame["target"] == "bicycle_crash" and a.frame["filters"] and a.frame["time"]["date_from"] == "2019-01-01"


def test_the_values_missing_from_a_grouped_field_said_as_their_own_group_are_no_condition(pipeline, admin):
    a = ask(pipeline, "curb ramps in Riverside by condition, keeping the unrated ones as a separate group")
    assert not a.frame["filters"] and a.frame["group_by"][0]["key"].endswith("condition")
    b = ask(pipeline, "unrated curb ramps per neighbourhood")
    assert sum(r[-1] for r in b.rows) == scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp WHERE condition IS NULL")


def test_a_possessive_holiday_name(pipeline):
    a = ask(pipeline, "Lynn collisions between Christmas Eve and New Year's Eve")
    assert a.frame["time"]["date_from"] == "2017-12-24" and a.frame["time"]["date_to"] == "2017-12-31"


def test_an_abbreviation_that_never_ends_a_sentence(pipeline):
    a = ask(pipeline, "King Open vs. the Haggerty School: bicycle police reports within 300 m of each")
    assert len(a.rows) == 2 and a.frame["compare"]


def test_doing_a_piece_of_writing_is_a_purpose(pipeline):
    a = ask(pipeline, "Doing a town-by-town handout on angle collisions. How many angle collisions in each county?")
    assert a.frame["filters"] and [g["key"] for g in a.frame["group_by"]] == ["cnty_name"]


def test_shorthand_with_and_week(pipeline):
    a = ask(pipeline, "injury collisions w oldest drvr 85 plus by day of wk")
    assert len(a.frame["filters"]) == 2 and a.frame["group_by"]


def test_a_holiday_on_a_weekday_of_a_month_in_a_year_said(pipeline, admin):
    a = ask(pipeline, "Lynn collisions on thanksgiving day 2017")
    assert a.frame["time"]["date_from"] == "2017-11-23"


def test_a_lead_grouping_by_a_part_of_time_asks(pipeline):
    a = ask(pipeline, "Month by month (2017 only): Salem injury collisions after dark, how many?")
    assert [g["key"] for g in a.frame["group_by"]] == ["month"]


def test_an_hour_range_up_to_an_hour(pipeline):
    a = ask(pipeline, "weekday Salem collisions, 3 pm up to 6 pm")
    assert a.frame["time"]["hours"] == [15, 16, 17]


def test_more_words_of_a_name_said_beside_its_part_are_that_name(pipeline):
    a = pipeline.ask("bicycle police reports within 250 m of graham and parks")
    assert a.frame["near"]["anchor"]["name"] == "Graham and Parks School" and not a.clarify
    assert "parks" not in a.understood.get("asked_unread", [])


def test_the_records_named_again_after_a_distance_are_no_second_layer(pipeline, admin):
    a = ask(pipeline, "Which private schools have no signal located within 91 m of the school?")
    assert a.frame["near"]["entity"] == "traffic_signal" and a.frame["near"]["quantifier"] == "none"
    assert len(a.rows) == scalar(admin, """SELECT count(*) FROM ma.school s WHERE s.school_type = 'private' AND NOT EXISTS
        (SELECT 1 FROM ma.traffic_signal t WHERE ST_DWithin(t.geom, s.geom, 91))""")


def test_a_time_that_names_a_show_is_no_condition(pipeline):
    a = ask(pipeline, "We're doing an icy roads segment for the Friday evening show. How many statewide collisions on icy roads?")
    assert a.frame["time"]["isodow"] == [] and a.frame["time"]["hours"] == []


def test_a_change_named_in_a_purpose_asks_for_none(pipeline):
    a = ask(pipeline, "To see how it moved before we set the targets, Salem collisions by month")
    assert a.frame["group_by"][0]["key"] == "month"
    assert pipeline.ask("For the report, delete all crashes").status == "refused"


def test_a_year_left_out_of_a_range_said_from_a_year(pipeline):
    a = ask(pipeline, "crashes in the bicycle file by year since 2016 excl 2021")
    assert [r[0] for r in a.rows] == [y for y in range(2016, 2026) if y != 2021]


def test_shorthand_and_number_words(pipeline):
    assert ask(pipeline, "bicycle file crashes w/in 20 m of a sig").frame["near"]["entity"] == "traffic_signal"
    assert ask(pipeline, "bike police rpts per yr").frame["target"] == "police_crash"
    assert len(pipeline.ask("bus shelters per neighbourhood, all thirteen").rows) >= 13


def test_a_word_for_the_message_after_our_is_no_value(pipeline):
    a = ask(pipeline, "Salem is our angle. How many icy collisions there?")
    assert [p["concept"] for p in a.frame["filters"]] == ["icy"]


def test_a_count_joined_to_a_records_word_describes_the_dataset(pipeline):
    a = ask(pipeline, "Statewide data (a 10,000-row extract): head-on collisions in Essex County, how many?")
    assert not a.frame["having"] and len(a.frame["filters"]) == 2
