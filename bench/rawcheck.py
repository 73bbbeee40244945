"""Second, independent answers to the question set, computed in Python from the raw files.

Each check returns (columns, rows) for one question id; bench/review.py grades the reference
SQL result against it with bench/grade.py. The checks re-derive every convention from the
published files (labels as they are in the CSV/GeoJSON, coordinates transformed with pyproj,
lines and polygons with OGR), so a wrong label, a wrong table or a wrong distance in a
reference query shows up as a mismatch.
"""
from __future__ import annotations

from collections import Counter, defaultdict

import numpy as np

from bench.rawdata import Raw, in_polygon, near_each, within_geoms, within_points

R = Raw()
CHECKS: dict[str, callable] = {}

INJ = {"Fatal injury", "Non-fatal injury"}
NIGHT = {"Dark - lighted roadway", "Dark - roadway not lighted", "Dark - unknown roadway lighting"}
TEEN = {"<16", "16-17", "18-20"}
OLDER = {"65-74", "75-84", ">84"}
RUSH = {7, 8, 9, 16, 17, 18}
SEASON = {12: "Winter", 1: "Winter", 2: "Winter", 3: "Spring", 4: "Spring", 5: "Spring",
          6: "Summer", 7: "Summer", 8: "Summer", 9: "Fall", 10: "Fall", 11: "Fall"}
FT = 0.3048


def check(*ids):
    def deco(fn):
        for i in ids:
            CHECKS[i] = fn
        return fn
    return deco


# ---------------------------------------------------------------- small helpers
def M():
    return R.massdot


def wx(r, part):
    """Weather label r.weather has `part` as one of its '/'-separated conditions."""
    return r.weather is not None and part in r.weather.split("/")


def hour(r):
    return r.time.hour if r.time else None


def pad(v):
    return v.strip() if v is not None else None


def dark_b(b):
    return pad(b.light) in {"DARK - LIGHTED ROADWAY", "DARK - ROADWAY NOT LIGHTED", "DARK - UNKNOWN ROADWAY LIGHTING"}


def count(items):
    return ["n"], [(sum(1 for _ in items),)]


def keys(items, key="crash_numb"):
    return [key], [(getattr(r, key),) for r in items]


def groups(items, keyf):
    c = Counter(keyf(r) for r in items)
    return ["g", "n"], list(c.items())


def share(items, pred):
    items = list(items)
    return ["pct"], [(100.0 * sum(1 for r in items if pred(r)) / len(items),)]


def group_share(items, keyf):
    items = list(items)
    c = Counter(keyf(r) for r in items)
    return ["g", "pct"], [(k, 100.0 * v / len(items)) for k, v in c.items()]


def top(items, keyf, n, valf=None, skip_none=False):
    """Top-n groups by count (or by summed valf), ties by label ascending."""
    agg = defaultdict(int)
    for r in items:
        k = keyf(r)
        if skip_none and k is None:
            continue
        agg[k] += valf(r) if valf else 1
    ranked = sorted(agg.items(), key=lambda kv: (-kv[1], kv[0]))[:n]
    return ["g", "n"], ranked


def series(items, keyf, valf=None):
    agg = defaultdict(int)
    for r in items:
        agg[keyf(r)] += valf(r) if valf else 1
    return ["t", "n"], sorted(agg.items())


def epdo_w(r):
    return 21 if r.severity in INJ else 1


def epdo(items):
    return ["epdo"], [(sum(epdo_w(r) for r in items),)]


def sides(*values):
    return ["v"], [(v,) for v in values]


def n_of(items):
    return sum(1 for _ in items)


def rate(items, town, scale=1000.0):
    return sum(1 for _ in items) * scale / R.town_pop[town]


# spatial helpers -------------------------------------------------
def sel(recs, xy, pred):
    mask = np.array([pred(r) for r in recs], dtype=bool)
    return [r for r, m in zip(recs, mask) if m], xy[mask]


def hood(name):
    return R.neighborhoods[name]


def in_hood(recs, xy, name):
    m = in_polygon(xy, hood(name))
    return [r for r, k in zip(recs, m) if k]


def near_pts(recs, xy, targets, d):
    m = within_points(xy, targets, d)
    return [r for r, k in zip(recs, m) if k]


def near_geoms(recs, xy, geoms, d):
    m = within_geoms(xy, geoms, d)
    return [r for r, k in zip(recs, m) if k]


def per_school(recs, xy, d, pred=lambda s: True, valf=None):
    ss, T = R.school_xy(pred)
    mat = near_each(xy, T, d)
    out = []
    for i, s in enumerate(ss):
        hits = [r for r, k in zip(recs, mat[i]) if k]
        out.append((s["site_name"], sum(valf(r) for r in hits) if valf else len(hits)))
    return ["site_name", "n"], out


