"""bench/scale.py: the seeded crash-table generator on a small size (20k rows) against the real PostGIS."""
from __future__ import annotations

import pytest

from bench import scale
from tests.conftest import ADMIN_DSN, READER_DSN, rows, scalar

N = 20_000
SEED = 7
SCHEMA = "ma_stest_scale"
OTHER = "ma_stest_scale_b"
DIGEST = f"""SELECT md5(string_agg(concat_ws('|', gid, crash_numb, crash_date, crash_time, city_town_name,
                      crash_severity_descr, x, y, lat, lon, ST_AsEWKB(geom)), ',' ORDER BY gid))
             FROM {{}}.massdot_crash"""


def test_sizes_and_names():
    assert scale.parse_size("10k") == 10_000
    assert scale.parse_size("4.4m") == 4_400_000
    assert scale.parse_size("20000") == 20_000
    assert scale.schema_for(4_400_000) == "ma_s4m"
    assert scale.schema_for(100_000) == "ma_s100k"
    assert scale.schema_for(20_000) == "ma_s20k"
    with pytest.raises(scale.ScaleError):
        scale.parse_size("lots")


def test_percentile_nearest_rank():
    v = [float(i) for i in range(1, 101)]
    assert scale.percentile(v, 50) == 50.0
    assert scale.percentile(v, 95) == 95.0
    assert scale.percentile(v, 100) == 100.0
    assert scale.percentile([], 95) is None


@pytest.fixture(scope="module")
def built(admin):
    info = scale.build(N, SEED, ADMIN_DSN, force=True, schema=SCHEMA, verbose=False)
    yield info
    scale.drop(N, ADMIN_DSN, schema=SCHEMA)
    scale.drop(N, ADMIN_DSN, schema=OTHER)


def test_rows_keys_and_tables(admin, built):
    assert built["rows"] == N and not built["skipped"]
    n, distinct_numb, gmin, gmax = rows(admin, f"SELECT count(*), count(DISTINCT crash_numb), min(gid), max(gid) "
                                               f"FROM {SCHEMA}.massdot_crash")[0]
    assert (n, distinct_numb, gmin, gmax) == (N, N, 1, N)
    # every other table of ma is copied whole
    for t in ("town", "school", "mbta_stop", "neighborhood", "cambridge_crash"):
        assert scalar(admin, f"SELECT count(*) FROM {SCHEMA}.{t}") == scalar(admin, f"SELECT count(*) FROM ma.{t}")


def test_whole_records_balanced(admin, built):
    # 20k = 2 x 10k: every real record appears exactly twice with all its labels
    bad = scalar(admin, f"""
        SELECT count(*) FROM (
          SELECT o.gid, count(c.*) AS k FROM ma.massdot_crash o
          LEFT JOIN {SCHEMA}.massdot_crash c ON c.crash_numb / 10000 = o.crash_numb
           AND c.city_town_name IS NOT DISTINCT FROM o.city_town_name
           AND c.crash_severity_descr IS NOT DISTINCT FROM o.crash_severity_descr
           AND c.manr_coll_descr IS NOT DISTINCT FROM o.manr_coll_descr
           AND c.weath_cond_descr IS NOT DISTINCT FROM o.weath_cond_descr
           AND c.crash_time IS NOT DISTINCT FROM o.crash_time
           AND c.crash_hour IS NOT DISTINCT FROM o.crash_hour
           AND c.age_drvr_yngst IS NOT DISTINCT FROM o.age_drvr_yngst
          GROUP BY o.gid) s WHERE k <> 2""")
    assert bad == 0


def test_dates_keep_year_month_weekday(admin, built):
    bad, moved = rows(admin, f"""
        SELECT count(*) FILTER (WHERE extract(year FROM c.crash_date) <> extract(year FROM o.crash_date)
                                   OR extract(month FROM c.crash_date) <> extract(month FROM o.crash_date)
                                   OR extract(isodow FROM c.crash_date) <> extract(isodow FROM o.crash_date)),
               count(*) FILTER (WHERE c.crash_date <> o.crash_date)
        FROM {SCHEMA}.massdot_crash c JOIN ma.massdot_crash o ON o.crash_numb = c.crash_numb / 10000""")[0]
    assert bad == 0
    assert moved > N // 2          # most dates move (1 in 4-5 draws lands on the same day)


def test_points_jittered_within_300_m_and_their_town(admin, built):
    far, outside, moved, nulls = rows(admin, f"""
        WITH p AS (
          SELECT c.geom AS g, o.geom AS og, c.geom IS NULL AS lost,
                 (SELECT t.gid FROM ma.town t WHERE ST_Intersects(t.geom, o.geom)
                  ORDER BY (t.town = o.city_town_name) DESC, t.gid LIMIT 1) AS town_gid
          FROM {SCHEMA}.massdot_crash c JOIN ma.massdot_crash o ON o.crash_numb = c.crash_numb / 10000)
        SELECT count(*) FILTER (WHERE ST_Distance(g, og) > 300.0001),
               count(*) FILTER (WHERE town_gid IS NOT NULL AND NOT EXISTS (
                   SELECT 1 FROM ma.town t WHERE t.gid = p.town_gid AND ST_Intersects(t.geom, g))),
               count(*) FILTER (WHERE ST_Distance(g, og) > 0),
               count(*) FILTER (WHERE lost AND og IS NOT NULL)
        FROM p""")[0]
    assert far == 0 and outside == 0 and nulls == 0
    assert moved > 0.95 * scalar(admin, f"SELECT count(geom) FROM {SCHEMA}.massdot_crash")
    # lat/lon and x/y follow the moved point
    assert scalar(admin, f"""SELECT max(abs(lat - ST_Y(ST_Transform(geom, 4326))) + abs(lon - ST_X(ST_Transform(geom, 4326))))
                             FROM {SCHEMA}.massdot_crash WHERE geom IS NOT NULL""") < 1e-9


def test_indexes_follow_the_loader(admin, built):
    def idx(schema):
        return {r[0].replace(f"ON {schema}.", "ON ")
                for r in rows(admin, "SELECT regexp_replace(indexdef, '^CREATE (UNIQUE )?INDEX \\S+ ', '') "
                                     "FROM pg_indexes WHERE schemaname = %s AND tablename = 'massdot_crash'", schema)}
    assert idx("ma") <= idx(SCHEMA)


def test_reader_can_select(built):
    import psycopg2
    conn = psycopg2.connect(READER_DSN)
    try:
        with conn.cursor() as cur:
            cur.execute(f"SELECT count(*) FROM {SCHEMA}.massdot_crash c JOIN {SCHEMA}.town t ON t.town = c.city_town_name")
            assert cur.fetchone()[0] > 0
    finally:
        conn.close()


def test_reproducible_and_idempotent(admin, built):
    first = scalar(admin, DIGEST.format(SCHEMA))
    again = scale.build(N, SEED, ADMIN_DSN, schema=SCHEMA, verbose=False)
    assert again["skipped"]                                   # same seed and size: kept
    rebuilt = scale.build(N, SEED, ADMIN_DSN, force=True, schema=SCHEMA, verbose=False)
    assert not rebuilt["skipped"]
    assert scalar(admin, DIGEST.format(SCHEMA)) == first      # same seed: same rows, bit for bit
    scale.build(N, SEED + 1, ADMIN_DSN, schema=OTHER, verbose=False)
    assert scalar(admin, DIGEST.format(OTHER)) != first       # another seed: other rows
    assert not scale.is_built(admin.cursor(), SCHEMA, N, SEED + 1)
