"""Phrasings read in the session of fresh12, through the whole rules pipeline and checked against an analyst's SQL:
numeric ranges over banded fields, short end years, negated labels said with a verb, abbreviations and symbols,
leads that say what the message is, remarks after the question."""
from __future__ import annotations

from conftest import scalar
from test_phrasings_read import ask


def test_a_numeric_range_selects_the_bands_inside_it(pipeline, admin):
    a = ask(pipeline, "count crashes with a youngest driver aged 18 to 24")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
                                           WHERE age_drvr_yngst IN ('18-20', '21-24')""")
    a = ask(pipeline, "count crashes whose youngest driver is a teenager aged 16 to 17")  # the numbers define 'teen'
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE age_drvr_yngst = '16-17'")


def test_an_end_year_written_with_two_digits(pipeline, admin):
    a = ask(pipeline, "count the police crash reports of Cambridge 2012-15")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE year BETWEEN 2012 AND 2015")


def test_a_negated_label_said_with_a_verb(pipeline, admin):
    a = ask(pipeline, "count the Salem crashes where the road surface wasn't reported")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                                           AND road_surf_cond_descr = 'Not reported'""")


def test_abbreviations_and_symbols(pipeline, admin):
    a = ask(pipeline, "fatal crashes in essex cty")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'ESSEX'
                                           AND crash_severity_descr = 'Fatal injury'""")
    a = pipeline.ask("the $ damage of Salem crashes")
    assert a.status == "refused" and "cost" in a.answer


def test_a_lead_word_that_opens_what_is_asked_is_no_purpose(pipeline, admin):
    a = ask(pipeline, "Angle collisions at night - Salem vs Lynn?")
    ref = [scalar(admin, f"""SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = '{t}'
                             AND manr_coll_descr = 'Angle' AND ambnt_light_descr LIKE 'Dark%%'""") for t in ("SALEM", "LYNN")]
    assert [dict(a.rows).get(t) for t in ("SALEM", "LYNN")] == ref


def test_a_lead_named_for_what_the_message_is_past_a_comma(pipeline, admin):
    a = ask(pipeline, "Corridor screening, Worcester: how many fatal crashes?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'WORCESTER'
                                           AND crash_severity_descr = 'Fatal injury'""")
    assert "corridor" in a.understood["context"]


def test_a_remark_after_the_question_keeps_nothing(pipeline, admin):
    a = ask(pipeline, "Fatal crashes in Worcester, I know that includes some on Sunday mornings.")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'WORCESTER'
                                           AND crash_severity_descr = 'Fatal injury'""")


def test_values_listed_before_the_field_they_are_of(pipeline, admin):
    a = ask(pipeline, "count rear-end crashes on a snowy or slushy road surface")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE manr_coll_descr = 'Rear-end'
                                           AND road_surf_cond_descr IN ('Snow', 'Slush')""")


def test_values_of_several_fields_listed_are_read_as_their_concepts(pipeline, admin):
    a = ask(pipeline, "count pedestrian or bicycle collisions, Cambridge police reports, 2016")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_crash WHERE year = 2016
                                           AND (pedestrian_involved OR bicycle_involved)""")


def test_leaving_out_what_the_records_never_are(pipeline, admin):
    a = ask(pipeline, "bus stops in Somerville, not the ferry or subway ones")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.mbta_stop WHERE vehicle_type = 3
                                           AND municipality = 'Somerville'""")
    assert any("none is left out" in n for n in a.notes)


def test_words_naming_a_time_said_outright_are_context(pipeline, admin):
    a = ask(pipeline, "crashes in Lowell from 6 to 9 am (factory bell time)")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'LOWELL'
                                           AND extract(hour from crash_time) BETWEEN 6 AND 8""")
    assert "factory" in a.understood["context"]
    a = ask(pipeline, "Lowell crash totals per year 2017-2017")  # ('per year': a grouping, never a name)
    assert a.frame["group_by"]


def test_sides_a_comparison_word_joins_come_first(pipeline, admin):
    a = ask(pipeline, "Essex County injury crashes, Mondays vs Fridays - which day saw more?")
    ref = [scalar(admin, f"""SELECT count(*) FROM ma.massdot_crash WHERE cnty_name = 'ESSEX' AND extract(isodow
                             from crash_date) = {d} AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")
           for d in (1, 5)]
    assert [r[1] for r in a.rows] == ref


