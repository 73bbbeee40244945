"""Compile a repaired frame (following its plan) into one PostGIS SELECT built as a sqlglot AST."""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from .errors import CompileError
from .frame import Frame, Group, Place, Predicate
from .pack import Entity, Pack, norm_label
from .plan import Plan
from .sql_conditions import RowConditions
from .sql_parts import area_name, col, cte_ref, from_each, lit, pick, table_ref
from .text import language


@dataclass
class Compiled:
    sql: str
    ast: exp.Expression
    columns_hint: list[str] = field(default_factory=list)
    geometry: bool = False
    order_matters: bool = False


class Compiler(RowConditions):
    def __init__(self, pack: Pack, sizes: dict[str, int] | None = None):
        self.pack = pack
        self.lang = language(pack.raw.get("language", "en"))
        # rows per table, when the caller knows them: they decide which side drives a spatial relation
        self.sizes: dict[str, int] = sizes if sizes is not None else {}

    def drives(self, small: Entity, big: Entity) -> bool:
        """Whether to start a spatial relation from `small`'s features (unknown sizes: yes, the usual case of
        few anchors and many records)."""
        a, b = self.sizes.get(small.table), self.sizes.get(big.table)
        return a is None or b is None or a <= b

    def group_expr(self, ent: Entity, g: Group, t: str) -> tuple[exp.Expression, exp.Expression | None, str]:
        """(value, sort key or None, column name) of one grouping over rows aliased t. With a sort key, the rows
        are grouped by the key alone and the value is a function of it: a per-row part is computed once."""
        if g.kind == "field":
            return col(g.key, t), None, g.key
        if g.kind == "time":
            if g.key == "dow":
                names = [name for _, name in sorted(self.lang["day_names"].items(), key=lambda kv: int(kv[0]))]
                if ent.time.get("dow_label"):
                    lab = col(ent.time["dow_label"], t)
                    return lab, exp.Case(this=lab.copy(), ifs=[exp.If(this=lit(n), true=lit(i))
                                                               for i, n in enumerate(names, start=1)]), "day_of_week"
                num = self.time_part(ent, "dow", t)
                return pick(names, num), num, "day_of_week"
            if g.key == "season":
                seasons = [(k, v) for k, v in self.pack.convention("seasons").items() if isinstance(v, list)]
                by_month = [next((i + 1 for i, (_, months) in enumerate(seasons) if m in months), None)
                            for m in range(1, 13)]
                idx = pick(by_month, self.time_part(ent, "month", t))
                return pick([k for k, _ in seasons], idx), idx, "season"
            return self.time_part(ent, g.key, t), None, g.key
        raise CompileError(f"grouping {g.kind} is built by its own node")

    def measure(self, f: Frame, ent: Entity, t: str, outer: bool = False) -> list[exp.Expression]:
        """Measure columns; `outer` when rows come from an outer join (a NULL row is no record)."""
        m = "epdo" if f.measure.kind == "rate" and f.measure.field == "epdo" else f.measure.kind
        star = (lambda: exp.Count(this=col(ent.key, t))) if outer else (lambda: exp.Count(this=exp.Star()))
        if m == "epdo":
            conv = self.pack.convention("epdo")
            case = exp.Case()
            if outer:
                case = case.when(exp.Is(this=col(ent.key, t), expression=exp.null()), lit(0))
            by_weight: dict = {}  # one test per weight: the CASE runs for every record
            for label, w in conv["weights"].items():
                by_weight.setdefault(w, []).extend(self.pack.labels_for(ent, ent.severity_field, [label]) or [label])
            for w, labels in by_weight.items():
                case = case.when(col(ent.severity_field, t).isin(*[lit(x) for x in labels]), lit(w))
            case = case.else_(lit(conv["default_weight"]))
            return [exp.Sum(this=case).as_("epdo")]
        if m in ("sum", "avg"):
            agg = exp.Sum if m == "sum" else exp.Avg
            return [agg(this=col(f.measure.field, t)).as_(measure_column(f))]
        count = star()
        if f.intent == "share" or (f.compare and f.share_of):
            if f.share_of:
                cond = exp.and_(*[self.predicate(p, t, ent) for p in f.share_of])
                num = exp.Filter(this=star(), expression=exp.Where(this=cond))
                if [q.op for q in f.share_of] == ["near"] and not f.group_by and not f.compare:
                    # the numerator is just the records found near the support: count them once
                    num = exp.select(exp.Count(this=exp.Star())).from_("near_ids").subquery()
                pct = exp.Div(this=exp.Mul(this=lit(100.0), expression=num),
                              expression=exp.func("NULLIF", count, lit(0)))
                return [num.copy().as_("matching"), count.copy().as_("total"), pct.as_("share_pct")]
            pct = exp.Div(this=exp.Mul(this=lit(100.0), expression=count),
                          expression=exp.Window(this=exp.Sum(this=star())))
            return [count.copy().as_("count"), pct.as_("share_pct")]
        return [count.as_("count")]

    def _within(self, t: str) -> exp.Expression:
        return exp.func("ST_DWithin", col("geom", t), col("geom", "s"), lit(float(self._near.distance_m or 0)))

    # ---- the statement
    def compile(self, f: Frame, plan: Plan) -> Compiled:
        self._near = f.near
        self._materialized: set[str] = set()
        p = self.pack
        ent = p.entity(f.target)
        ctes: list[tuple[str, exp.Select]] = []
        load = exp.select(exp.Star()).from_(table_ref(p, ent, "t"))
        if ent.where:
            load = load.where(self.predicate(Predicate(field=ent.where["field"], op="eq", values=[ent.where["eq"]]), "t", ent))
        ctes.append(("load", load))
        last = "load"
        conds = [self.predicate(q, "t", ent) for q in f.filters]
        tc = self.time_cond(ent, f.time, "t")
        if tc is not None:
            conds.append(tc)
        if conds:
            ctes.append(("filtered", exp.select(exp.Star()).from_(cte_ref(last, "t")).where(exp.and_(*conds))))
            last = "filtered"
        if f.scope:
            by_kind: dict[str, list[Place]] = {}
            for pl in f.scope:
                if ent.coverage.get("town") and norm_label(pl.name or "") == norm_label(ent.coverage["town"]):
                    continue  # every record is in that town: testing it would only drop those without a location
                by_kind.setdefault(pl.entity or "", []).append(pl)
            sc = []
            for kind, places in by_kind.items():
                area = p.entity(kind) if kind else None
                if area is not None and not ent.places.get(kind) and self.drives(area, ent):
                    # inside a named polygon: start from the polygon (see from_each)
                    rel = exp.func("ST_Intersects", col("geom", "a"), col("geom", "l"))
                    name = f"scoped_{len(ctes)}"
                    ctes.append((name, from_each(ent.key, table_ref(p, area, "a"), rel, last,
                                                      area_name(area, [pl.name for pl in places]))))
                    last = name
                    continue
                c = [self.place_cond(ent, pl, "t") for pl in places]
                sc.append(c[0] if len(c) == 1 else exp.paren(exp.or_(*c)))
            if sc:
                ctes.append(("scoped", exp.select(exp.Star()).from_(cte_ref(last, "t")).where(exp.and_(*sc))))
                last = "scoped"
        support_group = None
        if f.near:
            sup = p.entity(f.near.entity)
            s_sel = exp.select(exp.Star()).from_(table_ref(p, sup, "s"))
            sconds = [self.predicate(q, "s", sup) for q in f.near.filters]
            sconds += [self.place_cond(sup, pl, "s") for pl in f.near.scope]
            if sup.where:
                sconds.append(self.predicate(Predicate(field=sup.where["field"], op="eq", values=[sup.where["eq"]]), "s", sup))
            if f.near.anchor and f.near.anchor.name:
                names = [exp.EQ(this=col(c, "s"), expression=lit(f.near.anchor.name)) for c in sup.names]
                sconds.append(exp.paren(exp.or_(*names)) if len(names) > 1 else names[0])
            if sconds:
                s_sel = s_sel.where(exp.and_(*sconds))
            ctes.append(("support", s_sel))
            d = lit(float(f.near.distance_m or 0))
            within = exp.func("ST_DWithin", col("geom", "t"), col("geom", "s"), d)
            support_group = next((g for g in f.group_by if g.kind == "support"), None)
            if any(q.op == "near" for q in f.share_of):
                # the relation is the share's numerator, not a filter on the rows
                rel = exp.func("ST_DWithin", col("geom", "l"), col("geom", "s"), d.copy())
                ids = from_each(ent.key, cte_ref("support", "s"), rel, last)
                ids.set("expressions", [col(ent.key, "n")])
                ctes.append(("near_ids", ids))
            elif f.near.mode == "nearest":
                if f.near.anchor and f.near.anchor.name:
                    # one named feature: its few parts found once (materialised), then measured from each record
                    self._materialized.add("support")
                    dist = exp.select(exp.Min(this=exp.func("ST_Distance", col("geom", "t"), col("geom", "s")))) \
                        .from_(cte_ref("support", "s")).subquery()
                else:  # a class of features: the closest one by the spatial index, per record
                    dist = (exp.select(exp.func("ST_Distance", col("geom", "t"), col("geom", "s")))
                            .from_(cte_ref("support", "s"))
                            .order_by(exp.Distance(this=col("geom", "s"), expression=col("geom", "t")))
                            .limit(1).subquery())
                near = (exp.select(exp.Star(), dist.as_("distance_m")).from_(cte_ref(last, "t"))
                        .where(exp.Is(this=col("geom", "t"), expression=exp.null()).not_())
                        .order_by(exp.Ordered(this=exp.column("distance_m"))).limit(int(f.near.k or 10)))
            elif support_group:
                # unnamed features are kept apart by their key rather than pooled under NULL
                label = exp.func("COALESCE", exp.cast(col(sup.display, "s"), "text"),
                                 exp.DPipe(this=lit("#"), expression=exp.cast(col(sup.key, "s"), "text")))
                near = (exp.select(label.as_("group_key"), col(sup.key, "s").as_("group_id"),
                                   exp.Column(this=exp.Star(), table=exp.to_identifier("t")))
                        .from_(cte_ref("support", "s"))
                        .join(cte_ref(last, "t"), on=within, join_type="left"))
            elif (f.near.anchor and f.near.anchor.name) or (last == "load" and (sconds or self.drives(sup, ent))):
                # one named feature, or all records: start from the support's features; filtered records (a
                # town, a severity) are fewer, and probing the support once per record (EXISTS below) costs
                # what they number
                rel = exp.func("ST_DWithin", col("geom", "l"), col("geom", "s"), d.copy())
                near = from_each(ent.key, cte_ref("support", "s"), rel, last)
            else:
                near = (exp.select(exp.Star()).from_(cte_ref(last, "t"))
                        .where(exp.Exists(this=exp.select(lit(1)).from_(cte_ref("support", "s")).where(within))))
            if not any(q.op == "near" for q in f.share_of):
                ctes.append(("near", near))
                last = "near"
        order_matters = False
        geometry = False
        if f.compare:
            parts = []
            for i, side in enumerate(f.compare):
                sc = [self.predicate(q, "t", ent) for q in side.filters]
                stc = self.time_cond(ent, side.time, "t")
                if stc is not None:
                    sc.append(stc)
                sc += [self.place_cond(ent, pl, "t") for pl in side.scope]
                measures = self.measure(f, ent, "t")
                if f.measure.kind == "rate":
                    measures = self._side_rate(f, side) + measures
                # years compared ('2010 vs 2017') stay numbers, as a year column would hold them
                label = int(side.label) if all(sd.label.isdigit() for sd in f.compare) else side.label
                sel = exp.select(lit(i + 1).as_("side_order"), lit(label).as_("side"), *measures)
                sel = sel.from_(cte_ref(last, "t"))
                if sc:
                    sel = sel.where(exp.and_(*sc))
                name = f"side_{i + 1}"
                ctes.append((name, sel))
                parts.append(exp.select(exp.Star()).from_(name))
            union = parts[0]
            for q in parts[1:]:
                union = exp.union(union, q, distinct=False)
            final = exp.select(exp.Star()).from_(union.subquery("sides"))
            final = final.order_by(exp.column("side_order"))
            order_matters = True
        elif f.intent in ("list", "locate"):
            final = exp.select(exp.Star()).from_(cte_ref(last, "t"))
            if f.near and f.near.mode == "nearest":
                final = final.order_by(exp.column("distance_m"))
                order_matters = True
            else:
                final = final.order_by(col(ent.key, "t"))
            geometry = True
        else:
            final, order_matters = self._aggregate(f, ent, ctes, last, support_group)
        q = final
        for name, sel in ctes:
            # NOT MATERIALIZED: a CTE used twice must still let the planner reach the base table's indexes
            # (unless it is a handful of rows read once per record)
            q = q.with_(name, as_=sel, materialized=name in self._materialized)
        return Compiled(q.sql("postgres", pretty=True), q, geometry=geometry, order_matters=order_matters)

    def _side_rate(self, f: Frame, side) -> list[exp.Expression]:
        """Rate of one comparison side: its count over the population of its town."""
        p = self.pack
        pop_ent = p.entity(p.convention("population", "entity"))
        town = next((pl for pl in side.scope + f.scope if pl.entity == pop_ent.name), None)
        if town is None:
            raise CompileError("a rate comparison needs a town on each side")
        per = f.measure.per or p.convention("population", "per", default=1000)
        pop = (exp.select(col(p.convention("population", "field"), "p")).from_(table_ref(p, pop_ent, "p"))
               .where(exp.EQ(this=col(pop_ent.names[0], "p"), expression=lit(town.name))).subquery())
        value = self.measure(f, self.pack.entity(f.target), "t")[0].unalias() if f.measure.field == "epdo" \
            else exp.Count(this=exp.Star())
        rate = exp.Div(this=exp.Mul(this=value, expression=lit(float(per))), expression=pop)
        return [rate.as_("rate_per_" + str(per))]

    def _by_stored_time(self, f: Frame, ent: Entity, last: str) -> exp.Select | None:
        """Records grouped by the stored date (or time) column and the grouped fields, with an additive measure,
        when every time grouping is a part of that one column; else None."""
        times = [g for g in f.group_by if g.kind == "time"]
        if not times or f.intent == "share" or f.compare or f.measure.kind not in ("count", "epdo", "rate") \
                or any(g.kind not in ("time", "field") for g in f.group_by):
            return None
        tm = ent.time
        if any(g.key == "year" and tm.get("year") for g in times):
            return None
        cols = {tm.get("timestamp") or (tm.get("time") if g.key == "hour" else tm.get("date")) for g in times}
        if len(cols) != 1 or None in cols:
            return None
        keys = [col(cols.pop(), "t")] + [col(g.key, "t") for g in f.group_by if g.kind == "field"]
        return (exp.select(*keys, *self.measure(f, ent, "t")).from_(cte_ref(last, "t"))
                .group_by(*[k.copy() for k in keys]))

    def _aggregate(self, f: Frame, ent: Entity, ctes: list, last: str, support_group: Group | None):
        p = self.pack
        selects: list[exp.Expression] = []
        group_exprs: list[exp.Expression] = []
        sorts: list[exp.Expression] = []
        src = cte_ref(last, "t")
        joins = []
        if support_group:
            sup = p.entity(support_group.key)
            selects.append(exp.column("group_key", "t").as_(sup.display if sup.display != "gid" else support_group.key))
            # features sharing a name (the segments of one street) form one group
            group_exprs += [exp.column("group_key", "t")]
            if f.measure.kind == "count" and f.intent != "share":
                measures = [exp.Count(this=exp.Distinct(expressions=[col(ent.key, "t")])).as_("count")]
            else:  # a record near two same-named features (segments of one street) then counts twice
                measures = self.measure(f, ent, "t", outer=True)
        else:
            for g in f.group_by:
                if g.kind == "area":
                    # every area is listed, those without any record with 0
                    area = p.entity(g.key)
                    name_col = area.names[0] if area.names else area.display
                    src = table_ref(p, area, "a")
                    pf = ent.places.get(area.name)
                    # records naming their area are counted by that name (records without a location too);
                    # the others by where they lie
                    on = self.place_join(pf, col(name_col, "a"), "t") if pf else \
                        exp.func("ST_Intersects", col("geom", "a"), col("geom", "t"))
                    joins.append((cte_ref(last, "t"), on))
                    selects.append(col(name_col, "a").as_(g.key))
                    group_exprs.append(col(name_col, "a"))
                    continue
                e, sort, name = self.group_expr(ent, g, "t")
                selects.append(e.as_(name))
                if sort is not None:
                    selects.append(sort.as_(name + "_order"))
                    group_exprs.append(sort.copy() if sort.find(exp.Extract) else e.copy())
                    sorts.append(name + "_order")
                else:
                    group_exprs.append(e.copy())
                    if g.kind == "time":
                        sorts.append(name)
            measures = self.measure(f, ent, "t", outer=bool(joins))
            pre = self._by_stored_time(f, ent, last)
            if pre is not None:
                # date parts of millions of records: count per stored date first (a few hundred groups, often
                # from the date index alone), then derive the parts from those dates
                ctes.append(("by_time", pre))
                src = cte_ref("by_time", "t")
                measures = [exp.cast(exp.Sum(this=exp.column(m.alias, "t")), "bigint").as_(m.alias) for m in measures]
        sel = exp.select(*selects, *measures).from_(src)
        for tbl, on in joins:
            sel = sel.join(tbl, on=on, join_type="left")
        if group_exprs:
            sel = sel.group_by(*group_exprs)
        ctes.append(("aggregated", sel))
        last = "aggregated"
        value_col = measure_column(f)
        if f.measure.kind == "rate":
            pop_ent = p.entity(p.convention("population", "entity"))
            pop_field = p.convention("population", "field")
            per = f.measure.per or p.convention("population", "per", default=1000)
            key = next((g for g in f.group_by if g.kind in ("field", "area")), None)
            name_col = pop_ent.names[0]
            num = "epdo" if f.measure.field == "epdo" else "count"
            rate = exp.Div(this=exp.Mul(this=exp.column(num, "g"), expression=lit(float(per))),
                           expression=exp.func("NULLIF", col(pop_field, "p"), lit(0)))
            if key:
                kname = key.key if key.kind == "field" else key.key
                on = exp.EQ(this=col(name_col, "p"), expression=exp.column(kname, "g"))
                same = (ent.places.get(pop_ent.name) or {}).get("same") or {}
                for area_name_, spellings in same.items():  # the area spelt another way in the records
                    on = exp.or_(on, exp.and_(exp.EQ(this=col(name_col, "p"), expression=lit(area_name_)),
                                              exp.column(kname, "g").isin(*[lit(v) for v in spellings])))
                rsel = (exp.select(exp.column(kname, "g"), exp.column(num, "g"), col(pop_field, "p").as_("population"),
                                   rate.as_("rate_per_" + str(per)))
                        .from_(cte_ref(last, "g")).join(table_ref(p, pop_ent, "p"), on=on))
            elif f.measure.total:
                total_pop = exp.select(exp.Sum(this=col(pop_field, "p"))).from_(table_ref(p, pop_ent, "p")).subquery()
                rate = exp.Div(this=exp.Mul(this=exp.column(num, "g"), expression=lit(float(per))),
                               expression=total_pop)
                rsel = exp.select(exp.column(num, "g"), total_pop.copy().as_("population"),
                                  rate.as_("rate_per_" + str(per))).from_(cte_ref(last, "g"))
            else:
                town = next((pl for pl in f.scope if pl.entity == pop_ent.name), None)
                if town is None:
                    raise CompileError(f"a rate per residents needs a {pop_ent.label}")
                rsel = (exp.select(lit(town.name).as_(pop_ent.name), exp.column(num, "g"),
                                   col(pop_field, "p").as_("population"), rate.as_("rate_per_" + str(per)))
                        .from_(cte_ref(last, "g")).join(table_ref(p, pop_ent, "p"),
                                                         on=exp.EQ(this=col(name_col, "p"), expression=lit(town.name))))
            ctes.append(("rated", rsel))
            last = "rated"
            value_col = "rate_per_" + str(per)
        if f.having:
            # 'towns with more than 100 crashes': groups whose measure meets the condition
            ops = {"gt": exp.GT, "gte": exp.GTE, "lt": exp.LT, "lte": exp.LTE}
            keep = [ops[h.op](this=exp.column(value_col, "r"), expression=lit(h.values[0])) for h in f.having]
            ctes.append(("kept", exp.select(exp.Star()).from_(cte_ref(last, "r")).where(exp.and_(*keep))))
            last = "kept"
        final = exp.select(exp.Star()).from_(cte_ref(last, "r"))
        order_matters = False
        if f.rank:
            direction = f.rank.order == "desc"
            label_cols = [s.alias_or_name for s in selects if not s.alias_or_name.endswith("_order")]
            by_value = exp.Ordered(this=exp.column(value_col, "r"), desc=direction, nulls_first=False)
            if f.rank.limit:
                # 'top 5' gives 5 rows, ties broken by name as analysts do; each row's rank and the number of
                # groups sharing its value let the answer say when the cut falls inside a tie
                over = exp.Window(this=exp.func("RANK"), order=exp.Order(expressions=[by_value.copy()]))
                tied = exp.Window(this=exp.Count(this=exp.Star()), partition_by=[exp.column(value_col, "r")])
                ctes.append(("ranked", exp.select(exp.Star(), over.as_("rank"), tied.as_("tied"))
                             .from_(cte_ref(last, "r"))))
                final = exp.select(exp.Star()).from_(cte_ref("ranked", "r"))
            final = final.order_by(by_value, *[exp.column(c, "r") for c in label_cols])
            if f.rank.limit:
                final = final.limit(int(f.rank.limit))
            order_matters = True
        elif sorts:
            final = final.order_by(*[exp.column(c, "r") for c in sorts])
            order_matters = f.intent == "trend"
        elif f.group_by or support_group:
            final = final.order_by(exp.Ordered(this=exp.column(value_col, "r"), desc=True),
                                   *[exp.column(s.alias_or_name, "r") for s in selects])
        return final, order_matters


def measure_column(f: Frame) -> str:
    """The name of the column holding the answer's measure (rates are named by their denominator later)."""
    if f.measure.kind in ("sum", "avg"):
        return f"{f.measure.kind}_{f.measure.field}"
    return "epdo" if f.measure.kind == "epdo" else "share_pct" if f.intent == "share" else "count"