def cam(pred=lambda c: True):
    return sel(R.cam, R.cam_xy, pred)


def bike(pred=lambda b: True):
    return sel(R.bike, R.bike_xy, pred)


def mass(pred=lambda r: True):
    return sel(R.massdot, R.massdot_xy, pred)


def school_named(name):
    return np.array([s["xy"] for s in R.schools if s["site_name"] == name], dtype=float)


# ================================================================ C1
@check("C1-001", "C1-002")
def _():
    return count(r for r in M() if r.severity == "Fatal injury")


@check("C1-003", "C1-004")
def _():
    return count(r for r in M() if r.town == "CAMBRIDGE" and r.severity in INJ)


@check("C1-005", "C1-006")
def _():
    return count(r for r in M() if r.town == "WORCESTER" and r.manner == "Rear-end")


@check("C1-007")
def _():
    return count(r for r in M() if r.surface == "Ice")


@check("C1-008")
def _():
    return count(r for r in M() if wx(r, "Snow"))


@check("C1-009")
def _():
    return count(r for r in M() if r.county == "MIDDLESEX" and wx(r, "Snow"))


@check("C1-010")
def _():
    return count(r for r in M() if r.light == "Dark - roadway not lighted")


@check("C1-011")
def _():
    return count(r for r in M() if r.town == "BOSTON" and r.light in NIGHT)


@check("C1-012")
def _():
    return count(r for r in M() if r.town == "SPRINGFIELD" and r.yngst in TEEN)


@check("C1-013")
def _():
    return count(r for r in M() if r.county == "BARNSTABLE" and r.oldest in OLDER)


@check("C1-014", "C1-015")
def _():
    return keys(r for r in M() if r.county == "WORCESTER" and r.severity == "Fatal injury")


@check("C1-016")
def _():
    return count(r for r in M() if r.manner == "Head-on" and r.severity in INJ)


@check("C1-017")
def _():
    return count(r for r in M() if r.manner and r.manner.startswith("Sideswipe"))


@check("C1-018")
def _():
    return count(r for r in M() if r.town == "LOWELL" and r.severity and r.severity.strip() == "Property damage only")


@check("C1-019")
def _():
    return count(c for c in R.cam if c.ped)


@check("C1-020")
def _():
    return count(c for c in R.cam if c.ped and c.bike)


@check("C1-021")
def _():
    return count(b for b in R.bike if pad(b.manner) == "ANGLE")


@check("C1-022")
def _():
    return count(b for b in R.bike if pad(b.surface) == "WET")


@check("C1-023")
def _():
    return count(r for r in M() if r.surface in ("Wet", "Snow"))


@check("C1-024")
def _():
    return count(r for r in M() if r.county == "WORCESTER" and r.surface == "Slush")


@check("C1-025")
def _():
    return keys(r for r in M() if r.severity == "Fatal injury" and r.light in NIGHT)


@check("C1-026")
def _():
    return count(r for r in M() if wx(r, "Fog, smog, smoke"))


# ================================================================ C2
@check("C2-001", "C2-002")
def _():
    return count(r for r in M() if r.date.month == 1)


@check("C2-003")
def _():
    return count(r for r in M() if r.date.isoweekday() >= 6)


@check("C2-004")
def _():
    return count(r for r in M() if r.town == "BOSTON" and r.date.isoweekday() >= 6)


@check("C2-005")
def _():
    return count(r for r in M() if hour(r) in RUSH)


@check("C2-006")
def _():
    return count(r for r in M() if r.town == "WORCESTER" and hour(r) in RUSH)


@check("C2-007")
def _():
    return count(r for r in M() if SEASON[r.date.month] == "Winter")


@check("C2-008")
def _():
    return count(r for r in M() if r.town == "CAMBRIDGE" and SEASON[r.date.month] == "Summer")


@check("C2-009")
def _():
    return count(r for r in M() if r.time is not None and r.time.hour < 5)


@check("C2-010")
def _():
    return count(r for r in M() if r.date.day == 13 and r.date.strftime("%A") == "Friday")


@check("C2-011")
def _():
    return count(r for r in M() if (r.date.month, r.date.day) >= (10, 1))


@check("C2-012")
def _():
    return count(r for r in M() if r.town == "SPRINGFIELD" and r.date.month >= 9)


@check("C2-013")
def _():
    return count(b for b in R.bike if b.when.year >= 2020)


