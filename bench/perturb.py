"""Perturbed copies of schema ma (ma_p1..ma_pK) for multi-instance grading.

A wrong query can match the reference on one snapshot by chance; graded on K perturbed
copies as well, it rarely matches on all. Each copy has the same tables, columns, types,
constraints and indexes as ma (CREATE TABLE ... (LIKE ma.t INCLUDING ALL)), the same value
domains and NULL counts, but:

  - every coded/text, boolean, numeric and time attribute column is shuffled across rows,
    each independently: a random permutation, after which 10 % of the rows take the value of
    another random row (a permutation alone would keep every label's frequency, so a wrong
    query that matched a single-column count by coincidence would match on every copy; the
    resampling step never removes the last occurrence of a value, so the value domain stays
    the same, and NULL counts move only a little). A few groups of columns that describe one
    fact are shuffled together so that a row stays coherent: town with county, crash time
    with its hour label, youngest with oldest driver age, the three bicycle/pedestrian flags,
    a street's name fields, a neighbourhood's name with its code;
  - dates are resampled within their year (each date is replaced by a random date drawn
    from the column's dates of the same year, so seasonality survives but counts move);
    times are permuted; timestamps get a resampled date and a permuted time of day;
  - crash points (massdot_crash, cambridge_crash, cambridge_bicycle_crash) are moved by a
    random offset of up to 200 m (uniform over the disc); other layers keep their geometry;
  - columns derived from another column are recomputed (the bicycle table's year, month,
    day, hour, weekday, weekend, rush-hour and season; lat/lon and x/y of moved points);
  - keys stay as they are: gid, every column with a unique index, published identifiers
    (crash_numb, global_id, stop_id...) and town.town, the join key of the rate questions.

Reproducible: every random choice is drawn from random.Random(f"{seed}:{k}:{table}:{part}")
over rows read in gid order. The admin connection (MAPASK_ADMIN_DSN) builds each copy in one
transaction, grants SELECT to mapask_reader, and ANALYZEs it.

    python -m bench.perturb --k 3 --seed 1729     # build ma_p1..ma_p3
    python -m bench.perturb --drop --k 3          # remove them
"""
from __future__ import annotations

import argparse
import csv
import datetime as dt
import io
import math
import os
import random
import sys
import time
from collections import defaultdict

import psycopg2
from psycopg2 import sql

DEFAULT_ADMIN_DSN = "host=/work/main/var/pgsock port=55432 dbname=mapask user=postgres"
SOURCE = "ma"
READER = os.environ.get("MAPASK_READER", "mapask_reader")
DEFAULT_SEED = 1729
JITTER_M = 200.0
RESAMPLE_FRACTION = 0.10
CRASH_TABLES = {"massdot_crash", "cambridge_crash", "cambridge_bicycle_crash"}

# published identifiers kept as they are (besides gid and any column with a unique index)
KEEP = {"gid", "crash_numb", "global_id", "id", "stop_id", "town_id", "node_number",
        "from_node", "to_node", "oid", "xls_no"}
KEEP_BY_TABLE = {"town": {"town"}}
# coordinates tied to a geometry that does not move
COORDS = {"mbta_stop": {"stop_lat", "stop_lon"}, "intersection": {"lon", "lat", "p_x", "p_y"}}
# columns permuted together (one fact spread over several columns)
JOINT = {
    "massdot_crash": [("city_town_name", "cnty_name"), ("crash_time", "crash_hour"),
                      ("age_drvr_yngst", "age_drvr_oldest")],
    "cambridge_crash": [("bicycle_involved", "pedestrian_involved", "no_bike_or_pedestrian_involved")],
    "cambridge_bicycle_crash": [("street_name_cleaned", "cross_street_cleaned", "intersection_id")],
    "street_centerline": [("street", "street_name", "street_type", "label", "alias", "street_id")],
    "neighborhood": [("name", "n_hood", "webpage")],
}
# columns recomputed after the others are perturbed
DERIVED = {
    "massdot_crash": {"x", "y", "lat", "lon"},
    "cambridge_bicycle_crash": {"year", "month", "day", "hour", "day_of_week", "day_of_week_num",
                                "is_weekend", "is_rush_hour", "season", "latitude", "longitude"},
}
SEASONS = {12: "Winter", 1: "Winter", 2: "Winter", 3: "Spring", 4: "Spring", 5: "Spring",
           6: "Summer", 7: "Summer", 8: "Summer", 9: "Fall", 10: "Fall", 11: "Fall"}
