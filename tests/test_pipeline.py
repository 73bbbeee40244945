"""Questions of each kind through the whole rules pipeline, checked against an analyst's own SQL on the real data."""
from __future__ import annotations

from conftest import rows, scalar

from plugin.core.frame import frame_from_dict


def ask(pipeline, q):
    a = pipeline.ask(q)
    assert a.status == "answered", (q, a.status, a.answer, a.error)
    return a


def col(a, name):
    return [r[a.columns.index(name)] for r in a.rows]


def test_count_with_town_scope(pipeline, admin):
    a = ask(pipeline, "how many crashes in cambridge")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name='CAMBRIDGE'")
    assert "110" in a.answer


def test_coded_filter_with_normalised_trailing_space_label(pipeline, admin):
    a = ask(pipeline, "number of property damage only crashes in worcester")
    ref = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE crash_severity_descr='Property damage only ' "
                        "AND city_town_name='WORCESTER'")
    assert a.rows[0][0] == ref > 0


def test_snow_matches_combined_weather_labels(pipeline, admin):
    a = ask(pipeline, "how many crashes happened in snowy weather")
    ref = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE 'Snow' = ANY(string_to_array(weath_cond_descr, '/'))")
    assert a.rows[0][0] == ref
    assert ref > scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE weath_cond_descr = 'Snow'")