@check("C2-014", "C2-015")
def _():
    last = max(b.when.year for b in R.bike)
    return count(b for b in R.bike if b.when.year == last)


@check("C2-016")
def _():
    return count(c for c in R.cam if c.ped and c.year == 2016)


@check("C2-017")
def _():
    return count(c for c in R.cam if c.ped and 2010 <= c.year <= 2013)


@check("C2-018")
def _():
    return count(r for r in M() if r.surface == "Ice" and r.date.month == 12)


@check("C2-019")
def _():
    return count(r for r in M() if hour(r) in (6, 7, 8))


@check("C2-020")
def _():
    return count(r for r in M() if r.date.strftime("%A") == "Sunday" and r.date.month == 11)


@check("C2-021")
def _():
    return count(b for b in R.bike if dark_b(b) and b.when.strftime("%A") in ("Saturday", "Sunday"))


@check("C2-022")
def _():
    return count(r for r in M() if r.date.month <= 3)


@check("C2-023")
def _():
    last = max(c.year for c in R.cam)
    return count(c for c in R.cam if c.ped and c.year == last)


@check("C2-024")
def _():
    return count(r for r in M() if hour(r) is not None and hour(r) >= 22)


@check("C2-025")
def _():
    return count(r for r in M() if (r.date.month, r.date.day) == (7, 4))


# ================================================================ C3
@check("C3-001")
def _():
    return groups(M(), lambda r: r.severity)


@check("C3-002", "C3-003")
def _():
    return groups(M(), lambda r: r.county)


@check("C3-004")
def _():
    return groups([r for r in M() if r.town == "BOSTON"], lambda r: r.manner)


@check("C3-005")
def _():
    return groups(M(), lambda r: r.date.month)


@check("C3-006")
def _():
    return groups(M(), lambda r: r.date.strftime("%A"))


@check("C3-007")
def _():
    return groups(M(), hour)


@check("C3-008")
def _():
    return groups([r for r in M() if r.date.month in (12, 1, 2)], lambda r: r.surface)


@check("C3-009")
def _():
    return groups([r for r in M() if r.severity in INJ], lambda r: r.county)


def _hood_counts(recs, xy):
    return ["name", "n"], [(name, int(in_polygon(xy, g).sum())) for name, g in R.neighborhoods.items()]


@check("C3-010")
def _():
    return _hood_counts(*cam(lambda c: c.ped))


@check("C3-011")
def _():
    return _hood_counts(*cam(lambda c: c.bike))


@check("C3-012")
def _():
    return groups(M(), lambda r: r.weather)


@check("C3-013")
def _():
    return groups(R.bike, lambda b: pad(b.weather1))


@check("C3-014")
def _():
    return groups([r for r in M() if r.county == "WORCESTER"], lambda r: r.yngst)


@check("C3-015")
def _():
    return groups(R.bike, lambda b: pad(b.manner))


@check("C3-016")
def _():
    return groups([r for r in M() if r.county == "HAMPSHIRE"], lambda r: r.town)


@check("C3-017")
def _():
    return groups([c for c in R.cam if c.ped], lambda c: c.day_of_week)


@check("C3-018")
def _():
    return groups([r for r in M() if r.town == "CAMBRIDGE"], lambda r: r.date.strftime("%A"))


@check("C3-019")
def _():
    return groups([r for r in M() if r.severity in INJ], lambda r: r.light)


@check("C3-020")
def _():
    return groups(M(), lambda r: SEASON[r.date.month])


@check("C3-021")
def _():
    return groups([b for b in R.bike if b.when.year >= 2018], lambda b: SEASON[b.when.month])


@check("C3-022")
def _():
    return _hood_counts(R.massdot, R.massdot_xy)


# ================================================================ C4
@check("C4-001", "C4-002")
def _():
    return top(M(), lambda r: r.town, 10)


@check("C4-003")
def _():
    return top([r for r in M() if r.severity == "Fatal injury"], lambda r: r.town, 5)


@check("C4-004")
def _():
    return top([r for r in M() if r.severity in INJ], lambda r: r.county, 1)


@check("C4-005")
def _():
    return top([r for r in M() if wx(r, "Snow")], lambda r: r.manner, 3)


@check("C4-006")
def _():
    return top(M(), hour, 5, skip_none=True)


@check("C4-007")
def _():
    return top(M(), lambda r: r.date.month, 1)


def _hood_top(recs, xy, n):
    counts = {name: int(in_polygon(xy, g).sum()) for name, g in R.neighborhoods.items()}
    ranked = sorted(((k, v) for k, v in counts.items() if v > 0), key=lambda kv: (-kv[1], kv[0]))
    return ["name", "n"], ranked[:n]