RUSH_HOURS = {7, 8, 9, 16, 17, 18}


class PerturbError(Exception):
    """The perturbed copy could not be built."""


def schema_name(k: int) -> str:
    return f"{SOURCE}_p{k}"


# ---------------------------------------------------------------- pure perturbation steps
def permute(values: list, rng: random.Random) -> list:
    out = list(values)
    rng.shuffle(out)
    return out


def shuffle_values(values: list, rng: random.Random, fraction: float = RESAMPLE_FRACTION) -> list:
    """Permute, then let `fraction` of the rows take another random row's value.

    No value loses its last occurrence, so the set of distinct values (the domain, NULL
    included) is unchanged; the frequencies move a little.
    """
    out = permute(values, rng)
    n = len(out)
    m = int(round(fraction * n)) if n > 1 else 0
    counts = defaultdict(int)
    for v in out:
        counts[v] += 1
    for t in rng.sample(range(n), m):
        new = values[rng.randrange(n)]
        old = out[t]
        if new == old or counts[old] == 1:
            continue
        counts[old] -= 1
        counts[new] += 1
        out[t] = new
    return out


def resample_dates(values: list, rng: random.Random) -> list:
    """Each non-NULL date replaced by a random draw from the column's dates of the same year."""
    by_year = defaultdict(list)
    for v in values:
        if v is not None:
            by_year[v.year].append(v)
    return [None if v is None else rng.choice(by_year[v.year]) for v in values]


def resample_timestamps(values: list, rng: random.Random) -> list:
    """Date part resampled within its year, time of day permuted across rows."""
    dates = resample_dates([None if v is None else v.date() for v in values], rng)
    times = permute([v.time() for v in values if v is not None], rng)
    it = iter(times)
    return [None if d is None else dt.datetime.combine(d, next(it)) for d in dates]


def jitter(x: float, y: float, rng: random.Random, radius: float = JITTER_M) -> tuple[float, float]:
    r = radius * math.sqrt(rng.random())
    a = rng.uniform(0.0, 2.0 * math.pi)
    return x + r * math.cos(a), y + r * math.sin(a)


def bicycle_derived(ts: dt.datetime | None) -> dict:
    if ts is None:
        return dict.fromkeys(["year", "month", "day", "hour", "day_of_week", "day_of_week_num",
                              "is_weekend", "is_rush_hour", "season"])
    return {"year": ts.year, "month": ts.month, "day": ts.day, "hour": ts.hour,
            "day_of_week": ts.strftime("%A"), "day_of_week_num": ts.weekday(),
            "is_weekend": ts.weekday() >= 5, "is_rush_hour": ts.hour in RUSH_HOURS,
            "season": SEASONS[ts.month]}


def plan_columns(table: str, columns: list[tuple[str, str]], unique: set[str]) -> dict:
    """Decide what happens to each column: keep, permute (alone or jointly), resample, derive."""
    types = dict(columns)
    keep = (KEEP | KEEP_BY_TABLE.get(table, set()) | COORDS.get(table, set()) | unique) & set(types)
    derived = DERIVED.get(table, set()) & set(types)
    groups = [tuple(c for c in g if c in types) for g in JOINT.get(table, [])]
    grouped = {c for g in groups for c in g}
    plan = {"keep": sorted(keep), "derived": sorted(derived), "groups": [], "dates": [],
            "timestamps": [], "geom": None}
    for g in groups:
        if g:
            plan["groups"].append(g)
    for name, typ in columns:
        if name in keep or name in derived or name in grouped:
            continue
        if typ.startswith("geometry"):
            plan["geom"] = typ
        elif typ == "date":
            plan["dates"].append(name)
        elif typ.startswith("timestamp"):
            plan["timestamps"].append(name)
        else:  # text, boolean, numbers, time: permuted across rows
            plan["groups"].append((name,))
    return plan


