"""Exports of an answer: GeoPackage (styled layers + provenance table), CSV (+ provenance sidecar), PNG map layout."""

import csv
import hashlib
import json
import re
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from qgis.core import (
    QgsCategorizedSymbolRenderer,
    QgsExpressionContextUtils,
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransformContext,
    QgsFeature,
    QgsField,
    QgsGraduatedSymbolRenderer,
    QgsMapLayer,
    QgsNotSupportedException,
    QgsProject,
    QgsProviderRegistry,
    QgsRectangle,
    QgsVectorFileWriter,
    QgsVectorLayer,
)
from qgis.PyQt.QtCore import QVariant
from qgis.PyQt.QtGui import QImage
from qgis.PyQt.QtXml import QDomDocument

from ..core.audit import scrub
from .render import export_layout_png, map_layout
from .results import combined_extent, memory_layer, plain

PROVENANCE_TABLE = "mapask_provenance"
PROVENANCE_FIELDS = ("entry_id", "time", "question", "status", "answer", "sql", "frame_hash", "result_hash",
                     "pack_id", "pack_hash", "layer", "layer_title", "entry_json")
TABLE_CHARS = 50  # a name that fits is kept whole
HEAD_CHARS = 30   # a longer one: the question's first words, what a helper layer shows, and a short hash
SHOWS_CHARS = 16
STYLE_NAME = "MapAsk answer"  # GDAL's layer_styles keeps style names to 30 characters
# what travels with a layer into the GeoPackage's default style (variables included: they hold its provenance)
STYLE_CATEGORIES = (QgsMapLayer.Symbology | QgsMapLayer.Labeling | QgsMapLayer.Rendering
                    | QgsMapLayer.CustomProperties | QgsMapLayer.Legend)


class ExportError(RuntimeError):
    """The file could not be written."""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.casefold()).strip("_")


def _first_words(slug: str, limit: int) -> str:
    """The slug's first whole words, at most `limit` characters (a single long word is cut)."""
    out = ""
    for word in slug.split("_"):
        if out and len(out) + 1 + len(word) > limit:
            break
        out = f"{out}_{word}" if out else word[:limit]
    return out


def table_name(text: str, fallback: str = "mapask_result") -> str:
    """A GeoPackage table name from a layer name: lower case letters, digits and underscores, readable.

    Short names are kept whole. A long one keeps the question's first words and what a helper layer shows
    (layer names read "question — what it shows"), plus a hash of the whole name so two long names never
    meet; the full name lives in the provenance table and the layer's metadata.
    """
    full = _slug(text)
    if not full or full[0].isdigit():
        full = f"{fallback}_{full}".strip("_")
    if len(full) <= TABLE_CHARS:
        return full
    question, _, shows = text.partition(" — ")
    head = _first_words(_slug(question), HEAD_CHARS) or fallback
    if head[0].isdigit():
        head = f"{fallback}_{head}"
    digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:6]
    room = min(SHOWS_CHARS, TABLE_CHARS - len(head) - len(digest) - 2)  # never longer than TABLE_CHARS
    return "_".join(part for part in (head, _first_words(_slug(shows), room), digest) if part)


def with_suffix(path: Any, suffix: str) -> Path:
    """`path` ending in `suffix` ('.gpkg'): added when the user typed the name without it (never replaced: a
    name such as 'answer.v2' becomes 'answer.v2.gpkg')."""
    path = Path(path)
    return path if path.suffix.lower() == suffix.lower() else path.with_name(path.name + suffix)


def file_stem(question: str, fallback: str = "mapask_answer") -> str:
    """A file name (without suffix) after the question: its first words, lower case, underscores."""
    return _first_words(_slug(question), 60) or fallback


def _unique(name: str, taken: Sequence[str]) -> str:
    out, n = name, 1
    while out in taken:
        n += 1
        out = f"{name}_{n}"
    return out