def test_night_and_time_filters(pipeline, admin):
    a = ask(pipeline, "how many crashes at night on weekends in january")
    ref = scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE ambnt_light_descr LIKE 'Dark%%'
                           AND extract(isodow FROM crash_date) IN (6,7) AND extract(month FROM crash_date) = 1""")
    assert a.rows[0][0] == ref > 0
    a = ask(pipeline, "count crashes between 7 and 9 am")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE extract(hour FROM crash_time) IN (7,8)")


def test_group_by_field(pipeline, admin):
    a = ask(pipeline, "crashes by manner of collision")
    ref = dict(rows(admin, "SELECT manr_coll_descr, count(*) FROM ma.massdot_crash GROUP BY 1"))
    assert dict(zip(col(a, "manr_coll_descr"), col(a, "count"))) == ref


def test_top_n_towns(pipeline, admin):
    a = ask(pipeline, "top 5 towns with the most crashes")
    ref = rows(admin, "SELECT city_town_name, count(*) FROM ma.massdot_crash GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 5")
    assert [tuple(r[:2]) for r in a.rows] == [tuple(r) for r in ref]
    assert a.order_matters and col(a, "rank") == sorted(col(a, "rank"))


def test_share_at_night(pipeline, admin):
    a = ask(pipeline, "what percentage of crashes happened at night")
    ref = scalar(admin, "SELECT 100.0 * count(*) FILTER (WHERE ambnt_light_descr LIKE 'Dark%%') / count(*) FROM ma.massdot_crash")
    assert abs(col(a, "share_pct")[0] - float(ref)) < 1e-6


def test_proximity_by_named_class_with_support_filter(pipeline, admin):
    a = ask(pipeline, "pedestrian crashes within 150 m of cambridge public schools by school")
    ref = dict(rows(admin, """SELECT s.site_name, count(c.gid) FROM ma.school s LEFT JOIN ma.cambridge_crash c
                              ON c.pedestrian_involved AND ST_DWithin(c.geom, s.geom, 150)
                              WHERE s.school_type = 'public' GROUP BY s.site_name"""))
    assert dict(zip(col(a, "site_name"), col(a, "count"))) == ref
    assert len(a.rows) == 18


def test_proximity_to_named_anchor_with_typo_and_feet(pipeline, admin):
    a = ask(pipeline, "show crashes within 1000 ft of cambrigeport school")
    ref = scalar(admin, """SELECT count(*) FROM ma.massdot_crash c WHERE EXISTS (SELECT 1 FROM ma.school s
                           WHERE s.site_name = 'Cambridgeport School' AND ST_DWithin(c.geom, s.geom, 304.8))""")
    assert len(a.rows) == ref
    assert any(r["code"] == "anchor_fuzzy" for r in a.repairs)


def test_neighbourhood_scope_is_spatial(pipeline, admin):
    a = ask(pipeline, "map the crashes in the port")
    ref = scalar(admin, """SELECT count(*) FROM ma.massdot_crash c JOIN ma.neighborhood n
                           ON ST_Intersects(n.geom, c.geom) WHERE n.name = 'The Port'""")
    assert len(a.rows) == ref > 0
    assert a.geometry_column == "geom"


def test_epdo_by_county(pipeline, admin):
    a = ask(pipeline, "epdo by county")
    ref = dict(rows(admin, """SELECT cnty_name, sum(CASE WHEN crash_severity_descr IN ('Fatal injury','Non-fatal injury')
                              THEN 21 ELSE 1 END) FROM ma.massdot_crash GROUP BY 1"""))
    assert dict(zip(col(a, "cnty_name"), col(a, "epdo"))) == ref


def test_mean_epdo_per_record_by_county(pipeline, admin):
    a = ask(pipeline, "average epdo of each crash, by county")
    ref = dict(rows(admin, """SELECT cnty_name, avg(CASE WHEN crash_severity_descr IN ('Fatal injury','Non-fatal injury')
                              THEN 21 ELSE 1 END) FROM ma.massdot_crash GROUP BY 1"""))
    got = dict(zip(col(a, "cnty_name"), col(a, "avg_epdo")))
    assert got.keys() == ref.keys() and all(abs(float(got[k]) - float(ref[k])) < 1e-9 for k in ref)


def test_rate_per_1000_residents(pipeline, admin):
    a = ask(pipeline, "crash rate per 1000 residents by town")
    ref = dict(rows(admin, """SELECT c.city_town_name, count(*) * 1000.0 / t.pop2010 FROM ma.massdot_crash c
                              JOIN ma.town t ON t.town = c.city_town_name OR (t.town = 'MANCHESTER BY THE SEA'
                              AND c.city_town_name = 'MANCHESTER') GROUP BY 1, t.pop2010"""))
    got = dict(zip(col(a, "city_town_name"), col(a, "rate_per_1000")))
    assert got.keys() == ref.keys() and all(abs(got[k] - float(ref[k])) < 1e-9 for k in ref)


def test_compare_places_each_side_own_predicate(pipeline, admin):
    a = ask(pipeline, "compare crashes in boston vs worcester")
    assert col(a, "count") == [scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name=%s", t)
                               for t in ("BOSTON", "WORCESTER")]
    assert "difference" in a.answer


def test_compare_years_uses_police_records(pipeline, admin):
    a = ask(pipeline, "compare bike crashes in 2015 and 2016")
    assert a.frame["target"] == "police_crash"
    assert col(a, "count") == [scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE bicycle_involved AND year=%s", y)
                               for y in (2015, 2016)]


def test_trend_by_year(pipeline, admin):
    a = ask(pipeline, "trend of pedestrian crashes over the years")
    ref = rows(admin, "SELECT year, count(*) FROM ma.cambridge_crash WHERE pedestrian_involved GROUP BY 1 ORDER BY 1")
    assert [tuple(r) for r in a.rows] == [tuple(r) for r in ref]


def test_relative_time_uses_data_latest_year(pipeline, admin):
    a = ask(pipeline, "how many bicycle crashes in rain in the last three years")
    ref = scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash WHERE 'RAIN' IN (trim(weather_condition_1),
                           trim(weather_condition_2)) AND extract(year FROM date_time) BETWEEN 2023 AND 2025""")
    assert a.rows[0][0] == ref
    assert any(r["code"] == "time_relative" for r in a.repairs)


def test_nearest_k_features_ordered_by_distance(pipeline, admin):
    a = ask(pipeline, "the 5 crashes nearest to cambridge rindge and latin")
    ref = [r[0] for r in rows(admin, """SELECT c.crash_numb FROM ma.massdot_crash c, ma.school s
                                         WHERE s.site_name = 'Cambridge Rindge and Latin' AND c.geom IS NOT NULL
                                         ORDER BY ST_Distance(c.geom, s.geom), c.gid LIMIT 5""")]
    assert col(a, "crash_numb") == ref and a.order_matters