@check("C4-008")
def _():
    return _hood_top(*cam(lambda c: c.ped), 5)


@check("C4-009")
def _():
    return _hood_top(*cam(lambda c: c.bike and c.year == 2016), 3)


@check("C4-010")
def _():
    return top([r for r in M() if r.light in NIGHT], lambda r: r.town, 5)


@check("C4-011")
def _():
    return top([r for r in M() if r.surface == "Ice"], lambda r: r.town, 3)


@check("C4-012")
def _():
    return top(M(), lambda r: r.date.strftime("%A"), 1)


@check("C4-013")
def _():
    return top(R.bike, lambda b: b.street, 5)


@check("C4-014")
def _():
    return top(R.bike, lambda b: pad(b.manner), 1, skip_none=True)


@check("C4-015")
def _():
    return top([r for r in M() if r.county == "MIDDLESEX" and r.manner == "Rear-end"], lambda r: r.town, 5)


@check("C4-016")
def _():
    return top([r for r in M() if r.severity in INJ], lambda r: r.town, 10)


@check("C4-017")
def _():
    return top(M(), lambda r: r.yngst, 1, skip_none=True)


@check("C4-018")
def _():
    return top([c for c in R.cam if c.ped], lambda c: c.year, 3)


@check("C4-019")
def _():
    return top([r for r in M() if r.date.month in (12, 1, 2)], lambda r: r.county, 1)


@check("C4-020")
def _():
    return top(M(), lambda r: r.weather, 5)


@check("C4-021")
def _():
    cols, rows = per_school(R.massdot, R.massdot_xy, 300, lambda s: s["type"] == "public")
    return cols, sorted(rows, key=lambda kv: (-kv[1], kv[0]))[:1]


# ================================================================ C5
@check("C5-001")
def _():
    return share(M(), lambda r: r.severity == "Fatal injury")


@check("C5-002", "C5-003")
def _():
    return share(M(), lambda r: r.light in NIGHT)


@check("C5-004")
def _():
    return share([r for r in M() if r.town == "BOSTON"], lambda r: r.severity in INJ)


@check("C5-005")
def _():
    return share([r for r in M() if wx(r, "Snow")], lambda r: r.manner == "Rear-end")


@check("C5-006")
def _():
    return group_share(M(), lambda r: r.county)


@check("C5-007")
def _():
    return group_share(M(), lambda r: r.manner)


@check("C5-008")
def _():
    return share(R.cam, lambda c: c.ped)


@check("C5-009")
def _():
    return share(R.bike, dark_b)


@check("C5-010")
def _():
    return share(M(), lambda r: r.date.isoweekday() in (6, 7))


@check("C5-011")
def _():
    return share([r for r in M() if r.county == "WORCESTER"], lambda r: r.yngst in TEEN)


@check("C5-012")
def _():
    return share([r for r in M() if r.town == "CAMBRIDGE"], lambda r: r.severity in INJ)


@check("C5-013")
def _():
    by = defaultdict(list)
    for r in M():
        by[r.county].append(r)
    return ["county", "pct"], [(k, 100.0 * sum(1 for r in v if hour(r) in RUSH) / len(v)) for k, v in by.items()]


@check("C5-014")
def _():
    return share([r for r in M() if r.surface == "Wet"], lambda r: r.severity in INJ)


@check("C5-015")
def _():
    return share([c for c in R.cam if c.ped], lambda c: c.day_of_week in ("Saturday", "Sunday"))


@check("C5-016")
def _():
    located = ~np.isnan(R.massdot_xy[:, 0])
    near = within_points(R.massdot_xy, R.bus_stops_xy(), 30)
    return ["pct"], [(100.0 * near.sum() / located.sum(),)]


@check("C5-017")
def _():
    return group_share([r for r in M() if r.severity == "Fatal injury"], lambda r: r.light)


@check("C5-018")
def _():
    return share([r for r in M() if r.county == "MIDDLESEX"], lambda r: r.town == "CAMBRIDGE")


@check("C5-019")
def _():
    return share([r for r in M() if r.surface == "Ice"], lambda r: r.date.month in (12, 1, 2))


@check("C5-020")
def _():
    return share(R.bike, lambda b: pad(b.surface) == "WET")


@check("C5-021")
def _():
    return share(M(), lambda r: r.oldest in ("75-84", ">84"))


@check("C5-022")
def _():
    return share([r for r in M() if wx(r, "Snow")], lambda r: r.severity in INJ)


# ================================================================ C6
@check("C6-001")
def _():
    return count(in_hood(R.massdot, R.massdot_xy, "The Port"))


