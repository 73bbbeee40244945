"""Validation and repair: make any interpreter's frame conform to the pack, logging every change as a Repair."""
from __future__ import annotations


import copy
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .frame import INTENTS, NON_FIELD_OPS, Frame, Group, Place, Predicate, TimeSpec, frame_problems, year_of
from .anchors import PARTIAL_SCORE
from .numbers import band, holds
from .field_values import condition_key, merge_same_field
from .repair_measure import resolve_measure
from .source_choice import choose_entity, field_keys, has_time_part
from .pack import Entity, Pack, norm_label


@dataclass
class Repair:
    code: str
    path: str
    before: Any
    after: Any
    reason: str


@dataclass
class RepairResult:
    frame: Frame
    repairs: list[Repair] = field(default_factory=list)
    clarify: list[dict] = field(default_factory=list)   # choices for the user
    problems: list[str] = field(default_factory=list)   # what stops an answer
    outside: list[str] = field(default_factory=list)    # what the data does not hold (refused, with the reason)
    notes: list[str] = field(default_factory=list)      # caveats for the answer


class Repairer:
    none_supported = True  # the plan has an anti-join step (near_none) for 'no X within d'

    def __init__(self, pack: Pack):
        self.pack = pack

    def run(self, frame: Frame) -> RepairResult:
        f = copy.deepcopy(frame)
        r = RepairResult(f)
        log = lambda code, path, before, after, reason: r.repairs.append(
            Repair(code, path, _plain(before), _plain(after), reason))
        broken = frame_problems(f)
        if broken:  # wrong shapes (a year written as text) would fail later in ways that explain nothing
            r.problems.append("the frame does not match its schema: " + "; ".join(broken))
            return r
        if f.intent not in INTENTS:
            log("intent", "intent", f.intent, "list", "unknown intent")
            f.intent = "list"
        choose_entity(self.pack, f, log, r)
        if not f.target:
            return r
        ent = self.pack.entity(f.target)
        f.filters = merge_same_field(self._resolve_preds(ent, f.filters, "filters", log, r), log, ent.codes())
        # ('aged 17 or 18' of bands '16-17', '18-20'): both ends of a range leave no published value between them
        r.problems += [f"no published value lies wholly within '{q.text}'" for q in f.filters
                       if q.op in ("in", "eq") and not q.values and not q.any_of]
        f.share_of = self._resolve_preds(ent, f.share_of, "share_of", log, r)
        for i, side in enumerate(f.compare):
            side.filters = self._resolve_preds(ent, side.filters, f"compare[{i}].filters", log, r)
            self._resolve_time(ent, side.time, f"compare[{i}].time", log, r)
            side.scope = self._resolve_scope(ent, side.scope, f"compare[{i}].scope", log, r)
        self._resolve_time(ent, f.time, "time", log, r)
        f.scope = self._resolve_scope(ent, f.scope, "scope", log, r)
        self._resolve_near(f, log, r)
        if f.near and f.near.quantifier == "none" and not self.none_supported:
            r.problems.append(f"records with no {self.pack.entity(f.near.entity).plural if f.near.entity else 'feature'} "
                              f"nearby cannot be counted yet")
        self._features_are_not_areas(f, log)
        self._resolve_groups(ent, f, log, r)
        # two words for the same grouping ('<places> ... by <place field>') group once
        f.group_by = [g for i, g in enumerate(f.group_by) if g not in f.group_by[:i]]
        resolve_measure(self.pack, ent, f, log, r)
        self._structure(f, log, r)
        return r

    # ---- predicates
    def _resolve_preds(self, ent: Entity, preds: list[Predicate], path: str, log, r: RepairResult) -> list[Predicate]:
        out, seen = [], set()
        for i, q in enumerate(preds):
            res = self._resolve_pred(ent, q, f"{path}[{i}]", log, r)
            if res is not None:
                res.negate = q.negate  # resolving a condition never changes whether it is excluded
                key = condition_key(res)
                if key not in seen:  # (a condition said twice, in other words, is one condition)
                    seen.add(key)
                    out.append(res)
        return out

    def _resolve_pred(self, ent: Entity, q: Predicate, path: str, log, r: RepairResult) -> Predicate | None:
        if q.op == "near_where":  # the conditions are on the features near the records, resolved on theirs
            sup = self.pack.entity(q.values[0]["entity"])
            return replace(q, any_of=self._resolve_preds(sup, q.any_of, f"{path}.any_of", log, r))
        if q.op in NON_FIELD_OPS:
            return q
        if q.op == "any" and not q.concept:  # conditions joined by 'or': each resolved, any may hold
            return self._resolve_any(ent, q, path, log, r)
        if q.concept:
            return self._resolve_concept(ent, q, path, log, r)
        area = self.pack.entities.get(q.entity or "")
        if q.op in ("gt", "gte", "lt", "lte") and area is not None and area.area and q.entity != ent.name:
            # 'in towns over 20k people': records in the areas whose attribute meets the condition
            log("area_condition", path, f"{q.entity}.{q.field}", q.text, f"records in the {area.plural} that meet it")
            return Predicate(op="area_attr", values=[{"entity": q.entity, "field": q.field, "op": q.op,
                                                      "n": q.values[0]}], text=f"in {area.plural} with {q.text}",
                             entity=ent.name)
        if q.entity and q.entity != ent.name:
            src = self.pack.entities.get(q.entity)
            label = src.fields[q.field].label if src and q.field in src.fields else None
            match = next((f for f in ent.fields.values() if label and f.label == label), None)
            if match is None:
                r.notes.append(f"'{q.text or q.field}' cannot be applied to {ent.plural}: left out")
                r.problems.append(f"'{q.text or q.field}' is not recorded for {ent.plural}")
                log("filter_dropped", path, f"{q.entity}.{q.field}", None, f"{ent.label} has no such field")
                return None
            log("filter_moved", path, f"{q.entity}.{q.field}", f"{ent.name}.{match.name}",
                f"the same field on {ent.label}")
            q = Predicate(field=match.name, op=q.op, values=q.values, entity=ent.name, text=q.text)
        if q.op == "blank" and q.field in ent.fields:
            return q
        if q.op in ("gt", "gte", "lt", "lte"):
            return self._threshold(ent, q, path, log, r)
        # a frame's operators in the pack's 'where' words: eq holds one value, between is a range
        key = {"between": "range"}.get(q.op, q.op)
        val = q.values[0] if q.op == "eq" and len(q.values) == 1 else q.values
        built = self._from_where(ent, {"field": q.field, key: val}, q.text, path, log, r)
        if built is None and q.field in ent.fields:
            log("filter_dropped", path, asdict(q), None, f"operator '{q.op}' cannot be applied to {q.field}")
            r.problems.append(f"'{q.text or q.field}': the condition '{q.op}' is not one MapAsk can apply")
        return built

    def _resolve_any(self, ent: Entity, q: Predicate, path: str, log, r: RepairResult) -> Predicate | None:
        """Conditions joined by 'or': each resolved; several on one field become one list of values."""
        # (each member resolved as it is meant: left out when the group is)
        resolved = [self._resolve_pred(ent, replace(m, negate=m.negate != q.negate), f"{path}.any_of[{j}]", log, r)
                    for j, m in enumerate(q.any_of)]
        for m, res in zip(q.any_of, resolved):
            if res is not None:
                res.negate = m.negate
        members = [m for m in resolved if m is not None]
        if len(members) <= 1:  # (a group left out leaves out its one member)
            return replace(members[0], negate=q.negate != members[0].negate) if members else None
        first = members[0]
        if all(m.op == "in" and m.field == first.field and not m.negate for m in members):  # one field: one list
            values = [v for m in members for v in m.values]
            # no concept: the values are the union, which a replay must not re-derive from one concept
            return Predicate(field=first.field, op="in", values=list(dict.fromkeys(values)), entity=ent.name,
                             text=q.text, negate=q.negate)
        return Predicate(op="any", any_of=members, text=q.text, entity=ent.name, negate=q.negate)

    def _resolve_concept(self, ent: Entity, q: Predicate, path: str, log, r: RepairResult) -> Predicate | None:
        """A pack concept through its 'where' for these records, or None (left out, said) when it has none."""
        c = self.pack.concepts.get(q.concept)
        where = c.where.get(ent.name) if c else None
        if where is None and q.negate and c and self.pack.never_among(ent, c):
            r.notes.append(f"'{q.text or q.concept}': no {ent.plural} are such records, so none is left out")
            log("already_excluded", path, q.concept, None, f"{ent.label} records never meet '{q.text}'")
            return None
        if where is None:
            r.notes.append(f"'{q.text or q.concept}' cannot be applied to {ent.plural}: left out")
            r.problems.append(f"'{q.text or q.concept}' is not recorded for {ent.plural}")
            log("filter_dropped", path, q.concept, None, f"{ent.label} records have no field for '{q.text}'")
            return None
        parts = where.get("any", [where])
        built = [self._from_where(ent, w, q.text, path, log, r) for w in parts]
        built = [b for b in built if b]
        if not built:
            return None
        if len(built) == 1:
            built[0].concept = q.concept
            return built[0]
        return Predicate(op="any", any_of=built, concept=q.concept, text=q.text, entity=ent.name)

    def _threshold(self, ent: Entity, q: Predicate, path: str, log, r: RepairResult) -> Predicate | None:
        """'75 or older' on a number field stays a comparison; on a field published as bands ('75-84', '>84')
        it becomes the bands wholly inside the condition, and a band that straddles it is named in a note."""
        f = ent.fields.get(q.field)
        if f is None:
            return None
        if f.kind == "number":
            return q
        op, n = q.op, float(q.values[0])
        inside, straddle = [], []
        for label in f.codes:
            b = band(label)
            verdict = holds(op, n, *b) if b else False
            (inside if verdict else straddle if verdict is None else []).append(label)
        if not inside:
            r.problems.append(f"no {f.label} band lies wholly within '{q.text}'")
            log("filter_dropped", path, q.text, None, f"{f.label} is published in bands none of which fits")
            return None
        # (bands that meet the condition exactly only spell it as published; one straddling it changes it)
        log("threshold_bands_partial" if straddle else "threshold_bands", path, f"{q.op} {n:g}", inside,
            f"{f.label} is published in bands")
        if straddle:
            r.notes.append(f"{f.label} is published in bands: {', '.join(straddle)} only partly meets "
                           f"'{q.text}' and was left out")
        return Predicate(field=q.field, op="in", values=inside, entity=ent.name, text=q.text)

    def _from_where(self, ent: Entity, w: dict, text: str, path: str, log, r) -> Predicate | None:
        fname = w["field"]
        f = ent.fields.get(fname)
        if f is None:
            log("filter_dropped", path, fname, None, f"{ent.label} has no field '{fname}'")
            return None
        for op in ("in", "has", "not_in"):
            if op in w:
                vals = list(w[op])
                if f.kind == "coded" and f.codes:
                    labels = self.pack.labels_for(ent, fname, vals, "has" if op == "has" else "in")
                    if not labels:
                        log("filter_dropped", path, vals, None, f"no published label of {f.label} matches")
                        r.notes.append(f"no {f.label} value matches '{text}'")
                        return None
                    if sorted(labels) != sorted(vals):
                        log("value_normalised", path, vals, labels, f"published labels of {f.label}")
                    return Predicate(field=fname, op="not_in" if op == "not_in" else "in", values=labels,
                                     entity=ent.name, text=text)
                return Predicate(field=fname, op="in" if op != "not_in" else "not_in", values=vals,
                                 entity=ent.name, text=text)
        if "eq" in w:
            return Predicate(field=fname, op="eq", values=[w["eq"]], entity=ent.name, text=text)
        if w.get("blank"):  # ('unrated'): the records whose field holds no value
            return Predicate(field=fname, op="blank", entity=ent.name, text=text)
        if "range" in w:
            return Predicate(field=fname, op="between", values=list(w["range"]), entity=ent.name, text=text)
        return None

    # ---- time
    def _resolve_time(self, ent: Entity, t: TimeSpec, path: str, log, r: RepairResult) -> None:
        years = ent.years()
        if (t.latest_year or t.last_n_years) and years:
            n = 1 if t.latest_year else t.last_n_years
            new = list(range(years[1] - n + 1, years[1] + 1))
            log("time_relative", path, "latest year" if t.latest_year else f"last {n} years", new,
                f"relative to the latest year in {ent.label} records ({years[1]})")
            t.years, t.latest_year, t.last_n_years = new, False, None
            _date_in_year(t, new[-1])
        if t.hours and not (ent.time.get("time") or ent.time.get("timestamp")):
            log("time_dropped", path + ".hours", t.hours, [], f"{ent.label} records have no time of day")
            r.problems.append(f"{ent.plural} have no time of day")
            t.hours = []
        if t.months and not (ent.time.get("date") or ent.time.get("timestamp")):
            log("time_dropped", path + ".months", t.months, [], f"{ent.label} records have no month")
            r.problems.append(f"{ent.plural} have no month")
            t.months = []
        if not ent.time and (t.years or t.date_from or t.date_to or t.isodow or t.days_of_month):
            log("time_dropped", path, t.text, [], f"{ent.label} records have no date")
            r.problems.append(f"{ent.plural} have no date")  # asked back, never a compile error
            t.years, t.date_from, t.date_to, t.isodow, t.days_of_month = [], None, None, [], []
        if years:
            asked = set(t.years) | {y for y in (year_of(t.date_from), year_of(t.date_to)) if y}
            outside = sorted(y for y in asked if y < years[0] or y > years[1])
            # (a year named outright that the data lacks is refused even beside one it holds: '2021 ... against 2017')
            if outside and (set(outside) & set(t.years) or all(y < years[0] or y > years[1] for y in (t.years or outside))):
                span = f"{years[0]}" if years[0] == years[1] else f"{years[0]}-{years[1]}"
                r.outside.append(f"{ent.plural} cover {span} only, and {', '.join(map(str, outside))} "
                                 f"{'is' if len(outside) == 1 else 'are'} outside that")

    # ---- places
    def _resolve_scope(self, ent: Entity, places: list[Place], path: str, log, r: RepairResult) -> list[Place]:
        out = []
        for i, pl in enumerate(places):
            if (pl.candidates or pl.score <= PARTIAL_SCORE) and pl.score < 100:
                r.clarify.append({"text": pl.text, "choices": [pl.name] + [c["name"] for c in pl.candidates]})
            area = self.pack.entities.get(pl.entity or "")
            town = ent.coverage.get("town")
            if area and town and area.coverage.get("town") is None and norm_label(pl.name) == norm_label(town) \
                    and not pl.outline:
                log("scope_satisfied", f"{path}[{i}]", pl.name, None,
                    f"every {ent.label} record is in {pl.name.title()} already")
                continue
            if area and town and area.coverage.get("town") is None:
                r.outside.append(f"{ent.plural} only cover {town.title()}, not {pl.name.title()}")
            if pl.score < 100:
                log("anchor_fuzzy", f"{path}[{i}]", pl.text, pl.name, f"closest name ({pl.score:.0f}/100)")
            out.append(pl)
        return out

    def _features_are_not_areas(self, f: Frame, log) -> None:
        """'within <d> of <street> and <street>' with no intersection of that name: records cannot lie inside a
        street or a point, so a named feature read as a place becomes 'near it too', at the question's distance."""
        keep = []
        for i, pl in enumerate(f.scope):
            e = self.pack.entities.get(pl.entity or "")
            if e is None or e.area:
                keep.append(pl)
                continue
            d = f.near.distance_m if f.near and f.near.distance_m else \
                float(self.pack.convention("distance", "default_along_m", default=20))
            q = Predicate(op="near_place", values=[{"entity": e.name, "name": pl.name, "distance_m": d}],
                          text=f"within {d:g} m of {pl.name}", entity=f.target)
            log("scope_to_near", f"scope[{i}]", pl.name, asdict(q), f"a {e.label} is no area: records near it")
            f.filters.append(q)
        f.scope = keep

    def _resolve_near(self, f: Frame, log, r: RepairResult) -> None:
        n = f.near
        if n is None:
            return
        if n.entity is None and n.anchor is None:
            log("near_dropped", "near", "near", None, "a distance without anything to measure it from")
            f.near = None
            r.notes.append("a distance was given without a place or feature to measure from: ignored")
            return
        if n.anchor and (n.anchor.candidates or n.anchor.score <= PARTIAL_SCORE) and n.anchor.score < 100:
            r.clarify.append({"text": n.anchor.text, "choices": [n.anchor.name] + [c["name"] for c in n.anchor.candidates]})
        if n.anchor and n.anchor.score < 100:
            log("anchor_fuzzy", "near.anchor", n.anchor.text, n.anchor.name, f"closest name ({n.anchor.score:.0f}/100)")
        if n.mode == "nearest" and not n.k:
            log("nearest_default", "near.k", None, 10, "no number given: the 10 nearest")
            n.k = 10
        target = self.pack.entities.get(f.target or "")
        if n.distance_m is None and n.mode == "within" and target is not None and target.area:
            # ('<areas> with no <features>'): an area holds the features inside it, no distance is needed
            log("area_holds", "near.distance_m", None, 0.0, f"{target.label}: the features inside each area")
            n.distance_m = 0.0
        if n.distance_m is None and n.mode != "nearest":
            key = "default_along_m" if n.mode == "along" else "default_near_m"
            d = float(self.pack.convention("distance", key, default=100))
            log("distance_default", "near.distance_m", None, d, f"no distance given: the pack's default of {d:g} m")
            r.notes.append(f"no distance was given, so {d:g} m was used")
            n.distance_m = d
        if n.anchor is None and self.pack.entity(n.entity).time:
            # records qualifying features ("<features> that had a <record>"): the source is chosen as for a target
            sub = Frame(target=n.entity, filters=[q for q in n.filters if q.op not in ("time", "near", "place")])
            for q in n.filters:
                if q.op == "time":
                    sub.time = TimeSpec(**q.values[0])
            choose_entity(self.pack, sub, lambda *a: log(a[0], "near.entity", *a[2:]), r)
            n.entity = sub.target
        sup = self.pack.entity(n.entity)
        for i, q in enumerate(n.filters):
            if q.op == "time":
                ts = TimeSpec(**q.values[0])
                self._resolve_time(sup, ts, f"near.filters[{i}]", log, r)
                q.values = [{k: v for k, v in ts.__dict__.items() if v and k != "text"}]
        n.filters = self._resolve_preds(sup, n.filters, "near.filters", log, r)
        n.scope = self._resolve_scope(sup, n.scope, "near.scope", log, r)
        if f.target == n.entity:
            r.problems.append(f"the question relates {sup.plural} to themselves")

    # ---- groups and measures
    def _resolve_groups(self, ent: Entity, f: Frame, log, r: RepairResult) -> None:
        out: list[Group] = []
        for i, g in enumerate(f.group_by):
            if g.kind == "support" and (g.key == ent.name or self.pack.entity(g.key).time and ent.time):
                # records grouped by records ('by crashes'): the counted records themselves, no grouping
                log("group_dropped", f"group_by[{i}]", g.key, None, f"{ent.plural} are what is counted")
                continue
            if g.kind == "field":
                ng = self._field_group(ent, g, i, log, r)
                if ng is not None:
                    out.append(ng)
            elif g.kind == "area":
                area = self.pack.entities.get(g.key)
                pf = ent.places.get(g.key)
                if pf:
                    log("group_field", f"group_by[{i}]", g.key, pf["field"], f"{ent.label} records name their {g.key}")
                    out.append(Group("field", pf["field"]))
                elif area and ent.coverage.get("town") and area.coverage.get("town") is None:
                    r.problems.append(f"every {ent.label} record is in one {area.label}; grouping by it says little")
                    out.append(g)
                else:
                    out.append(g)
            elif g.kind == "support":
                if f.near is None:
                    d = float(self.pack.convention("distance", "default_near_m", default=100))
                    from .frame import Near
                    f.near = Near(entity=g.key, distance_m=d, mode="within")
                    log("near_added", "near", None, {"entity": g.key, "distance_m": d},
                        f"grouping by {g.key} needs a distance: the pack's default {d:g} m")
                    r.notes.append(f"{ent.plural} were linked to the nearest-lying {self.pack.entity(g.key).plural} "
                                   f"within {d:g} m")
                elif f.near.entity != g.key:
                    log("group_dropped", f"group_by[{i}]", g.key, None, "grouping by a feature class not in the question")
                    continue
                out.append(g)
            elif g.kind == "time":
                if not has_time_part(ent, g.key):
                    r.problems.append(f"{ent.plural} have no {'time of day' if g.key == 'hour' else g.key}")
                    continue
                out.append(g)
        f.group_by = out

    def _field_group(self, ent: Entity, g: Group, i: int, log, r: RepairResult) -> Group | None:
        """A grouping by a field: the records' own field (or one with the same label), else the area that
        field names (grouped spatially), else None (dropped, said as a problem)."""
        keys = field_keys(g.key, ent.name)
        own = [fn for en, fn in keys if en == ent.name and fn in ent.fields]
        if not own:
            labels = {self.pack.entities[en].fields[fn].label for en, fn in keys if en in self.pack.entities}
            own = [fn for fn, fd in ent.fields.items() if fd.label in labels]
        if not own:
            place = next((self.pack.entities[en].fields[fn].place for en, fn in keys
                          if en in self.pack.entities), None)
            area = next((e for e in self.pack.entities.values() if e.area and place and e.name == place), None)
            if area:
                if ent.coverage.get("town") and area.coverage.get("town") is None:
                    r.problems.append(f"every {ent.label} record is in {ent.coverage['town'].title()}: "
                                      f"grouping them by {area.label} says nothing")
                log("group_spatial", f"group_by[{i}]", g.key, area.name, f"{ent.label} has no {place} field")
                return Group("area", area.name)
            log("group_dropped", f"group_by[{i}]", g.key, None, f"{ent.label} has no such field")
            r.problems.append(f"{ent.plural} cannot be grouped by {g.key.split('.')[-1]}")
            return None
        ng = Group("field", own[0])
        if ng.key != g.key:
            log("group_field", f"group_by[{i}]", g.key, ng.key, f"the field of {ent.label}")
        return ng

    def _groups_with_none(self, f: Frame, log) -> None:
        """'towns with no crashes': groups by a place field list only places with records, so a condition a
        group without records meets takes every area instead (counted by location)."""
        ent = self.pack.entity(f.target)
        for i, g in enumerate(f.group_by):
            area = _place_area(self.pack, ent, g.key) if g.kind == "field" else None
            if area:
                f.group_by[i] = replace(g, kind="area", key=area)
                log("group_area", f"group_by[{i}]", g.key, area, f"{self.pack.entity(area).plural} without any "
                    f"{ent.label} are listed only when every {self.pack.entity(area).label} is")

    def _structure(self, f: Frame, log, r: RepairResult) -> None:
        if any(h.op == "lte" and h.values and h.values[0] >= 0 or h.op == "lt" and h.values and h.values[0] > 0
               for h in f.having):
            self._groups_with_none(f, log)
        if f.having and not (f.group_by or f.compare):
            r.problems.append(f"'{f.having[0].text}' compares how many records each group has, but the question names "
                              "no groups (e.g. 'towns with more than 100 ...')")
        for i, h in enumerate(f.having):
            if h.op not in ("gt", "gte", "lt", "lte") or len(h.values) != 1 or not isinstance(h.values[0], (int, float)):
                log("having_dropped", f"having[{i}]", asdict(h), None, "a count condition needs one number and <, <=, >, >=")
                r.problems.append(f"'{h.text or h.op}' is not a condition MapAsk can apply to a count")
        if f.intent == "compare" and len(f.compare) < 2:
            log("compare_dropped", "compare", len(f.compare), 0, "a comparison needs two sides")
            f.intent, f.compare = "count", []
        if f.intent == "rank" and not f.group_by:
            if f.near and f.near.entity:
                f.group_by.append(Group("support", f.near.entity))
                log("group_added", "group_by", None, {"kind": "support", "key": f.near.entity},
                    "a ranking needs something to rank")
            else:
                log("rank_dropped", "rank", "rank", None, "a ranking needs a grouping: listed instead")
                f.intent, f.rank = "list", None
        if f.rank and f.rank.limit is None and f.intent == "rank":
            f.rank.limit = 10
            log("rank_limit", "rank.limit", None, 10, "no number given: top 10")
        if f.intent == "share" and not f.share_of and not f.group_by:
            r.problems.append(f"a share needs a condition (e.g. 'share of {self.pack.entity(f.target).plural} that ...')")
        if f.intent == "trend" and not any(g.kind == "time" for g in f.group_by):
            f.group_by.append(Group("time", "year"))


def _place_area(pack: Pack, ent: Entity, key: str) -> str | None:
    """The area entity whose name a place field of `ent` holds ('city_town_name' -> 'town'), else None."""
    return next((a for a, pf in ent.places.items() if pf.get("field") == key and a in pack.entities), None)


def _plain(v: Any) -> Any:
    try:
        return asdict(v)
    except TypeError:
        return v


def _date_in_year(t: TimeSpec, year: int) -> None:
    """Days said without a year ('--12-24'), in the year resolved; a range reaching past December starts the year
    before."""
    if not (t.date_from or "").startswith("--"):
        return
    a, b = t.date_from[2:], (t.date_to or t.date_from)[2:]
    t.date_from, t.date_to = f"{year - 1 if a > b else year}-{a}", f"{year}-{b}"
    t.years = []
