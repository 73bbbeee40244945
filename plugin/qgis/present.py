"""Present an answer on the map: its layers (PostGIS query layers or memory snapshots), styled, with provenance."""

from dataclasses import dataclass, field
from typing import Any, List, Optional

from qgis.core import QgsExpressionContextUtils, QgsProject, QgsRectangle, QgsVectorLayer

from ..core.layer_sql import LayerSpec, context_specs, plan_layers
from ..core.pack import Pack
from .connections import layer_uri
from .results import (
    NAME_CHARS,
    apply_context_style,
    add_to_project,
    layer_name,
    make_current,
    memory_layer,
    postgis_layer,
    search_area_layer,
    set_provenance,
    style_layer,
    zoom_to,
)


@dataclass
class Presented:
    layers: List[QgsVectorLayer] = field(default_factory=list)
    result: Optional[QgsVectorLayer] = None
    notes: List[str] = field(default_factory=list)
    match_column: Optional[str] = None  # the answer's column that finds a table row's feature on the map


CHAIN_SEPARATOR = " → "
MIN_PART_CHARS = 16


def _shorten(text: str, chars: int) -> str:
    text = " ".join(text.split())
    if len(text) <= chars:
        return text
    cut = text[:chars].rsplit(" ", 1)[0] or text[:chars]
    return cut + "…"


def chain_title(questions: List[str], limit: int = NAME_CHARS) -> str:
    """A follow-up's name with what it refines ('crashes in cambridge → only in 2016'); earlier questions shorten first.

    A follow-up alone ('only in 2016') names nothing a reader of the Layers panel can place."""
    questions = [" ".join(q.split()) for q in questions if q and q.strip()]
    if len(questions) <= 1:
        return questions[0] if questions else ""
    last, earlier = questions[-1], questions[:-1]
    room = limit - len(last) - len(CHAIN_SEPARATOR) * len(earlier)
    each = max(MIN_PART_CHARS, room // len(earlier))
    return CHAIN_SEPARATOR.join([_shorten(q, each) for q in earlier] + [last])


def build_layers(answer: Any, entry: dict, pack: Pack, connection: Optional[str] = None,
                 executor: Any = None, row_cap: int = 5000, title: Optional[str] = None) -> Presented:
    """Make (but do not add) the answer's layers, named after `title` (default: the entry's question).

    With a saved QGIS connection the layers are PostGIS query layers over the guard-checked SQL, so
    they are saved with the project and reopen live. Without one (the CLI) the same checked SQL is run
    through the read-only executor and the rows become memory layers.
    """
    out = Presented()
    title = title or entry.get("question", "")
    plan = plan_layers(answer, pack, row_cap)
    out.notes += plan.skipped
    for spec in plan.specs:
        name = layer_name(title, "" if spec.role == "result" else spec.title)
        try:
            layer = _open(spec, name, pack, connection, executor)
        except Exception as e:  # one layer failing must not lose the answer or the other layers
            out.notes.append(f"{spec.role} layer not added: {e}")
            continue
        style_layer(layer, spec, pack)
        set_provenance(layer, entry, spec.role)
        _note_unmatched(answer, spec, layer, out)
        out.layers.append(layer)
        if spec.role == "result":
            out.result = layer
            out.match_column = spec.key if spec.kind == "features" else spec.label_column
        if spec.buffer_m:
            area = search_area_layer(layer, spec.buffer_m, layer_name(title, f"within {spec.buffer_m:g} m"))
            if area is not None:
                set_provenance(area, entry, "search area")
                out.layers.append(area)
            else:
                out.notes.append("the search area was not drawn (too many features or a non-metric CRS)")
    # draw order: search areas at the bottom, the answer's own features on top
    out.layers.sort(key=lambda layer: {"result": 0, "support": 1}.get(_role(layer), 2))
    return out


def _role(layer: QgsVectorLayer) -> str:
    return str(QgsExpressionContextUtils.layerScope(layer).variable("mapask_role") or "")


def _open(spec: LayerSpec, name: str, pack: Pack, connection: Optional[str], executor: Any) -> QgsVectorLayer:
    if connection:
        return postgis_layer(layer_uri(connection, spec.sql, spec.key, pack.srid).uri(False), name)
    if executor is None:
        raise RuntimeError("no connection and no executor to fetch the layer's features")
    res = executor.run(spec.sql)
    return memory_layer(name, res.columns, res.rows, pack.srid, spec.geometry)


def _note_unmatched(answer: Any, spec: LayerSpec, layer: QgsVectorLayer, out: Presented) -> None:
    """Grouped rows whose name matched no area cannot be drawn: say so rather than hide it."""
    rows = len(getattr(answer, "rows", []) or [])
    if spec.role == "result" and spec.kind == "areas" and rows and layer.featureCount() < rows:
        missing = rows - layer.featureCount()
        out.notes.append(f"{missing} of {rows} rows have no matching {spec.title} geometry and are not on the map")


def present(answer: Any, entry: dict, pack: Pack, connection: Optional[str], project: QgsProject,
            canvas: Any = None, executor: Any = None, row_cap: int = 5000, title: Optional[str] = None) -> Presented:
    """Build the answer's layers, add them to the MapAsk group (earlier answers switched off), select and zoom to them.

    `title` names the layers and their group (a follow-up's whole chain); default: the entry's question."""
    shown = build_layers(answer, entry, pack, connection, executor, row_cap, title)
    if shown.layers:
        add_to_project(project, shown.layers, title or entry.get("question", ""))
        make_current(project, shown.result or shown.layers[0])
        zoom_to(canvas, shown.layers, project)
    return shown


def context_layers(pack: Pack, extent: QgsRectangle, connection: Optional[str] = None,
                   executor: Any = None) -> List[QgsVectorLayer]:
    """Background for a PNG when the map has nothing else: the pack's context entities inside `extent`."""
    box = QgsRectangle(extent)
    box.grow(max(box.width(), box.height()) * 0.05 + 1)
    out = []
    for spec in context_specs(pack, (box.xMinimum(), box.yMinimum(), box.xMaximum(), box.yMaximum())).specs:
        try:
            layer = _open(spec, spec.title, pack, connection, executor)
        except Exception:  # background is a nicety: a missing one never stops the export
            continue
        if layer.featureCount():
            # labels only for layers spanning a good part of the map: one city's districts would be
            # an unreadable knot on a map of a whole state
            apply_context_style(layer, spec, labels=layer.extent().width() >= 0.2 * box.width())
            out.append(layer)
    return out
