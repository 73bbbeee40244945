"""Plan -> one PostGIS SELECT as a sqlglot AST: one render function per kind of step, each step one CTE or clause."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from sqlglot import exp

from .dag import (Aggregate, ByTime, Compare, Filter, Keep, Load, NearGroup, NearIds, NearNone, NearSome, Nearest,
                  Node, Output, Plan, Rank, RateByGroup, RateOfPlace, RateOverAll, Scope, ScopeArea, Side, Support)
from .errors import CompileError
from .frame import Predicate
from .pack import Entity, Pack
from .sql_measures import Measures
from .sql_parts import area_name, col, cte_ref, from_each, lit, table_ref
from .text import language


@dataclass
class Compiled:
    """The statement (text and AST) and what its rows are."""
    sql: str
    ast: exp.Expression
    columns_hint: list[str] = field(default_factory=list)
    geometry: bool = False
    order_matters: bool = False


class Compiler(Measures):
    """Renders a checked plan; every choice of steps was made by the planner (plan.py)."""

    def __init__(self, pack: Pack, sizes: Optional[dict[str, int]] = None) -> None:
        """A compiler for one pack; `sizes` is the pipeline's cache of rows per table."""
        self.pack = pack
        self.lang = language(pack.raw.get("language", "en"))
        # rows per table, measured by the pipeline; the planner reads them to choose where spatial steps start
        self.sizes: dict[str, int] = sizes if sizes is not None else {}

    def compile(self, plan: Plan) -> Compiled:
        """One statement: a CTE per step, the output step as the final SELECT."""
        plan.check()
        ctes: list[tuple[Node, exp.Expression]] = []
        for node in plan.nodes:
            render = RENDER.get(type(node))
            if render is None:
                raise CompileError(f"no SQL for a {node.op} step")
            ctes.append((node, render(self, node)))
        (out, q) = ctes.pop()
        for node, sel in ctes:
            # NOT MATERIALIZED: a CTE used twice must still let the planner reach the base table's indexes
            # (unless it is a handful of rows read once per record)
            q = q.with_(node.id, as_=sel, materialized=bool(getattr(node, "materialized", False)))
        return Compiled(q.sql("postgres", pretty=True), q, geometry=out.geometry, order_matters=out.order_matters)

    def ent(self, node: Node) -> Entity:
        """The entity a step's rows belong to."""
        return self.pack.entity(node.entity)

    def conditions(self, ent: Entity, preds: list[Predicate], t: str) -> list[exp.Expression]:
        """Each predicate as a condition over rows aliased `t`."""
        return [self.predicate(p, t, ent) for p in preds]

    # ---- records
    def load(self, n: Load) -> exp.Select:
        """SELECT * from the entity's table, with the pack's own condition."""
        ent = self.ent(n)
        sel = exp.select(exp.Star()).from_(table_ref(self.pack, ent, "t"))
        conds = self.conditions(ent, n.where, "t")
        return sel.where(exp.and_(*conds)) if conds else sel

    def filter(self, n: Filter) -> exp.Select:
        """The predicates and time over the input rows."""
        ent = self.ent(n)
        conds = self.conditions(ent, n.predicates, "t")
        tc = self.time_cond(ent, n.time, "t") if n.time else None
        sel = exp.select(exp.Star()).from_(cte_ref(n.inputs[0], "t"))
        return sel.where(exp.and_(*conds, *([tc] if tc is not None else []))) if conds or tc is not None else sel

    def scope_area(self, n: ScopeArea) -> exp.Select:
        """Rows inside the named polygons, one LATERAL probe per polygon."""
        area = self.pack.entity(n.area)
        rel = exp.func("ST_Intersects", col("geom", "a"), col("geom", "l"))
        return from_each(self.ent(n).key, table_ref(self.pack, area, "a"), rel, n.inputs[0], area_name(area, n.names))

    def scope(self, n: Scope) -> exp.Select:
        """Rows meeting each group of place conditions."""
        ent = self.ent(n)
        conds = []
        for places in n.places:
            c = [self.place_cond(ent, pl, "t") for pl in places]
            conds.append(c[0] if len(c) == 1 else exp.paren(exp.or_(*c)))
        return exp.select(exp.Star()).from_(cte_ref(n.inputs[0], "t")).where(exp.and_(*conds))

    # ---- proximity
    def support(self, n: Support) -> exp.Select:
        """The support features: predicates, places, the pack's condition, the anchor's name."""
        sup = self.ent(n)
        conds = self.conditions(sup, n.predicates, "s") + [self.place_cond(sup, pl, "s") for pl in n.scope]
        conds += self.conditions(sup, n.where, "s")
        if n.anchor:
            names = [exp.EQ(this=col(c, "s"), expression=lit(n.anchor)) for c in sup.names]
            conds.append(exp.paren(exp.or_(*names)) if len(names) > 1 else names[0])
        sel = exp.select(exp.Star()).from_(table_ref(self.pack, sup, "s"))
        return sel.where(exp.and_(*conds)) if conds else sel

    @staticmethod
    def within(t: str, distance_m: float) -> exp.Expression:
        """ST_DWithin between rows aliased `t` and the support `s`."""
        return exp.func("ST_DWithin", col("geom", t), col("geom", "s"), lit(float(distance_m)))

    def near_ids(self, n: NearIds) -> exp.Select:
        """Keys of the rows within the distance, found from the support side."""
        ids = from_each(self.ent(n).key, cte_ref(n.inputs[1], "s"), self.within("l", n.distance_m), n.inputs[0])
        ids.set("expressions", [col(self.ent(n).key, "n")])
        return ids

    def near_some(self, n: NearSome) -> exp.Select:
        """Rows with at least one support feature within the distance, each once."""
        if n.drive == "support":
            return from_each(self.ent(n).key, cte_ref(n.inputs[1], "s"), self.within("l", n.distance_m), n.inputs[0])
        probe = exp.select(lit(1)).from_(cte_ref(n.inputs[1], "s")).where(self.within("t", n.distance_m))
        return exp.select(exp.Star()).from_(cte_ref(n.inputs[0], "t")).where(exp.Exists(this=probe))

    def near_none(self, n: NearNone) -> exp.Select:
        """Rows with no support feature within the distance (NOT EXISTS)."""
        probe = exp.select(lit(1)).from_(cte_ref(n.inputs[1], "s")).where(self.within("t", n.distance_m))
        # a record without a location is not known to be far from anything: it is left out, not counted as far
        located = exp.Is(this=col("geom", "t"), expression=exp.null()).not_()
        return (exp.select(exp.Star()).from_(cte_ref(n.inputs[0], "t"))
                .where(exp.and_(located, exp.not_(exp.Exists(this=probe)))))

    def nearest(self, n: Nearest) -> exp.Select:
        """The k rows closest to the support, with their distance."""
        rows, sup = n.inputs
        dist = exp.func("ST_Distance", col("geom", "t"), col("geom", "s"))
        if n.anchored:  # one named feature: its few parts found once, then measured from each record
            d = exp.select(exp.Min(this=dist)).from_(cte_ref(sup, "s")).subquery()
        else:  # a class of features: the closest one by the spatial index, per record
            d = (exp.select(dist).from_(cte_ref(sup, "s"))
                 .order_by(exp.Distance(this=col("geom", "s"), expression=col("geom", "t"))).limit(1).subquery())
        return (exp.select(exp.Star(), d.as_("distance_m")).from_(cte_ref(rows, "t"))
                .where(exp.Is(this=col("geom", "t"), expression=exp.null()).not_())
                .order_by(exp.Ordered(this=exp.column("distance_m"))).limit(int(n.k)))

    def near_group(self, n: NearGroup) -> exp.Select:
        """Each support feature LEFT JOINed to its rows within the distance, with its group label."""
        sup = self.pack.entity(n.support)
        # unnamed features are kept apart by their key rather than pooled under NULL
        label = exp.func("COALESCE", exp.cast(col(sup.display, "s"), "text"),
                         exp.DPipe(this=lit("#"), expression=exp.cast(col(sup.key, "s"), "text")))
        return (exp.select(label.as_("group_key"), col(sup.key, "s").as_("group_id"),
                           exp.Column(this=exp.Star(), table=exp.to_identifier("t")))
                .from_(cte_ref(n.inputs[1], "s"))
                .join(cte_ref(n.inputs[0], "t"), on=self.within("t", n.distance_m), join_type="left"))

    # ---- comparison
    def side(self, n: Side) -> exp.Select:
        """One comparison side: its label, order and measures over its own conditions."""
        ent = self.ent(n)
        conds = self.conditions(ent, n.predicates, "t")
        tc = self.time_cond(ent, n.time, "t") if n.time else None
        conds += ([tc] if tc is not None else []) + [self.place_cond(ent, pl, "t") for pl in n.scope]
        measures = self.measures(n.measure, ent, "t")
        if n.rate:
            r = n.rate
            pop = self.pack.entity(r.population)
            size = (exp.select(col(r.population_field, "p")).from_(table_ref(self.pack, pop, "p"))
                    .where(exp.EQ(this=col(pop.names[0], "p"), expression=lit(r.place))).subquery())
            value = measures[0].unalias() if r.numerator == "epdo" else exp.Count(this=exp.Star())
            rate = exp.Div(this=exp.Mul(this=value.copy(), expression=lit(float(r.per))), expression=size)
            measures = [rate.as_(f"rate_per_{r.per}")] + measures
        sel = exp.select(lit(n.order).as_("side_order"), lit(n.label).as_("side"), *measures)
        sel = sel.from_(cte_ref(n.inputs[0], "t"))
        return sel.where(exp.and_(*conds)) if conds else sel

    def compare(self, n: Compare) -> exp.Expression:
        """The sides as one UNION ALL."""
        parts = [exp.select(exp.Star()).from_(i) for i in n.inputs]
        union = parts[0]
        for q in parts[1:]:
            union = exp.union(union, q, distinct=False)
        return union

    # ---- aggregation
    def by_time(self, n: ByTime) -> exp.Select:
        """Partial measures per stored date and grouped field."""
        ent = self.ent(n)
        keys = [col(k, "t") for k in n.keys]
        return (exp.select(*keys, *self.measures(n.measure, ent, "t")).from_(cte_ref(n.inputs[0], "t"))
                .group_by(*[k.copy() for k in keys]))

    def aggregate(self, n: Aggregate) -> exp.Select:
        """The measure per group: support label, fields, calendar parts or areas (all areas listed)."""
        ent = self.ent(n)
        if n.support_label:  # features sharing a name (the segments of one street) form one group
            key = exp.column("group_key", "t")
            ids = [exp.column("group_id", "t")] if n.support_key else []
            return (exp.select(key.as_(n.support_label), *self.measures(n.measure, ent, "t"),
                               *[i.as_(n.support_key) for i in ids])
                    .from_(cte_ref(n.inputs[0], "t")).group_by(key.copy(), *[i.copy() for i in ids]))
        selects: list[exp.Expression] = []
        keys: list[exp.Expression] = []
        src: exp.Expression = cte_ref(n.inputs[0], "t")
        join, area_said = None, None
        for g in n.groups:
            if g.kind == "area":
                # every area is listed, those without any record with 0
                area = self.pack.entity(g.key)
                name = col(area.names[0] if area.names else area.display, "a")
                pf = ent.places.get(area.name)
                # records naming their area are counted by that name (records without a location too); the
                # others by where they lie
                on = self.place_join(pf, name.copy(), "t") if pf else \
                    exp.func("ST_Intersects", col("geom", "a"), col("geom", "t"))
                # the areas listed even when empty ('left' from the areas); the records outside every area kept
                # as a group of their own too ('full'), or instead ('left' from the records); neither: 'inner'
                kind = "full" if g.outside and g.empty else "left" if g.outside or g.empty else "inner"
                join = (src, on, kind) if g.empty else (table_ref(self.pack, area, "a"), on, kind)
                src = table_ref(self.pack, area, "a") if g.empty else src
                selects.append(name.as_(g.name))
                keys.append(name.copy())
                area_said = (area, g.name, on.copy())
                continue
            value, sort = self.group_value(ent, g, "t")
            if (sort is None) != (g.order is None):
                raise CompileError(f"grouping {g.key} has no calendar order column")
            selects.append(value.as_(g.name))
            if g.kind == "time" and g.key == "hour" and ent.time.get("hour_label"):
                # (the hour as the source publishes its band, '03:00PM to 03:59PM', beside the number)
                selects.append(exp.Min(this=col(ent.time["hour_label"], "t")).as_(f"{g.name}_band"))
            if sort is not None:
                selects.append(sort.as_(g.order))
            keys.append(value.copy() if sort is None or not sort.find(exp.Extract) else sort.copy())
        if join and join[2] == "full" and area_said and not area_said[2].find(exp.EQ):
            return self._areas_and_outside(n, ent, selects, keys, *area_said)
        sel = exp.select(*selects, *self.measures(n.measure, ent, "t")).from_(src)
        if join:
            sel = sel.join(join[0], on=join[1], join_type=join[2])
        return sel.group_by(*keys) if keys else sel

    def _areas_and_outside(self, n: Aggregate, ent, selects: list, keys: list, area, name_as: str,
                           on: exp.Expression) -> exp.Expression:
        """Every area (the empty ones with 0) and the records outside every area as one more group: by where
        the records lie, which a FULL JOIN cannot do (PostgreSQL joins in full only on equal values)."""
        records = cte_ref(n.inputs[0], "t")
        areas = (exp.select(*selects, *self.measures(n.measure, ent, "t")).from_(table_ref(self.pack, area, "a"))
                 .join(records, on=on, join_type="left").group_by(*keys))
        inside = exp.Exists(this=exp.select("1").from_(table_ref(self.pack, area, "a")).where(on.copy()))
        none = [exp.cast(exp.Null(), "text").as_(name_as) if sl.alias_or_name == name_as else sl.copy() for sl in selects]
        others = [k.copy() for k in keys if not (isinstance(k, exp.Column) and k.table == "a")]
        outside = exp.select(*none, *self.measures(n.measure, ent, "t")).from_(records.copy()).where(exp.Not(this=inside))
        outside = (outside.group_by(*others) if others else outside).having(exp.GT(this=exp.Count(this=exp.Star()),
                                                                                   expression=exp.Literal.number(0)))
        return exp.union(areas, outside, distinct=False)  # (the group outside only when some record is)

    def rate_by_group(self, n: RateByGroup) -> exp.Select:
        """Each group's rate over its own population, joined by name (and the pack's other spellings)."""
        pop = self.pack.entity(n.population)
        name = pop.names[0]
        on = exp.EQ(this=col(name, "p"), expression=exp.column(n.by, "g"))
        same = (self.ent(n).places.get(pop.name) or {}).get("same") or {}
        for area, spellings in same.items():  # the area spelt another way in the records
            on = exp.or_(on, exp.and_(exp.EQ(this=col(name, "p"), expression=lit(area)),
                                      exp.column(n.by, "g").isin(*[lit(v) for v in spellings])))
        rate = exp.Div(this=exp.Mul(this=exp.column(n.numerator, "g"), expression=lit(float(n.per))),
                       expression=exp.func("NULLIF", col(n.population_field, "p"), lit(0)))
        return (exp.select(exp.column(n.by, "g"), exp.column(n.numerator, "g"),
                           col(n.population_field, "p").as_("population"), rate.as_(n.column))
                .from_(cte_ref(n.inputs[0], "g")).join(table_ref(self.pack, pop, "p"), on=on))

    def rate_over_all(self, n: RateOverAll) -> exp.Select:
        """The rate over the summed population of all areas."""
        pop = self.pack.entity(n.population)
        total = exp.select(exp.Sum(this=col(n.population_field, "p"))).from_(table_ref(self.pack, pop, "p")).subquery()
        rate = exp.Div(this=exp.Mul(this=exp.column(n.numerator, "g"), expression=lit(float(n.per))), expression=total)
        return (exp.select(exp.column(n.numerator, "g"), total.copy().as_("population"), rate.as_(n.column))
                .from_(cte_ref(n.inputs[0], "g")))

    def rate_of_place(self, n: RateOfPlace) -> exp.Select:
        """The rate over the population of the one named place."""
        pop = self.pack.entity(n.population)
        rate = exp.Div(this=exp.Mul(this=exp.column(n.numerator, "g"), expression=lit(float(n.per))),
                       expression=exp.func("NULLIF", col(n.population_field, "p"), lit(0)))
        on = exp.EQ(this=col(pop.names[0], "p"), expression=lit(n.place))
        return (exp.select(lit(n.place).as_(pop.name), exp.column(n.numerator, "g"),
                           col(n.population_field, "p").as_("population"), rate.as_(n.column))
                .from_(cte_ref(n.inputs[0], "g")).join(table_ref(self.pack, pop, "p"), on=on))

    # ---- groups kept, ranked, and the final select
    def keep(self, n: Keep) -> exp.Select:
        """Groups meeting every condition on the measure."""
        ops = {"gt": exp.GT, "gte": exp.GTE, "lt": exp.LT, "lte": exp.LTE}
        conds = [ops[op](this=exp.column(n.column, "r"), expression=lit(v)) for op, v in n.where]
        return exp.select(exp.Star()).from_(cte_ref(n.inputs[0], "r")).where(exp.and_(*conds))

    def rank(self, n: Rank) -> exp.Select:
        """Each group's rank and the size of its tie."""
        by_value = exp.Ordered(this=exp.column(n.column, "r"), desc=n.desc, nulls_first=False)
        over = exp.Window(this=exp.func("RANK"), order=exp.Order(expressions=[by_value]))
        tied = exp.Window(this=exp.Count(this=exp.Star()), partition_by=[exp.column(n.column, "r")])
        return exp.select(exp.Star(), over.as_("rank"), tied.as_("tied")).from_(cte_ref(n.inputs[0], "r"))

    def output(self, n: Output) -> exp.Select:
        """The final SELECT: order and limit."""
        sel = exp.select(exp.Star()).from_(cte_ref(n.inputs[0], "r"))
        keys = []
        for k in n.order:
            c = col(k.column, "r") if k.quoted else exp.column(k.column, "r")
            if k.nulls_last is not None:
                keys.append(exp.Ordered(this=c, desc=k.desc, nulls_first=not k.nulls_last))
            else:
                keys.append(exp.Ordered(this=c, desc=True) if k.desc else c)
        sel = sel.order_by(*keys) if keys else sel
        return sel.limit(int(n.limit)) if n.limit else sel


# one render function per kind of step: a new kind of step is a dataclass in dag.py, its choice in plan.py, and
# one entry here
RENDER: dict[type, Callable[[Compiler, Node], exp.Expression]] = {
    Load: Compiler.load, Filter: Compiler.filter, ScopeArea: Compiler.scope_area, Scope: Compiler.scope,
    Support: Compiler.support, NearIds: Compiler.near_ids, NearSome: Compiler.near_some,
    NearNone: Compiler.near_none, Nearest: Compiler.nearest, NearGroup: Compiler.near_group, Side: Compiler.side,
    Compare: Compiler.compare, ByTime: Compiler.by_time, Aggregate: Compiler.aggregate,
    RateByGroup: Compiler.rate_by_group, RateOverAll: Compiler.rate_over_all, RateOfPlace: Compiler.rate_of_place,
    Keep: Compiler.keep, Rank: Compiler.rank, Output: Compiler.output,
}