@check("C6-002", "C6-003")
def _():
    return count(in_hood(R.massdot, R.massdot_xy, "Cambridgeport"))


@check("C6-004")
def _():
    return count(in_hood(*cam(lambda c: c.ped), "East Cambridge"))


@check("C6-005")
def _():
    return count(in_hood(*cam(lambda c: c.bike), "Mid-Cambridge"))


@check("C6-006")
def _():
    return count(r for r in M() if r.county == "MIDDLESEX")


@check("C6-007")
def _():
    return count(r for r in M() if r.town == "WORCESTER")


@check("C6-008", "C6-009")
def _():
    return count(r for r in M() if r.town == "CAMBRIDGE")


@check("C6-010")
def _():
    return count(in_hood(*bike(lambda b: b.when.year >= 2020), "Area 2/MIT"))


@check("C6-011")
def _():
    return count(in_hood(*cam(lambda c: c.ped and c.year == 2017), "North Cambridge"))


@check("C6-012")
def _():
    return count(r for r in M() if r.county == "SUFFOLK" and r.light in NIGHT)


@check("C6-013")
def _():
    return count(in_hood(*cam(lambda c: c.bike), "Wellington-Harrington"))


@check("C6-014")
def _():
    return count(in_hood(*cam(lambda c: c.ped), "Strawberry Hill"))


@check("C6-015")
def _():
    recs, xy = cam(lambda c: c.bike)
    m = in_polygon(xy, hood("The Port")) | in_polygon(xy, hood("Cambridgeport"))
    return count(r for r, k in zip(recs, m) if k)


@check("C6-016")
def _():
    return count(r for r in M() if r.county == "ESSEX" and r.date.month == 12)


@check("C6-017")
def _():
    return count(in_hood(*cam(lambda c: c.bike and c.year == 2016), "Riverside"))


@check("C6-018")
def _():
    return count(r for r in M() if r.town == "NEW BEDFORD" and r.severity in INJ)


@check("C6-019")
def _():
    return count(in_hood(R.massdot, R.massdot_xy, "Neighborhood Nine"))


@check("C6-020")
def _():
    return count(in_hood(*cam(lambda c: c.ped and c.year >= 2014), "West Cambridge"))


@check("C6-021")
def _():
    return count(in_hood(*bike(lambda b: b.when.year >= 2018), "Cambridgeport"))


@check("C6-022")
def _():
    return keys(in_hood(R.massdot, R.massdot_xy, "East Cambridge"))


# ================================================================ C7
def _all_schools():
    return R.school_xy()[1]


@check("C7-001")
def _():
    return count(near_pts(R.massdot, R.massdot_xy, _all_schools(), 100))


@check("C7-002")
def _():
    return count(near_pts(R.massdot, R.massdot_xy, _all_schools(), 500 * FT))


@check("C7-003")
def _():
    return count(near_pts(*cam(lambda c: c.ped), _all_schools(), 150))


@check("C7-004", "C7-005")
def _():
    return per_school(*cam(lambda c: c.ped and c.year >= 2015), 150)


@check("C7-006")
def _():
    return count(near_pts(R.massdot, R.massdot_xy, R.bus_stops_xy(), 30))


@check("C7-007")
def _():
    return count(near_pts(*mass(lambda r: r.town == "BOSTON"), R.bus_stops_xy(), 100 * FT))


@check("C7-008")
def _():
    return count(near_pts(R.massdot, R.massdot_xy, R.signals_xy, 20))


@check("C7-009")
def _():
    return count(near_pts(*cam(lambda c: c.ped), R.ramps_xy, 15))


@check("C7-010")
def _():
    return count(near_geoms(*cam(lambda c: c.bike), [g for _, _, g in R.bike_facilities], 10))


@check("C7-011")
def _():
    return count(near_pts(R.massdot, R.massdot_xy, school_named("Cambridgeport School"), 500))


@check("C7-012")
def _():
    return count(near_pts(*cam(lambda c: c.ped), school_named("Cambridgeport School"), 700 * FT))


@check("C7-013")
def _():
    return count(near_pts(*cam(lambda c: c.bike), school_named("Harvard Law School"), 100))


@check("C7-014")
def _():
    return count(near_geoms(R.massdot, R.massdot_xy, R.street("Massachusetts Ave"), 50))


@check("C7-015")
def _():
    return count(near_geoms(*bike(lambda b: b.when.year >= 2018), R.street("Massachusetts Ave"), 20))


@check("C7-016")
def _():
    return count(near_geoms(*cam(lambda c: c.ped), R.street("Broadway"), 15))


