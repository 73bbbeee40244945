"""Frame -> typed DAG (dag.py): every choice of steps, strategies and column names is made here, once."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from .dag import (Aggregate, ByTime, Compare, Filter, GroupColumn, Keep, Load, MeasureSpec, NearGroup, NearIds,
                  NearNone, NearSome, Nearest, Node, OrderKey, Output, Plan, Rank, Rate, RateByGroup, RateOfPlace,
                  RateOverAll, Scope, ScopeArea, Side, SideRate, Support, Weight)
from .errors import CompileError
from .frame import EPDO_FIELD, LENGTH_FIELD, Frame, Group, Place, Predicate
from .pack import Entity, Pack, language_for, norm_label

__all__ = ["Plan", "plan", "measure_column", "drives"]


@dataclass
class _Steps:
    """The plan as it grows: the nodes so far and the step the next one reads."""
    f: Frame
    pack: Pack
    sizes: dict[str, int]
    nodes: list[Node] = field(default_factory=list)
    last: str = ""

    @property
    def ent(self) -> Entity:
        """The target entity."""
        return self.pack.entity(self.f.target)

    def add(self, node: Node, advance: bool = True) -> None:
        """Append a step; the next step reads it unless `advance` is False."""
        self.nodes.append(node)
        if advance:
            self.last = node.id

    def has(self, node_id: str) -> bool:
        """Whether a step with this id exists."""
        return any(n.id == node_id for n in self.nodes)

    def with_ids(self) -> list[str]:
        """The last step, and the near-ids step when a share counts it."""
        return [self.last] + (["near_ids"] if self.has("near_ids") else [])


def plan(frame: Frame, pack: Pack, sizes: Optional[dict[str, int]] = None) -> Plan:
    """The checked plan of a repaired frame; `sizes` (rows per table, when known) choose where spatial steps start."""
    s = _Steps(frame, pack, sizes if sizes is not None else {})
    _rows(s)
    if frame.near:
        _near(s)
    if frame.compare:
        _compare(s)
    elif frame.intent in ("list", "locate"):
        _list(s)
    else:
        _aggregate(s)
    p = Plan(s.nodes)
    p.check()
    return p


def drives(sizes: dict[str, int], small: Entity, big: Entity) -> bool:
    """Whether a spatial relation starts from `small`'s features (unknown sizes: yes, few anchors and many records)."""
    a, b = sizes.get(small.table), sizes.get(big.table)
    return a is None or b is None or a <= b


def _entity_where(ent: Entity) -> list[Predicate]:
    """The pack's own condition on an entity's rows, as predicates."""
    return [Predicate(field=ent.where["field"], op="eq", values=[ent.where["eq"]])] if ent.where else []


# ---- records: load, filter, scope
def _rows(s: _Steps) -> None:
    """Load, then filter and scope when the frame asks for them."""
    f, ent = s.f, s.ent
    s.add(Load(id="load", entity=ent.name, where=_entity_where(ent)))
    if f.filters or not f.time.empty():
        s.add(Filter(id="filtered", inputs=[s.last], entity=ent.name, predicates=list(f.filters),
                     time=None if f.time.empty() else f.time))
    if f.scope:
        _scope(s)


def _scope(s: _Steps) -> None:
    """Places by kind: inside a polygon from the polygon's side when that is the smaller table, else a condition."""
    ent = s.ent
    by_kind: dict[str, list[Place]] = {}
    for pl in s.f.scope:
        if ent.coverage.get("town") and norm_label(pl.name or "") == norm_label(ent.coverage["town"]) and not pl.outline:
            continue  # every record is in that town: testing it would only drop those without a location
        by_kind.setdefault(pl.entity or "", []).append(pl)
    conds: list[list[Place]] = []
    for kind, places in by_kind.items():
        area = s.pack.entity(kind) if kind else None
        if area is not None and not ent.places.get(kind) and drives(s.sizes, area, ent):
            s.add(ScopeArea(id=f"scoped_{len(s.nodes)}", inputs=[s.last], entity=ent.name, area=area.name,
                            names=[pl.name for pl in places]))
        else:
            conds.append(places)
    if conds:
        s.add(Scope(id="scoped", inputs=[s.last], entity=ent.name, places=conds))


