"""Pure steps of bench/perturb.py (no database): domains kept, dates in their year, jitter bounded, reproducible."""
import datetime as dt
import math
import random
from collections import Counter

from bench.perturb import (bicycle_derived, jitter, perturb_rows, plan_columns, resample_dates,
                           resample_timestamps, shuffle_values)


def test_shuffle_keeps_domain_and_moves_frequencies():
    values = ["Rear-end"] * 300 + ["Angle"] * 250 + ["Head-on"] * 40 + ["Rear to Side"] + [None] * 20
    out = shuffle_values(values, random.Random(1))
    assert len(out) == len(values)
    assert set(out) == set(values)          # no label lost or invented, NULL kept
    assert Counter(out) != Counter(values)  # frequencies moved (not a bare permutation)


def test_shuffle_unique_values_stay_a_permutation():
    names = [f"school {i}" for i in range(50)]
    out = shuffle_values(names, random.Random(7))
    assert sorted(out) == sorted(names)


def test_shuffle_is_reproducible():
    v = list(range(100)) * 3
    assert shuffle_values(v, random.Random("s:1:t:c")) == shuffle_values(v, random.Random("s:1:t:c"))
    assert shuffle_values(v, random.Random("s:1:t:c")) != shuffle_values(v, random.Random("s:2:t:c"))


def test_dates_resampled_within_their_year():
    values = [dt.date(2015, 1, 3), dt.date(2015, 12, 30), dt.date(2020, 6, 1), dt.date(2020, 7, 4), None]
    out = resample_dates(values, random.Random(3))
    assert out[-1] is None
    for a, b in zip(values[:-1], out[:-1]):
        assert a.year == b.year


def test_timestamps_resampled_within_their_year():
    values = [dt.datetime(2016, 3, 1, 8, 30), dt.datetime(2019, 9, 9, 17, 5), None, dt.datetime(2019, 1, 1, 0, 1)]
    out = resample_timestamps(values, random.Random(5))
    assert out[2] is None
    assert [v.year for v in out if v] == [2016, 2019, 2019]
    assert sorted(v.time() for v in out if v) == sorted(v.time() for v in values if v)


def test_jitter_within_200_m():
    rng = random.Random(11)
    for _ in range(2000):
        x, y = jitter(230000.0, 900000.0, rng)
        assert math.hypot(x - 230000.0, y - 900000.0) <= 200.0 + 1e-9


def test_bicycle_derived_columns():
    d = bicycle_derived(dt.datetime(2025, 8, 24, 10, 40))
    assert d == {"year": 2025, "month": 8, "day": 24, "hour": 10, "day_of_week": "Sunday",
                 "day_of_week_num": 6, "is_weekend": True, "is_rush_hour": False, "season": "Summer"}


def test_plan_keeps_keys_and_groups_joint_columns():
    cols = [("gid", "integer"), ("crash_numb", "bigint"), ("city_town_name", "text"), ("cnty_name", "text"),
            ("crash_date", "date"), ("crash_time", "time without time zone"), ("crash_hour", "text"),
            ("x", "double precision"), ("geom", "geometry(Point,26986)")]
    plan = plan_columns("massdot_crash", cols, {"gid", "crash_numb"})
    assert {"gid", "crash_numb"} <= set(plan["keep"])
    assert ("city_town_name", "cnty_name") in plan["groups"]
    assert ("crash_time", "crash_hour") in plan["groups"]
    assert plan["dates"] == ["crash_date"]
    assert "x" in plan["derived"]


def test_perturb_rows_moves_points_and_keeps_pairs():
    names = ["gid", "crash_numb", "city_town_name", "cnty_name", "crash_date", "x", "y"]
    towns = [("CAMBRIDGE", "MIDDLESEX"), ("BOSTON", "SUFFOLK"), ("WORCESTER", "WORCESTER")]
    rows = [(i + 1, 1000 + i, *towns[i % 3], dt.date(2017, 1 + i % 12, 1 + i % 28), 1.0 * i, 2.0 * i)
            for i in range(60)]
    types = [("gid", "integer"), ("crash_numb", "bigint"), ("city_town_name", "text"), ("cnty_name", "text"),
             ("crash_date", "date"), ("x", "double precision"), ("y", "double precision")]
    plan = plan_columns("massdot_crash", types, {"gid", "crash_numb"})
    xy = [None if i % 10 == 0 else (230000.0 + i, 900000.0 + i) for i in range(60)]
    out, new_xy = perturb_rows("massdot_crash", names, rows, plan, 1729, 1, xy)
    assert [r[0] for r in out] == [r[0] for r in rows] and [r[1] for r in out] == [r[1] for r in rows]
    assert {(r[2], r[3]) for r in out} <= set(towns)
    assert all(r[4].year == 2017 for r in out)
    for old, new, r_old, r_new in zip(xy, new_xy, rows, out):
        if old is None:
            assert new is None and r_new[5] == r_old[5]
        else:
            assert math.hypot(new[0] - old[0], new[1] - old[1]) <= 200.0 + 1e-9
            assert math.isclose(r_new[5] - r_old[5], new[0] - old[0], abs_tol=1e-6)
    again, _ = perturb_rows("massdot_crash", names, rows, plan, 1729, 1, xy)
    assert again == out