def perturb_rows(table: str, names: list[str], rows: list[tuple], plan: dict,
                 seed: int, k: int, geom_xy: list | None) -> tuple[list[list], list | None]:
    """Perturb one table's rows (read in gid order). Returns the rows and the new point coordinates."""
    def rng(part: str) -> random.Random:
        return random.Random(f"{seed}:{k}:{table}:{part}")

    idx = {n: i for i, n in enumerate(names)}
    out = [list(r) for r in rows]
    n = len(rows)
    for g in plan["groups"]:
        js = [idx[c] for c in g]
        col = shuffle_values([tuple(r[j] for j in js) for r in rows], rng("+".join(g)))
        for i in range(n):
            for j, v in zip(js, col[i]):
                out[i][j] = v
    for c in plan["dates"]:
        j = idx[c]
        col = resample_dates([r[j] for r in rows], rng(c))
        for i in range(n):
            out[i][j] = col[i]
    for c in plan["timestamps"]:
        j = idx[c]
        col = resample_timestamps([r[j] for r in rows], rng(c))
        for i in range(n):
            out[i][j] = col[i]

    new_xy = None
    if geom_xy is not None:
        g = rng("geom")
        new_xy = [None if p is None else jitter(p[0], p[1], g) for p in geom_xy]

    # derived columns
    if table == "cambridge_bicycle_crash":
        j = idx["date_time"]
        for i in range(n):
            for c, v in bicycle_derived(out[i][j]).items():
                if c in idx:
                    out[i][idx[c]] = v
    if table == "massdot_crash" and new_xy is not None:
        for i in range(n):
            if geom_xy[i] is None:
                continue
            dx, dy = new_xy[i][0] - geom_xy[i][0], new_xy[i][1] - geom_xy[i][1]
            for c, d in (("x", dx), ("y", dy)):
                if c in idx and out[i][idx[c]] is not None:
                    out[i][idx[c]] = out[i][idx[c]] + d
    return out, new_xy


# ---------------------------------------------------------------- database
def _csv_value(v):
    if v is None:
        return "\\N"
    if isinstance(v, bool):
        return "t" if v else "f"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, (dt.date, dt.time, dt.datetime)):
        return v.isoformat(sep=" ") if isinstance(v, dt.datetime) else v.isoformat()
    return str(v)


def _tables(cur) -> list[str]:
    cur.execute("SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = %s AND table_type = 'BASE TABLE' ORDER BY table_name", (SOURCE,))
    return [r[0] for r in cur.fetchall()]


def _columns(cur, table: str) -> list[tuple[str, str]]:
    cur.execute("""SELECT a.attname, format_type(a.atttypid, a.atttypmod)
                   FROM pg_attribute a WHERE a.attrelid = %s::regclass AND a.attnum > 0
                   AND NOT a.attisdropped ORDER BY a.attnum""", (f"{SOURCE}.{table}",))
    return [(n, t) for n, t in cur.fetchall()]


def _unique_columns(cur, table: str) -> set[str]:
    cur.execute("""SELECT a.attname FROM pg_index i
                   JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
                   WHERE i.indrelid = %s::regclass AND (i.indisunique OR i.indisprimary)""",
                (f"{SOURCE}.{table}",))
    return {r[0] for r in cur.fetchall()}


