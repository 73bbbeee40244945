"""Result layers: PostGIS query layers (memory snapshots only for the CLI) from layer specs, styled, with provenance."""

import datetime as dt
import json
import struct
from decimal import Decimal
from typing import Any, Iterable, List, Optional, Sequence

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsCoordinateTransform,
    QgsExpression,
    QgsExpressionContextUtils,
    QgsFeature,
    QgsField,
    QgsGeometry,
    QgsLayerMetadata,
    QgsLayerTreeGroup,
    QgsLayerTreeRegistryBridge,
    QgsProject,
    QgsRectangle,
    QgsUnitTypes,
    QgsVectorLayer,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QVariant

from ..core.layer_sql import LayerSpec
from ..core.pack import Pack
from .styles import ANSWER_LABELS, CONTEXT_LABELS, apply_graduated, apply_style, label_layer, style_classifying

GROUP_NAME = "MapAsk"
ANSWER_PROPERTY = "mapask/answer"  # on an answer's group in the layer tree: its audit entry id
NAME_CHARS = 70
INTEGER_MEASURES = ("count", "epdo", "matching", "total")


class ResultLayerError(RuntimeError):
    """A result layer could not be opened (connection refused, provider error)."""


def layer_name(question: str, suffix: str = "") -> str:
    """The question as a layer name, shortened on a word boundary; `suffix` says what a helper layer shows."""
    q = " ".join(question.split())
    if len(q) > NAME_CHARS:
        q = q[:NAME_CHARS].rsplit(" ", 1)[0] + "…"
    return f"{q} — {suffix}" if suffix else q


# ---- values and geometry from the database ---------------------------------------------------------

def plain(value: Any) -> Any:
    """A database value as something a QgsFeature attribute and JSON both take."""
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, memoryview):
        return bytes(value).hex()
    return value


def ewkb_to_wkb(data: bytes) -> bytes:
    """PostGIS hex EWKB -> ISO WKB for QgsGeometry.fromWkb: drop the SRID, turn Z/M flags into ISO codes."""
    if len(data) < 5:
        return data
    order = "<" if data[0] == 1 else ">"
    (code,) = struct.unpack(order + "I", data[1:5])
    rest = data[5:]
    if code & 0x20000000:  # SRID follows the type
        rest = rest[4:]
    base = code & 0x0FFFFFFF
    iso = base + (1000 if code & 0x80000000 else 0) + (2000 if code & 0x40000000 else 0)
    return data[:1] + struct.pack(order + "I", iso) + rest


def geometry_from(value: Any) -> QgsGeometry:
    geom = QgsGeometry()
    if isinstance(value, str) and value:
        geom.fromWkb(ewkb_to_wkb(bytes.fromhex(value)))
    elif isinstance(value, (bytes, memoryview)):
        geom.fromWkb(ewkb_to_wkb(bytes(value)))
    return geom


def _field_type(values: Iterable[Any]) -> QVariant.Type:
    seen = {type(v) for v in values if v is not None}
    if seen and seen <= {bool}:
        return QVariant.Bool
    if seen and seen <= {int}:
        return QVariant.LongLong
    if seen and seen <= {int, float}:
        return QVariant.Double
    return QVariant.String


# ---- making layers -------------------------------------------------------------------------------

def memory_layer(name: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], srid: Optional[int],
                 geometry: str = "point", geometry_column: Optional[str] = "geom") -> QgsVectorLayer:
    """A memory layer holding exactly these rows (a snapshot: not saved with the project's data)."""
    gi = columns.index(geometry_column) if geometry_column in columns else None
    rows = [[plain(v) for v in r] for r in rows]
    geoms = [geometry_from(r[gi]) for r in rows] if gi is not None else []
    wkb = next((g.wkbType() for g in geoms if not g.isNull()), None)
    kind = QgsWkbTypes.displayString(wkb) if wkb else {"point": "Point", "line": "MultiLineString",
                                                        "polygon": "MultiPolygon"}.get(geometry, "Point")
    definition = f"{kind}?crs=EPSG:{srid}" if gi is not None and srid else "None"
    layer = QgsVectorLayer(definition, name, "memory")
    keep = [i for i, c in enumerate(columns) if i != gi]
    fields = [QgsField(columns[i], _field_type(r[i] for r in rows)) for i in keep]
    layer.dataProvider().addAttributes(fields)
    layer.updateFields()
    feats = []
    for n, r in enumerate(rows):
        f = QgsFeature(layer.fields())
        f.setAttributes([r[i] if not isinstance(r[i], (list, dict)) else json.dumps(r[i]) for i in keep])
        if gi is not None:
            f.setGeometry(geoms[n])
        feats.append(f)
    layer.dataProvider().addFeatures(feats)
    layer.updateExtents()
    return layer