def test_a_feature_in_a_lead_named_for_what_the_message_is(pipeline, admin):
    a = ask(pipeline, "Porter Square detail - fatal crashes in Worcester?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'WORCESTER'
                                           AND crash_severity_descr = 'Fatal injury'""")


def test_a_lead_that_asks_is_no_purpose_and_each_one_groups_nothing(pipeline, admin):
    a = ask(pipeline, "Compare Salem and Lynn for the safety review - how many fatal crashes does each one have?")
    ref = [scalar(admin, f"""SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = '{t}'
                             AND crash_severity_descr = 'Fatal injury'""") for t in ("SALEM", "LYNN")]
    assert [dict(a.rows).get(t) for t in ("SALEM", "LYNN")] == ref


def test_an_exclusion_said_of_points_with_a_blank_field(pipeline, admin):
    a = ask(pipeline, "traffic signal counts by jurisdiction? Ignore any points with a blank jurisdiction.")
    assert None not in [r[0] for r in a.rows]
    assert sum(r[1] for r in a.rows) == scalar(admin, "SELECT count(*) FROM ma.traffic_signal WHERE jurisdiction IS NOT NULL")


def test_a_purpose_keeps_no_condition_but_dates_the_records_it_names(pipeline, admin):
    a = ask(pipeline, "For the winter newsletter, count fatal collisions in Salem?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                                           AND crash_severity_descr = 'Fatal injury'""")
    a = ask(pipeline, "For the 2012 Cambridge police crash reports: count those involving a bicycle")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE year = 2012 AND bicycle_involved")


def test_a_condition_of_a_statement_the_named_source_cannot_hold_is_context(pipeline, admin):
    a = ask(pipeline, "Looking at serious injuries. Count Cambridge police crash reports with a bicycle in 2013?")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.cambridge_crash WHERE year = 2013 AND bicycle_involved")


def test_rank_the_groups_gives_every_group_in_order(pipeline, admin):
    a = ask(pipeline, "rank the counties by fatal crashes, highest first")
    n = scalar(admin, "SELECT count(DISTINCT cnty_name) FROM ma.massdot_crash WHERE crash_severity_descr = 'Fatal injury'")
    assert len(a.rows) >= n > 10 or len(a.rows) == scalar(admin, "SELECT count(DISTINCT cnty_name) FROM ma.massdot_crash")
    a = ask(pipeline, "which counties saw the most collisions")  # (a plural the dictionary lacks: a ranking, not one)
    assert len(a.rows) > 1


def test_a_layer_named_by_its_feed_and_a_flag_with_no_information(pipeline, admin):
    a = ask(pipeline, "how many Cambridge bus stops in the GTFS feed give no wheelchair boarding info")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.mbta_stop WHERE vehicle_type = 3
                                           AND municipality = 'Cambridge' AND wheelchair_boarding = 0""")


def test_a_layer_word_restating_a_label_of_the_field_named(pipeline, admin):
    a = ask(pipeline, "bike crash file: count collisions whose control device was a signal (the traffic control signal label)")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.cambridge_bicycle_crash
                                           WHERE trim(traffic_control_device_type) = 'TRAFFIC CONTROL SIGNAL'""")


def test_records_that_have_a_value_of_a_field(pipeline, admin):
    a = ask(pipeline, "of the ramps that show a slope compliance value, which fraction are compliant")
    yes = scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp WHERE slope_comp = 'YES'")
    filled = scalar(admin, "SELECT count(*) FROM ma.pedestrian_ramp WHERE nullif(trim(slope_comp), '') IS NOT NULL")
    assert abs(float(a.rows[0][a.columns.index("share_pct")]) - 100.0 * yes / filled) < 0.01


def test_a_rate_per_a_number_alone_is_per_residents(pipeline, admin):
    a = ask(pipeline, "among towns with over 60,000 people, which shows the top crash rate per 2,000?")
    assert a.rows and a.frame["measure"]["per"] == 2000


