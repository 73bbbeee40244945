"""Phrasings read in the session of fresh28, through the whole rules pipeline: numbers the answer restates (the
number of groups, of labels, a weight, the population's year) and places or sources a layer implies are no sign of
a misreading to the verifier."""
from __future__ import annotations

from test_phrasings_read import ask


def feature(a, name: str) -> float:
    return next(f["value"] for f in a.features if f["name"] == name)


def test_the_number_of_groups_restated_is_accounted_for(pipeline):
    a = ask(pipeline, "traffic signals in each of the 13 neighbourhoods")
    assert len(a.rows) == 13 and feature(a, "numbers_unused") == 0
    b = ask(pipeline, "traffic signals in each of the 12 neighbourhoods")
    assert feature(b, "numbers_unused") == 1  # a number the answer does not bear out still counts


def test_a_count_of_labels_and_the_weights_restated_are_accounted_for(pipeline):
    a = ask(pipeline, "share of Lynn collisions in the dark, all three dark codes")
    assert feature(a, "numbers_unused") == 0
    b = ask(pipeline, "EPDO by county with injury collisions weighted 21")
    assert feature(b, "numbers_unused") == 0


def test_the_year_of_the_population_a_rate_divides_by_is_accounted_for(pipeline):
    a = ask(pipeline, "collisions per 10,000 residents in Lynn and Salem using the 2010 census")
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
