"""Phrasings read this session, through the whole rules pipeline and checked against an analyst's SQL: names said
with their kind word or by another name, values joined by 'and', '<value> or not', restated years, rates per place."""
from __future__ import annotations

from conftest import scalar


def ask(pipeline, q):
    a = pipeline.ask(q)
    assert a.status == "answered", (q, a.status, a.answer, a.error)
    return a


def test_stop_name_is_read_beside_its_kind_word_only(pipeline, admin):
    a = ask(pipeline, "crashes within 800 m of Central station")
    ref = scalar(admin, """SELECT count(*) FROM ma.massdot_crash c WHERE EXISTS (SELECT 1 FROM ma.mbta_stop s
                           WHERE s.stop_name = 'Central' AND ST_DWithin(c.geom, s.geom, 800))""")
    assert a.rows[0][0] == ref > 0
    a = pipeline.ask("fatal collisions across the state")  # a stop is named 'State': not without a kind word
    assert a.status == "answered" and a.rows[0][0] == scalar(
        admin, "SELECT count(*) FROM ma.massdot_crash WHERE crash_severity_descr = 'Fatal injury'")


def test_neighbourhood_said_by_another_name(pipeline, admin):
    a = ask(pipeline, "count police crash reports located in area 4")
    ref = scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c JOIN ma.neighborhood n
                           ON ST_Intersects(n.geom, c.geom) WHERE n.name = 'The Port'""")
    assert a.rows[0][0] == ref > 0


def test_values_of_one_field_joined_by_and(pipeline, admin):
    a = ask(pipeline, "count fatal and injury collisions in Worcester")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'WORCESTER'
                                           AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")
    a = ask(pipeline, "count collisions on roads that were dark and unlit")  # the second narrows the first
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
                                           WHERE ambnt_light_descr = 'Dark - roadway not lighted'""")


def test_value_or_not_is_set_aside(pipeline, admin):
    a = ask(pipeline, "how many crashes in Boston at night, on a lit roadway or not")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'BOSTON'
                                           AND ambnt_light_descr LIKE 'Dark%%'""")


def test_year_of_the_population_restates_it(pipeline, admin):
    a = ask(pipeline, "crashes per 1,000 residents in Salem, with the 2010 population")
    crashes = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'")
    pop = scalar(admin, "SELECT pop2010 FROM ma.town WHERE town = 'SALEM'")
    assert abs(float(a.rows[0][a.columns.index("rate_per_1000")]) - 1000.0 * crashes / pop) < 0.01


def test_rate_for_several_places_is_each_place_own(pipeline, admin):
    a = ask(pipeline, "crash rate per 10,000 residents for Salem, Lynn and Peabody")
    assert len(a.rows) == 3
    for town in ("SALEM", "LYNN", "PEABODY"):
        crashes = scalar(admin, f"SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = '{town}'")
        pop = scalar(admin, f"SELECT pop2010 FROM ma.town WHERE town = '{town}'")
        row = next(r for r in a.rows if town in r)
        assert abs(float(row[a.columns.index("rate_per_10000")]) - 10000.0 * crashes / pop) < 0.01


def test_features_within_each_area_are_contained_not_near(pipeline, admin):
    a = ask(pipeline, "how many traffic signals lie within each neighbourhood? only the ones that have at least one")
    ref = {r[0]: r[1] for r in _rows(admin, """SELECT n.name, count(*) FROM ma.traffic_signal s
                                              JOIN ma.neighborhood n ON ST_Intersects(n.geom, s.geom) GROUP BY 1""")}
    assert {r[0]: r[1] for r in a.rows} == ref
    a = ask(pipeline, "which neighbourhoods have traffic signals? count them per neighbourhood, with signals "
                      "not inside any neighbourhood as their own group")
    assert len(a.rows) == len(ref) + 1 and any(r[0] is None for r in a.rows)


def _rows(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return cur.fetchall()


def test_records_with_and_without_a_location(pipeline, admin):
    a = ask(pipeline, "how many crashes in Boston have no location")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'BOSTON' "
                                         "AND geom IS NULL") > 0
    a = ask(pipeline, "geocoded crashes in Boston, how many")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'BOSTON' "
                                         "AND geom IS NOT NULL")


def test_outside_the_one_boundary_polygon_with_a_town_field(pipeline, admin):
    a = ask(pipeline, "count collisions with Cambridge as their town that lie outside the city boundary")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash c WHERE city_town_name = 'CAMBRIDGE'
        AND c.geom IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ma.city_boundary b WHERE ST_Intersects(b.geom, c.geom))""")


