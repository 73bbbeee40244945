"""Execution-match grading (bench/grade.py): matches that must pass, near-misses that must fail."""
import datetime as dt
from decimal import Decimal

import pytest

from bench.grade import grade, grade_sides, normalise


def ok(pc, pr, rc, rr, order=False):
    res, reason = grade(pc, pr, rc, rr, order)
    assert res, reason
    return reason


def bad(pc, pr, rc, rr, order=False):
    res, reason = grade(pc, pr, rc, rr, order)
    assert not res, f"should fail but matched: {reason}"
    return reason


# ---------------------------------------------------------------- matches

def test_identical_scalar():
    ok(["n"], [(42,)], ["n"], [(42,)])


def test_column_names_ignored():
    ok(["crash_count"], [(42,)], ["n"], [(42,)])


def test_extra_prediction_columns_label_and_geometry():
    ref = [(2,), (5,)]
    pred = [("cambridge", 2, "POINT(1 2)"), ("somerville", 5, "POINT(3 4)")]
    ok(["side", "n", "wkt"], pred, ["n"], ref)


def test_column_order_ignored():
    ok(["n", "town"], [(10, "BOSTON"), (7, "LOWELL")], ["town", "n"], [("BOSTON", 10), ("LOWELL", 7)])


def test_row_order_ignored_when_order_does_not_matter():
    ok(["t", "n"], [("B", 1), ("A", 2)], ["t", "n"], [("A", 2), ("B", 1)], order=False)


def test_row_order_same_when_order_matters():
    ok(["t", "n"], [("A", 2), ("B", 1)], ["t", "n"], [("A", 2), ("B", 1)], order=True)


def test_numbers_rounded_to_four_significant_digits():
    ok(["pct"], [(33.33,)], ["pct"], [(100.0 / 3,)])
    ok(["pct"], [(Decimal("0.2600000000000000"),)], ["pct"], [(0.26,)])
    ok(["rate"], [(1.046,)], ["rate"], [(Decimal("1.0459988"),)])
    ok(["pct"], [(99.99999,)], ["pct"], [(100,)])


def test_integers_match_floats_and_decimals():
    ok(["year"], [(2017.0,)], ["year"], [(2017,)])
    ok(["year"], [(Decimal("2017"),)], ["year"], [(2017,)])


def test_float_noise_removed():
    ok(["x"], [(0.1 + 0.2,)], ["x"], [(0.3,)])
    ok(["x"], [(-0.0,)], ["x"], [(0,)])


def test_strings_stripped_and_casefolded():
    ok(["sev"], [("property damage only",)], ["sev"], [("Property damage only ",)])
    ok(["m"], [("ANGLE                                             ",)], ["m"], [("Angle",)])


def test_dates_and_times_as_iso_text():
    ok(["d"], [(dt.date(2017, 1, 13),)], ["d"], [("2017-01-13",)])
    ok(["t"], [("15:26:00",)], ["t"], [(dt.time(15, 26),)])
    ok(["ts"], [(dt.datetime(2020, 5, 1, 8, 30),)], ["ts"], [("2020-05-01 08:30:00",)])


def test_none_and_booleans():
    ok(["g", "n"], [(None, 445), ("25-34", 2740)], ["g", "n"], [("25-34", 2740), (None, 445)])
    ok(["b"], [(True,), (False,)], ["b"], [(False,), (True,)])


def test_nan_matches_nan():
    ok(["x"], [(float("nan"),)], ["x"], [(float("nan"),)])


def test_empty_results_match():
    ok(["crash_numb"], [], ["crash_numb"], [])
    ok(["crash_numb", "wkt"], [], ["crash_numb"], [])


def test_assignment_needs_backtracking():
    # three prediction columns share the multiset {1, 2}; only one pairing gives the reference rows
    ref_cols = ["a", "b"]
    ref = [(1, 2), (2, 1)]
    pred_cols = ["p", "q", "r"]
    pred = [(1, 1, 2), (2, 2, 1)]
    reason = ok(pred_cols, pred, ref_cols, ref)
    assert "a<-p" in reason or "a<-q" in reason
    assert "b<-r" in reason


def test_interchangeable_identical_columns():
    # many identical columns must not blow up the search
    pred_cols = [f"c{i}" for i in range(12)]
    pred = [tuple([0] * 12), tuple([0] * 12)]
    ok(pred_cols, pred, ["x", "y", "z"], [(0, 0, 0), (0, 0, 0)])


def test_duplicate_rows_multiset():
    ok(["n"], [(1,), (1,), (2,)], ["n"], [(1,), (2,), (1,)])


def test_comparison_value_only_reference():
    # reference: one value row per side; prediction: side label + value + a share
    ok(["side", "n", "pct"], [("weekday", 7300, 73.0), ("weekend", 2700, 27.0)], ["n"], [(7300,), (2700,)])


