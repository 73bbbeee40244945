"""Exports from the dock and the CLI: styled GeoPackage with a provenance table, CSV with a sidecar, PNG map layout."""

import csv
import json
import re
import sqlite3
import subprocess
import sys

from mapask_qgis_helpers import READER, ROOT, ask, dock, module, pg_connection  # noqa: F401 (fixtures)
from qgis.core import (
    QgsGraduatedSymbolRenderer,
    QgsLayoutItemLabel,
    QgsLayoutItemLegend,
    QgsLayoutItemMap,
    QgsLayoutItemPicture,
    QgsLayoutItemScaleBar,
    QgsProject,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import Qt
from qgis.PyQt.QtGui import QImage


def gpkg_tables(path) -> dict:
    with sqlite3.connect(str(path)) as db:
        return dict(db.execute("SELECT table_name, data_type FROM gpkg_contents").fetchall())


def test_geopackage_holds_the_layers_and_the_audit_entry(dock, tmp_path):
    shown = ask(dock, "show crashes within 1000 feet of cambridgeport school")
    path = dock.export("gpkg", str(tmp_path / "answer.gpkg"))
    tables = gpkg_tables(path)
    assert tables["mapask_provenance"] == "attributes"
    assert sum(1 for kind in tables.values() if kind == "features") == 3  # crashes, the school, the search area
    name = next(t for t in tables if t.startswith("show_crashes_within_1000_feet"))  # (the question, cut to a length)
    result = QgsVectorLayer(f"{path}|layername={name}", "r", "ogr")
    assert result.isValid() and result.featureCount() == len(shown.answer.rows)
    assert result.crs().authid() == shown.presented.result.crs().authid()
    with sqlite3.connect(str(path)) as db:
        rows = db.execute("SELECT entry_id, question, sql, frame_hash, layer, entry_json FROM mapask_provenance").fetchall()
    assert len(rows) == 3 and {r[0] for r in rows} == {shown.entry["id"]}
    assert rows[0][1] == shown.answer.question and rows[0][2] == shown.answer.sql
    assert json.loads(rows[0][5])["result_hash"] == shown.answer.result_hash
    assert READER[1] not in rows[0][5].replace('"mapask_reader"', "")


def test_geopackage_layers_reopen_styled_with_readable_names(dock, tmp_path):
    question = "pedestrian crashes within 150 m of cambridge public schools by school"
    shown = ask(dock, question)
    path = dock.export("gpkg", str(tmp_path / "schools.gpkg"))
    tables = [t for t, kind in gpkg_tables(path).items() if kind == "features"]
    assert len(tables) == len(shown.presented.layers) == 3
    names = " ".join(layer.name() for layer in shown.presented.layers).split()
    for table in tables:  # whole words, then a short hash: no cut-off fragment such as "_publi"
        assert len(table) <= 50 and re.fullmatch(r"[a-z0-9_]+_[0-9a-f]{6}", table), table
        words = table.split("_")[:-1]
        assert all(w in question.split() or w in names for w in words), table
    with sqlite3.connect(str(path)) as db:
        styles = dict(db.execute("SELECT f_table_name, useAsDefault FROM layer_styles").fetchall())
        titles = dict(db.execute("SELECT layer, layer_title FROM mapask_provenance").fetchall())
        described = dict(db.execute("SELECT table_name, description FROM gpkg_contents").fetchall())
    assert set(styles) == set(tables) and all(styles.values())
    assert titles == {t: layer.name() for t, layer in zip(tables, shown.presented.layers)}
    assert question in described[tables[0]]
    # a planner opening the file: the default style is applied, the metadata and provenance are there
    result = QgsVectorLayer(f"{path}|layername={tables[0]}", "reopened", "ogr")
    assert result.isValid() and result.featureCount() == len(shown.answer.rows)
    assert isinstance(result.renderer(), QgsGraduatedSymbolRenderer)
    assert result.renderer().classAttribute() == "count" and result.labelsEnabled()
    assert result.metadata().title() == question
    assert any(shown.answer.sql in h for h in result.metadata().history())


def test_long_layer_names_become_short_readable_distinct_tables():
    export = module("plugin.qgis.export")
    base = "show crashes near the intersection of massachusetts avenue and the river road in the evening"
    names = [export.table_name(base), export.table_name(f"{base} — within 150 m"),
             export.table_name(f"{base} — schools"), export.table_name("crashes by neighborhood")]
    assert names[-1] == "crashes_by_neighborhood"
    assert len(set(names)) == 4 and all(len(n) <= 50 for n in names)
    assert names[0].startswith("show_crashes_near_the") and names[1].split("_")[-4:-1] == ["within", "150", "m"]
    assert export.table_name("2024 crashes") == "mapask_result_2024_crashes"


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
    assert abs(image.width() - 1600) <= 1 and abs(image.height() - round(1600 * 210 / 297)) <= 2  # A4 landscape


def test_png_layout_has_map_title_legend_scale_north_arrow_and_source(dock):
    shown = ask(dock, "show crashes within 1000 feet of cambridgeport school")
    export, layers = module("plugin.qgis.export"), shown.presented.layers
    crs = layers[0].crs()
    extent = export.combined_extent(layers, crs, QgsProject.instance())
    layout = export.answer_layout(shown.entry, layers, crs, extent)
    items = {item.id(): item for item in layout.items() if hasattr(item, "id") and item.id()}
    assert isinstance(items["map"], QgsLayoutItemMap) and items["map"].layers() == layers
    assert items["map"].extent().contains(extent)
    assert isinstance(items["title"], QgsLayoutItemLabel) and items["title"].text() == shown.answer.question
    legend = items["legend"]
    assert isinstance(legend, QgsLayoutItemLegend)
    nodes = legend.model().rootGroup().findLayers()
    assert [n.layer() for n in nodes] == layers  # the answer's layers, not the whole project
    # the title says the question: the legend says what each layer shows, on the line QGIS draws
    shows = [layer.name().partition(" — ")[2] for layer in layers[1:]]
    assert len(shows) == 2 and all(shows)
    assert [legend.model().layerLegendNodes(n)[0].data(Qt.DisplayRole).replace("\n", " ") for n in nodes[1:]] == shows
    assert isinstance(items["scale bar"], QgsLayoutItemScaleBar) and items["scale bar"].linkedMap() is items["map"]
    assert isinstance(items["north arrow"], QgsLayoutItemPicture) and items["north arrow"].picturePath()
    note = items["note"].text()
    assert shown.entry["id"] in note and shown.entry["pack"]["id"] in note and shown.entry["time"][:10] in note


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