def test_which_of_those_asks_for_the_features_stated(pipeline, admin):
    a = ask(pipeline, "Our feed lists traffic signals under the city - which of those lie outside the city boundary?")
    ref = scalar(admin, """SELECT count(*) FROM ma.traffic_signal s WHERE NOT EXISTS
        (SELECT 1 FROM ma.city_boundary b WHERE ST_Intersects(b.geom, s.geom))""")
    assert len(a.rows) == ref > 0


def test_length_of_line_features_in_the_unit_asked(pipeline, admin):
    a = ask(pipeline, "how many miles of bike facilities are there in each facility type")
    ref = {r[0]: float(r[1]) for r in _rows(admin, "SELECT facility_type, sum(ST_Length(geom)) / 1609.344 "
                                                   "FROM ma.bike_facility GROUP BY 1")}
    got = {r[0]: float(r[a.columns.index("sum_length")]) for r in a.rows}
    assert got.keys() == ref.keys() and all(abs(got[k] - ref[k]) < 1e-6 for k in ref)
    a = pipeline.ask("what is the total length of crashes in Salem")  # records that are no lines have no length
    assert a.status == "clarify"


def test_left_out_in_a_sentence_of_its_own_narrows_the_whole_of_a_share(pipeline, admin):
    a = ask(pipeline, "What share of Salem collisions were injury collisions? Leave the collisions with severity "
                      "Not Reported or Unknown out of the denominator.")
    part = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM' "
                         "AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')")
    whole = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM' "
                          "AND crash_severity_descr NOT IN ('Unknown', 'Not Reported')")
    assert abs(float(a.rows[0][a.columns.index("share_pct")]) - 100.0 * part / whole) < 0.01


def test_kinds_listed_after_a_value_restate_it(pipeline, admin):
    # the kinds named in words of the value's own labels restate the whole value; one kind alone narrows it
    dark = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE ambnt_light_descr LIKE 'Dark%%'")
    for q in ("count collisions occurring in darkness: unknown lighting, not lighted or lighted",
              "number of collisions in the dark, unlit or lit ones"):
        assert ask(pipeline, q).rows[0][0] == dark > 0
    a = ask(pipeline, "count bicycle crash file sideswipes, same direction or opposite")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash
                                           WHERE trim(manner_of_collision) LIKE 'SIDESWIPE%%'""") > 0
    a = ask(pipeline, "how many collisions after dark on unlit roads")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
                                           WHERE ambnt_light_descr = 'Dark - roadway not lighted'""")


def test_column_name_read_out_is_its_field(pipeline, admin):
    a = ask(pipeline, "bicycle crash file records grouped by roadway junction type")
    ref = scalar(admin, "SELECT count(DISTINCT trim(roadway_junction_type)) + 1 FROM ma.cambridge_bicycle_crash")
    assert len(a.rows) == ref  # every label, and the records with none


