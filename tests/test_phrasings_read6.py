"""Phrasings read in the session of fresh26, through the whole rules pipeline and checked against an analyst's SQL:
a year before a ranking word, a direction of order said in words, a sentence telling what is included, values
restated after 'whether', areas holding no features, a part of the day naming the hours beside it, a layer word
referring back, the county written 'co', and a word set aside as context weighed once by the verifier."""
from __future__ import annotations

from conftest import rows, scalar
from test_phrasings_read import ask



def test_a_year_before_a_ranking_word_ends_a_range(pipeline, admin):
    a = ask(pipeline, "pedestrian police crash reports by neighbourhood (2012-2015), most to fewest")
    assert a.frame["time"]["date_from"] == "2012-01-01" and a.frame["time"]["date_to"] == "2015-12-31"
    want = rows(admin, """SELECT n.name, count(c.gid) FROM ma.neighborhood n LEFT JOIN ma.cambridge_crash c
                          ON c.pedestrian_involved AND c.year BETWEEN 2012 AND 2015 AND ST_Intersects(n.geom, c.geom)
                          GROUP BY n.name ORDER BY 2 DESC, 1""")
    assert [r for r in a.rows if r[0] is not None] == [list(r) for r in want] or \
        [tuple(r) for r in a.rows if r[0] is not None] == [tuple(r) for r in want]
    values = [r[-1] for r in a.rows]
    assert values == sorted(values, reverse=True)


def test_an_order_said_fewest_to_most_ranks_upward(pipeline):
    a = ask(pipeline, "counties by fatal collisions, fewest to most")
    assert a.frame["rank"]["order"] == "asc"
    values = [r[-1] for r in a.rows]
    assert values == sorted(values)


def test_a_sentence_telling_what_is_included_asks_nothing(pipeline):
    a = ask(pipeline, "Collisions in Lynn by month. Any snowy weather label counts.")
    assert a.frame["intent"] == "trend" and [p["concept"] for p in a.frame["filters"]] == ["snow"]


def test_a_records_word_before_counts_still_asks(pipeline):
    a = ask(pipeline, "bicycle file: 2016 vs 2021 crash counts")
    assert a.frame["intent"] == "compare"


def test_values_restated_after_whether(pipeline, admin):
    a = ask(pipeline, "Share of collisions in Lowell that occurred after dark, whether lit, unlit or unknown?")
    n = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LOWELL' AND ambnt_light_descr LIKE 'Dark - %%'")
    total = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LOWELL'")
    assert round(a.rows[0][-1], 2) == round(100.0 * n / total, 2)


def test_areas_holding_none_of_a_layer(pipeline, admin):
    a = ask(pipeline, "which neighbourhoods do not contain any MBTA stop inside their boundary")
    want = rows(admin, """SELECT n.gid FROM ma.neighborhood n WHERE NOT EXISTS (
                          SELECT 1 FROM ma.mbta_stop s WHERE ST_Intersects(n.geom, s.geom)) ORDER BY 1""")
    assert sorted(r[0] for r in a.rows) == [r[0] for r in want]
    assert "inside" in a.readback["text"]


def test_a_part_of_the_day_names_the_hours_beside_it(pipeline, admin):
    a = ask(pipeline, "saturday night crashes 10pm-midnight")
    assert not a.frame["filters"]
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE extract(isodow FROM crash_date) = 6
        AND extract(hour FROM crash_time) IN (22, 23)""")


def test_a_layer_word_refers_back_to_the_layer_named(pipeline):
    a = ask(pipeline, "Rank MBTA bus stops of Cambridge by police crash reports 20 m or less from the stop, top 3")
    assert a.frame["near"]["entity"] == "bus_stop"


def test_county_written_co(pipeline, admin):
    a = ask(pipeline, "essex co fatal crashes")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'ESSEX'
                                           AND crash_severity_descr = 'Fatal injury'""")


def test_context_words_are_weighed_once(pipeline):
    a = pipeline.ask("EPDO of collisions in Lynn, where fatal and injury ones are at 21 and the rest at 1")
    assert a.understood.get("numbers_unused") == []
    assert not set(a.understood.get("asked_unread", [])) & {"fatal", "injury"}