def _write(layer: QgsVectorLayer, path: Path, table: str, driver: str = "GPKG", first: bool = True,
           title: str = "", description: str = "") -> None:
    opts = QgsVectorFileWriter.SaveVectorOptions()
    opts.driverName = driver
    opts.fileEncoding = "UTF-8"
    opts.layerName = table
    # gpkg_contents' identifier and description: the full layer name and the question, for any GIS reading it
    opts.layerOptions = [f"{key}={value}" for key, value in (("IDENTIFIER", title), ("DESCRIPTION", description))
                         if value]
    opts.actionOnExistingFile = (QgsVectorFileWriter.CreateOrOverwriteFile if first
                                 else QgsVectorFileWriter.CreateOrOverwriteLayer)
    result = QgsVectorFileWriter.writeAsVectorFormatV2(layer, str(path), QgsCoordinateTransformContext(), opts)
    if result[0] != QgsVectorFileWriter.NoError:
        raise ExportError(f"could not write {table} to {path}: {result[1]}")


def provenance_layer(entry: dict, layers: Sequence[Tuple[str, str]] = (("", ""),)) -> QgsVectorLayer:
    """A table layer with the audit entry (scrubbed of secrets), one row per exported (table, layer name)."""
    layer = QgsVectorLayer("None", PROVENANCE_TABLE, "memory")
    layer.dataProvider().addAttributes([QgsField(n, QVariant.String) for n in PROVENANCE_FIELDS])
    layer.updateFields()
    e = scrub(entry)
    pack = e.get("pack") or {}
    feats = []
    for table, title in layers:
        f = QgsFeature(layer.fields())
        f.setAttributes([str(e.get("id", "")), str(e.get("time", "")), e.get("question", ""), e.get("status", ""),
                         e.get("answer", ""), e.get("sql", ""), e.get("frame_hash", ""), e.get("result_hash", ""),
                         pack.get("id", ""), pack.get("hash", ""), table, title,
                         json.dumps(e, sort_keys=True, default=str)])
        feats.append(f)
    layer.dataProvider().addFeatures(feats)
    return layer


def save_style_and_metadata(source: QgsVectorLayer, path: Path, table: str) -> QgsVectorLayer:
    """Copy `source`'s style into the GeoPackage as the table's default (layer_styles) and its metadata beside it.

    QGIS loads a GeoPackage layer's default style from layer_styles when it opens the layer, so a planner
    who opens the file sees the answer drawn as MapAsk drew it. Returns the reopened table.
    """
    written = QgsVectorLayer(f"{path}|layername={table}", table, "ogr")
    if not written.isValid():
        raise ExportError(f"could not reopen {table} in {path}")
    doc = QDomDocument("qgis")
    source.exportNamedStyle(doc, categories=STYLE_CATEGORIES)
    written.importNamedStyle(doc, STYLE_CATEGORIES)
    error = written.saveStyleToDatabase(STYLE_NAME, source.name(), True, "")
    if error:
        raise ExportError(f"could not save the style of {table} in {path}: {error}")
    metadata = source.metadata()
    # the identifier becomes gpkg_contents' identifier, unique per table: the layer's full name, as written
    metadata.setIdentifier(source.name())
    written.setMetadata(metadata)
    try:
        # QGIS's XML in the GeoPackage's metadata tables, read back whenever the layer is opened
        ok, error = QgsProviderRegistry.instance().saveLayerMetadata("ogr", written.source(), metadata)
    except QgsNotSupportedException:  # a GDAL without GeoPackage metadata: the provenance table holds it all
        return written
    if not ok:
        raise ExportError(f"could not save the metadata of {table} in {path}: {error}")
    return written