def test_group_by_day_of_week_in_calendar_order(pipeline, admin):
    a = ask(pipeline, "police crashes by day of week")
    ref = dict(rows(admin, "SELECT day_of_week, count(*) FROM ma.cambridge_crash GROUP BY 1"))
    assert dict(zip(col(a, "day_of_week"), col(a, "count"))) == ref
    assert col(a, "day_of_week")[:7] == ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


def test_dates_and_periods(pipeline, admin):
    assert ask(pipeline, "how many crashes since october 1 2017").rows[0][0] == \
        scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE crash_date >= '2017-10-01'")
    assert ask(pipeline, "crashes in the first quarter of 2017").rows[0][0] == \
        scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE extract(month FROM crash_date) <= 3")
    assert ask(pipeline, "how many crashes on friday the 13th").rows[0][0] == \
        scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE extract(isodow FROM crash_date) = 5 "
                      "AND extract(day FROM crash_date) = 13")


def test_comparison_sides_are_the_linked_items_only(pipeline, admin):
    a = ask(pipeline, "fatal crashes in middlesex vs worcester county")
    assert col(a, "count") == [scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE crash_severity_descr = "
                                             "'Fatal injury' AND cnty_name = %s", c) for c in ("MIDDLESEX", "WORCESTER")]
    a = ask(pipeline, "share of injury crashes at night vs daylight")
    ref = [scalar(admin, """SELECT 100.0 * count(*) FILTER (WHERE crash_severity_descr IN ('Fatal injury','Non-fatal injury'))
                            / count(*) FROM ma.massdot_crash WHERE ambnt_light_descr LIKE %s""", pat) for pat in ("Dark%%", "Daylight")]
    assert [round(v, 6) for v in col(a, "share_pct")] == [round(float(v), 6) for v in ref]


def test_epdo_rate_per_residents(pipeline, admin):
    a = ask(pipeline, "epdo per 1000 residents in boston")
    ref = scalar(admin, """SELECT sum(CASE WHEN crash_severity_descr IN ('Fatal injury','Non-fatal injury') THEN 21 ELSE 1 END)
                           * 1000.0 / (SELECT pop2010 FROM ma.town WHERE town = 'BOSTON')
                           FROM ma.massdot_crash WHERE city_town_name = 'BOSTON'""")
    assert abs(col(a, "rate_per_1000")[0] - float(ref)) < 1e-9


def test_areas_are_groups_for_event_measures(pipeline, admin):
    a = ask(pipeline, "epdo for cambridge neighborhoods")
    ref = dict(rows(admin, """SELECT n.name, coalesce(sum(CASE WHEN c.crash_severity_descr IN ('Fatal injury','Non-fatal injury')
                              THEN 21 WHEN c.gid IS NOT NULL THEN 1 ELSE 0 END), 0) FROM ma.neighborhood n
                              LEFT JOIN ma.massdot_crash c ON ST_Intersects(n.geom, c.geom) GROUP BY 1"""))
    assert dict(zip(col(a, "neighborhood"), col(a, "epdo"))) == ref


def test_weighted_measure_by_nearby_feature(pipeline, admin):
    a = ask(pipeline, "epdo by private school within 250 m")
    ref = dict(rows(admin, """SELECT s.site_name, coalesce(sum(CASE WHEN c.crash_severity_descr IN
                              ('Fatal injury','Non-fatal injury') THEN 21 WHEN c.gid IS NOT NULL THEN 1 ELSE 0 END), 0)
                              FROM ma.school s LEFT JOIN ma.massdot_crash c ON ST_DWithin(c.geom, s.geom, 250)
                              WHERE s.school_type = 'private' GROUP BY 1"""))
    assert dict(zip(col(a, "site_name"), col(a, "epdo"))) == ref


