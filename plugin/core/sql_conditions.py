"""SQL conditions over one record's row alias: predicates, time, places (the compiler's expression layer)."""
from __future__ import annotations

from sqlglot import exp

from .errors import CompileError
from .frame import Place, Predicate, TimeSpec
from .pack import Entity, Pack
from .sql_parts import area_condition, area_name, col, lit, table_ref


class RowConditions:
    """Expressions the compiler builds for one entity's rows (needs `pack` and `lang` on the instance)."""
    pack: Pack
    lang: dict

    def time_part(self, ent: Entity, part: str, t: str, cast: bool = True) -> exp.Expression:
        """A date part of a record; `cast=False` in conditions (an expression index serves the plain EXTRACT)."""
        tm = ent.time
        if part == "year" and tm.get("year"):
            return col(tm["year"], t)
        src = tm.get("timestamp") or (tm.get("time") if part == "hour" else tm.get("date"))
        if not src:
            raise CompileError(f"{ent.label} records have no {part}")
        unit = {"year": "YEAR", "quarter": "QUARTER", "month": "MONTH", "dow": "ISODOW", "hour": "HOUR",
                "day": "DAY"}[part]
        e = exp.Extract(this=exp.Var(this=unit), expression=col(src, t))
        return exp.cast(e, "int") if cast else e

    def date_expr(self, ent: Entity, t: str) -> exp.Expression | None:
        """A record's date, or None when it has only a year."""
        tm = ent.time
        if tm.get("date"):
            return col(tm["date"], t)
        if tm.get("timestamp"):
            return exp.cast(col(tm["timestamp"], t), "date")
        return None

    def predicate(self, p: Predicate, t: str, ent: Entity) -> exp.Expression:
        """One predicate over row alias `t`; a negated one is the complement (a NULL condition counts as unmet)."""
        cond = self._predicate(p, t, ent)
        if p.negate:
            out = exp.not_(exp.func("COALESCE", exp.paren(cond), exp.false()))
            if p.op == "in_area" or p.op == "place" and not ent.places.get(p.values[0]["entity"]):
                # outside an area by location: a record without a location is not known to be outside
                out = exp.and_(exp.Not(this=exp.Is(this=col("geom", t), expression=exp.null())), out)
            return out
        return cond

    def _predicate(self, p: Predicate, t: str, ent: Entity) -> exp.Expression:
        if p.op == "any":
            return exp.paren(exp.or_(*[self.predicate(q, t, ent) for q in p.any_of]))
        if p.op == "time":
            return self.time_cond(ent, TimeSpec(**p.values[0]), t) or exp.true()
        if p.op == "place":
            return self.place_cond(ent, Place(entity=p.values[0]["entity"], name=p.values[0]["name"]), t)
        if p.op == "in_area":
            return self.area_cond(Place(entity=p.values[0]["entity"], name=p.values[0]["name"]), t)
        if p.op == "area_attr":
            return area_condition(self.pack, ent, p.values[0], t)
        if p.op == "located":
            return exp.Not(this=exp.Is(this=col("geom", t), expression=exp.null()))
        if p.op == "near_place":
            v = p.values[0]
            feat = self.pack.entity(v["entity"])
            names = exp.or_(*[exp.EQ(this=col(c, "a"), expression=lit(v["name"])) for c in feat.names])
            close = exp.func("ST_DWithin", col("geom", "a"), col("geom", t), lit(float(v["distance_m"])))
            return exp.Exists(this=exp.select(lit(1)).from_(table_ref(self.pack, feat, "a")).where(exp.and_(names, close)))
        if p.op == "near_where":
            v = p.values[0]
            feat = self.pack.entity(v["entity"])
            close = exp.func("ST_DWithin", col("geom", "a"), col("geom", t), lit(float(v["distance_m"])))
            conds = [self.predicate(q, "a", feat) for q in p.any_of] + [close]
            return exp.Exists(this=exp.select(lit(1)).from_(table_ref(self.pack, feat, "a")).where(exp.and_(*conds)))
        if p.op == "near":
            # the records near the support, found once from the support's side (near_ids): a hashed IN per row
            # instead of a spatial probe per row
            return col(ent.key, t).isin(query=exp.select(exp.column(ent.key)).from_("near_ids"))
        if p.field not in ent.fields:
            raise CompileError(f"{ent.label} has no field {p.field}")
        c = col(p.field, t)
        if p.op == "blank":  # no value: NULL, or text of nothing but spaces
            return exp.paren(exp.or_(exp.Is(this=c, expression=exp.null()),
                                     exp.EQ(this=exp.func("BTRIM", exp.cast(c, "text")), expression=lit(""))))
        if p.op == "in":
            return c.isin(*[lit(v) for v in p.values])
        if p.op == "not_in":
            return exp.not_(c.isin(*[lit(v) for v in p.values]))
        if p.op == "eq":
            return exp.EQ(this=c, expression=lit(p.values[0]))
        if p.op == "between":
            return exp.Between(this=c, low=lit(p.values[0]), high=lit(p.values[1]))
        if p.op == "gte":
            return exp.GTE(this=c, expression=lit(p.values[0]))
        if p.op == "lte":
            return exp.LTE(this=c, expression=lit(p.values[0]))
        if p.op == "gt":
            return exp.GT(this=c, expression=lit(p.values[0]))
        if p.op == "lt":
            return exp.LT(this=c, expression=lit(p.values[0]))
        raise CompileError(f"unknown operator {p.op}")

    def time_cond(self, ent: Entity, ts: TimeSpec, t: str) -> exp.Expression | None:
        """A time spec as ANDed conditions (None when it constrains nothing)."""
        conds: list[exp.Expression] = []
        d = self.date_expr(ent, t)
        if ts.date_from or ts.date_to:
            if d is not None:
                if ts.date_from:
                    conds.append(exp.GTE(this=d, expression=exp.cast(lit(ts.date_from), "date")))
                if ts.date_to:
                    conds.append(exp.LTE(this=d.copy(), expression=exp.cast(lit(ts.date_to), "date")))
            else:
                y = self.time_part(ent, "year", t, cast=False)
                if ts.date_from:
                    conds.append(exp.GTE(this=y, expression=lit(int(ts.date_from[:4]))))
                if ts.date_to:
                    conds.append(exp.LTE(this=y.copy(), expression=lit(int(ts.date_to[:4]))))
        if ts.years:
            conds.append(self.time_part(ent, "year", t, cast=False).isin(*[lit(int(y)) for y in ts.years]))
        if ts.months:
            conds.append(self.time_part(ent, "month", t, cast=False).isin(*[lit(int(m)) for m in ts.months]))
        if ts.isodow:
            if ent.time.get("dow_label"):
                names = [self.lang["day_names"][int(x)] for x in ts.isodow]
                conds.append(col(ent.time["dow_label"], t).isin(*[lit(n) for n in names]))
            else:
                conds.append(self.time_part(ent, "dow", t, cast=False).isin(*[lit(int(x)) for x in ts.isodow]))
        if ts.hours:
            conds.append(self.time_part(ent, "hour", t, cast=False).isin(*[lit(int(h)) for h in ts.hours]))
        if ts.days_of_month:
            conds.append(self.time_part(ent, "day", t, cast=False).isin(*[lit(int(d)) for d in ts.days_of_month]))
        return exp.and_(*conds) if conds else None

    def place_cond(self, ent: Entity, pl: Place, t: str) -> exp.Expression:
        """A town/county by the entity's published attribute when it has one, else inside the area's polygon."""
        area = self.pack.entity(pl.entity)
        pf = ent.places.get(pl.entity) if pl.entity else None
        if pf:
            val = pl.name.upper() if pf.get("case") == "upper" else pl.name.title() if pf.get("case") == "title" else pl.name
            also = (pf.get("same") or {}).get(pl.name, [])  # the same area spelt another way in this field
            return col(pf["field"], t).isin(*[lit(v) for v in [val, *also]]) if also else \
                exp.EQ(this=col(pf["field"], t), expression=lit(val))
        return self.area_cond(pl, t)

    def area_cond(self, pl: Place, t: str) -> exp.Expression:
        """A record inside the named area's polygon, by where it lies."""
        area = self.pack.entity(pl.entity)
        sub = (exp.select(lit(1)).from_(table_ref(self.pack, area, "a"))
               .where(exp.and_(area_name(area, [pl.name]), exp.func("ST_Intersects", col("geom", "a"), col("geom", t)))))
        return exp.Exists(this=sub)

    def place_join(self, pf: dict, area_name_: exp.Expression, t: str) -> exp.Expression:
        """The records of an area by the place field holding its name (its case, and the pack's `same` spellings)."""
        name = exp.Upper(this=area_name_) if pf.get("case") == "upper" else \
            exp.Initcap(this=area_name_) if pf.get("case") == "title" else area_name_
        on = exp.EQ(this=col(pf["field"], t), expression=name)
        for area, spellings in (pf.get("same") or {}).items():
            on = exp.or_(on, exp.and_(exp.EQ(this=area_name_.copy(), expression=lit(area)),
                                      col(pf["field"], t).isin(*[lit(v) for v in spellings])))
        return on
