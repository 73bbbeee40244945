"""Present an answer on the map: its layers (PostGIS query layers; memory snapshots in the CLI), styled, with provenance."""

from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

from qgis.core import QgsExpressionContextUtils, QgsProject, QgsRectangle, QgsVectorLayer, QgsWkbTypes

from ..core.layer_sql import LayerSpec, context_specs, plan_layers, value_column
from ..core.pack import Pack
from .connections import layer_uri
from .results import (
    NAME_CHARS,
    add_to_project,
    apply_context_style,
    hide_answers,
    layer_name,
    make_current,
    memory_layer,
    postgis_layer,
    release_insertion_point,
    set_provenance,
    style_layer,
    style_number,
    zoom_to,
)
from .styles import apply_search_area


@dataclass
class Presented:
    layers: List[QgsVectorLayer] = field(default_factory=list)
    result: Optional[QgsVectorLayer] = None
    notes: List[str] = field(default_factory=list)
    match_column: Optional[str] = None  # the answer's column that finds a table row's feature on the map
    no_map: bool = False                # the answer has nothing to draw (a trend, a comparison, a breakdown)


NO_MAP = "No map for this answer: it has no places or features to draw (see its table and chart)."
LEGEND_PROPERTY = "mapask/legend"  # what a result layer shows, for a printed legend, when its name does not say
ROLE_ORDER = {"result": 0, "number": 1, "counted": 2, "support": 3, "place": 4, "search area": 5}


def measure_text(answer: Any, plural: str) -> str:
    """The answer's one number as a map says it: '22 crashes', '17.3 % (19 of 110)', 'epdo 550'."""
    columns, rows = list(getattr(answer, "columns", []) or []), getattr(answer, "rows", []) or []
    if len(rows) != 1:
        return ""
    row = dict(zip(columns, rows[0]))
    if row.get("share_pct") is not None and "matching" in row:
        return f"{float(row['share_pct']):.1f} % ({_fmt(row['matching'])} of {_fmt(row.get('total'))})"
    column = value_column(columns)
    if column is None or row.get(column) is None:
        return ""
    if column == "count":
        return f"{_fmt(row[column])} {plural}"
    return f"{column.replace('_', ' ')} {_fmt(row[column])}"


def _fmt(value: Any) -> str:
    if isinstance(value, (int, float)) and float(value).is_integer():
        return f"{int(value):,}"
    return f"{float(value):,.2f}" if isinstance(value, (int, float)) else str(value)


def counted_number(answer: Any) -> Optional[int]:
    """How many records the answer counted (a share: its numerator), when it says so."""
    columns, rows = list(getattr(answer, "columns", []) or []), getattr(answer, "rows", []) or []
    if len(rows) == 1:
        for column in ("matching", "count"):
            if column in columns and isinstance(rows[0][columns.index(column)], int):
                return rows[0][columns.index(column)]
    return None