# ---- proximity: the support features, then how the records relate to them
def _near(s: _Steps) -> None:
    """The support features, then one relation step: near ids, none within, nearest, per feature, or some within."""
    f, ent = s.f, s.ent
    n = f.near
    sup = s.pack.entity(n.entity)
    anchored = bool(n.anchor and n.anchor.name)
    support = Support(id="support", entity=sup.name, predicates=list(n.filters), scope=list(n.scope),
                      where=_entity_where(sup), anchor=n.anchor.name if anchored else None,
                      materialized=n.mode == "nearest" and anchored)
    s.add(support, advance=False)
    narrowed = bool(support.predicates or support.scope or support.where or support.anchor)
    inputs, d = [s.last, "support"], float(n.distance_m or 0)
    grouped = any(g.kind == "support" for g in f.group_by)
    none = n.quantifier == "none"
    if none and (n.mode == "nearest" or grouped or any(q.op == "near" for q in f.share_of)):
        raise CompileError("'no feature within a distance' is a condition on records, not a nearest, grouping or share")
    if any(q.op == "near" for q in f.share_of):  # the relation is the share's numerator, not a filter on the rows
        s.add(NearIds(id="near_ids", inputs=inputs, entity=ent.name, distance_m=d), advance=False)
    elif none:
        s.add(NearNone(id="near", inputs=inputs, entity=ent.name, distance_m=d))
    elif n.mode == "nearest":
        s.add(Nearest(id="near", inputs=inputs, entity=ent.name, k=int(n.k or 10), anchored=anchored))
    elif grouped:
        s.add(NearGroup(id="near", inputs=inputs, entity=ent.name, support=sup.name, distance_m=d))
    else:
        # one named feature, or all records: start from the support's features; filtered records (a town, a
        # severity) are fewer, and probing the support once per record costs what they number
        from_support = anchored or (s.last == "load" and (narrowed or drives(s.sizes, sup, ent)))
        s.add(NearSome(id="near", inputs=inputs, entity=ent.name, distance_m=d,
                       drive="support" if from_support else "records"))


# ---- measures
def measure_column(f: Frame) -> str:
    """The name of the column holding the answer's measure (rates are named by their denominator later)."""
    if f.measure.kind in ("sum", "avg"):
        return f"{f.measure.kind}_{f.measure.field}"
    return "epdo" if f.measure.kind == "epdo" else "share_pct" if f.intent == "share" else "count"


def _epdo(pack: Pack, ent: Entity) -> MeasureSpec:
    """EPDO as one CASE over the severity field: one test per weight (the CASE runs for every record)."""
    conv = pack.convention("epdo")
    by_weight: dict = {}
    for label, w in conv["weights"].items():
        by_weight.setdefault(w, []).extend(pack.labels_for(ent, ent.severity_field, [label]) or [label])
    return MeasureSpec(kind="epdo", column="epdo", field=ent.severity_field,
                       weights=[Weight(w, labels) for w, labels in by_weight.items()],
                       default_weight=conv["default_weight"])


def _measure(s: _Steps, outer: bool = False) -> MeasureSpec:
    """The measure of the frame over the records of one group or side."""
    f = s.f
    kind = "epdo" if f.measure.kind == "rate" and f.measure.field == "epdo" else f.measure.kind
    if kind == "epdo":
        return replace(_epdo(s.pack, s.ent), outer=outer)
    if kind == "avg" and f.measure.field == EPDO_FIELD:
        return replace(_epdo(s.pack, s.ent), outer=outer, mean=True, column=measure_column(f))
    if kind in ("sum", "avg"):
        # a length in the unit asked: metres of the pack's projection divided by the unit's metres
        scale = float(language_for(s.pack).get("units", {}).get(f.measure.unit or "", 1.0)) \
            if f.measure.field == LENGTH_FIELD else 1.0
        return MeasureSpec(kind=kind, column=measure_column(f), field=f.measure.field, outer=outer, scale=scale)
    if (f.intent == "share" or (f.compare and f.share_of)) and f.share_of:
        # the numerator is just the records found near the support: count them once
        alone = [q.op for q in f.share_of] == ["near"] and not f.group_by and not f.compare
        return MeasureSpec(kind="share_of", column="share_pct", outer=outer, share_of=list(f.share_of),
                           numerator="near_ids" if alone else "filter")
    if f.intent == "share":
        return MeasureSpec(kind="share", column="share_pct", outer=outer)
    return MeasureSpec(outer=outer)


