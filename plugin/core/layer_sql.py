"""Map-layer SQL for an answer: the features or records it counted, its areas, places and reference features; sqlglot-built, guard-checked."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp

from .frame import Frame, frame_from_dict
from .guard import Guard
from .pack import Entity, Pack
from .sql_parts import from_each

# Measure columns the compiler names, most specific first (rate columns are 'rate_per_<n>').
VALUE_COLUMNS = ("share_pct", "epdo", "count", "matching")
FID = "mapask_fid"


@dataclass
class LayerSpec:
    """One map layer to make from an answer: guard-checked SQL plus how to key, draw and label it."""

    role: str                      # result | counted | place | number | support | search area | context
    kind: str                      # features | records (the rows a measure counted) | areas | number
    sql: str
    key: str
    entity: str
    geometry: str                  # point | line | polygon, as the pack declares it
    value_column: str | None = None
    label_column: str | None = None
    buffer_m: float | None = None  # a search area: this radius around these features
    title: str = ""
    guard: dict = field(default_factory=dict)


@dataclass
class LayerPlan:
    """The layers to make, and why any could not be made."""
    specs: list[LayerSpec] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # layers that could not be made, and why
    no_map: bool = False                               # an answer with nothing to draw (a trend, a comparison)


@dataclass
class Parsed:
    """An answer read back for its map: its frame, statement, WITH queries and where its counted rows are."""

    frame: Frame
    inner: exp.Expression
    columns: list[str]
    ctes: dict[str, exp.Expression]
    materialized: dict[str, bool | None]     # each WITH query's MATERIALIZED / NOT MATERIALIZED, as compiled
    records: str | None = None              # the WITH query holding the rows the measure counted or listed
    condition: exp.Expression | None = None  # what a share's numerator adds to those rows
    upto: str = ""                           # the last WITH query before the aggregation (all the rows may need)


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
    """The layers an answer (pipeline Answer or dict with status, sql, frame, columns) should become.

    A list draws its features; a measure over no grouping draws the records it counted, its place (with the
    number) or the number alone; groupings draw their areas; reference features are only those within the
    distance of the records drawn, and a search area goes with them. Every statement passes the guard."""
    out = LayerPlan()
    if _get(answer, "status") != "answered" or not _get(answer, "sql") or not _get(answer, "frame"):
        return out
    try:
        parsed = _parse(answer)
    except Exception as e:  # a frame or statement this version cannot read: no layer, but say why
        out.skipped.append(f"the answer could not be read back ({type(e).__name__})")
        return out
    candidates = _candidates(parsed, pack, row_cap, bool(_get(answer, "geometry_column")))
    guard = Guard(pack)
    for spec in candidates:
        if spec is None:
            continue
        rep = guard.check(spec.sql)
        if not rep.ok:
            out.skipped.append(f"{spec.role} layer refused by the guard ({rep.code}): {rep.reason}")
            continue
        spec.sql, spec.guard = rep.sql, rep.to_dict()
        out.specs.append(spec)
    out.no_map = not out.specs and not out.skipped
    return out


def _parse(answer: Any) -> Parsed:
    inner = sqlglot.parse_one(_get(answer, "sql"), read="postgres")
    with_ = inner.args.get("with_")
    ctes = {c.alias_or_name: c.this for c in (with_.expressions if with_ else [])}
    # NOT MATERIALIZED as the compiler wrote it: a WITH query read twice must still reach the table's indexes
    fences = {c.alias_or_name: c.args.get("materialized") for c in (with_.expressions if with_ else [])}
    parsed = Parsed(frame_from_dict(_get(answer, "frame")), inner, list(_get(answer, "columns") or []), ctes, fences)
    _find_records(parsed)
    names = list(ctes)
    parsed.upto = names[names.index("aggregated") - 1] if "aggregated" in names[1:] else (names[-1] if names else "")
    return parsed


def _sources(select: exp.Expression, ctes: dict[str, exp.Expression]) -> list[str]:
    """The WITH queries a SELECT reads directly (its FROM and JOINs), in order."""
    tables = [select.args["from_"].this] if select.args.get("from_") else []
    tables += [j.this for j in select.args.get("joins") or []]
    return [t.name for t in tables if isinstance(t, exp.Table) and not t.db and t.name in ctes]


def _find_records(p: Parsed) -> None:
    """Where the counted rows are: what the aggregation reads (through a per-date pre-count), or what a list
    selects; a share's numerator adds its FILTER condition or its set of matching keys."""
    agg = p.ctes.get("aggregated")
    if agg is None:
        found = _sources(p.inner, p.ctes)
        p.records = found[0] if found else None
        return
    found = _sources(agg, p.ctes)
    while found and found[0] == "by_time":
        found = _sources(p.ctes["by_time"], p.ctes)
    p.records = found[0] if found else None
    numerator = next((e for e in agg.expressions if e.alias_or_name == "matching"), None)
    if numerator is None:
        return
    filt = numerator.find(exp.Filter)
    if filt is not None:
        p.condition = filt.expression.this.copy()
    elif "near_ids" in p.ctes:
        key = p.ctes["near_ids"].expressions[0].name
        p.condition = exp.column(key, "t", quoted=True).isin(
            query=exp.select(exp.column(key, "i", quoted=True)).from_(exp.to_table("near_ids").as_("i")))


