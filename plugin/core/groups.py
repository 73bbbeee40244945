"""What an answer is grouped by: fields, areas (with the records outside them), supports, label words, parts of
time, and each place named when a measure is asked for each."""
from __future__ import annotations

from .frame import Frame, Group, Near
from .pack import Pack
from .phrasing import number_before
from .qualifiers import excluded, groups_by_label_word
from .spans import has, readings
from .tokens import Span
from .word_roles import asks_rate


def groups(w) -> None:
    """What the answer is grouped by: fields, areas, supports, label words and parts of time."""
    f, cx = w.f, w.cx
    for g in w.group_spans:
        grp = _group(w.pack, f, g)
        if grp and grp not in f.group_by:
            f.group_by.append(grp)
    for grp in groups_by_label_word(cx, f, cx.cue("group")):
        if grp not in f.group_by:
            f.group_by.append(grp)
    # a breakdown by area keeps the records outside every area as a group of their own, as a NULL group of a
    # field is kept; a ranking, 'which <areas>', a place named ('<city> neighbourhoods') or the areas counted
    # ('each of the 13 <areas>') asks only of the areas
    only_areas = bool(cx.cue("rank_desc") or cx.cue("rank_asc") or w.topn or cx.cue("which") or cx.cue("exists")
                      or _areas_placed(w) or number_before(w.ann.tokens, w.group_spans))
    for g in f.group_by:
        # (and only records of the areas' own coverage: statewide records outside a city's areas are no group)
        g.outside = g.kind == "area" and not only_areas and _same_coverage(w.pack, f.target, g.key)
        if g.kind == "area" and (cx.cue("exists") or cx.cue("which")) and not cx.cue("keep_empty"):
            g.empty = False  # ('<areas> with one or more <records>', 'which <areas> have ...'): those with some
        # ('... outside all <areas> can be left off'): that group left out
        if g.kind == "area" and any(excluded(w.ann, c) for c in cx.cue("keep_outside")):
            g.outside = False
        elif g.kind == "area" and cx.cue("keep_outside"):
            # 'keep the <records> outside all <areas> as their own group': the areas listed are those with records,
            # unless the empty ones are asked for too
            g.outside, g.empty = True, bool(cx.cue("keep_empty"))
    _each_place_rate(w)
    sup_group = next((g for g in f.group_by if g.kind == "support"), None)
    if f.near is None and sup_group and w.distances:
        # "crashes by school within 300 m": the distance belongs to the features grouped by
        f.near = Near(entity=sup_group.key, distance_m=round(w.distances[0].value["metres"], 3),
                      distance_text=w.distances[0].value["text"], filters=w.support_preds)
    for s in w.spans:
        if s.kind == "timepart" or has(s, "timepart"):
            ranked = any(0 <= s.start - c.end <= 1 for c in cx.cue("rank_all"))  # ('rank the months by ...')
            if any(p in cx.cue("group") for p in cx.before(s, 1)) or w.before_is_rank(s) or ranked \
                    or (cx.cue("trend") and not f.group_by) or len(s.text.split()) > 1 or s.text.endswith("ly"):
                g = Group("time", readings(s, "timepart")[0])
                if g not in f.group_by:
                    f.group_by.append(g)


def _areas_placed(w) -> bool:
    """Whether a place is said of the areas grouped by ('<city> neighbourhoods', 'neighbourhoods in <city>') or
    narrows the records; a records' own town said as part of their source's name ('<city> police data') neither."""
    ent = w.pack.entities.get(w.f.target or "")
    home = str(ent.coverage.get("town") or "").lower() if ent else ""
    areas = [g for g in w.spans if any(w.pack.entities[e].area for e in readings(g, "entity"))]
    for s in w.scope_spans:
        if not home or str(s.value.get("name", "")).lower() != home:
            return True
        if any(s.end == g.start or s.start - g.end == 1 and any(has(c, "cue", "in") for c in w.spans if c.start == g.end)
               for g in areas):
            return True
    return any(str(p.name or "").lower() != home for p in w.f.scope)


def _same_coverage(pack: Pack, records: str, areas: str) -> bool:
    """Whether records and an area layer cover the same area (the city's crash reports and its neighbourhoods)."""
    a, b = pack.entities.get(records), pack.entities.get(areas)
    return bool(a and b and a.coverage.get("area") and a.coverage.get("area") == b.coverage.get("area"))


def _each_place_rate(w) -> None:
    """'<rate> for <place>, <place> and <place>': a rate is each place's own over its own population, never one
    rate of the places pooled; and so is any measure asked 'for each of' the places named."""
    f = w.f
    kinds_of = {p.entity for p in f.scope}
    each = bool(w.cx.cue("group")) and not w.group_spans
    if not (asks_rate(w.spans) or each) or f.group_by or f.compare or len(f.scope) < 2 or len(kinds_of) != 1 or not f.target:
        return
    pf = w.pack.entities[f.target].places.get(kinds_of.pop()) or {}
    if pf.get("field"):
        f.group_by.append(Group("field", f"{f.target}.{pf['field']}"))


def _group(pack: Pack, f: Frame, s: Span) -> Group | None:
    if has(s, "timepart"):
        return Group("time", readings(s, "timepart")[0])
    fields = readings(s, "field")
    # ('<places> with the most <features>': the place field of the records counted, when they have one)
    fields = [x for x in fields if x[0] == f.target and pack.entities[x[0]].fields[x[1]].place] or fields
    ents = readings(s, "entity")
    if fields:
        return Group("field", f"{fields[0][0]}.{fields[0][1]}" if len(fields) == 1 else
                     "|".join(f"{e}.{n}" for e, n in fields))
    if ents:
        e = pack.entities[ents[0]]
        if e.area:
            return Group("area", e.name)
        return Group("support", e.name)
    return None
