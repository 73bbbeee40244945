"""Map-layer SQL for an answer: its features, or its grouped rows on their area's geometry; sqlglot-built, guard-checked."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from .frame import Frame, frame_from_dict
from .guard import Guard
from .pack import Entity, Pack

# Measure columns the compiler names, most specific first (rate columns are 'rate_per_<n>').
VALUE_COLUMNS = ("share_pct", "epdo", "count", "matching")
FID = "mapask_fid"


@dataclass
class LayerSpec:
    """One map layer to make from an answer: guard-checked SQL plus how to key, draw and label it."""

    role: str                      # result | support (the features a proximity question measured from)
    kind: str                      # features (rows are features) | areas (grouped rows on their area's geometry)
    sql: str
    key: str
    entity: str
    geometry: str                  # point | line | polygon, as the pack declares it
    value_column: str | None = None
    label_column: str | None = None
    buffer_m: float | None = None  # draw a search area of this radius around these features
    title: str = ""
    guard: dict = field(default_factory=dict)


@dataclass
class LayerPlan:
    """The layers to make, and why any could not be made."""
    specs: list[LayerSpec] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # layers that could not be made, and why


def _get(answer: Any, name: str, default: Any = None) -> Any:
    """A field of an answer object or dict."""
    return answer.get(name, default) if isinstance(answer, dict) else getattr(answer, name, default)


def _col(name: str, table: str) -> exp.Column:
    """A quoted, qualified column."""
    return exp.column(name, table=table, quoted=True)


def value_column(columns: list[str]) -> str | None:
    """The measure column of an aggregated answer, by the names the compiler gives them."""
    # a rate (or sum, mean) is computed from the count or EPDO beside it: it is the answer
    named = next((c for c in columns if c.startswith(("rate_per_", "sum_", "avg_"))), None)
    return named or next((c for c in VALUE_COLUMNS if c in columns), None)


def name_column(ent: Entity) -> str:
    """The column naming an entity's features."""
    return ent.names[0] if ent.names else ent.display


def plan_layers(answer: Any, pack: Pack, row_cap: int = 5000) -> LayerPlan:
    """The layers an answer (pipeline Answer or dict with status, sql, frame, columns) should become."""
    out = LayerPlan()
    sql, columns = _get(answer, "sql") or "", list(_get(answer, "columns") or [])
    if _get(answer, "status") != "answered" or not sql or not _get(answer, "frame"):
        return out
    try:
        frame = frame_from_dict(_get(answer, "frame"))
        inner = sqlglot.parse_one(sql, read="postgres")
    except Exception as e:  # a frame or statement this version cannot read: no layer, but say why
        out.skipped.append(f"the answer could not be read back ({type(e).__name__})")
        return out
    guard = Guard(pack)
    target = pack.entities.get(frame.target)
    candidates: list[LayerSpec | None] = []
    near_m = float(frame.near.distance_m) if frame.near and frame.near.distance_m else None
    if _get(answer, "geometry_column") and target is not None:
        q = exp.select(exp.Star()).from_(inner.copy().subquery("r")).limit(int(row_cap))
        candidates.append(LayerSpec("result", "features", q.sql("postgres"), target.key, target.name,
                                    target.geometry, title=target.plural))
    else:
        candidates.append(_area_spec(frame, inner, columns, pack, target, near_m))
    if frame.near and frame.near.entity in pack.entities and not any(
            s and s.role == "result" and s.buffer_m for s in candidates):
        candidates.append(_support_spec(frame, inner, pack, row_cap, near_m))
    for spec in candidates:
        if spec is None:
            continue
        rep = guard.check(spec.sql)
        if not rep.ok:
            out.skipped.append(f"{spec.role} layer refused by the guard ({rep.code}): {rep.reason}")
            continue
        spec.sql, spec.guard = rep.sql, rep.to_dict()
        out.specs.append(spec)
    return out


def _area_spec(frame: Frame, inner: exp.Expression, columns: list[str], pack: Pack, target: Entity | None,
               near_m: float | None) -> LayerSpec | None:
    """Grouped rows joined to the geometry of what they are grouped by (area, place field or support feature)."""
    found = _area_for(frame, columns, pack, target)
    if found is None:
        return None
    area, result_col, join_col, exact, buffer_m = found
    value = value_column(columns)
    left: exp.Expression = _col(join_col, "a")
    right: exp.Expression = _col(result_col, "r") if result_col else exp.convert(None)
    if not exact:  # the same name published in different letter case by the two tables
        left, right = exp.Upper(this=left), exp.Upper(this=right)
    order = [exp.Ordered(this=_col(area.key, "a"))]
    if value:
        order.append(exp.Ordered(this=_col(value, "r")))
    fid = exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=order)).as_(FID)
    sel = exp.select(fid, _col("geom", "a"), exp.Column(this=exp.Star(), table=exp.to_identifier("r")))
    sel = sel.from_(exp.table_(area.table, db=pack.schema, quoted=True).as_("a"))
    if result_col:
        sel = sel.join(inner.copy().subquery("r"), on=exp.EQ(this=left, expression=right))
    else:  # one number for one named place: draw that place with the number on it
        place = frame.scope[0]
        sel = sel.join(inner.copy().subquery("r"), join_type="cross")
        sel = sel.where(exp.EQ(this=_col(join_col, "a"), expression=exp.convert(place.name)))
    label = result_col or join_col
    return LayerSpec("result", "areas", sel.sql("postgres"), FID, area.name, area.geometry, value, label,
                     buffer_m=buffer_m, title=area.plural)