def test_go_by_a_field_is_no_grouping(pipeline, admin):
    a = ask(pipeline, "count Salem collisions on a Sunday. Go by the date field.")
    assert not a.frame["group_by"]
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                                           AND extract(isodow from crash_date) = 7""")


def test_a_question_naming_nothing_asks_what_was_reported_before_it(pipeline, admin):
    a = ask(pipeline, "Salem and Lynn asked for their rear-end crash counts. Can you give them for each of the two?")
    ref = {t: scalar(admin, f"""SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = '{t}'
                                AND manr_coll_descr = 'Rear-end'""") for t in ("SALEM", "LYNN")}
    assert {r[0]: r[1] for r in a.rows} == ref


def test_an_exclusion_of_records_with_no_location(pipeline, admin):
    a = ask(pipeline, "count Salem collisions, ignoring those lacking coordinates")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM' AND geom IS NOT NULL")


def test_a_breakdown_by_area_keeps_the_records_outside_every_area(pipeline, admin):
    a = ask(pipeline, "how many bus shelters per neighbourhood")
    outside = scalar(admin, """SELECT count(*) FROM ma.bus_shelter s WHERE NOT EXISTS (SELECT 1 FROM ma.neighborhood n
                               WHERE ST_Intersects(n.geom, s.geom))""")
    got = dict((r[0], r[1]) for r in a.rows)
    assert got.get(None, 0) == outside
    assert len([k for k in got if k is not None]) == scalar(admin, "SELECT count(*) FROM ma.neighborhood")
    a = ask(pipeline, "which 3 neighbourhoods have the most bus shelters")  # (a ranking: only the areas)
    assert None not in [r[0] for r in a.rows]


def test_a_misspelt_word_tied_between_two_is_the_one_making_a_phrase(pipeline, admin):
    a = ask(pipeline, "how many traffic signls are in Cambridge")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.traffic_signal")


def test_a_topic_sentence_naming_the_part_of_a_share_is_no_condition_on_the_whole(pipeline, admin):
    a = ask(pipeline, "Older-driver focus. What share of crashes had an oldest driver over 74?")
    part = scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE age_drvr_oldest IN ('75-84', '>84')")
    assert abs(float(a.rows[0][a.columns.index("share_pct")]) - 100.0 * part / 10000) < 0.01


def test_the_most_dangerous_with_only_the_source_named_is_asked_back(pipeline):
    a = pipeline.ask("which county would you call most dangerous, MassDOT sample?")
    assert a.status == "clarify" and a.clarify


def test_a_number_label_read_with_its_fields_unit(pipeline, admin):
    a = ask(pipeline, "bike crash file: crashes on streets posted at 30 mph")
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.cambridge_bicycle_crash WHERE trim(speed_limit) = '30'")


def test_one_feature_named_twice_around_its_layer_word(pipeline, admin):
    a = ask(pipeline, "count ramps 300 feet or less from the Central Square intersection (Brattle St & Sparks St)")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.pedestrian_ramp r WHERE EXISTS (SELECT 1 FROM
                                           ma.intersection i WHERE i.intersection = 'Brattle St & Sparks St'
                                           AND ST_DWithin(r.geom, i.geom, 91.44))""")
    assert "central square" in a.understood["context"]


def test_a_share_of_records_a_relative_clause_describes(pipeline, admin):
    a = ask(pipeline, "what percent of those crashes that occurred on wet roads resulted in an injury")
    wet = "road_surf_cond_descr = 'Wet'"
    whole = scalar(admin, f"SELECT count(*) FROM ma.massdot_crash WHERE {wet}")
    part = scalar(admin, f"""SELECT count(*) FROM ma.massdot_crash WHERE {wet}
                             AND crash_severity_descr IN ('Fatal injury', 'Non-fatal injury')""")
    assert abs(float(a.rows[0][a.columns.index("share_pct")]) - 100.0 * part / whole) < 0.01


def test_months_said_outright_define_a_season_named_elsewhere(pipeline, admin):
    a = ask(pipeline, "Winter came up. How many Salem crashes happened in November or December?")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                                           AND extract(month from crash_date) IN (11, 12)""")


def test_that_is_spelled_short(pipeline, admin):
    a = ask(pipeline, "Salem crashes in the evening, i.e. at 5 PM or at 6 PM")
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM ma.massdot_crash WHERE city_town_name = 'SALEM'
                                           AND extract(hour from crash_time) IN (17, 18)""")


def test_a_layer_word_naming_the_field_of_the_values_before_it(pipeline, admin):
    a = ask(pipeline, "collisions on ice or slush covered pavement, per county")
    assert len(a.frame["group_by"]) == 1
    assert sum(r[1] for r in a.rows) == scalar(admin, """SELECT count(*) FROM ma.massdot_crash
                                                      WHERE road_surf_cond_descr IN ('Ice', 'Slush')""")
