"""Repairs of the measure: a total or average needs a number field, a severity score a severity, a rate per residents
the areas the pack has a population for."""
from __future__ import annotations

from dataclasses import asdict

from .frame import EPDO_FIELD, LENGTH_FIELD, Frame, Group, Measure, Place
from .pack import Entity, Pack


def resolve_measure(pack: Pack, ent: Entity, f: Frame, log, r) -> None:
    """A measure the records can give: a sum or average of a number field, a severity score of records with a
    severity, a rate per residents of the areas the pack has a population for (grouped by them when needed)."""
    m = f.measure
    if m.kind == "avg" and m.field == EPDO_FIELD:  # the mean weighted score per record
        m = Measure("epdo")
    elif m.kind in ("sum", "avg") and not (m.field == LENGTH_FIELD and ent.geometry == "line"):
        fld = ent.fields.get(m.field or "")
        if fld is None or fld.kind != "number":
            log("measure", "measure", asdict(m), asdict(Measure("count")),
                f"{ent.plural} have no number field '{m.field}' to add up or average")
            r.problems.append(f"a {'total' if m.kind == 'sum' else 'average'} needs a number field of "
                              f"{ent.plural}; '{m.field}' is not one")
            f.measure = m = Measure("count")
    if m.kind == "epdo" and not ent.severity_field:
        log("measure", "measure.kind", "epdo", "count", f"{ent.label} records have no severity")
        r.problems.append(f"{pack.convention('epdo', 'name', default='a severity-weighted score')} needs a "
                          f"severity, which {ent.plural} do not record")
        f.measure = Measure("count")
    if m.kind == "rate" and not m.total:
        pop = pack.convention("population", "entity")
        own = ent.places.get(pop, {}).get("field")
        other = [g for g in f.group_by if g.kind in ("field", "area") and g.key not in (pop, own)]
        if other:
            r.problems.append(f"rates per residents are available per {pack.entity(pop).label} only "
                              f"(the pack has no population by {other[0].key.split('.')[-1]})")
        towns = [pl for pl in f.scope if pl.entity == pop]
        if len(towns) > 1 and not f.group_by:
            pf = ent.places.get(pop)
            g = Group("field", pf["field"]) if pf else Group("area", pop)
            f.group_by.append(g)
            log("group_added", "group_by", None, asdict(g), "a rate for several towns is given per town")
        only = ent.coverage.get("town")
        if only and not f.group_by and not towns and not any(pl.entity == pop for s in f.compare for pl in s.scope):
            # records of one town only (a city's own police reports): the rate is that town's
            f.scope.append(Place(text=only, entity=pop, name=only, score=100.0))
            log("scope_added", "scope", None, only, f"every {ent.label} record is in {only.title()}")
        elif not any(g.kind in ("field", "area") and (g.key == pop or ent.places.get(pop, {}).get("field") == g.key)
                     for g in f.group_by) and not any(pl.entity == pop for pl in f.scope) and \
                not any(pl.entity == pop for s in f.compare for pl in s.scope):
            pf = ent.places.get(pop)
            g = Group("field", pf["field"]) if pf else Group("area", pop)
            log("group_added", "group_by", None, asdict(g),
                f"a rate per residents is computed per {pack.entity(pop).label}")
            f.group_by.append(g)