def export_gpkg(path: Path, entry: dict, layers: Sequence[QgsVectorLayer] = (),
                columns: Sequence[str] = (), rows: Sequence[Sequence[Any]] = ()) -> Path:
    """The answer's layers (or, with none, its table), styled, plus the mapask_provenance table, in one GeoPackage."""
    path = with_suffix(path, ".gpkg")
    path.parent.mkdir(parents=True, exist_ok=True)
    written: List[Tuple[str, str]] = []
    sources = list(layers) or [memory_layer("answer", list(columns), list(rows), None, geometry_column=None)]
    for i, layer in enumerate(sources):
        table = _unique(table_name(layer.name()), [t for t, _ in written])
        _write(layer, path, table, first=(i == 0), title=layer.name(), description=entry.get("question", ""))
        written.append((table, layer.name()))
    # styles and metadata once every table is written: the writer and a reader never hold the file together
    for layer, (table, _) in zip(sources, written):
        if layer.isSpatial():
            save_style_and_metadata(layer, path, table)
    _write(provenance_layer(entry, written), path, PROVENANCE_TABLE, first=False,
           description="MapAsk audit entry: question, SQL, hashes, knowledge pack")
    return path


def export_csv(path: Path, entry: dict, columns: Sequence[str], rows: Sequence[Sequence[Any]],
               geometry_column: Optional[str] = None) -> Path:
    """The answer's table as CSV (no geometry column) and a <name>.provenance.json beside it."""
    path = with_suffix(path, ".csv")
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


def legend_label(layer: QgsVectorLayer) -> str:
    """A layer's label in a map's legend: the title shows the question, so say what the layer shows."""
    shows = layer.name().partition(" — ")[2] or str(layer.customProperty("mapask/legend") or "")
    if shows:
        return shows
    renderer = layer.renderer()
    if isinstance(renderer, (QgsGraduatedSymbolRenderer, QgsCategorizedSymbolRenderer)):
        return f"Answer: {renderer.classAttribute().replace('_', ' ')}"
    return "Answer"


def provenance_note(entry: dict) -> str:
    """Where the map comes from, in one line: the knowledge pack, the date and the audit entry."""
    pack = entry.get("pack") or {}
    when = str(entry.get("time", ""))[:16].replace("T", " ")
    made = f"Answered by MapAsk on {when}" if when else "Answered by MapAsk"
    source = f"from the {pack.get('id')} knowledge pack {pack.get('version', '')}".rstrip() if pack.get("id") else ""
    return " ".join(p for p in (made, source) if p) + f" · audit entry {entry.get('id', '')}" + \
        " · the SQL and hashes are in the PNG's text and the audit history"


def answer_layout(entry: dict, layers: Sequence[QgsVectorLayer], crs: QgsCoordinateReferenceSystem,
                  extent: QgsRectangle, background: Sequence[QgsVectorLayer] = (),
                  project: Optional[QgsProject] = None):
    """The answer as a print layout: its question as title, its answer (with its number) under it, its layers
    over `background`, legend, scale, note. A layer that only carries the number has no legend line."""
    legend = [(layer, legend_label(layer)) for layer in layers if _role(layer) != "number"]
    return map_layout(project or QgsProject.instance(), list(layers) + list(background), legend, extent, crs,
                      entry.get("question", ""), provenance_note(entry), subtitle=entry.get("answer", ""))


def _role(layer: QgsMapLayer) -> str:
    return str(QgsExpressionContextUtils.layerScope(layer).variable("mapask_role") or "")


def export_png(path: Path, entry: dict, layers: Sequence[QgsVectorLayer], crs: Optional[QgsCoordinateReferenceSystem] = None,
               extent=None, background: Sequence[QgsVectorLayer] = (), width: int = 1600) -> Path:
    """A PNG of the answer laid out as a map (title, legend, scale bar, north arrow, source), the question in its text."""
    if not layers:
        raise ExportError("this answer has no map layer to draw")
    crs = crs if crs is not None and crs.isValid() else layers[0].crs()
    extent = extent or combined_extent(layers, crs, QgsProject.instance())
    if extent.isNull() or extent.width() < 0:
        raise ExportError("the answer's layers have no features to draw")
    if extent.isEmpty():  # a single point: show its surroundings
        extent.grow(250)
    path = with_suffix(path, ".png")
    layout = answer_layout(entry, layers, crs, extent, background)
    export_layout_png(layout, path, width=width)
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
        background = context_layers(pack, extent, None, executor, shown.layers) if extent is not None else []
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
