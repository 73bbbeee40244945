"""Rules interpreter: choose a consistent reading of the annotated question and assemble a semantic frame."""
from __future__ import annotations

from dataclasses import replace

from .annotate import Annotation
from .frame import Frame, Group, Measure, Near, Place, Predicate, Rank, Side, TimeSpec
from .pack import Pack
from .phrasing import (compared_field, either, is_event, is_place_pred, measurable, no_records, number_before,
                       numeric, plural)
from .sides import comparison_sides
from .spans import Ctx, has, kinds, readings, time_from_span, words
from .qualifiers import asks_for_one, excluded, exists, groups_by_label_word, quantifier, time_left_out
from .tokens import Span


def interpret(ann: Annotation, pack: Pack, question: str = "") -> Frame:
    """Assemble one frame; entity-specific fields are resolved later by the repair layer."""
    cx = Ctx(ann, pack)
    f = Frame(source="rules")
    f.unknown = list(ann.unknown)
    spans = ann.spans
    place_values = _place_values(ann, pack)
    spans = [s for s in spans if not any(s is a or s is b for a, b, _ in place_values)] + [p for _, _, p in place_values]
    spans += no_records(ann.tokens, spans, pack)
    read = {i for s in spans for i in range(s.start, s.end)}
    f.unknown = [u for u in f.unknown if any(t == u and i not in read for i, t in enumerate(ann.tokens))]
    spans.sort(key=lambda s: s.start)
    ann = replace(ann, spans=spans)
    cx = Ctx(ann, pack)
    anchors_all = [s for s in spans if s.kind == "anchor"]
    # ('<place>, the city, not the <field>': a field an exclusion covers is a reading ruled out, not asked for)
    entity_spans = [s for s in spans if (has(s, "entity") or has(s, "field")) and not _heads_anchor(ann, s, anchors_all, pack)
                    and not (s.kind == "field" and excluded(ann, s))]
    group_cues = cx.cue("group")
    which_cues = cx.cue("which")
    rank_desc, rank_asc = cx.cue("rank_desc"), cx.cue("rank_asc")
    topn = [s for s in spans if s.kind == "topn"]
    distances = [s for s in spans if s.kind == "distance"]
    superlative = bool(rank_desc or rank_asc or topn)
    # 'more than 100 crashes', 'at least 5 pedestrian crashes': a condition on how many records each group has
    counts = [c for c in spans if c.kind == "numcmp" and any(
        c in cx.before(e, 3) and is_event(pack, readings(e, "entity")) for e in entity_spans if readings(e, "entity"))]

    # --- roles of entity words: near (support), group, or target
    near_spans: list[Span] = []
    group_spans: list[Span] = []
    target_spans: list[Span] = []
    for s in entity_spans:
        prev = cx.before(s, 3)
        prev_kinds = kinds(prev)
        after_distance = any(p.kind == "distance" for p in prev)
        ents = readings(s, "entity")
        lines = [e for e in ents if pack.entities[e].geometry == "line"]
        along_only = ("cue", "along") in prev_kinds and ("cue", "near") not in prev_kinds
        if along_only and lines and not distances:
            continue  # 'ice on the road': where the records happened, not a relation to the street features
        after_near = ("cue", "near") in prev_kinds or along_only and bool(lines)
        after_group = any(p in group_cues for p in cx.before(s, 1))
        after_which = any(p in which_cues or p in topn or p in rank_desc or p in rank_asc for p in cx.before(s, 1))
        if (after_distance or after_near) and ents:
            near_spans.append(s)
        elif (after_group and not is_event(pack, ents)) or (after_which and superlative and not is_event(pack, ents)):
            group_spans.append(s)  # ('<areas> by <records> per <n> residents': the records are counted, not grouped by)
        elif ents or readings(s, "field"):
            target_spans.append(s)
    inverse = None if superlative or group_cues or near_spans or counts else _inverse(cx, target_spans, distances)
    if inverse:
        # "<features> that had a <record> within <d>": the features are listed, the records qualify them
        target_spans.remove(inverse[1])
        near_spans.append(inverse[1])
    events = [s for s in target_spans if readings(s, "entity") and is_event(pack, readings(s, "entity"))]
    # '<records> in the <source> data': a source named after the general word is the records meant
    specific = [s for s in events if any(pack.entities[readings(s, "entity")[0]].shares_words_with ==
                                         readings(o, "entity")[0] for o in events if o is not s)]
    target_span = inverse[0] if inverse else next(iter(specific + events), None) or next(
        (s for s in target_spans if readings(s, "entity")), None)
    for s in target_spans:
        if target_span and readings(s, "entity") and readings(s, "entity")[0] in (
                readings(target_span, "entity")[0], pack.entities[readings(target_span, "entity")[0]].shares_words_with):
            continue  # "<records> ... were <value> <records>", "<records> in the <source> data": the same records twice
        if s is not target_span and readings(s, "entity"):
            # a second entity word with no relation cue: a superlative makes it a group ("towns with most crashes"),
            # and so does a condition on the count ("towns with more than 100 crashes")
            if superlative or group_cues or counts:
                group_spans.append(s)
            elif s.start > (target_span.end if target_span else 0) and (
                    distances or not pack.entities[readings(s, "entity")[0]].area):
                near_spans.append(s)  # (an area named in passing, 'with date and town', is no proximity)
    f.target = readings(target_span, "entity")[0] if target_span else ""
    if target_span and not is_event(pack, [f.target]) and pack.entities[f.target].area and (
            cx.cue("epdo") or cx.cue("rate") or any(
                c not in pack.concepts or f.target not in pack.concepts[c].where
                for c in (v for s in spans for k, v in (s.items or [(s.kind, s.value)]) if k == "concept"))):
        # "epdo for the neighbourhoods": areas are what the events are counted by, not what is counted
        group_spans.append(target_span)
        f.target = ""

    # --- time
    time_spans = [s for s in spans if s.kind == "time"]
    # --- predicates from concepts and labels
    pred_spans = [s for s in spans if has(s, "concept") or has(s, "label")]
    support_preds: list[Predicate] = []
    target_preds: list[tuple[Span, Predicate]] = []
    for s in pred_spans:
        p = _predicate(s)
        nxt = [n for n in near_spans + group_spans if n.start >= s.end and n.start - s.end <= 1]
        if nxt and p.concept and any(e in pack.concepts[p.concept].where for e in readings(nxt[0], "entity")):
            support_preds.append(p)
        elif inverse and not _applies(pack, p, readings(target_span, "entity")[0]):
            support_preds.append(p)
        elif p.concept and pack.concepts[p.concept].time:
            ts_conv = pack.convention(pack.concepts[p.concept].time["hours_from"], "hours") or []
            time_spans.append(Span(s.start, s.end, "time", {"hours": ts_conv}, s.text))
        else:
            target_preds.append((s, p))
    time_spans.sort(key=lambda s: s.start)
    if any("hours" in s.value and not s.value.get("vague") for s in time_spans):
        # 'evening (6pm or later)', 'mornings 7-9am': the hours said outright define the vague word
        time_spans = [s for s in time_spans if not s.value.get("vague")]
    used_fields: list[Span] = []
    for s in (s for s in spans if s.kind == "numcmp" and not exists(s, near_spans)):
        # '75 or older' after 'the oldest driver (was)': a condition on the field named just before
        after = [f for f in spans if f.start == s.end and readings(f, "field") and measurable(pack, *readings(f, "field")[0])]
        fields = after or [f for f in entity_spans if readings(f, "field") and f.end <= s.start and s.start - f.end <= 3
                           and measurable(pack, *readings(f, "field")[0])]
        counted = not after and s in counts
        if counted:
            counted_end = next((e.end for e in entity_spans if s in cx.before(e, 3)), s.end)
            f.having.append(Predicate(op=s.value["op"], values=[s.value["n"]],
                                      text=" ".join(ann.tokens[s.start:counted_end])))  # 'more than 100 crashes'

        elif fields:
            used_fields.append(fields[-1])
            ent, fname = compared_field(pack, [r for r in readings(fields[-1], "field") if measurable(pack, *r)],
                                         s.value["op"])
            said = f"{s.text} {fields[-1].text}" if after else f"{fields[-1].text} {s.text}"
            target_preds.append((s, Predicate(field=fname, op=s.value["op"], values=[s.value["n"]], entity=ent,
                                              text=said)))
        else:
            ann.unknown.append(s.text)  # a number compared with nothing MapAsk knows: said, not ignored
    target_preds.sort(key=lambda sp: sp[0].start)
    target_preds = either(cx, target_preds)
    for sp, p in target_preds:
        cue = excluded(ann, sp)
        if cue:
            p.negate, p.text = True, cue(p.text)  # 'excluding rear-ends', 'wet roads don't count'
    # 'average age of ...', 'total population of ...': the sum or mean of a number field, not a count
    for kind in ("sum", "avg"):
        for c in cx.cue(kind):
            fld = next((s for s in spans if 0 <= s.start - c.end <= 2 and any(
                numeric(pack, *r) for r in readings(s, "field"))), None)
            if fld is None:
                continue
            ent, fname = next(r for r in readings(fld, "field") if numeric(pack, *r))
            f.measure = Measure(kind, field=fname)
            used_fields.append(fld)
            if target_span is None or fname not in pack.entities[f.target].fields:
                f.target = ent  # 'total population of towns in X': the records holding the number
    filtered = {(e, fl) for sp in pred_spans for e, fl in pred_fields(pack, _predicate(sp))}
    for s in target_spans:
        # a field named without a value ('<field> breakdown', '<field> for <records> in <place>') asks for its
        # distribution, unless a value of that field is asked for too ('<field> was <value>')
        flds = readings(s, "field")
        if flds and not readings(s, "entity") and s not in used_fields and s not in group_spans \
                and not any(f in filtered for f in flds) and not cx.cue("share") \
                and (not cx.cue("list") or cx.cue("breakdown")):  # 'give me the <field> breakdown'

            group_spans.append(s)

    # --- places
    anchors = [s for s in spans if s.kind == "anchor"]
    scope_spans, anchor_near, support_scope = [], None, []
    for a in anchors:
        ent = pack.entities[a.value["entity"]]
        mods = {i for m in spans if m.kind in ("concept", "label") for i in range(m.start, m.end)}
        qualifies = [n for n in near_spans + group_spans if readings(n, "entity") and 0 <= n.start - a.end <= 2
                     and all(i in mods for i in range(a.end, n.start))]
        if ent.area and qualifies:
            support_scope.append(a)  # "<town> public schools": the place qualifies the schools
            continue
        prev_kinds = kinds(cx.before(a, 3))
        near_cue = ("cue", "near") in prev_kinds or any(p.kind == "distance" for p in cx.before(a, 3))
        along_cue = ("cue", "along") in prev_kinds
        if ent.area and not (near_cue and not ("cue", "in") in prev_kinds):
            scope_spans.append(a)
        elif anchor_near is None and (near_cue or along_cue or not ent.area):
            anchor_near = (a, "along" if (along_cue or ent.geometry == "line") and not near_cue else "within")
        else:
            scope_spans.append(a)

    # --- comparison sides
    ors = [c for c in cx.cue("compare") if c.text == "or"]
    strong = [c for c in cx.cue("compare") if c.text != "or"]
    more_or = ors and (which_cues or words(pack, "compare_or") & set(ann.tokens))
    # 'how have ... changed year to year': a trend, not a comparison of two sides
    compare = bool(strong or (cx.cue("change") and not cx.cue("trend")) or more_or)
    sides: list[Side] = []
    if compare:
        sides = comparison_sides(cx, f, scope_spans, time_spans, target_preds, lambda p: is_place_pred(pack, p))
        if strong and not sides:
            f.unknown.append(strong[0].text)  # 'compare with X' and nothing to compare it with: asked, not dropped

    # --- assemble
    if inverse and time_spans and not pack.entities[readings(target_span, "entity")[0]].time:
        # the listed features have no time: "since 2015" dates the records that qualify them
        tv = TimeSpec()
        for s in time_spans:
            time_from_span(tv, s.value, s.text)
        support_preds.append(Predicate(op="time", values=[{k: v for k, v in tv.__dict__.items() if v and k != "text"}],
                                       text=" ".join(tv.text)))
        time_spans = []
    for s in time_spans:
        cue = excluded(ann, s)
        if cue:
            time_left_out(f, s, cue)
        else:
            time_from_span(f.time, s.value, s.text)
    for a in [a for a in scope_spans if excluded(ann, a)]:
        scope_spans.remove(a)  # a place cannot be left out yet: asked back, never applied the other way round
        f.unknown.append(a.text)
    f.scope = [Place(text=a.text, entity=a.value["entity"], name=a.value["name"], score=a.value["score"],
                     candidates=a.value["others"]) for a in scope_spans]
    if near_spans or anchor_near:
        n = Near(mode="within")
        if anchor_near:
            a, mode = anchor_near
            n.anchor = Place(text=a.text, entity=a.value["entity"], name=a.value["name"], score=a.value["score"],
                             candidates=a.value["others"])
            n.entity, n.mode = a.value["entity"], mode
        elif near_spans:
            n.entity = readings(near_spans[0], "entity")[0]
        if distances:
            n.distance_m = round(distances[0].value["metres"], 3)
            n.distance_text = distances[0].value["text"]
        n.filters = support_preds
        n.scope = [Place(text=a.text, entity=a.value["entity"], name=a.value["name"], score=a.value["score"],
                         candidates=a.value["others"]) for a in support_scope]
        n.quantifier = quantifier(ann, pack, near_spans[0] if near_spans else None, distances)
        if cx.cue("nearest"):
            # 'the nearest signal', 'which school is closest': one; 'nearest schools': the pack's default number
            one = target_span is not None and not plural(pack, target_span)
            n.mode, n.k = "nearest", (topn[0].value["n"] if topn else 1 if one else None)
        f.near = n
    # groups
    for g in group_spans:
        grp = _group(pack, f, g)
        if grp and grp not in f.group_by:
            f.group_by.append(grp)
    for grp in groups_by_label_word(cx, f, group_cues):
        if grp not in f.group_by:
            f.group_by.append(grp)
    sup_group = next((g for g in f.group_by if g.kind == "support"), None)
    if f.near is None and sup_group and distances:
        # "crashes by school within 300 m": the distance belongs to the features grouped by
        f.near = Near(entity=sup_group.key, distance_m=round(distances[0].value["metres"], 3),
                      distance_text=distances[0].value["text"], filters=support_preds)
    for s in spans:
        if s.kind == "timepart" or has(s, "timepart"):
            if any(p in group_cues or p in which_cues or p in topn or p in rank_desc or p in rank_asc
                   for p in cx.before(s, 1)) or (cx.cue("trend") and not f.group_by) \
                    or len(s.text.split()) > 1 or s.text.endswith("ly"):
                g = Group("time", readings(s, "timepart")[0])
                if g not in f.group_by:
                    f.group_by.append(g)
    # measure and intent
    if cx.cue("epdo"):
        f.measure = Measure("epdo")
    if cx.cue("rate") or any(s.kind == "per" for s in spans):
        per = next((s.value["per"] for s in spans if s.kind == "per"), None)
        f.measure = Measure("rate", per=per or pack.convention("population", "per", default=1000),
                            total=bool(cx.cue("statewide")), field="epdo" if cx.cue("epdo") else None)
    if sides:
        f.intent, f.compare = "compare", sides
        if cx.cue("share"):
            f.share_of = [p for _, p in target_preds]
            target_preds = []
    elif cx.cue("share"):
        f.intent = "share"
        start = target_span.end if target_span else 0
        split = next((c.start for c in cx.cue("share_split") if c.start >= start), None)
        cut = split if split is not None else start
        after = [p for s, p in target_preds if s.start >= cut and not is_place_pred(pack, p)]
        f.share_of = after or ([p for _, p in target_preds[-1:]] if not group_spans and split is None else [])
        target_preds = [(s, p) for s, p in target_preds if p not in f.share_of]
        late_time = [s for s in time_spans if s.start >= cut and split is not None] if not f.share_of else []
        if not f.share_of and late_time:
            tv = TimeSpec()
            for s in late_time:
                time_from_span(tv, s.value, s.text)
                f.time.text.remove(s.text)
            for k in ("years", "months", "isodow", "hours", "days_of_month"):
                setattr(f.time, k, [x for x in getattr(f.time, k) if x not in getattr(tv, k)])
            f.share_of = [Predicate(op="time", values=[{k: v for k, v in tv.__dict__.items() if v and k != "text"}],
                                    text=" ".join(tv.text))]
        elif not f.share_of and not f.group_by and f.time.isodow:
            f.share_of = [Predicate(op="time", values=[{"isodow": f.time.isodow}], text="time")]
            f.time.isodow = []
        if not f.share_of and f.near and not f.group_by:
            f.share_of = [Predicate(op="near", text="near")]
        late_places = [a for a in scope_spans if split is not None and a.start >= split]
        if not f.share_of and late_places:
            # "what share of <county> crashes were in <town>": the place is the numerator
            f.share_of = [Predicate(op="place", values=[{"entity": a.value["entity"], "name": a.value["name"]}],
                                    text=a.text) for a in late_places]
            f.scope = [pl for pl in f.scope if pl.text not in {a.text for a in late_places}]
    elif (cx.cue("trend") or any(g.kind == "time" and g.key in ("year", "quarter", "month") for g in f.group_by)) \
            and not superlative:
        f.intent = "trend"
        if not any(g.kind == "time" for g in f.group_by):
            f.group_by.append(Group("time", "year"))
    elif superlative and (f.group_by or f.near):
        f.intent = "rank"
    elif (cx.cue("list") or (target_span and any(w in which_cues for w in cx.before(target_span, 1)))) \
            and not cx.cue("count") and not f.group_by and f.measure.kind == "count":
        # "show ...", and "which schools had ...": the features themselves
        f.intent = "list"
    else:
        f.intent = "count"  # a bare "icy crashes in worcester" asks how many; show/list/map ask for the features
    if f.near and f.near.mode == "nearest" and not f.group_by and not f.compare:
        f.intent = "list"  # the k nearest features, ordered by distance
    if f.intent == "rank":
        said_n = number_before(ann.tokens, group_spans)  # '3 <city> neighbourhoods with the fewest ...'
        limit = topn[0].value["n"] if topn else said_n if said_n else \
            (1 if which_cues and asks_for_one(cx, which_cues, group_spans) else None)
        f.rank = Rank("asc" if rank_asc and not rank_desc else "desc", limit)
    f.filters = [p for _, p in target_preds]
    f.output = ["map", "table"] if f.intent in ("list", "locate") else ["table", "chart"] if f.group_by else ["table"]
    return f