@check("C7-017")
def _():
    return per_school(R.massdot, R.massdot_xy, 300, lambda s: s["type"] == "public")


@check("C7-018")
def _():
    return per_school(R.massdot, R.massdot_xy, 250, lambda s: s["type"] == "private")


@check("C7-019")
def _():
    return count(near_pts(*cam(lambda c: c.bike and c.year == 2017), R.signals_xy, 25))


@check("C7-020")
def _():
    return count(near_pts(*mass(lambda r: r.severity in INJ), R.signals_xy, 50))


@check("C7-021")
def _():
    return count(near_pts(R.massdot, R.massdot_xy, school_named("Massachusetts Institute of Technology"), 500))


@check("C7-022")
def _():
    return count(near_geoms(*cam(lambda c: c.ped), R.shelters, 100))


@check("C7-023")
def _():
    return count(near_pts(*cam(lambda c: c.ped), R.bus_stops_xy(), 50))


@check("C7-024")
def _():
    return count(near_geoms(*cam(lambda c: c.ped), R.street("Memorial Dr"), 50))


@check("C7-025", "C7-026")
def _():
    T = np.array([xy for name, xy in R.intersections
                  if name and "Massachusetts Ave" in name and "Prospect St" in name], dtype=float)
    return count(near_pts(*cam(lambda c: c.ped), T, 100))


# ================================================================ C8
@check("C8-001", "C8-002")
def _():
    return epdo(r for r in M() if r.town == "CAMBRIDGE")


@check("C8-003")
def _():
    return series(M(), lambda r: r.county, epdo_w)


@check("C8-004")
def _():
    return top(M(), lambda r: r.town, 10, valf=epdo_w)


@check("C8-005")
def _():
    return ["rate"], [(rate((r for r in M() if r.town == "CAMBRIDGE"), "CAMBRIDGE"),)]


@check("C8-006")
def _():
    c = Counter(r.town for r in M() if R.town_pop.get(r.town, 0) > 50000)
    rows = sorted(((t, n * 1000.0 / R.town_pop[t]) for t, n in c.items()), key=lambda kv: (-kv[1], kv[0]))
    return ["town", "rate"], rows[:5]


@check("C8-007")
def _():
    return ["rate"], [(rate((r for r in M() if r.town == "WORCESTER" and r.severity in INJ), "WORCESTER"),)]


@check("C8-008")
def _():
    return epdo(r for r in M() if r.town == "BOSTON" and r.light in NIGHT)


@check("C8-009")
def _():
    return top(M(), lambda r: r.county, 1, valf=epdo_w)


@check("C8-010")
def _():
    e = sum(epdo_w(r) for r in M() if r.town == "SPRINGFIELD")
    return ["rate"], [(e * 1000.0 / R.town_pop["SPRINGFIELD"],)]


