"""A second knowledge pack over another schema answers with no code change (knowledge in the pack, logic in code)."""
from __future__ import annotations

import pytest

from conftest import READER_DSN, ROOT, scalar
from plugin.core.pack import load_pack
from plugin.core.pipeline import Pipeline

SETUP = """
DROP SCHEMA IF EXISTS svc CASCADE;
CREATE SCHEMA svc;
CREATE TABLE svc.ward (gid int PRIMARY KEY, ward_name text, geom geometry(MultiPolygon, 3857));
INSERT INTO svc.ward VALUES
 (1, 'North Ward', ST_Multi(ST_MakeEnvelope(0, 100, 100, 200, 3857))),
 (2, 'South Ward', ST_Multi(ST_MakeEnvelope(0, 0, 100, 100, 3857)));
CREATE TABLE svc.service_request (gid int PRIMARY KEY, category text, status text, opened_on date,
                                  geom geometry(Point, 3857));
INSERT INTO svc.service_request
SELECT g, (ARRAY['Pothole','Graffiti','Streetlight out'])[1 + g % 3], (ARRAY['OPEN','CLOSED'])[1 + g % 2],
       DATE '2020-01-01' + (g * 7), ST_SetSRID(ST_MakePoint(10 + g % 80, 5 + (g * 13) % 190), 3857)
FROM generate_series(1, 90) g;
GRANT USAGE ON SCHEMA svc TO mapask_reader;
GRANT SELECT ON ALL TABLES IN SCHEMA svc TO mapask_reader;
"""


@pytest.fixture(scope="module")
def svc(admin):
    with admin.cursor() as cur:
        cur.execute(SETUP)
    p = Pipeline(load_pack(ROOT / "tests" / "fixtures" / "pack2"), READER_DSN)
    yield p
    p.executor.close()
    with admin.cursor() as cur:
        cur.execute("DROP SCHEMA svc CASCADE")


def test_second_pack_counts_with_its_own_words_and_codes(svc, admin):
    a = svc.ask("how many open potholes tickets in 2020")
    assert a.status == "answered", a.answer
    assert a.rows[0][0] == scalar(admin, """SELECT count(*) FROM svc.service_request WHERE status = 'OPEN'
                                            AND category = 'Pothole' AND extract(year FROM opened_on) = 2020""")


def test_second_pack_spatial_scope_and_groups(svc, admin):
    a = svc.ask("complaints in north ward by category")
    assert a.status == "answered", a.answer
    with admin.cursor() as cur:
        cur.execute("""SELECT r.category, count(*) FROM svc.service_request r JOIN svc.ward w
                       ON ST_Intersects(w.geom, r.geom) WHERE w.ward_name = 'North Ward' GROUP BY 1""")
        ref = dict(cur.fetchall())
    assert dict(a.rows) == ref


def test_second_pack_refuses_what_it_does_not_know(svc):
    a = svc.ask("how many crashes in cambridge")
    assert a.status == "clarify" and not a.sql


def test_second_pack_reads_people_s_phrasing_with_no_code_change(svc, admin):
    """Context, a typo of the pack's own vocabulary and an exclusion work on a pack MapAsk was not built around."""
    a = svc.ask("Quick check before the meeting: how many requests in 2020 excluding potholes?")
    assert a.status == "answered", a.answer
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM svc.service_request WHERE category <> 'Pothole' "
                                         "AND extract(year FROM opened_on) = 2020")
    assert "not 'Pothole'" in a.readback["text"] and a.understood["context"]
    typo = svc.ask("how many grafiti requests")
    assert typo.status == "answered" and typo.rows[0][0] == scalar(
        admin, "SELECT count(*) FROM svc.service_request WHERE category = 'Graffiti'")
    assert typo.understood["corrections"][0]["to"] == "graffiti"