def _place_values(ann: Annotation, pack: Pack) -> list[tuple[Span, Span, Span]]:
    """'worcester county': a name followed by the word of a place field holding that name is a value of that field."""
    from .pack import norm_label
    out = []
    for a in ann.spans:
        if a.kind != "anchor":
            continue
        nxt = next((s for s in ann.spans if s.start == a.end), None)
        if nxt is None:
            continue
        for ename, fname in readings(nxt, "field"):
            f = pack.entities[ename].fields[fname]
            if f.place and any(norm_label(c) == norm_label(a.value["name"]) for c in f.codes):
                label = Span(a.start, nxt.end, "label", (ename, fname, norm_label(a.value["name"])),
                             f"{a.text} {nxt.text}", [("label", (ename, fname, norm_label(a.value["name"])))])
                out.append((a, nxt, label))
                break
    # '<county> county compared to <county>', '<county> and <county> counties': a name linked by 'and'/'vs' to a value
    # of a place field is a value of that field too, when the field has it
    done = {id(a) for a, _, _ in out}
    values = [lab for _, _, lab in out] + [s for s in ann.spans if s.kind == "label"]
    for a in (s for s in ann.spans if s.kind == "anchor" and id(s) not in done):
        for v in values:
            gap = range(a.end, v.start) if a.end <= v.start else range(v.end, a.start)
            if len(gap) > 3 or not all(ann.tokens[i] in words(pack, 'link_words') for i in gap) or not len(gap):
                continue
            hit = next(((e, fl) for e, fl, _ in readings(v, "label") if pack.entities[e].fields[fl].place and any(
                norm_label(c) == norm_label(a.value["name"]) for c in pack.entities[e].fields[fl].codes)), None)
            if hit:
                item = (hit[0], hit[1], norm_label(a.value["name"]))
                out.append((a, a, Span(a.start, a.end, "label", item, a.text, [("label", item)])))
                break
    return out