def _with_upto(q: exp.Select, p: Parsed, last: str) -> exp.Select:
    """`q` preceded by the answer's WITH queries up to and including `last` (all that `last` may refer to)."""
    for name, body in p.ctes.items():
        q = q.with_(name, as_=body.copy(), materialized=p.materialized.get(name))
        if name == last:
            break
    return q


def _records_select(p: Parsed, key: str) -> exp.Select:
    """Each counted row once (a proximity grouping repeats a record near two features; unmatched rows are NULL)."""
    q = exp.select(exp.Star()).from_(exp.to_table(p.records).as_("t"))
    cond = exp.Is(this=_col(key, "t"), expression=exp.null()).not_()
    q = q.where(exp.and_(cond, p.condition.copy()) if p.condition is not None else cond)
    q.set("distinct", exp.Distinct(on=exp.Tuple(expressions=[_col(key, "t")])))
    return q.order_by(_col(key, "t"))


def _candidates(p: Parsed, pack: Pack, row_cap: int, geometry: bool) -> list[LayerSpec | None]:
    f = p.frame
    target = pack.entities.get(f.target)
    near_m = float(f.near.distance_m) if f.near and f.near.distance_m else None
    out: list[LayerSpec | None] = []
    if geometry and target is not None:
        q = exp.select(exp.Star()).from_(p.inner.copy().subquery("r")).limit(int(row_cap))
        out.append(LayerSpec("result", "features", q.sql("postgres"), target.key, target.name,
                             target.geometry, title=target.plural))
    elif not f.group_by and not f.compare:
        place = _area_spec(f, p.inner, p.columns, pack, target)
        if place is not None:
            place.role = "place"
        records = _records_spec(p, pack, target, row_cap, "result")
        out += [records, place]
        if place is None and records is not None:
            out.append(_number_spec(p, pack, target))
    else:
        out.append(_area_spec(f, p.inner, p.columns, pack, target))
        if any(g.kind == "support" for g in f.group_by):
            _keep_answered_groups(p, pack)
            out.append(_records_spec(p, pack, target, row_cap, "counted"))
            if out[0] is not None and near_m:
                out.append(_search_area(out[0], near_m))
    if f.near and f.near.entity in pack.entities and not any(g.kind == "support" for g in f.group_by):
        support = _support_spec(p, pack, target, row_cap, near_m)
        out.append(support)
        if support is not None and near_m:
            out.append(_search_area(support, near_m))
    return out


def _keep_answered_groups(p: Parsed, pack: Pack) -> None:
    """A ranking or a condition on the groups keeps some of the features: only their records were counted in
    the answer, so only theirs are drawn (each record carries its feature's group key)."""
    f = p.frame
    if not (f.rank or f.having):
        return
    g = next(g for g in f.group_by if g.kind == "support")
    sup = pack.entities.get(g.key)
    if sup is None:
        return
    name = sup.display if sup.display != "gid" else g.key
    kept = exp.select(exp.column(name, "r", quoted=True)).from_(p.inner.copy().subquery("r"))
    keep = exp.column("group_key", "t", quoted=True).isin(query=kept)
    p.condition = keep if p.condition is None else exp.and_(p.condition, keep)


def _records_spec(p: Parsed, pack: Pack, target: Entity | None, row_cap: int, role: str) -> LayerSpec | None:
    """The records a measure counted (a share: those its numerator counted), at most `row_cap` of them."""
    if target is None or p.records is None or not target.geometry:
        return None
    q = _with_upto(exp.select(exp.Star()).from_(exp.to_table("counted").as_("c")).limit(int(row_cap)), p, p.upto)
    q = q.with_("counted", as_=_records_select(p, target.key))
    return LayerSpec(role, "records", q.sql("postgres"), target.key, target.name, target.geometry,
                     title=target.plural)


def _number_spec(p: Parsed, pack: Pack, target: Entity) -> LayerSpec:
    """One point at the middle of the counted records, to carry the answer's number on the map."""
    middle = exp.func("ST_SetSRID", exp.func("ST_Centroid", exp.func("ST_Extent", _col("geom", "c"))),
                      exp.convert(int(pack.srid)))
    q = exp.select(exp.convert(1).as_(FID), middle.as_("geom")).from_(exp.to_table("counted").as_("c"))
    q = _with_upto(q, p, p.upto).with_("counted", as_=_records_select(p, target.key))
    return LayerSpec("number", "number", q.sql("postgres"), FID, target.name, "point", title=target.plural)