def test_rain_in_either_weather_field_of_the_bike_file(pipeline, admin):
    a = ask(pipeline, "rainy crashes from the bicycle file, traffic control type traffic control signal")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash WHERE
        (trim(weather_condition_1) = 'RAIN' OR trim(weather_condition_2) = 'RAIN')
        AND trim(traffic_control_device_type) = 'TRAFFIC CONTROL SIGNAL'""")


def test_a_condition_said_twice_is_one(pipeline):
    a = ask(pipeline, "fatal crashes in Lynn, and only the fatal ones")
    assert len(a.frame["filters"]) == 1


def test_no_count_reads_across_a_closing_bracket(pipeline):
    a = ask(pipeline, "EPDO by town for Hampden county (injury = 21, the rest = 1), highest first")
    assert a.frame["rank"] is None or a.frame["rank"]["limit"] in (0, None)
    assert len(a.rows) > 1


def test_a_long_label_with_a_word_in_the_plural(pipeline, admin):
    a = ask(pipeline, "collisions in Lowell on dark roadways not lighted")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LOWELL'
                                           AND ambnt_light_descr = 'Dark - roadway not lighted'""")


def test_kinds_set_against_each_other_are_sides(pipeline):
    a = ask(pipeline, "dark collisions in Lowell: lit vs unlit roads")
    assert a.frame["intent"] == "compare" and len(a.frame["compare"]) == 2


def test_am_and_pm_written_with_points(pipeline, admin):
    a = ask(pipeline, "crashes in Lynn between 6 p.m. and 8:59 p.m.")
    assert a.frame["time"]["hours"] == [18, 19, 20]


def test_a_count_before_the_place_of_the_groups(pipeline):
    a = ask(pipeline, "the 4 Essex County towns, most injury crashes first")
    assert a.frame["rank"]["limit"] == 4 and len(a.rows) == 4


def test_a_label_of_twin_fields_holds_in_either(pipeline, admin):
    a = ask(pipeline, "police crash reports with a taxi as either of the 2 vehicles")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash
                                           WHERE object_1 = 'Taxi' OR object_2 = 'Taxi'""")


def test_values_defined_as_a_layer_word_are_not_near_it(pipeline):
    a = ask(pipeline, "bicycle file crashes at stop signs, and do not count pedestrian beacons as traffic signals")
    assert a.frame["near"] is None


def test_a_station_abbreviated_and_features_in_a_town(pipeline):
    a = ask(pipeline, "crashes within 2 miles of lowell commuter rail stn")
    assert a.frame["near"]["scope"][0]["name"] == "LOWELL"
    assert "in Lowell" in a.readback["text"]


def test_epdo_per_residents_said_pop(pipeline, admin):
    a = ask(pipeline, "lowell epdo per 10k pop")
    assert a.frame["measure"]["kind"] == "rate" and a.frame["measure"]["field"] == "epdo"
    assert "EPDO" in a.readback["text"]


def test_a_purpose_opening_with_as_a(pipeline):
    a = ask(pipeline, "As a completeness check for the audit binder: fatal crashes in Lynn?")
    assert "audit" in " ".join(a.understood["context"])


def test_ties_broken_by_name_said_of_a_ranking(pipeline):
    a = ask(pipeline, "top 6 towns by rear-end crashes (break ties alphabetically)")
    assert a.frame["rank"]["limit"] == 6 and a.status == "answered"


def test_a_season_a_document_is_about_dates_nothing(pipeline):
    a = ask(pipeline, "For our memo on summer crash trends: fatal crashes in Lynn?")
    assert not a.frame["time"]["months"]


def test_values_side_by_side_are_no_sides_when_compare_splits_elsewhere(pipeline):
    a = ask(pipeline, "bicycle file: how do dusk cycling crashes compare with the ones at dawn?")
    assert a.frame["intent"] == "compare" and len(a.frame["compare"]) == 2
    assert "dawn" in a.frame["compare"][1]["label"].lower()


def test_more_near_one_feature_or_another_compares_them(pipeline):
    a = ask(pipeline, "Were there more police crash reports 200 m or less from the Morse School or from the Baldwin School?")
    assert a.frame["intent"] == "compare" and len(a.frame["compare"]) == 2


def test_whether_values_outside_the_value_restate_nothing(pipeline):
    ann = pipeline.annotator().annotate("collisions in lowell after dark, whether dusk or dawn")
    assert {"dusk", "dawn"} <= {s.text for s in ann.spans}


def test_a_time_with_points_still_ends_its_sentence(pipeline):
    ann = pipeline.annotator().annotate("Collisions in Lynn after 9 p.m. Which towns had the most?")
    assert len([c for c in ann.clauses if c.opens]) == 2


def test_an_hour_to_midnight_needs_its_half_of_the_day(pipeline):
    ann = pipeline.annotator().annotate("collisions 9 to midnight")
    assert not any(s.kind == "time" and 9 in (s.value or {}).get("hours", []) for s in ann.spans)


def test_a_list_word_read_as_a_cue_still_separates_kinds(pipeline):
    a = pipeline.ask("were there more collisions in Lowell after dark lighted or not lighted")
    assert a.frame["intent"] != "compare" or all(s["label"].lower() != "lowell" for s in a.frame["compare"])