def _population(s: _Steps) -> tuple[Entity, str, int]:
    """(population entity, its field, per how many residents) from the pack's conventions."""
    p = s.pack
    per = s.f.measure.per or p.convention("population", "per", default=1000)
    return p.entity(p.convention("population", "entity")), p.convention("population", "field"), per


# ---- comparison
def _compare(s: _Steps) -> None:
    """One step per side over the same records, then their union in the order named."""
    f, ent = s.f, s.ent
    # years compared ('2010 vs 2017') stay numbers, as a year column would hold them
    numeric = all(sd.label.isdigit() for sd in f.compare)
    sides = []
    for i, side in enumerate(f.compare):
        rate = None
        if f.measure.kind == "rate":
            pop, pop_field, per = _population(s)
            town = next((pl for pl in side.scope + f.scope if pl.entity == pop.name), None)
            if town is None:
                raise CompileError("a rate comparison needs a town on each side")
            rate = SideRate(place=town.name, numerator="epdo" if f.measure.field == "epdo" else "count", per=per,
                            population=pop.name, population_field=pop_field)
        node = Side(id=f"side_{i + 1}", inputs=s.with_ids(), entity=ent.name, order=i + 1,
                    label=int(side.label) if numeric else side.label, predicates=list(side.filters),
                    time=None if side.time.empty() else side.time, scope=list(side.scope), measure=_measure(s),
                    rate=rate)
        s.add(node, advance=False)
        sides.append(node.id)
    s.add(Compare(id="compared", inputs=sides))
    s.add(Output(id="output", inputs=[s.last], order=[OrderKey("side_order")], order_matters=True))


# ---- lists
def _list(s: _Steps) -> None:
    """The records themselves, nearest first or by key."""
    nearest = bool(s.f.near and s.f.near.mode == "nearest")
    order = OrderKey("distance_m") if nearest else OrderKey(s.ent.key, quoted=True)
    s.add(Output(id="output", inputs=[s.last], order=[order], geometry=True, order_matters=nearest))


# ---- aggregates: groups, measure, rate, keep, rank, order
def _group_column(g: Group) -> GroupColumn:
    """The output column of one grouping; day of week and season carry a calendar-order column."""
    if g.kind == "time" and g.key in ("dow", "season"):
        name = "day_of_week" if g.key == "dow" else "season"
        return GroupColumn(g.kind, g.key, name, order=name + "_order", sorted=True)
    if g.kind in ("field", "area", "time"):
        return GroupColumn(g.kind, g.key, g.key, sorted=g.kind == "time", outside=g.outside, empty=g.empty)
    raise CompileError(f"grouping {g.kind} is built by its own node")


def _by_stored_time(s: _Steps) -> Optional[str]:
    """The stored date (or time) column every time grouping is a part of, when the measure adds up; else None."""
    f, tm = s.f, s.ent.time
    times = [g for g in f.group_by if g.kind == "time"]
    if not times or f.intent == "share" or f.compare or f.measure.kind not in ("count", "epdo", "rate") \
            or any(g.kind not in ("time", "field") for g in f.group_by):
        return None
    if any(g.key == "year" and tm.get("year") or g.key == "hour" and tm.get("hour_label") for g in times):
        return None  # (the hour's published band is read beside it from the records themselves)
    cols = {tm.get("timestamp") or (tm.get("time") if g.key == "hour" else tm.get("date")) for g in times}
    return None if len(cols) != 1 or None in cols else cols.pop()