def postgis_layer(uri_text: str, name: str) -> QgsVectorLayer:
    layer = QgsVectorLayer(uri_text, name, "postgres")
    if not layer.isValid():
        err = layer.dataProvider().error().summary() if layer.dataProvider() else ""
        raise ResultLayerError(f"could not open the result as a PostGIS layer {err}".strip())
    return layer


def style_layer(layer: QgsVectorLayer, spec: LayerSpec, pack: Pack, measure: str = "") -> None:
    """Points by severity when the pack names a severity field, counts/rates graduated, support as anchors.

    The answer's labels outrank every other label (context, the user's own layers), and a handful of areas
    or a place show theirs even where they would collide: a count must never drop off the map."""
    ent = pack.entities.get(spec.entity)
    if spec.role == "support":
        if spec.geometry == "point":
            apply_style(layer, "anchor", size=6 if spec.label_column else 3.5)
        else:
            apply_style(layer, "line" if spec.geometry == "line" else "polygon_outline", color="#b47800")
    elif spec.role == "place":
        apply_style(layer, "area" if spec.geometry == "polygon" else "anchor")
    elif spec.kind == "areas" and spec.value_column:
        if layer.featureCount() <= 1:
            apply_style(layer, "area" if spec.geometry == "polygon" else "anchor")
        else:
            apply_graduated(layer, spec.value_column, 5,
                            "graduated_count" if spec.geometry == "polygon" else "graduated_points")
    elif ent is not None and ent.severity_field and layer.fields().indexOf(ent.severity_field) >= 0 \
            and style_classifying(ent.severity_field):
        apply_style(layer, style_classifying(ent.severity_field))  # points by severity
    else:
        apply_style(layer, {"point": "point", "line": "line"}.get(spec.geometry, "polygon_outline"))
    # every area keeps its number; points close together would print theirs over each other
    show_all = spec.kind == "areas" and spec.geometry == "polygon" and layer.featureCount() <= 60
    if spec.label_column and layer.fields().indexOf(spec.label_column) >= 0:
        name = QgsExpression.quotedColumnRef(spec.label_column)
        if spec.role == "place" and measure:
            label_layer(layer, f"{name} || '\\n' || {QgsExpression.quotedString(measure)}", expression=True,
                        priority=ANSWER_LABELS, show_all=True, size=10.5)
        elif spec.value_column and layer.fields().indexOf(spec.value_column) >= 0:
            places = 0 if spec.value_column in INTEGER_MEASURES else 2
            label_layer(layer, f'{name} || \'\\n\' || format_number("{spec.value_column}", {places})',
                        expression=True, priority=ANSWER_LABELS, show_all=show_all)
        else:
            label_layer(layer, spec.label_column, priority=ANSWER_LABELS, show_all=show_all)


def style_number(layer: QgsVectorLayer, text: str) -> None:
    """The answer's number, large, at the middle of what it counted; no marker, only the label."""
    apply_style(layer, "point", opacity=0.0)
    label_layer(layer, QgsExpression.quotedString(text), size=13, expression=True, priority=ANSWER_LABELS,
                show_all=True, bold=True)