def test_ambiguous_month_names_in_a_list_of_months(pipeline, admin):
    a = ask(pipeline, "how many bicycle crash file records fell during feb, jan or dec")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash
                                           WHERE extract(month FROM date_time) IN (12, 1, 2)""") > 0


def test_intersection_named_by_bare_street_names(pipeline, admin):
    a = ask(pipeline, "count of police crash reports within 50 meters of the broadway and hampshire intersection")
    ref = scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c WHERE EXISTS (SELECT 1 FROM ma.intersection i
                           WHERE i.intersection = 'Broadway & Hampshire St' AND ST_DWithin(c.geom, i.geom, 50))""")
    assert a.rows[0][0] == ref > 0
    a = ask(pipeline, "crashes in Cambridge and Somerville")  # bare names join nothing without the kind word
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
                                           WHERE city_town_name IN ('CAMBRIDGE', 'SOMERVILLE')""")


def test_a_field_left_blank(pipeline, admin):
    blank = scalar(admin, "SELECT count(*) FROM ma.traffic_signal WHERE coalesce(btrim(jurisdiction), '') = ''")
    assert ask(pipeline, "how many signals have a blank jurisdiction").rows[0][0] == blank > 0
    assert len(ask(pipeline, "list every signal that has no jurisdiction filled in").rows) == blank
    a = ask(pipeline, "count signals, excluding those with a blank jurisdiction")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.traffic_signal") - blank
    a = ask(pipeline, "share of signals with City of Cambridge as jurisdiction? keep those with a blank jurisdiction")
    assert a.status == "answered" and "blank" in a.understood.get("context", [])
    assert pipeline.ask("how many crashes in a blank").status == "clarify"  # a blank word beside no field


def test_a_place_word_before_an_area_word_says_whose_areas(pipeline, admin):
    a = ask(pipeline, "count bus shelters in each city's neighbourhood")
    assert a.frame["group_by"] and a.frame["group_by"][0]["kind"] == "area"


def test_word_of_another_label_of_the_field_names_that_label(pipeline, admin):
    both = """SELECT count(*) FROM ma.cambridge_bicycle_crash
              WHERE trim(traffic_control_device_type) IN ('TRAFFIC CONTROL SIGNAL', 'FLASHING TRAFIC CONTROL SIGNAL')"""
    a = ask(pipeline, "count bicycle crash file records whose traffic control device is a traffic signal, regular or flashing")
    assert a.rows[0][0] == scalar(admin, both) > 0
    a = ask(pipeline, "count bicycle crash file records with a traffic control signal but not flashing")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash
                                           WHERE trim(traffic_control_device_type) = 'TRAFFIC CONTROL SIGNAL'""")


def test_score_weights_restated_are_context(pipeline, admin):
    a = ask(pipeline, "EPDO in Salem where fatal or injury collisions are weighted 21 and the rest 1")
    assert a.rows[0][0] == scalar(admin, """SELECT sum(CASE WHEN crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')
                                           THEN 21 ELSE 1 END) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'""")
    a = ask(pipeline, "EPDO of fatal crashes in Boston")  # a value without its weight stays a condition
    assert a.frame["filters"]


def test_length_with_no_records_named_is_of_the_line_layer_said(pipeline, admin):
    a = ask(pipeline, "the 5 longest streets by centerline length")
    assert a.frame["target"] == "road" and len(a.rows) == 5
    a = ask(pipeline, "which 3 streets have the most length of separated bike lane")
    assert a.frame["target"] == "bike_facility" and len(a.rows) == 3


def test_a_feature_in_a_clause_that_says_when_is_context(pipeline, admin):
    a = ask(pipeline, "count Salem collisions on weekdays, excluding August and July, when school's out")
    assert a.frame.get("near") is None and "school" in a.understood["context"]
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
        AND extract(isodow FROM crash_date) <= 5 AND extract(month FROM crash_date) NOT IN (7, 8)""")


def test_values_listed_together_share_a_field(pipeline, admin):
    # 'snow' alone is weather; listed with surface values it is the surface, and a season said of them is no months
    a = ask(pipeline, "count collisions with a winter road surface of ice, slush or snow")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
                                           WHERE road_surf_cond_descr IN ('Snow', 'Ice', 'Slush')""") > 0


def test_a_year_the_data_lacks_is_refused_beside_one_it_holds(pipeline):
    a = pipeline.ask("collision totals per town for 2021, set against 2017")
    assert a.status == "refused" and "2021" in a.answer