def test_features_qualified_by_records_near_them(pipeline, admin):
    """'schools that had a crash within 100 m': the schools are the answer, the crashes (with their own filters
    and time) qualify them; the source of the crashes is chosen by what they must express."""
    a = pipeline.ask("which schools had a pedestrian crash within 100 m since 2015")
    assert a.status == "answered" and a.frame["target"] == "school"
    assert a.frame["near"]["entity"] == "police_crash" and any(q["op"] == "time" for q in a.frame["near"]["filters"])
    want = scalar(admin, """SELECT count(*) FROM ma.school s WHERE EXISTS (SELECT 1 FROM ma.cambridge_crash c
                            WHERE c.pedestrian_involved AND c.year >= 2015 AND ST_DWithin(c.geom, s.geom, 100))""")
    assert a.frame["intent"] == "list" and len(a.rows) == want and 0 < want < 50
    n = pipeline.ask("how many bus stops had a fatal crash within 50 m")
    assert n.frame["target"] == "bus_stop" and n.frame["near"]["entity"] == "crash"
    # the usual direction is untouched
    c = pipeline.ask("crashes within 100 m of schools")
    assert c.frame["target"] == "crash" and c.frame["near"]["entity"] == "school"


def test_two_streets_joined_by_and_are_their_intersection(pipeline, admin):
    """Street names found in the data (with their aliases from the same rows) joined by 'and'/'at' name the
    intersection whose published name joins them; without such an intersection they stay two streets."""
    a = pipeline.ask("pedestrian crashes within 100 m of mass ave and prospect st")
    anchor = a.frame["near"]["anchor"]
    assert a.status == "answered" and a.frame["near"]["entity"] == "intersection"
    assert "Massachusetts Ave" in anchor["name"] and "Prospect St" in anchor["name"]  # 'Mass Ave' is an alias
    want = scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c WHERE c.pedestrian_involved AND EXISTS (
        SELECT 1 FROM ma.intersection i WHERE i.intersection = %s AND ST_DWithin(c.geom, i.geom, 100))""", anchor["name"])
    assert a.rows[0][0] == want
    b = pipeline.ask("crashes in cambridge and somerville")
    assert {p["name"] for p in b.frame["scope"]} == {"CAMBRIDGE", "SOMERVILLE"}


def test_numeric_thresholds_on_banded_fields(pipeline, admin):
    """'75 or older' on a field published in age bands selects the bands wholly inside the condition; a band
    that straddles it is named in a note."""
    a = pipeline.ask("percentage of crashes where the oldest driver was 75 or older")
    pred = a.frame["share_of"][0]
    assert pred["field"] == "age_drvr_oldest" and set(pred["values"]) == {"75-84", ">84"}
    want = scalar(admin, "SELECT 100.0 * count(*) FILTER (WHERE age_drvr_oldest IN ('75-84', '>84')) / count(*) "
                         "FROM ma.massdot_crash")
    assert abs(float(a.rows[0][-1]) - float(want)) < 1e-9
    b = pipeline.ask("how many crashes where the oldest driver was over 80")
    assert b.frame["filters"][0]["values"] == [">84"] and any("75-84" in n for n in b.notes)


def test_names_linked_to_a_place_field_value_take_that_field(pipeline, admin):
    """'hampden and berkshire counties', 'essex county compared to norfolk': every linked name is a county when
    the county field holds it; years compared stay numbers."""
    a = pipeline.ask("crashes in essex county compared to norfolk")
    want = {r[0]: r[1] for r in rows(admin, "SELECT cnty_name, count(*) FROM ma.massdot_crash "
                                            "WHERE cnty_name IN ('ESSEX', 'NORFOLK') GROUP BY 1")}
    assert [r[-1] for r in a.rows] == [want["ESSEX"], want["NORFOLK"]]
    b = pipeline.ask("compare ped crashes in 2010 with 2017 in cambridge")
    assert col(b, "side") == [2010, 2017]


def test_records_in_areas_meeting_a_numeric_condition(pipeline, admin):
    """'in towns with more than 50000 residents': the condition is on the towns (a pack field of the area), the
    records are those in the towns that meet it, by the records' own town field."""
    a = pipeline.ask("how many crashes in towns with more than 50000 residents")
    want = scalar(admin, "SELECT count(*) FROM ma.massdot_crash c WHERE c.city_town_name IN "
                         "(SELECT town FROM ma.town WHERE pop2010 > 50000)")
    assert a.status == "answered" and a.rows[0][0] == want and 0 < want < 10000
    b = pipeline.ask("crashes per 1000 residents for cities over 100k population")
    assert b.status == "answered" and {r[0] for r in b.rows} == {r[0] for r in rows(
        admin, "SELECT DISTINCT c.city_town_name FROM ma.massdot_crash c JOIN ma.town t ON t.town = c.city_town_name "
               "WHERE t.pop2010 > 100000")}