@check("C8-011")
def _():
    big = sorted(R.town_pop.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    c = Counter(r.town for r in M())
    return ["town", "rate"], [(t, c.get(t, 0) * 1000.0 / p) for t, p in big]


@check("C8-012")
def _():
    return ["rate"], [(n_of(r for r in M() if r.severity == "Fatal injury") * 100000.0 / sum(R.town_pop.values()),)]


@check("C8-013")
def _():
    return epdo(r for r in M() if r.yngst in TEEN)


@check("C8-014")
def _():
    by = defaultdict(list)
    for r in M():
        by[r.manner].append(epdo_w(r))
    return ["manner", "avg"], [(k, sum(v) / len(v)) for k, v in by.items()]


@check("C8-015")
def _():
    c = Counter(r.town for r in M() if r.town in ("LOWELL", "LAWRENCE", "HAVERHILL"))
    return ["town", "rate"], [(t, n * 1000.0 / R.town_pop[t]) for t, n in c.items()]


@check("C8-016")
def _():
    return epdo(r for r in M() if r.county == "MIDDLESEX" and r.date.month in (12, 1, 2))


@check("C8-017")
def _():
    c = Counter(r.town for r in M() if r.county == "SUFFOLK" and r.severity in INJ and r.town in R.town_pop)
    return ["town", "rate"], [(t, n * 1000.0 / R.town_pop[t]) for t, n in c.items()]


@check("C8-018")
def _():
    return epdo(near_pts(R.massdot, R.massdot_xy, _all_schools(), 200))


@check("C8-019")
def _():
    return per_school(R.massdot, R.massdot_xy, 300, lambda s: s["type"] == "public", valf=epdo_w)


@check("C8-020")
def _():
    c = Counter(r.town for r in M() if r.severity in INJ and r.town in R.town_pop)
    rows = sorted(((t, n * 1000.0 / R.town_pop[t]) for t, n in c.items()), key=lambda kv: (-kv[1], kv[0]))
    return ["town", "rate"], rows[:5]


@check("C8-021")
def _():
    return epdo(r for r in M() if wx(r, "Snow"))


# ================================================================ C9
@check("C9-001", "C9-002")
def _():
    return sides(n_of(r for r in M() if r.town == "CAMBRIDGE"), n_of(r for r in M() if r.town == "SOMERVILLE"))


@check("C9-003")
def _():
    return sides(n_of(r for r in M() if r.date.weekday() < 5), n_of(r for r in M() if r.date.weekday() >= 5))


@check("C9-004")
def _():
    return sides(n_of(r for r in M() if r.date.month == 1), n_of(r for r in M() if r.date.month == 7))


@check("C9-005")
def _():
    return sides(*(n_of(r for r in M() if r.town == t and r.severity in INJ) for t in ("BOSTON", "WORCESTER")))


@check("C9-006")
def _():
    return sides(n_of(r for r in M() if r.light == "Daylight"), n_of(r for r in M() if r.light in NIGHT))


@check("C9-007")
def _():
    return sides(*(n_of(c for c in R.cam if c.ped and c.year == y) for y in (2010, 2017)))


@check("C9-008")
def _():
    return sides(*(n_of(c for c in R.cam if c.bike and c.year == y) for y in (2016, 2017)))


@check("C9-009")
def _():
    return sides(*(n_of(b for b in R.bike if b.when.year == y) for y in (2019, 2024)))


@check("C9-010")
def _():
    def pct(items):
        items = list(items)
        return 100.0 * sum(1 for r in items if r.severity in INJ) / len(items)
    return sides(pct(r for r in M() if r.light in NIGHT), pct(r for r in M() if r.light == "Daylight"))


@check("C9-011")
def _():
    return sides(*(sum(epdo_w(r) for r in M() if r.county == c) for c in ("MIDDLESEX", "SUFFOLK")))


@check("C9-012")
def _():
    return sides(*(rate((r for r in M() if r.town == t), t) for t in ("CAMBRIDGE", "BOSTON")))


@check("C9-013")
def _():
    return sides(n_of(r for r in M() if wx(r, "Snow")), n_of(r for r in M() if wx(r, "Rain")))


@check("C9-014")
def _():
    return sides(*(n_of(r for r in M() if r.county == "WORCESTER" and r.surface == s) for s in ("Wet", "Ice")))


@check("C9-015")
def _():
    return sides(n_of(r for r in M() if r.date.month <= 6), n_of(r for r in M() if r.date.month >= 7))


@check("C9-016")
def _():
    return sides(n_of(r for r in M() if hour(r) in RUSH),
                 n_of(r for r in M() if hour(r) is not None and hour(r) not in RUSH))


@check("C9-017")
def _():
    recs, xy = cam(lambda c: c.ped)
    return sides(*(len(in_hood(recs, xy, h)) for h in ("The Port", "Cambridgeport")))


@check("C9-018")
def _():
    return sides(n_of(b for b in R.bike if 2015 <= b.when.year <= 2019),
                 n_of(b for b in R.bike if 2020 <= b.when.year <= 2024))


@check("C9-019")
def _():
    def pct(cty):
        items = [r for r in M() if r.county == cty]
        return 100.0 * sum(1 for r in items if r.yngst in TEEN) / len(items)
    return sides(pct("HAMPDEN"), pct("HAMPSHIRE"))


@check("C9-020")
def _():
    recs, xy = cam(lambda c: c.ped)
    out = []
    for kind in ("public", "private"):
        _, T = R.school_xy(lambda s: s["type"] == kind)
        out.append(len(near_pts(recs, xy, T, 100)))
    return sides(*out)


@check("C9-021")
def _():
    fat = [r for r in M() if r.severity == "Fatal injury"]
    return sides(n_of(r for r in fat if SEASON[r.date.month] == "Summer"),
                 n_of(r for r in fat if SEASON[r.date.month] == "Winter"))


# ================================================================ C10
@check("C10-001", "C10-002")
def _():
    return series(M(), lambda r: r.date.month)


@check("C10-003", "C10-004")
def _():
    return series([c for c in R.cam if c.ped], lambda c: c.year)


@check("C10-005")
def _():
    return series([b for b in R.bike if 2018 <= b.when.year <= 2025], lambda b: b.when.year)


@check("C10-006", "C10-017")
def _():
    return series([b for b in R.bike if b.when.year >= 2015], lambda b: b.when.year)


@check("C10-007")
def _():
    return series([r for r in M() if r.severity in INJ], lambda r: r.date.month)


@check("C10-008")
def _():
    return series([r for r in M() if r.light in NIGHT], lambda r: r.date.month)


@check("C10-009")
def _():
    return series([r for r in M() if r.town == "CAMBRIDGE"], lambda r: r.date.month)


@check("C10-010")
def _():
    return series([c for c in R.cam if c.ped and c.year >= 2013], lambda c: c.year)


@check("C10-011")
def _():
    return series(in_hood(*cam(lambda c: c.bike), "The Port"), lambda c: c.year)


@check("C10-012")
def _():
    return series(M(), lambda r: (r.date.month - 1) // 3 + 1)


@check("C10-013")
def _():
    by = defaultdict(list)
    for r in M():
        by[r.date.month].append(r.severity in INJ)
    return ["month", "pct"], [(m, 100.0 * sum(v) / len(v)) for m, v in sorted(by.items())]


@check("C10-014")
def _():
    return series(M(), lambda r: r.date.month, epdo_w)


@check("C10-015")
def _():
    return series([b for b in R.bike if dark_b(b)], lambda b: b.when.year)


@check("C10-016")
def _():
    return series([r for r in M() if r.town == "WORCESTER"], lambda r: r.date.month)


@check("C10-018")
def _():
    return series([r for r in M() if r.date.isoweekday() in (6, 7)], lambda r: r.date.month)


# ================================================================ MAP
@check("MAP-001", "MAP-002")
def _():
    return keys(r for r in M() if r.severity == "Fatal injury")


@check("MAP-003")
def _():
    return keys(near_pts(*cam(lambda c: c.ped and c.year >= 2015), _all_schools(), 150), "gid")


@check("MAP-004")
def _():
    return keys(near_pts(*mass(lambda r: r.town == "CAMBRIDGE"), R.bus_stops_xy(), 30))


@check("MAP-005")
def _():
    return keys(near_geoms(*bike(lambda b: b.when.year >= 2020), R.street("Massachusetts Ave"), 25), "gid")


@check("MAP-006")
def _():
    recs, xy = cam(lambda c: c.ped and c.year >= 2015)
    ss, T = R.school_xy()
    mat = near_each(xy, T, 100)
    # school gids: the public file first, then the private file, each in file order
    return ["gid"], [(i + 1,) for i in range(len(ss)) if mat[i].any()]


@check("MAP-007")
def _():
    hit = within_points(np.array([s["xy"] for s in R.stops], dtype=float), R.massdot_xy, 50)
    return ["gid"], [(s["gid"],) for s, h in zip(R.stops, hit)
                     if h and s["vehicle_type"] == 3 and s["municipality"] == "Cambridge"]


@check("MAP-008")
def _():
    return keys(in_hood(R.massdot, R.massdot_xy, "The Port"))


@check("MAP-009")
def _():
    return keys(r for r in M() if r.town == "CAMBRIDGE" and r.light in NIGHT)


@check("MAP-010")
def _():
    return keys(r for r in M() if r.town == "WORCESTER" and r.surface == "Ice")


@check("MAP-011")
def _():
    _, xy = bike(lambda b: b.when.year >= 2018)
    hit = within_points(R.signals_xy, xy, 20)
    return ["gid"], [(i + 1,) for i, h in enumerate(hit) if h]


@check("MAP-012")
def _():
    _, xy = cam(lambda c: c.ped and c.year == 2016)
    hit = within_points(R.ramps_xy, xy, 10)
    return ["gid"], [(i + 1,) for i, h in enumerate(hit) if h]


@check("MAP-013")
def _():
    poly = hood("Cambridgeport")
    return ["gid"], [(gid,) for gid, ft, g in R.bike_facilities if ft == "Bike Lane" and g.Intersects(poly)]


@check("MAP-014")
def _():
    return ["gid"], [(gid,) for gid, ft, _ in R.bike_facilities if ft == "Bike Path/Multi-Use Path"]


@check("MAP-015")
def _():
    return ["gid"], [(i + 1,) for i, s in enumerate(R.schools) if s["type"] == "public"]


@check("MAP-016")
def _():
    return keys(near_geoms(R.massdot, R.massdot_xy, R.street("Massachusetts Ave"), 100 * FT))


@check("MAP-017")
def _():
    return keys(in_hood(*cam(lambda c: c.ped and c.year == 2015), "East Cambridge"), "gid")


@check("MAP-018")
def _():
    return keys(r for r in M() if r.town == "BARNSTABLE" and r.yngst in TEEN)