def test_a_year_left_out(pipeline, admin):
    a = ask(pipeline, "bicycle crash file records by year, excluding 2025 because it is incomplete")
    years = [r[0] for r in a.rows]
    assert 2025 not in years and len(years) == scalar(
        admin, "SELECT count(DISTINCT year) FROM ma.cambridge_bicycle_crash WHERE year <> 2025")


def test_records_with_no_value_in_a_field(pipeline, admin):
    none_rated = scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp WHERE coalesce(btrim(condition), '') = ''")
    assert len(ask(pipeline, "list ramps with no condition rating").rows) == none_rated > 0
    a = ask(pipeline, "percent of ramps rated poor? Exclude any ramp that has no condition rating.")
    assert a.rows[0][a.columns.index("total")] == scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp") - none_rated
    a = ask(pipeline, "percent of ramps rated poor? Ramps with no rating also stay in the total.")
    assert a.rows[0][a.columns.index("total")] == scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp")


def test_a_purpose_keeps_the_kind_of_place_it_names(pipeline, admin):
    a = ask(pipeline, "For the Worcester County review, how many fatal crashes?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'WORCESTER'
                                           AND crash_severity_descr = 'Fatal injury'""")


def test_a_value_restated_by_its_field_and_label(pipeline, admin):
    a = ask(pipeline, "count ramps failing the slope check (slope_comp = NO)")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp WHERE slope_comp = 'NO'") > 0


def test_named_features_compared_at_one_distance(pipeline, admin):
    a = ask(pipeline, "compare pedestrian collisions inside 500 ft of Morse School vs Peabody School")
    for name in ("Morse School", "Peabody School"):
        assert [name, _pedestrian_near_schools(admin, f"s.site_name = '{name}'", 152.4)] in [list(r[:2]) for r in a.rows]


def _pedestrian_near_schools(admin, where: str, metres: float) -> int:
    """The analyst's count of pedestrian police reports within `metres` of a school meeting `where`."""
    return scalar(admin, f"""SELECT count(*) FROM ma.cambridge_crash c WHERE pedestrian_involved AND EXISTS (
                  SELECT 1 FROM ma.school s WHERE {where} AND ST_DWithin(c.geom, s.geom, {metres}))""")


def test_a_column_name_typed_as_is(pipeline, admin):
    a = ask(pipeline, "bus stops by wheelchair_boarding")
    assert a.frame["group_by"][0]["key"].endswith("wheelchair_boarding")


def test_distance_bounded_from_above(pipeline, admin):
    ref = scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c WHERE EXISTS (SELECT 1 FROM ma.intersection i
                           WHERE i.intersection = 'Broadway & Hampshire St' AND ST_DWithin(c.geom, i.geom, 50))""")
    for q in ("police crash reports no farther than 50 m from the broadway and hampshire intersection",
              "police crash reports 50 m or less from the broadway and hampshire intersection"):
        assert ask(pipeline, q).rows[0][0] == ref > 0


def test_a_town_polygon_places_records_by_where_they_lie(pipeline, admin):
    inside = """SELECT count(*) FROM ma.massdot_crash c WHERE EXISTS (SELECT 1 FROM ma.town t
                WHERE t.town = 'SALEM' AND ST_Intersects(t.geom, c.geom))"""
    assert ask(pipeline, "count collisions lying within the Salem town boundary").rows[0][0] == scalar(admin, inside) > 0
    a = ask(pipeline, "collisions coded to Salem whose point lies outside the Salem town boundary")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash c WHERE city_town_name = 'SALEM'
        AND c.geom IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ma.town t WHERE t.town = 'SALEM' AND ST_Intersects(t.geom, c.geom))""")


def test_conditions_on_the_features_compared(pipeline, admin):
    a = ask(pipeline, "compare pedestrian collisions inside 100 m of public versus private schools")
    for kind in ("public", "private"):
        assert [kind, _pedestrian_near_schools(admin, f"s.school_type = '{kind}'", 100)] in [list(r[:2]) for r in a.rows]