def _area_for(frame: Frame, columns: list[str], pack: Pack,
              target: Entity | None) -> tuple[Entity, str | None, str, bool, float | None] | None:
    """(entity to draw, result column, its column to join on, exact case?, buffer) or None when nothing fits."""
    groups = frame.group_by
    if len(groups) == 1 and not frame.compare:
        g = groups[0]
        if g.kind == "area" and g.key in pack.entities and g.key in columns:
            area = pack.entities[g.key]
            return area, g.key, name_column(area), True, None
        if g.kind == "support" and g.key in pack.entities:
            sup = pack.entities[g.key]
            col = sup.display if sup.display != "gid" else g.key
            if col in columns:
                return sup, col, sup.display, True, frame.near.distance_m if frame.near else None
        if g.kind == "field" and target is not None and g.key in columns:
            f = target.fields.get(g.key)
            area = pack.entities.get(f.place) if f and f.place else None
            if area is not None and area.geometry == "polygon":
                exact = (target.places.get(area.name) or {}).get("case") == area.name_case
                return area, g.key, name_column(area), exact, None
        return None
    if groups or frame.compare:
        return None
    for c in columns:  # e.g. a rate for one place names the place in a column called after its area entity
        area = pack.entities.get(c)
        if area is not None and area.area and area.geometry == "polygon":
            return area, c, name_column(area), True, None
    if len(frame.scope) == 1 and frame.scope[0].name:
        area = pack.entities.get(frame.scope[0].entity or "")
        if area is not None and area.geometry == "polygon":
            return area, None, name_column(area), True, None
    return None


def _support_spec(frame: Frame, inner: exp.Expression, pack: Pack, row_cap: int,
                  near_m: float | None) -> LayerSpec | None:
    """The features a proximity question measured from, exactly as the answer's `support` step chose them."""
    ctes = list(inner.find_all(exp.CTE))
    if not any(c.alias_or_name == "support" for c in ctes):
        return None
    sup = pack.entities[frame.near.entity]
    q = exp.select(exp.Star()).from_(exp.to_table("support")).limit(int(row_cap))
    for c in ctes:  # every step up to and including support, so whatever support refers to is there
        q = q.with_(c.alias_or_name, as_=c.this.copy())
        if c.alias_or_name == "support":
            break
    anchor = frame.near.anchor.name if frame.near.anchor and frame.near.anchor.name else None
    label = sup.display if anchor and sup.display != sup.key else None
    return LayerSpec("support", "features", q.sql("postgres"), sup.key, sup.name, sup.geometry,
                     label_column=label, buffer_m=near_m, title=anchor or sup.plural)


def context_specs(pack: Pack, extent: tuple[float, float, float, float], row_cap: int = 5000) -> LayerPlan:
    """Background layers for an answer's map: the pack's context entities inside the extent (pack SRID)."""
    # context entities: conventions map.context, else the pack's areas; extent is (xmin, ymin, xmax, ymax)
    out = LayerPlan()
    names = pack.convention("map", "context", default=None) or [e.name for e in pack.entities.values()
                                                                if e.area and e.geometry == "polygon"]
    guard = Guard(pack)
    box = exp.func("ST_MakeEnvelope", *[exp.convert(float(v)) for v in extent], exp.convert(int(pack.srid)))
    for name in names:
        ent = pack.entities.get(name)
        if ent is None:
            out.skipped.append(f"context entity {name!r} is not in the pack")
            continue
        label = name_column(ent) if ent.geometry == "polygon" else None
        label = label if label != ent.key else None
        cols = [_col(ent.key, "c"), _col("geom", "c")] + ([_col(label, "c")] if label else [])
        q = (exp.select(*cols).from_(exp.table_(ent.table, db=pack.schema, quoted=True).as_("c"))
             .where(exp.func("ST_Intersects", _col("geom", "c"), box)).limit(int(row_cap)))
        rep = guard.check(q.sql("postgres"))
        if not rep.ok:
            out.skipped.append(f"context layer {name} refused by the guard ({rep.code}): {rep.reason}")
            continue
        out.specs.append(LayerSpec("context", "features", rep.sql, ent.key, ent.name, ent.geometry,
                                   label_column=label, title=ent.plural, guard=rep.to_dict()))
    return out