def test_comparison_parts_split_at_the_comparison_word(pipeline, admin):
    """'crashes in boston with crashes in worcester', 'pedestrian crashes in 2014 with bicycle crashes in 2016':
    what both parts say is per side, what one part says is shared."""
    a = ask(pipeline, "compare crashes in boston with crashes in worcester")
    assert col(a, "count") == [scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name=%s", t)
                               for t in ("BOSTON", "WORCESTER")]
    a = ask(pipeline, "compare pedestrian crashes in 2014 with bicycle crashes in 2016")
    assert col(a, "count") == [scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE pedestrian_involved AND year=2014"),
                               scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE bicycle_involved AND year=2016")]
    a = ask(pipeline, "compare injury crashes in boston in winter with springfield in summer")
    ref = [scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name=%s AND crash_severity_descr IN
                            ('Fatal injury','Non-fatal injury') AND extract(month FROM crash_date) = ANY(%s)""", t, m)
           for t, m in (("BOSTON", [12, 1, 2]), ("SPRINGFIELD", [6, 7, 8]))]
    assert col(a, "count") == ref and ref[0] != ref[1]


def test_sum_and_average_of_a_number_field(pipeline, admin):
    """'total population of towns', 'average population': the field's SUM/AVG, not a count; a frame asking the
    sum of a field that is no number is asked back with the reason."""
    a = ask(pipeline, "total population of towns")
    assert a.frame["measure"]["kind"] == "sum"
    assert a.rows[0][0] == scalar(admin, "SELECT sum(pop2010) FROM ma.town")
    a = ask(pipeline, "average population of towns")
    assert abs(float(a.rows[0][0]) - float(scalar(admin, "SELECT avg(pop2010) FROM ma.town"))) < 1e-6
    f = {"intent": "count", "target": "bike_facility", "measure": {"kind": "sum", "field": "lane_length_feet"},
         "group_by": [{"kind": "field", "key": "facility_type"}]}
    a = pipeline.ask("total lane length by facility type", frame=frame_from_dict(f))
    ref = dict(rows(admin, "SELECT facility_type, sum(lane_length_feet) FROM ma.bike_facility GROUP BY 1"))
    assert dict(zip(col(a, "facility_type"), col(a, "sum_lane_length_feet"))) == ref
    a = pipeline.ask("total facility type", frame=frame_from_dict({**f, "measure": {"kind": "sum", "field": "facility_type"}}))
    assert a.status == "clarify" and "number field" in a.answer and not a.sql


def test_top_n_says_when_the_cut_falls_inside_a_tie(pipeline, admin):
    """'top 3 towns for fatal crashes': 3 rows ranked by count then name; each row's rank and tie size come
    along, and the answer says how many tied groups were not listed."""
    a = ask(pipeline, "top 3 towns for fatal crashes")
    ref = rows(admin, """SELECT city_town_name, count(*) AS n, rank() OVER (ORDER BY count(*) DESC),
                                count(*) OVER (PARTITION BY count(*)) FROM ma.massdot_crash
                         WHERE crash_severity_descr = 'Fatal injury' GROUP BY 1 ORDER BY n DESC, 1 LIMIT 3""")
    assert [(r[0], r[1], r[2], r[3]) for r in zip(col(a, "city_town_name"), col(a, "count"), col(a, "rank"),
                                                   col(a, "tied"))] == [tuple(r) for r in ref]
    left_out = ref[-1][3] - sum(1 for r in ref if r[1] == ref[-1][1])
    assert left_out > 0 and f"{left_out} more" in a.answer


def test_follow_up_comparison_sets_the_previous_item_beside_the_new_one(pipeline, admin):
    """'compare with somerville' after a Cambridge count, 'compared to daylight' after a night count: the
    previous place or condition becomes the first side, the follow-up's the second."""
    a = ask(pipeline, "how many crashes in cambridge")
    b = pipeline.ask("compare with somerville", previous=frame_from_dict(a.frame))
    assert b.frame["intent"] == "compare" and col(b, "count") == [
        scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name=%s", t) for t in ("CAMBRIDGE", "SOMERVILLE")]
    a = ask(pipeline, "crashes at night in boston")
    b = pipeline.ask("compared to daylight", previous=frame_from_dict(a.frame))
    assert col(b, "count") == [scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name='BOSTON' AND "
                                             "ambnt_light_descr LIKE %s", pat) for pat in ("Dark%%", "Daylight")]


def test_conditions_on_how_many_records_each_group_has(pipeline, admin):
    """'towns with more than 100 crashes', 'which towns had at least 3 fatal crashes': the groups whose count
    meets the condition; with no groups named the condition is asked back, not dropped."""
    a = ask(pipeline, "towns with more than 100 crashes")
    ref = dict(rows(admin, "SELECT city_town_name, count(*) FROM ma.massdot_crash GROUP BY 1 HAVING count(*) > 100"))
    assert dict(zip(col(a, "city_town_name"), col(a, "count"))) == ref and f"{len(ref)} with more than 100" in a.answer
    a = ask(pipeline, "which towns had at least 2 fatal crashes")
    ref = dict(rows(admin, """SELECT city_town_name, count(*) FROM ma.massdot_crash WHERE crash_severity_descr =
                              'Fatal injury' GROUP BY 1 HAVING count(*) >= 2"""))
    assert dict(zip(col(a, "city_town_name"), col(a, "count"))) == ref and len(ref) > 1
    a = pipeline.ask("were there more than 100 crashes")
    assert a.status == "clarify" and "more than 100" in a.answer and not a.sql


def test_a_time_grouping_picks_the_source_that_records_that_time(pipeline, admin):
    """'bicycle crashes by hour': only the bicycle crash records hold an hour, so they answer; a grouping no
    source of that kind records is asked back with the reason."""
    a = ask(pipeline, "bicycle crashes by hour")
    assert a.frame["target"] == "bicycle_crash"
    assert dict(zip(col(a, "hour"), col(a, "count"))) == dict(rows(admin, """SELECT extract(hour FROM date_time)::int,
        count(*) FROM ma.cambridge_bicycle_crash GROUP BY 1"""))
    b = pipeline.ask("pedestrian crashes by hour")
    assert b.status == "clarify" and "time of day" in b.answer


def test_the_nearest_feature_said_in_the_singular_is_one(pipeline, admin):
    """'the nearest traffic signal to X' is one signal, with its distance; 'nearest bus stops' stays a list."""
    a = ask(pipeline, "the nearest traffic signal to cambridgeport school")
    ref = rows(admin, """SELECT s.gid, ST_Distance(s.geom, a.geom) FROM ma.traffic_signal s, ma.school a
                         WHERE a.site_name = 'Cambridgeport School' ORDER BY 2, 1 LIMIT 1""")[0]
    assert len(a.rows) == 1 and col(a, "gid") == [ref[0]] and abs(col(a, "distance_m")[0] - ref[1]) < 1e-6
    assert f"{ref[1]:,.0f} m away" in a.answer
    assert len(ask(pipeline, "nearest bus stops to fletcher maynard academy").rows) > 1


def test_two_streets_without_a_named_intersection_mean_near_both(pipeline, admin):
    """'within 50 m of mass ave and main st' when no intersection carries both names: near each street."""
    a = ask(pipeline, "police crashes within 50 m of mass ave and main st")
    near = """EXISTS (SELECT 1 FROM ma.street_centerline a WHERE (a.street = %s OR a.alias = %s OR a.label = %s)
              AND ST_DWithin(a.geom, c.geom, 50))"""
    ref = scalar(admin, f"SELECT count(*) FROM ma.cambridge_crash c WHERE {near} AND {near}",
                 *["Mass Ave"] * 3, *["Main St"] * 3)
    assert a.rows[0][0] == ref and ref > 0 and "Main St" in a.answer


def test_conditions_joined_by_an_either_word_hold_for_any(pipeline, admin):
    """'injury or fatal', '..., incl fatal': any of them, even when one is a subset of the other."""
    inj = "crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')"
    a = ask(pipeline, "injury or fatal crashes in barnstable county")
    assert a.rows[0][0] == scalar(admin, f"SELECT count(*) FROM ma.massdot_crash WHERE {inj} AND cnty_name='BARNSTABLE'")
    a = ask(pipeline, "injury crashes by hour of the day, incl fatal")
    assert sum(col(a, "count")) == scalar(admin, f"SELECT count(*) FROM ma.massdot_crash WHERE {inj} AND crash_time IS NOT NULL")
    a = ask(pipeline, "fatal injury crashes")  # no either-word: the narrower set
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE crash_severity_descr='Fatal injury'")


def test_user_phrasings_of_time_and_share(pipeline, admin):
    """'weekday mornings 7-9am' (the narrower hours), 'on a sat or sun', 'pct of', holidays by their date,
    'show all 7'."""
    a = ask(pipeline, "cambridge bicycle crashes on weekday mornings 7-9am")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash WHERE extract(isodow FROM
        date_time) BETWEEN 1 AND 5 AND extract(hour FROM date_time) IN (7, 8)""")
    a = ask(pipeline, "pct of cambridge bike crashes (2015-2025 data) that were on a sat or sun")
    want = scalar(admin, """SELECT 100.0 * count(*) FILTER (WHERE extract(isodow FROM date_time) IN (6, 7)) / count(*)
                            FROM ma.cambridge_bicycle_crash""")
    assert abs(float(col(a, "share_pct")[0]) - float(want)) < 1e-9
    a = ask(pipeline, "crashes on xmas day 2017")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE crash_date = '2017-12-25'")
    a = ask(pipeline, "which days of the week get the most crashes? show all 7")
    assert len(a.rows) == 7


def test_a_named_source_and_a_breakdown(pipeline, admin):
    """'crashes in the cambridge police data' are the police records; 'give me the severity breakdown' groups."""
    a = ask(pipeline, "how many crashes in the cambridge police data were within 100m of a public school")
    assert a.frame["target"] == "police_crash"
    a = ask(pipeline, "can you give me the severity breakdown for crashes on snow covered roads")
    assert dict(zip(col(a, "crash_severity_descr"), col(a, "count"))) == dict(rows(admin, """SELECT
        crash_severity_descr, count(*) FROM ma.massdot_crash WHERE road_surf_cond_descr = 'Snow' GROUP BY 1"""))


def test_more_user_phrasings_of_places_and_people(pipeline, admin):
    """Three streets naming one intersection ('mass ave / prospect st / western ave'); 'drivers younger than 16'
    (the youngest driver's band); a published label spelt with digits ('4 way intersections')."""
    a = ask(pipeline, "ped crashes within 100 m of the mass ave / prospect st / western ave intersection")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash c JOIN ma.intersection i ON
        i.intersection = 'Magazine St & Massachusetts Ave & Prospect St & Western Ave'
        WHERE c.pedestrian_involved AND ST_DWithin(c.geom, i.geom, 100)""")
    a = ask(pipeline, "crashes involving drivers younger than 16 - how many?")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE age_drvr_yngst = '<16'")
    a = ask(pipeline, "crashes with drivers over 84")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE age_drvr_oldest = '>84'")
    a = ask(pipeline, "cambridge bike crashes at 4 way intersections with no traffic control")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash WHERE
        trim(roadway_junction_type) = 'FOUR WAY INTERSECTION' AND trim(traffic_control_device_type) = 'NO CONTROLS'""")


def test_areas_with_no_records(pipeline, admin):
    """'towns with no crashes': every town is listed by the name the records carry (its other spellings too),
    those with none are kept."""
    a = ask(pipeline, "towns with no crashes")
    ref = [r[0] for r in rows(admin, """SELECT t.town FROM ma.town t WHERE NOT EXISTS (SELECT 1 FROM ma.massdot_crash c
        WHERE c.city_town_name = t.town OR (t.town = 'MANCHESTER BY THE SEA' AND c.city_town_name = 'MANCHESTER'))""")]
    assert sorted(col(a, "town")) == sorted(ref) and set(col(a, "count")) == {0}
    a = ask(pipeline, "towns with zero fatal crashes")
    assert len(a.rows) == scalar(admin, """SELECT count(*) FROM ma.town t WHERE NOT EXISTS (SELECT 1 FROM ma.massdot_crash c
        WHERE c.crash_severity_descr = 'Fatal injury' AND (c.city_town_name = t.town OR
        (t.town = 'MANCHESTER BY THE SEA' AND c.city_town_name = 'MANCHESTER')))""")


def test_a_generic_word_is_no_field_and_an_unread_id_is_said(pipeline, admin):
    """'in unlit conditions' is the light condition only (not grouped by weather); a record number MapAsk
    cannot look up is asked back, not dropped."""
    a = ask(pipeline, "how many crashes in unlit conditions")
    assert a.rows == [[scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE ambnt_light_descr = 'Dark - roadway not lighted'")]]
    b = pipeline.ask("nearest school to crash 4336035")
    assert b.status == "clarify" and "4336035" in b.answer and not b.sql


def test_phrasings_seen_on_fresh4(pipeline, admin):
    """'2:00 and 3:59 am' includes hour 3; '6pm or later' defines 'evening'; 'monday thru sunday' is every day;
    '3 neighbourhoods with the fewest'; 'ice on the road' is no proximity; a county named on both sides of a
    comparison is shared; 'stop sign' matches the published 'STOP SIGNS'; '75+' is 75 or more."""
    a = ask(pipeline, "statewide weekend crashes between 2:00 and 3:59 am?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE extract(isodow FROM crash_date)
        IN (6, 7) AND extract(hour FROM crash_time) IN (2, 3)""")
    a = ask(pipeline, "friday evening crashes (6pm or later) in december 2017, how many")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE extract(isodow FROM crash_date) = 5
        AND extract(hour FROM crash_time) >= 18 AND crash_date BETWEEN '2017-12-01' AND '2017-12-31'""")
    a = ask(pipeline, "cambridge bike crashes by day of week, monday thru sunday")
    assert len(a.rows) == 7
    a = ask(pipeline, "3 cambridge neighbourhoods with the fewest pedestrian crashes 2010-2017")
    assert len(a.rows) == 3 and col(a, "count") == sorted(col(a, "count"))
    a = ask(pipeline, "ice on the road - crashes by hour of day")
    assert a.frame["near"] is None and sum(col(a, "count")) == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
        WHERE road_surf_cond_descr = 'Ice'""")
    a = ask(pipeline, "middlesex county - wet road crashes compared to dry road crashes")
    assert col(a, "count") == [scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'MIDDLESEX' AND "
                                             "road_surf_cond_descr = %s", s) for s in ("Wet", "Dry")]
    a = ask(pipeline, "cambridge bike crashes where the traffic control was a stop sign - count")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.cambridge_bicycle_crash WHERE "
                                         "trim(traffic_control_device_type) = 'STOP SIGNS'")
    a = ask(pipeline, "older drivers - which 3 towns have the most crashes where the oldest driver was 75+")
    assert set(a.frame["filters"][0]["values"]) == {"75-84", ">84"} and len(a.rows) >= 3


def test_area_grouping_keeps_the_records_outside_every_area_when_asked(pipeline, admin):
    a = ask(pipeline, "ped ramps per neighbourhood, keeping ramps outside every neighbourhood as a group")
    ref = dict(rows(admin, """SELECT n.name, count(*) FROM ma.pedestrian_ramp r
                              LEFT JOIN ma.neighborhood n ON ST_Intersects(n.geom, r.geom) GROUP BY 1"""))
    assert None in ref and dict(zip(col(a, "neighborhood"), col(a, "count"))) == ref