def copy_table(cur, table: str, target: str, seed: int, k: int) -> dict:
    cols = _columns(cur, table)
    plan = plan_columns(table, cols, _unique_columns(cur, table))
    names = [n for n, _ in cols if not n == "geom"]
    geom_type = dict(cols).get("geom", "")
    moved = table in CRASH_TABLES and geom_type.startswith("geometry(Point")
    select = [sql.Identifier(n) for n in names]
    if geom_type:
        if moved:
            select += [sql.SQL("ST_X(geom)"), sql.SQL("ST_Y(geom)")]
        else:
            select.append(sql.SQL("geom::text"))
    cur.execute(sql.SQL("SELECT {} FROM {} ORDER BY gid").format(
        sql.SQL(", ").join(select), sql.Identifier(SOURCE, table)))
    fetched = cur.fetchall()
    rows = [r[:len(names)] for r in fetched]
    geom_xy = None
    if moved:
        geom_xy = [None if r[-2] is None else (r[-2], r[-1]) for r in fetched]
    out, new_xy = perturb_rows(table, names, rows, plan, seed, k, geom_xy)

    srid = None
    if geom_type:
        srid = int(geom_type.rstrip(")").split(",")[-1])
    buf = io.StringIO()
    w = csv.writer(buf)
    for i, r in enumerate(out):
        vals = [_csv_value(v) for v in r]
        if geom_type:
            if moved:
                p = new_xy[i]
                vals.append("\\N" if p is None else f"SRID={srid};POINT({p[0]!r} {p[1]!r})")
            else:
                vals.append("\\N" if fetched[i][-1] is None else fetched[i][-1])
        w.writerow(vals)
    buf.seek(0)
    target_cols = names + (["geom"] if geom_type else [])
    cur.execute(sql.SQL("CREATE TABLE {} (LIKE {} INCLUDING ALL)").format(
        sql.Identifier(target, table), sql.Identifier(SOURCE, table)))
    cur.copy_expert(sql.SQL("COPY {} ({}) FROM STDIN WITH (FORMAT csv, NULL '\\N')").format(
        sql.Identifier(target, table), sql.SQL(", ").join(map(sql.Identifier, target_cols))).as_string(cur), buf)
    if moved:  # published WGS84 coordinates follow the moved point
        lat, lon = ("lat", "lon") if table == "massdot_crash" else ("latitude", "longitude")
        if {lat, lon} <= set(names):
            cur.execute(sql.SQL("UPDATE {} SET {} = ST_Y(ST_Transform(geom, 4326)), {} = ST_X(ST_Transform(geom, 4326)) "
                                "WHERE geom IS NOT NULL").format(
                sql.Identifier(target, table), sql.Identifier(lat), sql.Identifier(lon)))
    if geom_type:
        cur.execute("SELECT 1 FROM pg_indexes WHERE schemaname = %s AND tablename = %s "
                    "AND indexdef ILIKE '%%USING gist%%'", (target, table))
        if not cur.fetchone():
            cur.execute(sql.SQL("CREATE INDEX ON {} USING gist (geom)").format(sql.Identifier(target, table)))
    cur.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(target, table)))
    got = cur.fetchone()[0]
    if got != len(rows):
        raise PerturbError(f"{target}.{table}: {got} rows copied, {len(rows)} read")
    return {"rows": got, "permuted": len(plan["groups"]), "dates": plan["dates"] + plan["timestamps"],
            "moved": moved}


def build(k: int = 3, seed: int = DEFAULT_SEED, dsn: str | None = None, verbose: bool = True) -> list[str]:
    """Build ma_p1..ma_pk from ma (dropping earlier copies of the same names). Returns the schema names."""
    dsn = dsn or os.environ.get("MAPASK_ADMIN_DSN", DEFAULT_ADMIN_DSN)
    built = []
    conn = psycopg2.connect(dsn)
    try:
        for i in range(1, k + 1):
            target = schema_name(i)
            t0 = time.time()
            with conn:
                with conn.cursor() as cur:
                    tables = _tables(cur)
                    if not tables:
                        raise PerturbError(f"schema {SOURCE} has no tables: load the data first")
                    cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(target)))
                    cur.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(target)))
                    stats = {t: copy_table(cur, t, target, seed, i) for t in tables}
                    cur.execute(sql.SQL("COMMENT ON SCHEMA {} IS {}").format(
                        sql.Identifier(target),
                        sql.Literal(f"perturbed copy {i} of {SOURCE} (bench/perturb.py, seed {seed})")))
                    cur.execute(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(
                        sql.Identifier(target), sql.Identifier(READER)))
                    cur.execute(sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA {} TO {}").format(
                        sql.Identifier(target), sql.Identifier(READER)))
            conn.autocommit = True
            with conn.cursor() as cur:
                for t in tables:
                    cur.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(target, t)))
            conn.autocommit = False
            built.append(target)
            if verbose:
                n = sum(s["rows"] for s in stats.values())
                print(f"perturb: {target}: {len(stats)} tables, {n} rows in {time.time() - t0:.1f} s")
    finally:
        conn.close()
    return built


def drop(k: int = 3, dsn: str | None = None) -> None:
    dsn = dsn or os.environ.get("MAPASK_ADMIN_DSN", DEFAULT_ADMIN_DSN)
    conn = psycopg2.connect(dsn)
    try:
        with conn, conn.cursor() as cur:
            for i in range(1, k + 1):
                cur.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema_name(i))))
    finally:
        conn.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--dsn", default=None, help="admin DSN (default: $MAPASK_ADMIN_DSN)")
    ap.add_argument("--drop", action="store_true", help="drop ma_p1..ma_pK instead of building them")
    args = ap.parse_args(argv)
    try:
        if args.drop:
            drop(args.k, args.dsn)
            print(f"perturb: dropped {', '.join(schema_name(i) for i in range(1, args.k + 1))}")
        else:
            build(args.k, args.seed, args.dsn)
    except (PerturbError, psycopg2.Error) as exc:
        print(f"perturb: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