def _search_area(spec: LayerSpec, distance_m: float) -> LayerSpec:
    """The features a proximity question measured from, drawn as the area within its distance of them."""
    return LayerSpec("search area", "features", spec.sql, spec.key, spec.entity, spec.geometry,
                     buffer_m=distance_m, title=spec.title)


def _area_spec(frame: Frame, inner: exp.Expression, columns: list[str], pack: Pack,
               target: Entity | None) -> LayerSpec | None:
    """Grouped rows joined to the geometry of what they are grouped by (area, place field or support feature)."""
    found = _area_for(frame, columns, pack, target)
    if found is None:
        return None
    area, result_col, join_col, exact = found
    value = value_column(columns)
    left: exp.Expression = _col(join_col, "a")
    right: exp.Expression = _col(result_col, "r") if result_col else exp.convert(None)
    if not exact:  # the same name published in different letter case by the two tables
        left, right = exp.Upper(this=left), exp.Upper(this=right)
    order = [exp.Ordered(this=_col(area.key, "a"))]
    if value:
        order.append(exp.Ordered(this=_col(value, "r")))
    fid = exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=order)).as_(FID)
    named = [] if result_col else [_col(join_col, "a")]  # one place: its name, to label it with
    sel = exp.select(fid, _col("geom", "a"), *named, exp.Column(this=exp.Star(), table=exp.to_identifier("r")))
    sel = sel.from_(exp.table_(area.table, db=pack.schema, quoted=True).as_("a"))
    if result_col:
        sel = sel.join(inner.copy().subquery("r"), on=exp.EQ(this=left, expression=right))
    else:  # one number for one named place: draw that place with the number on it
        place = frame.scope[0]
        sel = sel.join(inner.copy().subquery("r"), join_type="cross")
        sel = sel.where(exp.EQ(this=_col(join_col, "a"), expression=exp.convert(place.name)))
    label = result_col or join_col
    return LayerSpec("result", "areas", sel.sql("postgres"), FID, area.name, area.geometry, value, label,
                     title=area.plural)


def _area_for(frame: Frame, columns: list[str], pack: Pack, target: Entity | None):
    """(entity to draw, result column, its column to join on, exact case?) or None when nothing fits."""
    groups = frame.group_by
    if len(groups) == 1 and not frame.compare:
        g = groups[0]
        if g.kind == "area" and g.key in pack.entities and g.key in columns:
            area = pack.entities[g.key]
            return area, g.key, name_column(area), True
        if g.kind == "support" and g.key in pack.entities:
            sup = pack.entities[g.key]
            col = sup.display if sup.display != "gid" else g.key
            if col in columns:
                return sup, col, sup.display, True
        if g.kind == "field" and target is not None and g.key in columns:
            f = target.fields.get(g.key)
            area = pack.entities.get(f.place) if f and f.place else None
            if area is not None and area.geometry == "polygon":
                exact = (target.places.get(area.name) or {}).get("case") == area.name_case
                return area, g.key, name_column(area), exact
        return None
    if groups or frame.compare:
        return None
    for c in columns:  # e.g. a rate for one place names the place in a column called after its area entity
        area = pack.entities.get(c)
        if area is not None and area.area and area.geometry == "polygon":
            return area, c, name_column(area), True
    if len(frame.scope) == 1 and frame.scope[0].name:
        area = pack.entities.get(frame.scope[0].entity or "")
        if area is not None and area.geometry == "polygon":
            return area, None, name_column(area), True
    return None


def _support_spec(p: Parsed, pack: Pack, target: Entity | None, row_cap: int,
                  near_m: float | None) -> LayerSpec | None:
    """The features a proximity question measured from, as the answer's `support` step chose them: a named one
    whatever lies near it, a class of features only where it is within the distance of the records drawn (bus
    stops near the crashes in one town, not every stop of the region)."""
    if "support" not in p.ctes:
        return None
    f = p.frame
    sup = pack.entities[f.near.entity]
    anchor = f.near.anchor.name if f.near.anchor and f.near.anchor.name else None
    reach = exp.convert(near_m) if near_m else _col("distance_m", "c") if f.near.mode == "nearest" else None
    if anchor or reach is None or target is None or p.records is None:
        q = _with_upto(exp.select(exp.Star()).from_(exp.to_table("support").as_("s")).limit(int(row_cap)), p, "support")
    else:  # from each record drawn, the features within reach (the features' spatial index, not a scan of them)
        close = exp.func("ST_DWithin", _col("geom", "l"), _col("geom", "c"), reach)
        near = from_each(sup.key, exp.to_table("counted").as_("c"), close, "support")
        q = exp.select(exp.Star()).from_(near.subquery("s")).limit(int(row_cap))
        q = _with_upto(q, p, p.upto).with_("counted", as_=_records_select(p, target.key))
    label = sup.display if anchor and sup.display != sup.key else None
    return LayerSpec("support", "features", q.sql("postgres"), sup.key, sup.name, sup.geometry,
                     label_column=label, title=anchor or sup.plural)


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