def _heads_anchor(ann: Annotation, s: Span, anchors: list[Span], pack: Pack) -> bool:
    """'the city of X', 'town of X': an entity word naming the kind of the anchor right after it."""
    ents = readings(s, "entity")
    for a in anchors:
        if a.value["entity"] not in ents:
            continue
        gap = ann.tokens[s.end:a.start]
        if a.start >= s.end and len(gap) <= 2 and all(t in words(pack, "naming_words") for t in gap):
            return True
        if s.start == a.end:  # "<name> neighborhood"
            return True
    return False


def _inverse(cx: Ctx, target_spans: list[Span], distances: list[Span]) -> tuple[Span, Span] | None:
    """(features, records) when features are qualified by records near them: a feature word, a relative word
    ('that had', 'with', 'where'), record words, then a distance or a proximity word after the records."""
    pack, ann = cx.pack, cx.ann
    mods = {i for s in ann.spans if s.kind in ("concept", "label") or has(s, "cue", "share_split")
            for i in range(s.start, s.end)}
    for x in target_spans:
        xe = readings(x, "entity")
        if not xe or is_event(pack, xe) or pack.entities[xe[0]].area:
            continue
        for y in target_spans:
            ye = readings(y, "entity")
            if not ye or y.start <= x.end or not is_event(pack, ye):
                continue
            gap = range(x.end, y.start)
            relative = any(has(c, "cue", "share_split") and x.end <= c.start < y.start for c in ann.spans)
            if not relative or not all(i in mods or ann.tokens[i] in words(pack, 'filler') for i in gap):
                continue
            after = [s for s in ann.spans if y.end <= s.start <= y.end + 3]
            if any(s in distances or has(s, "cue", "near") for s in after):
                return x, y
    return None


def _applies(pack: Pack, p: Predicate, entity: str) -> bool:
    """Whether a concept or label predicate can be said of `entity`'s records."""
    if p.concept:
        c = pack.concepts.get(p.concept)
        return bool(c and entity in c.where)
    return p.entity == entity


def pred_fields(pack: Pack, p: Predicate) -> list[tuple[str, str]]:
    """(entity, field) pairs a concept or label predicate tests."""
    if p.concept:
        c = pack.concepts.get(p.concept)
        out = []
        for ent, w in (c.where.items() if c else []):
            for part in w.get("any", [w]):
                out.append((ent, part.get("field")))
        return out
    return [(p.entity, p.field)]


def _predicate(s: Span) -> Predicate:
    c = readings(s, "concept")
    if c:
        return Predicate(concept=c[0], text=s.text)
    ent, fld, label = readings(s, "label")[0]
    return Predicate(field=fld, op="has", values=[label], entity=ent, text=s.text)


def _group(pack: Pack, f: Frame, s: Span) -> Group | None:
    if has(s, "timepart"):
        return Group("time", readings(s, "timepart")[0])
    fields = readings(s, "field")
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