def _shows(spec: LayerSpec, answer: Any, layer: QgsVectorLayer) -> str:
    """What a layer shows, after the question in its name (and alone in a printed legend)."""
    if spec.kind == "records":
        n = counted_number(answer) if spec.role == "result" else None
        return f"{_fmt(layer.featureCount() if n is None else n)} {spec.title} counted"
    if spec.role == "search area":
        return f"within {spec.buffer_m:g} m of {spec.title}"
    if spec.role == "place":
        found = spec.label_column and layer.fields().indexOf(spec.label_column) >= 0
        names = [str(f[spec.label_column]) for f in layer.getFeatures()] if found else []
        return ", ".join(names) or spec.title
    return "" if spec.role == "result" else spec.title


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
    through the read-only executor and the rows become memory layers, only ever written to a file.
    """
    out = Presented()
    title = title or entry.get("question", "")
    plan = plan_layers(answer, pack, row_cap)
    out.notes += plan.skipped
    out.no_map = plan.no_map
    target = pack.entities.get((getattr(answer, "frame", None) or {}).get("target", ""))
    measure = measure_text(answer, target.plural if target is not None else "")
    for spec in plan.specs:
        try:
            layer = _open(spec, layer_name(title), pack, connection, executor)
        except Exception as e:  # one layer failing must not lose the answer or the other layers
            out.notes.append(f"{spec.role} layer not added: {e}")
            continue
        _style(layer, spec, pack, measure)
        layer.setName(layer_name(title, _shows(spec, answer, layer)))
        set_provenance(layer, entry, spec.role)
        _note_unmatched(answer, spec, layer, out)
        _note_cut(answer, spec, layer, row_cap, out)
        out.layers.append(layer)
        if spec.role == "result":
            if spec.kind == "areas" and spec.value_column:  # a printed legend's line: not a bare "Answer"
                layer.setCustomProperty(LEGEND_PROPERTY, f"{spec.value_column.replace('_', ' ')} by {spec.title}")
            out.result = layer
            out.match_column = spec.key if spec.kind == "features" else spec.label_column
    # draw order: search areas at the bottom, the answer's own features on top
    out.layers.sort(key=lambda layer: ROLE_ORDER.get(_role(layer), len(ROLE_ORDER)))
    return out


def _style(layer: QgsVectorLayer, spec: LayerSpec, pack: Pack, measure: str) -> None:
    if spec.role == "search area":
        apply_search_area(layer, spec.buffer_m)
    elif spec.role == "number":
        style_number(layer, measure)
    else:
        style_layer(layer, spec, pack, measure)


def _note_cut(answer: Any, spec: LayerSpec, layer: QgsVectorLayer, row_cap: int, out: Presented) -> None:
    """A layer stopped at the row cap says so: the map must not look complete when it is not."""
    if spec.role in ("result", "counted", "support") and layer.featureCount() >= row_cap:
        total = counted_number(answer) if spec.kind == "records" and spec.role == "result" else None
        more = f"{_fmt(total)}" if total else "more"
        out.notes.append(f"the map shows the first {row_cap:,} of {more} {spec.title} (the row cap)")


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
    """Build the answer's layers, add them to the MapAsk group (earlier answers switched off), select and zoom to
    them. An answer with nothing to draw switches the earlier answers off too: the map never shows an answer
    the dock no longer does. `title` names the layers and their group (a follow-up's whole chain); default:
    the entry's question."""
    shown = build_layers(answer, entry, pack, connection, executor, row_cap, title)
    if shown.layers:
        add_to_project(project, shown.layers, title or entry.get("question", ""), entry.get("id", ""))
        make_current(project, shown.result or shown.layers[0])
        zoom_to(canvas, shown.layers, project)
    else:
        hide_answers(project)
        release_insertion_point(project)
        shown.no_map = True
        shown.notes.insert(0, NO_MAP)
        if canvas is not None:
            canvas.refresh()
    return shown


def context_layers(pack: Pack, extent: QgsRectangle, connection: Optional[str] = None,
                   executor: Any = None, answer: Sequence[QgsVectorLayer] = ()) -> List[QgsVectorLayer]:
    """Background for a PNG when the map has nothing else: the pack's context entities inside `extent`.

    Over an answer drawn as areas the background carries no names: a town's name printed inside an answer's
    neighbourhood reads as that neighbourhood's, and would compete with the answer's numbers for room."""
    box = QgsRectangle(extent)
    box.grow(max(box.width(), box.height()) * 0.05 + 1)
    over_areas = any(layer.geometryType() == QgsWkbTypes.PolygonGeometry and _role(layer) in ("result", "place")
                     for layer in answer)
    out = []
    for spec in context_specs(pack, (box.xMinimum(), box.yMinimum(), box.xMaximum(), box.yMaximum())).specs:
        try:
            layer = _open(spec, spec.title, pack, connection, executor)
        except Exception:  # background is a nicety: a missing one never stops the export
            continue
        if layer.featureCount():
            # labels only for layers spanning a good part of the map: one city's districts would be
            # an unreadable knot on a map of a whole state
            wide = layer.extent().width() >= 0.2 * box.width()
            apply_context_style(layer, spec, labels=wide and not over_areas)
            out.append(layer)
    return out
