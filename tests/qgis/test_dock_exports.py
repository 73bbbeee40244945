"""Exports from the dock and the CLI: GeoPackage with a provenance table, CSV with a sidecar, PNG map with its text."""

import csv
import json
import sqlite3
import subprocess
import sys

from mapask_qgis_helpers import READER, ROOT, ask, dock, pg_connection  # noqa: F401 (fixtures)
from qgis.core import QgsVectorLayer
from qgis.PyQt.QtGui import QImage


def gpkg_tables(path) -> dict:
    with sqlite3.connect(str(path)) as db:
        return dict(db.execute("SELECT table_name, data_type FROM gpkg_contents").fetchall())


def test_geopackage_holds_the_layers_and_the_audit_entry(dock, tmp_path):
    shown = ask(dock, "show crashes within 1000 ft of cambrigeport school")
    path = dock.export("gpkg", str(tmp_path / "answer.gpkg"))
    tables = gpkg_tables(path)
    assert tables["mapask_provenance"] == "attributes"
    assert sum(1 for kind in tables.values() if kind == "features") == 3  # crashes, the school, the search area
    result = QgsVectorLayer(f"{path}|layername=show_crashes_within_1000_ft_of_cambrigeport_school", "r", "ogr")
    assert result.isValid() and result.featureCount() == len(shown.answer.rows)
    assert result.crs().authid() == shown.presented.result.crs().authid()
    with sqlite3.connect(str(path)) as db:
        rows = db.execute("SELECT entry_id, question, sql, frame_hash, layer, entry_json FROM mapask_provenance").fetchall()
    assert len(rows) == 3 and {r[0] for r in rows} == {shown.entry["id"]}
    assert rows[0][1] == shown.answer.question and rows[0][2] == shown.answer.sql
    assert json.loads(rows[0][5])["result_hash"] == shown.answer.result_hash
    assert READER[1] not in rows[0][5].replace('"mapask_reader"', "")


def test_table_only_answer_exports_its_table(dock, tmp_path):
    shown = ask(dock, "crashes by month")
    path = dock.export("gpkg", str(tmp_path / "months.gpkg"))
    assert gpkg_tables(path) == {"answer": "attributes", "mapask_provenance": "attributes"}
    with sqlite3.connect(str(path)) as db:
        assert db.execute("SELECT count(*) FROM answer").fetchone()[0] == len(shown.answer.rows) == 12


def test_csv_has_the_table_and_a_provenance_sidecar(dock, tmp_path):
    shown = ask(dock, "map the crashes in the port")
    path = dock.export("csv", str(tmp_path / "port.csv"))
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == [c for c in shown.answer.columns if c != "geom"]
    assert len(rows) == len(shown.answer.rows) + 1
    side = json.loads((tmp_path / "port.provenance.json").read_text())
    assert side["id"] == shown.entry["id"] and side["sql"] == shown.answer.sql


def test_png_is_a_map_of_the_answer_with_its_provenance(dock, tmp_path):
    shown = ask(dock, "top 5 towns with the most crashes")
    path = dock.export("png", str(tmp_path / "towns.png"))
    image = QImage(path)
    assert image.width() >= 800
    assert image.text("Title") == shown.answer.question
    assert json.loads(image.text("MapAsk"))["id"] == shown.entry["id"]
    colours = {image.pixel(x, y) for x in range(0, image.width(), 9) for y in range(0, image.height(), 9)}
    assert len(colours) > 10  # graduated towns over grey context outlines, with labels


def test_cli_export_writes_a_geopackage(tmp_path):
    out = tmp_path / "cli.gpkg"
    result = subprocess.run([str(ROOT / "mapask"), "ask", "crashes by neighborhood", "--export", str(out),
                             "--audit", str(tmp_path / "audit.jsonl")],
                            capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    tables = gpkg_tables(out)
    assert tables["mapask_provenance"] == "attributes" and "crashes_by_neighborhood" in tables
    layer = QgsVectorLayer(f"{out}|layername=crashes_by_neighborhood", "n", "ogr")
    assert layer.featureCount() == 13 and layer.geometryType() == 2


def test_cli_export_of_an_unanswered_question_fails_clearly(tmp_path):
    result = subprocess.run([sys.executable, "-m", "plugin.cli", "ask", "asdf qwer zxcv", "--export",
                             str(tmp_path / "x.gpkg"), "--audit", str(tmp_path / "a.jsonl")],
                            capture_output=True, text=True, timeout=180, cwd=ROOT)
    assert result.returncode != 0 and "nothing to export" in result.stderr
    assert not (tmp_path / "x.gpkg").exists()