def apply_context_style(layer: QgsVectorLayer, spec: LayerSpec, labels: bool = True) -> None:
    """Background layers in quiet grey, so the answer stands out; areas labelled with their names, inside them
    and below every answer label in priority (a context name never pushes an answer's number off the map)."""
    if spec.geometry == "polygon":
        apply_style(layer, "polygon_outline", color="#9a9a9a", size=0.3)
    else:
        apply_style(layer, "line" if spec.geometry == "line" else "point", color="#b8b8b8", size=0.3)
    if labels and spec.label_column and layer.featureCount() <= 60:
        label_layer(layer, spec.label_column, size=7.5, priority=CONTEXT_LABELS, inside=True)


# ---- provenance, group, zoom ----------------------------------------------------------------------

def set_provenance(layer: QgsVectorLayer, entry: dict, role: str = "result") -> None:
    """The question, frame hash and SQL in layer variables and in the layer's metadata (abstract, history)."""
    pack = entry.get("pack") or {}
    values = {"mapask_question": entry.get("question", ""), "mapask_entry_id": entry.get("id", ""),
              "mapask_frame_hash": entry.get("frame_hash", ""), "mapask_sql": entry.get("sql", ""),
              "mapask_result_hash": entry.get("result_hash", ""), "mapask_pack": pack.get("id", ""),
              "mapask_pack_hash": pack.get("hash", ""), "mapask_time": entry.get("time", ""),
              "mapask_role": role, "mapask_confidence": entry.get("confidence")}
    for key, value in values.items():
        QgsExpressionContextUtils.setLayerVariable(layer, key, "" if value is None else value)
    md = QgsLayerMetadata()
    md.setIdentifier(f"mapask:{entry.get('id', '')}")
    md.setTitle(entry.get("question", ""))
    md.setType("dataset")
    md.setAbstract(f"{entry.get('answer', '')}\n\nQuestion: {entry.get('question', '')}\n"
                   f"Answered by MapAsk on {entry.get('time', '')} from the {pack.get('id', '')} knowledge pack.")
    md.setKeywords({"MapAsk": ["MapAsk", "question", role]})
    md.setHistory([f"Question: {entry.get('question', '')}",
                   f"Audit entry {entry.get('id', '')}; frame hash {entry.get('frame_hash', '')}; "
                   f"result hash {entry.get('result_hash', '')}",
                   f"Knowledge pack {pack.get('id', '')} {pack.get('version', '')} (hash {pack.get('hash', '')})",
                   f"SQL checked by the MapAsk guard:\n{entry.get('sql', '')}"])
    layer.setMetadata(md)


def select_matching(layer: QgsVectorLayer, column: str, values: Iterable[Any]) -> int:
    """Select the features whose `column` holds one of `values` (table rows picked by the user)."""
    values = [v for v in values if v is not None]
    if not values or layer.fields().indexOf(column) < 0:
        layer.removeSelection()
        return 0
    listed = ", ".join(QgsExpression.quotedValue(v) for v in values)
    layer.selectByExpression(f"{QgsExpression.quotedColumnRef(column)} IN ({listed})")
    return layer.selectedFeatureCount()


def result_group(project: QgsProject) -> QgsLayerTreeGroup:
    root = project.layerTreeRoot()
    group = root.findGroup(GROUP_NAME)
    return group if group is not None else root.insertGroup(0, GROUP_NAME)


def is_mapask_layer(layer: Any) -> bool:
    """A layer MapAsk made (its provenance names a role), as opposed to one the user added."""
    return layer is not None and bool(QgsExpressionContextUtils.layerScope(layer).variable("mapask_role"))


def _answer_groups(group: QgsLayerTreeGroup) -> List[QgsLayerTreeGroup]:
    """Sub-groups holding an answer: marked as such, or (projects saved before the mark) holding MapAsk layers."""
    return [node for node in group.children() if isinstance(node, QgsLayerTreeGroup)
            and (node.customProperty(ANSWER_PROPERTY) or any(is_mapask_layer(n.layer()) for n in node.findLayers()))]