def _aggregate(s: _Steps) -> None:
    """Aggregate (per support feature, or per group after an optional per-date step), then rate, keep, order."""
    f = s.f
    support_group = next((g for g in f.group_by if g.kind == "support"), None) if f.near else None
    if support_group:
        sup = s.pack.entity(support_group.key)
        label = sup.display if sup.display != "gid" else support_group.key
        distinct = f.measure.kind == "count" and f.intent != "share"
        # a record near two same-named features (segments of one street) is counted once; other measures twice
        measure = MeasureSpec(kind="distinct", field=s.ent.key) if distinct else _measure(s, outer=True)
        key = f"{sup.name}_{sup.key}" if sup.geometry != "line" and sup.key != label else None
        s.add(Aggregate(id="aggregated", inputs=s.with_ids(), entity=s.ent.name, support_label=label,
                        support_key=key, measure=measure))
        labels, sorts = [label], []
    else:
        groups = [_group_column(g) for g in f.group_by]
        measure = _measure(s, outer=any(g.kind == "area" for g in groups))
        stored = _by_stored_time(s)
        if stored:
            # date parts of millions of records: measure per stored date first (a few hundred groups, often from
            # the date index alone), then derive the parts from those dates
            s.add(ByTime(id="by_time", inputs=s.with_ids(), entity=s.ent.name,
                         keys=[stored] + [g.key for g in groups if g.kind == "field"], measure=measure))
            measure = replace(measure, resum=True)
        s.add(Aggregate(id="aggregated", inputs=s.with_ids(), entity=s.ent.name, groups=groups, measure=measure))
        labels, sorts = [g.name for g in groups], [g.order or g.name for g in groups if g.sorted]
    value = _rate(s) if f.measure.kind == "rate" else measure_column(f)
    if f.having:
        # 'towns with more than 100 crashes': groups whose measure meets the condition (of a rate, the records
        # counted, never the rate: 'of the towns with over 80 records, the top rate')
        kept = measure_column(f) if f.measure.kind == "rate" else value
        s.add(Keep(id="kept", inputs=[s.last], column=kept, where=[(h.op, h.values[0]) for h in f.having]))
    _order(s, value, labels, sorts, bool(f.group_by or support_group))


def _rate(s: _Steps) -> str:
    """A rate step after the aggregate: per group, over all areas, or for the one named place."""
    f = s.f
    pop, pop_field, per = _population(s)
    numerator = "epdo" if f.measure.field == "epdo" else "count"
    common = dict(id="rated", inputs=[s.last], entity=s.ent.name, numerator=numerator, per=per, population=pop.name,
                  population_field=pop_field)
    key = next((g for g in f.group_by if g.kind in ("field", "area")), None)
    node: Rate
    if key:
        node = RateByGroup(by=key.key, **common)
    elif f.measure.total:
        node = RateOverAll(**common)
    else:
        town = next((pl for pl in f.scope if pl.entity == pop.name), None)
        if town is None:
            raise CompileError(f"a rate per residents needs a {pop.label}")
        node = RateOfPlace(place=town.name, **common)
    s.add(node)
    return node.column


def _order(s: _Steps, value: str, labels: list[str], sorts: list[str], grouped: bool) -> None:
    """Top N with rank and ties, calendar order, or the largest groups first."""
    f = s.f
    out = Output(id="output")
    if f.rank:
        desc = f.rank.order == "desc"
        if f.rank.limit:
            # 'top 5' gives 5 rows, ties broken by name as analysts do; each row's rank and the number of groups
            # sharing its value let the answer say when the cut falls inside a tie
            s.add(Rank(id="ranked", inputs=[s.last], column=value, desc=desc))
            out.limit = int(f.rank.limit)
        out.order = [OrderKey(value, desc=desc, nulls_last=True)] + [OrderKey(c) for c in labels]
        out.order_matters = True
    elif sorts:
        out.order, out.order_matters = [OrderKey(c) for c in sorts], f.intent == "trend"
    elif grouped:
        out.order = [OrderKey(value, desc=True)] + [OrderKey(c) for c in labels]
    out.inputs = [s.last]
    s.add(out)
