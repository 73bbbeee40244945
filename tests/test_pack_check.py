"""`mapask check` against the real database: undeclared columns, fields without a description, place-name
spellings that differ between sources, and the pack's own stopwords."""
from __future__ import annotations

import re
import shutil

import psycopg2
import pytest

from conftest import PACK_DIR, READER_DSN, scalar
from plugin.core.pack import language_for, load_pack
from plugin.core.pack_check import check_pack
from plugin.core.text import language


@pytest.fixture(scope="module")
def conn():
    c = psycopg2.connect(READER_DSN)
    yield c
    c.close()


def _copy(tmp_path, edit=None):
    """A copy of the pack; `edit(text) -> text` rewrites its entities.yaml (and must change it)."""
    dst = tmp_path / "pack"
    shutil.copytree(PACK_DIR, dst)
    if edit:
        path = dst / "entities.yaml"
        text = path.read_text(encoding="utf-8")
        new = edit(text)
        assert new != text, "the edit did not apply"
        path.write_text(new, encoding="utf-8")
    return load_pack(dst)


def _drop_field(name: str, entity_table: str):
    """Remove the field `name` from the entity reading `entity_table`."""
    def edit(text: str) -> str:
        head, sep, rest = text.partition(f"    table: {entity_table}\n")
        return head + sep + re.sub(rf"(?m)^      {name}: \{{.*\}}\n", "", rest, count=1)
    return edit


def test_the_pack_declares_every_column_and_describes_every_field(conn):
    rep = check_pack(load_pack(PACK_DIR), conn)
    assert rep.ok, rep.text()
    assert rep.unknown_columns == {}
    assert rep.no_description == [], rep.no_description
    assert rep.text().splitlines()[-1] == "OK"


def test_a_column_the_pack_does_not_declare_is_reported(conn, tmp_path):
    rep = check_pack(_copy(tmp_path, _drop_field("latitude", "cambridge_bicycle_crash")), conn)
    assert not rep.ok
    assert rep.unknown_columns == {"ma.cambridge_bicycle_crash": ["latitude"]}
    assert "columns in the database the pack does not declare, ma.cambridge_bicycle_crash: ['latitude']" \
        in rep.text()
    assert rep.text().splitlines()[-1] == "NOT OK"


def test_key_and_geometry_columns_count_as_declared(conn):
    # every table has gid (the key) and geom (a PostGIS geometry): neither is a field, neither is reported
    rep = check_pack(load_pack(PACK_DIR), conn)
    assert not any(c in ("gid", "geom") for cols in rep.unknown_columns.values() for c in cols)


def test_a_field_without_description_is_a_warning_not_a_failure(conn, tmp_path):
    def edit(text: str) -> str:
        return re.sub(r'(?m)^(      crash_date: \{.*?), description: "[^"]*"\}', r"\1}", text, count=1)
    rep = check_pack(_copy(tmp_path, edit), conn)
    assert rep.no_description == ["crash.crash_date"]
    assert rep.ok  # completeness is a warning
    assert "warning: 1 fields without a description: ['crash.crash_date']" in rep.text()


def test_place_name_spellings_are_checked_against_both_tables(conn, tmp_path):
    pack = load_pack(PACK_DIR)
    same = pack.entities["crash"].places["town"]["same"]
    assert same == {"MANCHESTER BY THE SEA": ["MANCHESTER"]}
    bad = _copy(tmp_path, lambda t: t.replace('same: {"MANCHESTER BY THE SEA": [MANCHESTER]}',
                                              'same: {"MANCHESTER BY THE SEE": [MANCHESTR]}'))
    rep = check_pack(bad, conn)
    assert not rep.ok
    assert any("no town named 'MANCHESTER BY THE SEE'" in p for p in rep.problems), rep.problems
    assert any("not in massdot_crash.city_town_name: ['MANCHESTR']" in p for p in rep.problems), rep.problems


def test_every_town_spelled_differently_by_a_record_table_has_its_spelling(conn):
    """Town names in the record tables that the town table does not have (compared as each table's `case`
    writes them) are either declared `same` spellings or outside the town table's area (no town there)."""
    pack = load_pack(PACK_DIR)
    town = pack.entities["town"]
    with conn.cursor() as cur:
        cur.execute(f'SELECT {town.names[0]} FROM {pack.schema}.{town.table}')
        names = {r[0] for r in cur.fetchall()}
        for ent in pack.entities.values():
            pf = ent.places.get("town")
            if not pf:
                continue
            case = {"upper": str.upper, "title": str.title}.get(pf.get("case"), str)
            published = {case(n) for n in names}
            spelled = {v for vals in (pf.get("same") or {}).values() for v in vals}
            cur.execute(f'SELECT DISTINCT t.{pf["field"]} FROM {pack.schema}.{ent.table} t WHERE NOT EXISTS '
                        f'(SELECT 1 FROM {pack.schema}.{town.table} a WHERE ST_Intersects(a.geom, t.geom)) '
                        f'AND t.geom IS NOT NULL')
            outside = {r[0] for r in cur.fetchall()}
            cur.execute(f'SELECT DISTINCT {pf["field"]} FROM {pack.schema}.{ent.table} WHERE {pf["field"]} IS NOT NULL')
            odd = {r[0] for r in cur.fetchall()} - published - spelled - outside
            assert not odd, f"{ent.name}: {sorted(odd)} name no town and have no `same` spelling"


def test_pack_stopwords_are_merged_into_the_language_not_written_in_it():
    pack = load_pack(PACK_DIR)
    words = {"massachusetts", "ma", "mass"}
    assert words <= set(pack.raw["stopwords"])
    assert not words & set(language("en")["stopwords"])  # no pack word in the code-side language file
    merged = language_for(pack)["stopwords"]
    assert words <= set(merged) and set(language("en")["stopwords"]) <= set(merged)
    assert not words & set(language("en")["stopwords"])  # the shared language dict is not modified


def test_pack_stopwords_keep_questions_reading_as_before(pipeline, admin):
    a = pipeline.ask("crashes in massachusetts in 2017")  # the whole coverage: no place filter, no unknown word
    assert a.status == "answered", a.answer
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash "
                                         "WHERE extract(year FROM crash_date) = 2017")
    assert not a.frame["scope"] and not a.frame["unknown"], a.frame
    b = pipeline.ask("mass ave crashes")  # 'mass' is a stopword, yet 'mass ave' is still the street
    assert b.status == "answered", b.answer
    assert b.frame["near"]["anchor"]["text"] == "mass ave", b.frame