def test_top_n_with_label_and_measure():
    ref = [("WORCESTER", 439), ("BOSTON", 362), ("SPRINGFIELD", 300)]
    pred = [("Worcester", 439, 1), ("Boston", 362, 2), ("Springfield", 300, 3)]
    ok(["town", "crashes", "rank"], pred, ["city_town_name", "n"], ref, order=True)


# ---------------------------------------------------------------- near-misses

def test_wrong_scalar():
    bad(["n"], [(41,)], ["n"], [(42,)])


def test_large_counts_compared_exactly():
    bad(["n"], [(10001,)], ["n"], [(10000,)])
    bad(["n"], [(11811,)], ["n"], [(11810,)])


def test_rounding_difference_beyond_four_digits():
    bad(["pct"], [(33.3,)], ["pct"], [(100.0 / 3,)])
    bad(["x"], [(12.35,)], ["x"], [(12.34,)])


def test_fraction_instead_of_percentage():
    bad(["share"], [(0.2617,)], ["pct"], [(26.17,)])


def test_row_order_differs_when_order_matters():
    reason = bad(["t", "n"], [("B", 1), ("A", 2)], ["t", "n"], [("A", 2), ("B", 1)], order=True)
    assert "order" in reason


def test_row_count_differs():
    reason = bad(["n"], [(1,), (2,)], ["n"], [(1,), (2,), (3,)])
    assert "row count" in reason


def test_too_few_prediction_columns():
    bad(["town"], [("BOSTON",)], ["town", "n"], [("BOSTON", 10)])


def test_missing_measure_column():
    # right labels, the count column holds different values
    reason = bad(["town", "n"], [("BOSTON", 11), ("LOWELL", 7)], ["town", "n"], [("BOSTON", 10), ("LOWELL", 7)])
    assert "no prediction column" in reason


def test_swapped_pairing_fails():
    # each column's multiset matches, but labels are paired with the wrong values
    reason = bad(["t", "n"], [("A", 1), ("B", 2)], ["t", "n"], [("A", 2), ("B", 1)])
    assert "multiset of rows" in reason


def test_duplicate_rows_multiset_differs():
    bad(["n"], [(1,), (2,), (2,)], ["n"], [(1,), (1,), (2,)])


def test_boolean_is_not_a_number():
    bad(["b"], [(1,)], ["b"], [(True,)])
    bad(["b"], [(0,)], ["b"], [(False,)])


def test_null_is_not_zero_or_empty_string():
    bad(["n"], [(0,)], ["n"], [(None,)])
    bad(["g"], [("",)], ["g"], [(None,)])


def test_number_is_not_its_text():
    bad(["month"], [("01",)], ["month"], [(1,)])


def test_date_is_not_a_timestamp():
    bad(["d"], [(dt.datetime(2017, 1, 13, 0, 0),)], ["d"], [(dt.date(2017, 1, 13),)])


def test_same_column_cannot_serve_two_reference_columns():
    bad(["n"], [(5,), (7,)], ["a", "b"], [(5, 5), (7, 7)])


def test_nonempty_prediction_for_empty_reference():
    bad(["crash_numb"], [(4491306,)], ["crash_numb"], [])


def test_ragged_rows_rejected():
    bad(["a", "b"], [(1,)], ["a"], [(1,)])


def test_order_mismatch_inside_top_n_tie():
    # the reference breaks ties by label ascending; a prediction that breaks them the other way fails
    ref = [("BOSTON", 3), ("CHELSEA", 3)]
    pred = [("CHELSEA", 3), ("BOSTON", 3)]
    bad(["t", "n"], pred, ["t", "n"], ref, order=True)


@pytest.mark.parametrize("v,expected", [
    (None, ("null",)),
    (True, ("bool", True)),
    (Decimal("21.0000"), ("num", 21.0)),
    (" Rear-end ", ("str", "rear-end")),
    (dt.date(2017, 12, 31), ("str", "2017-12-31")),
])
def test_normalise(v, expected):
    assert normalise(v) == expected


def test_prediction_rounded_to_the_one_decimal_of_the_reference():
    from bench.grade import round_like_reference
    assert round_like_reference([[10849.4496]], [[10849.4], [8419.1]]) == [[10849.4]]
    assert round_like_reference([[10849.4496]], [[10849.45]]) == [[10849.45]]
    assert round_like_reference([[10849.4496]], [[10849.4512]]) == [[10849.4496]]  # the reference does not round


def test_sides_of_a_grouped_reference_are_matched_by_their_labels():
    # the reference grouped by the compared field lists its rows in the database's order
    ref = [("Sideswipe", 12), ("Head-on", 30)]
    assert grade_sides(["side", "value"], [["head on", 30], ["sideswipe", 12]], ["kind", "n"], ref)[0]
    assert not grade_sides(["side", "value"], [["head on", 12], ["sideswipe", 30]], ["kind", "n"], ref)[0]