def hide_answers(project: QgsProject) -> int:
    """Switch earlier answers off and fold them: MapAsk's own layers only, so a layer the user put among them
    stays as the user left it. Returns how many layers were switched off."""
    group = project.layerTreeRoot().findGroup(GROUP_NAME)
    hidden = 0
    for answer in _answer_groups(group) if group is not None else []:
        nodes = answer.findLayers()
        for node in nodes:
            if is_mapask_layer(node.layer()) and node.itemVisibilityChecked():
                node.setItemVisibilityChecked(False)
                hidden += 1
        if all(is_mapask_layer(n.layer()) for n in nodes):
            answer.setItemVisibilityChecked(False)
        answer.setExpanded(False)
    return hidden


def add_to_project(project: QgsProject, layers: List[QgsVectorLayer], question: str,
                   entry_id: str = "") -> QgsLayerTreeGroup:
    """Put an answer's layers in a sub-group of its own at the top of the MapAsk group, shown and expanded.

    Earlier answers stay in the project but are collapsed and switched off, so the map and the legend show
    the latest answer; the user can tick an earlier one back on. Returns the new answer's group.
    """
    group = result_group(project)
    hide_answers(project)
    target = group.insertGroup(0, layer_name(question))
    target.setCustomProperty(ANSWER_PROPERTY, entry_id or "answer")
    for i, layer in enumerate(layers):
        project.addMapLayer(layer, False)
        node = target.insertLayer(i, layer)
        node.setExpanded(i == 0)  # the answer's own legend (classes) open; helper layers stay one line each
    target.setExpanded(True)
    group.setExpanded(True)
    group.setItemVisibilityChecked(True)  # a MapAsk group switched off earlier would hide the new answer
    return target


def release_insertion_point(project: QgsProject) -> None:
    """New layers the user adds go to the top of the project, not into the answer MapAsk just selected.

    QGIS puts a new layer above the current layer, inside its group, and moves that insertion point only when
    the current layer changes; MapAsk's answer becoming current would otherwise catch the user's next layers
    (and the next answer would switch them off with it)."""
    root = project.layerTreeRoot()
    project.layerTreeRegistryBridge().setLayerInsertionPoint(QgsLayerTreeRegistryBridge.InsertionPoint(root, 0))


def make_current(project: QgsProject, layer: Optional[QgsVectorLayer]) -> bool:
    """Make `layer` QGIS's current layer (selected in the Layers panel), when QGIS shows this project; then
    move the insertion point for new layers out of the answer's group."""
    from qgis.utils import iface  # None outside the QGIS application (the CLI's bare QgsApplication)

    if iface is None or layer is None or project is not QgsProject.instance():
        release_insertion_point(project)
        return False
    iface.setActiveLayer(layer)
    release_insertion_point(project)
    return True


def combined_extent(layers: Iterable[QgsVectorLayer], crs: QgsCoordinateReferenceSystem,
                    project: QgsProject) -> QgsRectangle:
    out = QgsRectangle()
    out.setMinimal()
    for layer in layers:
        ext = layer.extent()
        if ext.isNull() or ext.isEmpty() and layer.featureCount() == 0:
            continue
        if layer.crs() != crs and crs.isValid():
            ext = QgsCoordinateTransform(layer.crs(), crs, project).transformBoundingBox(ext)
        out.combineExtentWith(ext)
    return out


def zoom_to(canvas, layers: List[QgsVectorLayer], project: QgsProject) -> Optional[QgsRectangle]:
    """Zoom the map to the answer (a single point gets a street-level view around it)."""
    if canvas is None or not layers:
        return None
    crs = canvas.mapSettings().destinationCrs()
    if not crs.isValid():
        crs = layers[0].crs()
        canvas.setDestinationCrs(crs)
    ext = combined_extent(layers, crs, project)
    if ext.isNull() or ext.width() < 0:
        return None
    if ext.width() == 0 and ext.height() == 0:
        ext.grow(250 if crs.mapUnits() == QgsUnitTypes.DistanceMeters else 0.003)
    else:
        ext.scale(1.2)  # room for the labels of features on the edge
    canvas.setExtent(ext)
    canvas.refresh()
    return ext
