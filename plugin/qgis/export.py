"""Exports of an answer: GeoPackage (layers + provenance table), CSV (+ provenance sidecar), PNG map (provenance inside)."""

import csv
import json
import re
from pathlib import Path
from typing import Any, List, Optional, Sequence

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransformContext,
    QgsFeature,
    QgsField,
    QgsProject,
    QgsVectorFileWriter,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QVariant
from qgis.PyQt.QtGui import QImage

from ..core.audit import scrub
from .render import render_png
from .results import combined_extent, memory_layer, plain

PROVENANCE_TABLE = "mapask_provenance"
PROVENANCE_FIELDS = ("entry_id", "time", "question", "status", "answer", "sql", "frame_hash", "result_hash",
                     "pack_id", "pack_hash", "layer", "entry_json")


class ExportError(RuntimeError):
    """The file could not be written."""


def table_name(text: str, fallback: str = "mapask_result") -> str:
    """A GeoPackage table name from a layer name: lower case letters, digits and underscores."""
    name = re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_")[:50]
    return name if name and not name[0].isdigit() else f"{fallback}_{name}".strip("_")


def _write(layer: QgsVectorLayer, path: Path, table: str, driver: str = "GPKG", first: bool = True) -> None:
    opts = QgsVectorFileWriter.SaveVectorOptions()
    opts.driverName = driver
    opts.fileEncoding = "UTF-8"
    opts.layerName = table
    opts.actionOnExistingFile = (QgsVectorFileWriter.CreateOrOverwriteFile if first
                                 else QgsVectorFileWriter.CreateOrOverwriteLayer)
    result = QgsVectorFileWriter.writeAsVectorFormatV2(layer, str(path), QgsCoordinateTransformContext(), opts)
    if result[0] != QgsVectorFileWriter.NoError:
        raise ExportError(f"could not write {table} to {path}: {result[1]}")


def provenance_layer(entry: dict, layers: Sequence[str] = ("",)) -> QgsVectorLayer:
    """A table layer with the audit entry (scrubbed of secrets), one row per exported layer."""
    layer = QgsVectorLayer("None", PROVENANCE_TABLE, "memory")
    layer.dataProvider().addAttributes([QgsField(n, QVariant.String) for n in PROVENANCE_FIELDS])
    layer.updateFields()
    e = scrub(entry)
    pack = e.get("pack") or {}
    feats = []
    for name in layers:
        f = QgsFeature(layer.fields())
        f.setAttributes([str(e.get("id", "")), str(e.get("time", "")), e.get("question", ""), e.get("status", ""),
                         e.get("answer", ""), e.get("sql", ""), e.get("frame_hash", ""), e.get("result_hash", ""),
                         pack.get("id", ""), pack.get("hash", ""), name,
                         json.dumps(e, sort_keys=True, default=str)])
        feats.append(f)
    layer.dataProvider().addFeatures(feats)
    return layer


def export_gpkg(path: Path, entry: dict, layers: Sequence[QgsVectorLayer] = (),
                columns: Sequence[str] = (), rows: Sequence[Sequence[Any]] = ()) -> Path:
    """The answer's layers (or, with none, its table) plus the mapask_provenance table, in one GeoPackage."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    written: List[str] = []
    sources = list(layers) or [memory_layer("answer", list(columns), list(rows), None, geometry_column=None)]
    for i, layer in enumerate(sources):
        table = table_name(layer.name())
        while table in written:
            table += "_2"
        _write(layer, path, table, first=(i == 0))
        written.append(table)
    _write(provenance_layer(entry, written), path, PROVENANCE_TABLE, first=False)
    return path


def export_csv(path: Path, entry: dict, columns: Sequence[str], rows: Sequence[Sequence[Any]],
               geometry_column: Optional[str] = None) -> Path:
    """The answer's table as CSV (no geometry column) and a <name>.provenance.json beside it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    keep = [i for i, c in enumerate(columns) if c != geometry_column]
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow([columns[i] for i in keep])
        for r in rows:
            writer.writerow(["" if r[i] is None else plain(r[i]) for i in keep])
    side = path.with_suffix(".provenance.json")
    side.write_text(json.dumps(scrub(entry), indent=1, sort_keys=True, default=str), encoding="utf-8")
    return path


def export_png(path: Path, entry: dict, layers: Sequence[QgsVectorLayer], crs: Optional[QgsCoordinateReferenceSystem] = None,
               extent=None, background: Sequence[QgsVectorLayer] = (), width: int = 1600) -> Path:
    """A PNG of the answer's layers over `background` layers, with the question and entry id in its text chunks."""
    if not layers:
        raise ExportError("this answer has no map layer to draw")
    crs = crs if crs is not None and crs.isValid() else layers[0].crs()
    extent = extent or combined_extent(layers, crs, QgsProject.instance())
    if extent.isNull() or extent.width() < 0:
        raise ExportError("the answer's layers have no features to draw")
    if extent.isEmpty():  # a single point: show its surroundings
        extent.grow(250)
    path = Path(path)
    render_png(list(layers) + list(background), extent, path, crs, width=width)
    image = QImage(str(path))
    image.setText("Title", entry.get("question", ""))
    image.setText("Description", entry.get("answer", ""))
    image.setText("MapAsk", json.dumps({k: entry.get(k) for k in ("id", "time", "question", "frame_hash",
                                                                   "result_hash", "pack")}, default=str))
    if not image.save(str(path), "PNG"):
        raise ExportError(f"could not write {path}")
    return path


def export_answer(path: str, answer: Any, entry: dict, pack: Any, executor: Any) -> Path:
    """The CLI's --export: memory layers from the checked layer SQL, then the format chosen by the suffix."""
    from .present import build_layers

    target = Path(path)
    suffix = target.suffix.lower()
    if suffix == ".csv":
        return export_csv(target, entry, answer.columns, answer.rows, answer.geometry_column)
    shown = build_layers(answer, entry, pack, None, executor)
    if suffix == ".gpkg":
        return export_gpkg(target, entry, shown.layers, answer.columns, answer.rows)
    if suffix == ".png":
        from .present import context_layers

        extent = combined_extent(shown.layers, shown.layers[0].crs(), QgsProject.instance()) if shown.layers else None
        background = context_layers(pack, extent, None, executor) if extent is not None else []
        return export_png(target, entry, shown.layers, background=background)
    raise ExportError(f"unknown export format {suffix or '(none)'}: use .gpkg, .csv or .png")


def export_cli(path: str, answer: Any, pipeline: Any) -> Path:
    """`mapask ask Q --export PATH`: start a headless QGIS if none runs, then export like the dock does."""
    import os

    from qgis.core import QgsApplication

    from ..core.audit import AuditStore

    if QgsApplication.instance() is None:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        app = QgsApplication([], False)
        app.initQgis()
        export_cli.app = app  # keep it alive for the rest of the process
    if answer.status != "answered":
        raise ExportError(f"nothing to export: the question was not answered ({answer.status})")
    entry = AuditStore().add(pipeline.audit_entry(answer))
    return export_answer(path, answer, entry, pipeline.pack, pipeline.executor)
