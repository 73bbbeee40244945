"""SQL for what a step measures and groups by, rendered from the plan's measure and grouping specs."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

from sqlglot import exp

from .dag import GroupColumn, MeasureSpec
from .frame import LENGTH_FIELD
from .errors import CompileError
from .pack import Entity
from .sql_conditions import RowConditions
from .sql_parts import col, lit, pick


class Measures(RowConditions):
    """Measure and grouping expressions over one entity's rows (needs `pack` and `lang` on the instance)."""

    def measures(self, m: MeasureSpec, ent: Entity, t: str) -> list[exp.Expression]:
        """The measure's columns over rows aliased `t`."""
        if m.resum:  # per-date partial measures: add them up (a count stays an integer)
            return [exp.cast(exp.Sum(this=exp.column(e.alias, t)), "bigint").as_(e.alias)
                    for e in self.measures(replace(m, resum=False), ent, t)]
        star = self._counter(m, ent, t)
        if m.kind == "epdo":
            return [(exp.Avg if m.mean else exp.Sum)(this=self._epdo_case(m, ent, t)).as_(m.column)]
        if m.kind in ("sum", "avg"):
            agg = exp.Sum if m.kind == "sum" else exp.Avg
            if m.field == LENGTH_FIELD:  # the features' own length, in the unit asked
                length = exp.func("ST_Length", col("geom", t))
                return [exp.Div(this=agg(this=length), expression=lit(m.scale)).as_(m.column)]
            return [agg(this=col(m.field, t)).as_(m.column)]
        if m.kind == "distinct":
            return [exp.Count(this=exp.Distinct(expressions=[col(m.field, t)])).as_(m.column)]
        count = star()
        if m.kind == "share_of":
            cond = exp.and_(*[self.predicate(p, t, ent) for p in m.share_of])
            num = exp.Filter(this=star(), expression=exp.Where(this=cond))
            if m.numerator == "near_ids":
                num = exp.select(exp.Count(this=exp.Star())).from_("near_ids").subquery()
            pct = exp.Div(this=exp.Mul(this=lit(100.0), expression=num),
                          expression=exp.func("NULLIF", count, lit(0)))
            return [num.copy().as_("matching"), count.copy().as_("total"), pct.as_(m.column)]
        if m.kind == "share":
            pct = exp.Div(this=exp.Mul(this=lit(100.0), expression=count),
                          expression=exp.Window(this=exp.Sum(this=star())))
            return [count.copy().as_("count"), pct.as_(m.column)]
        if m.kind != "count":
            raise CompileError(f"unknown measure {m.kind}")
        return [count.as_(m.column)]

    @staticmethod
    def _counter(m: MeasureSpec, ent: Entity, t: str) -> Callable[[], exp.Expression]:
        """COUNT(*), or COUNT(key) when rows come from an outer join (a NULL row is no record)."""
        if m.outer:
            return lambda: exp.Count(this=col(ent.key, t))
        return lambda: exp.Count(this=exp.Star())

    def _epdo_case(self, m: MeasureSpec, ent: Entity, t: str) -> exp.Expression:
        """The per-record EPDO weight as one CASE (0 for the NULL row of an outer join)."""
        case = exp.Case()
        if m.outer:
            case = case.when(exp.Is(this=col(ent.key, t), expression=exp.null()), lit(0))
        for w in m.weights:
            case = case.when(col(m.field, t).isin(*[lit(x) for x in w.labels]), lit(w.weight))
        return case.else_(lit(m.default_weight))

    def group_value(self, ent: Entity, g: GroupColumn, t: str) -> tuple[exp.Expression, Optional[exp.Expression]]:
        """(value, calendar sort key or None) of one field or time grouping over rows aliased t."""
        # with a sort key the rows are grouped by the key alone and the value is a function of it: a per-row part
        # is computed once
        if g.kind == "field":
            return col(g.key, t), None
        if g.kind != "time":
            raise CompileError(f"grouping {g.kind} is built by its own node")
        if g.key == "dow":
            names = [name for _, name in sorted(self.lang["day_names"].items(), key=lambda kv: int(kv[0]))]
            if ent.time.get("dow_label"):
                lab = col(ent.time["dow_label"], t)
                return lab, exp.Case(this=lab.copy(), ifs=[exp.If(this=lit(n), true=lit(i))
                                                           for i, n in enumerate(names, start=1)])
            num = self.time_part(ent, "dow", t)
            return pick(names, num), num
        if g.key == "season":
            seasons = [(k, v) for k, v in self.pack.convention("seasons").items() if isinstance(v, list)]
            by_month = [next((i + 1 for i, (_, months) in enumerate(seasons) if m in months), None)
                        for m in range(1, 13)]
            idx = pick(by_month, self.time_part(ent, "month", t))
            return pick([k for k, _ in seasons], idx), idx
        return self.time_part(ent, g.key, t), None
