"""The loader's tables equal the published files, and the reader role can read but never write or escape."""
from __future__ import annotations

import psycopg2
import pytest

from conftest import rows, scalar

EXPECTED = {"massdot_crash": 10000, "cambridge_crash": 11810, "cambridge_bicycle_crash": 552, "town": 351,
            "mbta_stop": 9803, "street_centerline": 2643, "intersection": 1872, "traffic_signal": 785,
            "pedestrian_ramp": 4605, "school": 50, "bus_shelter": 68, "bike_facility": 671, "neighborhood": 13,
            "city_boundary": 1}


@pytest.mark.parametrize("table,n", sorted(EXPECTED.items()))
def test_row_counts_equal_sources(admin, table, n):
    assert scalar(admin, f"SELECT count(*) FROM ma.{table}") == n


def test_published_values_kept_exactly(admin):
    labels = {r[0] for r in rows(admin, "SELECT DISTINCT crash_severity_descr FROM ma.massdot_crash")}
    assert "Property damage only " in labels and "Property damage only" not in labels
    assert {"Not Reported", "Unknown", "Fatal injury", "Non-fatal injury"} <= labels
    light = {r[0] for r in rows(admin, "SELECT DISTINCT ambnt_light_descr FROM ma.massdot_crash")}
    assert "Not reported" in light  # lower-case 'r' as published, unlike severity's 'Not Reported'
    assert scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE weath_cond_descr = 'Cloudy/Snow'") == 52
    # padded labels of the bicycle file stay padded
    assert scalar(admin, "SELECT max(length(ambient_light)) FROM ma.cambridge_bicycle_crash") == 50


def test_crashes_without_coordinates_kept_with_null_geometry(admin):
    assert scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE geom IS NULL") == 390
    assert scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE lat IS NULL") == 390


def test_types_srid_and_indexes(admin):
    assert scalar(admin, "SELECT pg_typeof(crash_date)::text FROM ma.massdot_crash LIMIT 1") == "date"
    assert scalar(admin, "SELECT crash_time::text FROM ma.massdot_crash WHERE crash_numb = 4491306") == "15:26:00"
    assert scalar(admin, "SELECT DISTINCT ST_SRID(geom) FROM ma.town") == 26986
    idx = {r[0] for r in rows(admin, "SELECT indexdef FROM pg_indexes WHERE schemaname='ma' AND tablename='massdot_crash'")}
    assert any("gist (geom)" in i for i in idx) and any("(crash_date)" in i for i in idx)
    # a known point lands in its town (WGS84 -> EPSG:26986 transform is right)
    assert scalar(admin, """SELECT t.town FROM ma.massdot_crash c JOIN ma.town t ON ST_Intersects(t.geom, c.geom)
                            WHERE c.crash_numb = 4491306""") == "STOUGHTON"


def test_scale_indexes_statistics_and_order(admin, reader_dsn):
    idx = " ".join(r[0] for r in rows(admin, "SELECT indexdef FROM pg_indexes WHERE schemaname='ma' AND tablename='massdot_crash'"))
    for part in ("month", "isodow", "hour"):
        assert f"EXTRACT({part} FROM" in idx and "INCLUDE" in idx
    stx = {r[0] for r in rows(admin, "SELECT stxname FROM pg_statistic_ext WHERE stxrelid = 'ma.massdot_crash'::regclass")}
    assert {"massdot_crash_year_stx", "massdot_crash_year_int_stx", "massdot_crash_quarter_stx"} <= stx
    # rows in spatial order: consecutive rows are far closer than random pairs
    near, far = rows(admin, """SELECT avg(ST_Distance(geom, g1)), avg(ST_Distance(geom, g2)) FROM (
        SELECT geom, lag(geom) OVER w AS g1, lag(geom, 4000) OVER w AS g2 FROM ma.massdot_crash
        WHERE geom IS NOT NULL WINDOW w AS (ORDER BY ctid)) x""")[0]
    assert near * 10 < far
    conn = psycopg2.connect(reader_dsn)
    try:
        assert scalar(conn, "SHOW jit") == "off"
        plan = "\n".join(r[0] for r in rows(conn, "EXPLAIN SELECT count(*) FROM ma.massdot_crash c "
                                                  "WHERE EXTRACT(MONTH FROM c.crash_date) IN (1)"))
        assert "extract_crash_date" in plan  # the month filter, as compiled, reaches its index
    finally:
        conn.close()


def test_reader_role_attributes(admin):
    r = rows(admin, "SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname='mapask_reader'")[0]
    assert r == (False, False, False)


def test_reader_can_read(reader_dsn):
    conn = psycopg2.connect(reader_dsn)
    try:
        assert scalar(conn, "SELECT count(*) FROM ma.massdot_crash") == 10000
    finally:
        conn.close()


@pytest.mark.parametrize("sql", [
    "INSERT INTO ma.town (gid, town) VALUES (99999, 'X')",
    "UPDATE ma.town SET town = 'X'",
    "DELETE FROM ma.town",
    "CREATE TABLE ma.evil (a int)",
    "CREATE TABLE public.evil (a int)",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT * FROM pg_authid",
    "SELECT set_config('transaction_read_only', 'off', false); DELETE FROM ma.town",
    "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE; DELETE FROM ma.town",
])
def test_reader_cannot_write_or_escape(reader_dsn, admin, sql):
    before = scalar(admin, "SELECT count(*) FROM ma.town")
    conn = psycopg2.connect(reader_dsn)
    conn.autocommit = True
    try:
        with pytest.raises(psycopg2.Error):
            with conn.cursor() as cur:
                cur.execute(sql)
    finally:
        conn.close()
    assert scalar(admin, "SELECT count(*) FROM ma.town") == before
    assert scalar(admin, "SELECT count(*) FROM pg_tables WHERE tablename = 'evil'") == 0


def test_missing_file_stops_with_its_name_and_keeps_previous_load(admin, tmp_path):
    import subprocess
    import sys
    from conftest import ADMIN_DSN, ROOT
    before = scalar(admin, "SELECT count(*) FROM ma.massdot_crash")
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "load_data.py"), "--dsn", ADMIN_DSN,
                          "--data-dir", str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "massdot_crashes_2017_sample.csv" in out.stderr and "previous data left intact" in out.stderr
    assert scalar(admin, "SELECT count(*) FROM ma.massdot_crash") == before == 10000
