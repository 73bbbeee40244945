"""SQL pieces the compiler assembles: names, literals, and spatial relations that start from the few features."""
from __future__ import annotations

from typing import Any

from sqlglot import exp

from .pack import Entity, Pack


def col(name: str, table: str | None = None) -> exp.Column:
    """A quoted column, optionally qualified."""
    return exp.column(name, table=table, quoted=True)


def lit(v: Any) -> exp.Expression:
    """A SQL literal."""
    return exp.convert(v)


def table_ref(pack: Pack, ent: Entity, alias: str) -> exp.Expression:
    """The entity's table in the pack's schema, aliased."""
    return exp.table_(ent.table, db=pack.schema, quoted=True).as_(alias)


def cte_ref(name: str, alias: str | None = None) -> exp.Expression:
    """A CTE by name, optionally aliased."""
    t = exp.to_table(name)
    return t.as_(alias) if alias else t


def pick(values: list, index: exp.Expression) -> exp.Expression:
    """values[index] (1-based) as CASE index WHEN 1 THEN ...: the subject is evaluated once per row."""
    case = exp.Case(this=index)
    for i, v in enumerate(values, start=1):
        if v is not None:
            case = case.when(lit(i), lit(v))
    return case


def from_each(key: str, drive: exp.Expression, relation: exp.Expression, last: str,
              where: exp.Expression | None = None) -> exp.Select:
    """Rows of `last` (alias l) related to at least one row of `drive`, each once, found from the drive side."""
    # Postgres cannot turn an EXISTS semi-join on a spatial predicate around, so with a few anchors and millions
    # of records it would probe the anchors once per record; the LATERAL subquery fenced with OFFSET 0 makes
    # every anchor probe the records' spatial index instead
    inner = exp.select(exp.Star()).from_(cte_ref(last, "l")).where(relation).offset(0)
    lat = exp.Lateral(this=inner.subquery(), alias=exp.TableAlias(this=exp.to_identifier("n")))
    sel = (exp.select(exp.Column(this=exp.Star(), table=exp.to_identifier("n")))
           .from_(drive).join(lat, join_type="cross"))
    sel.set("distinct", exp.Distinct(on=exp.Tuple(expressions=[col(key, "n")])))
    return sel.where(where) if where is not None else sel


def area_condition(pack: Pack, ent: Entity, v: dict, t: str) -> exp.Expression:
    """Records in the areas whose attribute meets a number condition: by their place field, else by polygon."""
    area = pack.entity(v["entity"])
    op = {"gt": exp.GT, "gte": exp.GTE, "lt": exp.LT, "lte": exp.LTE}[v["op"]]
    cond = op(this=col(v["field"], "a"), expression=lit(v["n"]))
    pf = ent.places.get(area.name)
    if pf:
        names = exp.select(col(area.names[0] if area.names else area.display, "a")).from_(
            table_ref(pack, area, "a")).where(cond)
        return col(pf["field"], t).isin(query=names)
    return exp.Exists(this=exp.select(lit(1)).from_(table_ref(pack, area, "a")).where(
        exp.and_(cond, exp.func("ST_Intersects", col("geom", "a"), col("geom", t)))))

def area_name(area: Entity, names: list[str]) -> exp.Expression:
    """The area's name column among the given names (an area layer of one unnamed feature, such as a city
    boundary, is that feature whatever it is called)."""
    if not area.names and area.display == area.key:
        return exp.true()
    return col(area.names[0] if area.names else area.display, "a").isin(*[lit(n) for n in names])
