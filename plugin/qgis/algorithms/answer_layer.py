"""An answer as Processing output: its rows as features (with geometry for feature answers, else a table)."""

import json
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence

from qgis.core import (
    QgsCoordinateReferenceSystem,
    QgsFeature,
    QgsFeatureSink,
    QgsField,
    QgsFields,
    QgsGeometry,
    QgsWkbTypes,
)
from qgis.PyQt.QtCore import QVariant

from ...core.pack import Pack
from ...core.pipeline import Answer
from ..results import geometry_from, plain

# what a table answer with no columns of its own holds (a question that was not answered)
EMPTY_COLUMNS = ("status", "answer")
GEOMETRY_TYPES = {"point": QgsWkbTypes.Point, "line": QgsWkbTypes.MultiLineString,
                  "polygon": QgsWkbTypes.MultiPolygon}


@dataclass
class AnswerRows:
    """What a feature sink needs: fields, geometry type, CRS and the features themselves."""

    fields: QgsFields
    wkb_type: int
    crs: QgsCoordinateReferenceSystem
    features: List[QgsFeature] = field(default_factory=list)

    @property
    def spatial(self) -> bool:
        return self.wkb_type != QgsWkbTypes.NoGeometry


def _field_type(values: Sequence[Any]) -> QVariant.Type:
    seen = {type(v) for v in values if v is not None}
    if not seen:
        return QVariant.String
    if seen <= {bool}:
        return QVariant.Bool
    if seen <= {int}:
        return QVariant.LongLong
    if seen <= {int, float}:
        return QVariant.Double
    return QVariant.String


def _unique(names: Sequence[str]) -> List[str]:
    """Column names as field names: a file format keeps one field per name, so repeats get a suffix."""
    out: List[str] = []
    for name in names:
        base, n, candidate = str(name) or "column", 1, str(name) or "column"
        while candidate.casefold() in {o.casefold() for o in out}:
            n += 1
            candidate = f"{base}_{n}"
        out.append(candidate)
    return out


def _value(v: Any) -> Any:
    v = plain(v)
    if isinstance(v, (list, dict)):
        return json.dumps(v, default=str)
    return v


def _geometries(values: Sequence[Any]) -> List[QgsGeometry]:
    geoms = [geometry_from(v) for v in values]
    # one layer holds one geometry type: when parts and multi-parts are mixed, all become multi-parts
    kinds = {QgsWkbTypes.isMultiType(g.wkbType()) for g in geoms if not g.isNull()}
    if len(kinds) > 1:
        for g in geoms:
            if not g.isNull():
                g.convertToMultiType()
    return geoms


def answer_rows(answer: Answer, pack: Pack) -> AnswerRows:
    """Feature answers keep their geometry (the pack's CRS); everything else is a table of the answer's rows."""
    geom_col = answer.geometry_column if answer.status == "answered" else None
    if geom_col and geom_col in answer.columns:
        gi = answer.columns.index(geom_col)
        keep = [i for i, c in enumerate(answer.columns) if i != gi]
        columns, rows = [answer.columns[i] for i in keep], [[r[i] for i in keep] for r in answer.rows]
        geoms = _geometries([r[gi] for r in answer.rows])
        first = next((g for g in geoms if not g.isNull()), None)
        target = pack.entities.get((answer.frame or {}).get("target") or "")
        wkb = first.wkbType() if first is not None else GEOMETRY_TYPES.get(
            target.geometry if target else "", QgsWkbTypes.Point)
        crs = QgsCoordinateReferenceSystem(f"EPSG:{pack.srid}")
    else:
        public = answer.public()
        columns, rows = public["columns"], public["rows"]
        geoms, wkb, crs = [], QgsWkbTypes.NoGeometry, QgsCoordinateReferenceSystem()
        if not columns:
            columns = list(EMPTY_COLUMNS)
    values = [[_value(v) for v in r] for r in rows]
    fields = QgsFields()
    for i, name in enumerate(_unique(columns)):
        fields.append(QgsField(name, _field_type([r[i] for r in values])))
    out = AnswerRows(fields, wkb, crs)
    for n, r in enumerate(values):
        feature = QgsFeature(fields)
        feature.setAttributes(r)
        if geoms:
            feature.setGeometry(geoms[n])
        out.features.append(feature)
    return out


def write_rows(rows: AnswerRows, sink: QgsFeatureSink) -> Optional[str]:
    """Add every feature to the sink; the sink's own error when one is refused (None when all went in)."""
    for feature in rows.features:
        if not sink.addFeature(feature, QgsFeatureSink.FastInsert):
            return sink.lastError() or "a feature was refused"
    return None

