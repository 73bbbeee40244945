"""Rules interpreter: choose a consistent reading of the annotated question and assemble a semantic frame."""
from __future__ import annotations

from dataclasses import dataclass

from .annotate import Annotation
from .frame import Frame, Group, Measure, Near, Place, Predicate, Rank, Side, TimeSpec
from .pack import Pack
from .timeparse import Span

FILLER = {"the", "a", "an", "any", "all", "of", "to", "each", "every", "public", "private", "nearby", "from"}


def readings(span: Span, kind: str) -> list:
    return [v for k, v in span.items if k == kind] if span.items else ([span.value] if span.kind == kind else [])


def kinds(spans: list[Span]) -> set[tuple[str, str]]:
    """(kind, value) readings of spans, for the string-valued ones (cues, entities)."""
    return {(k, v) for p in spans for k, v in (p.items or [(p.kind, p.value)]) if isinstance(v, str)}


def has(span: Span, kind: str, value=None) -> bool:
    return any(k == kind and (value is None or v == value) for k, v in (span.items or [(span.kind, span.value)]))


@dataclass
class Ctx:
    ann: Annotation
    pack: Pack

    def cue(self, name: str) -> list[Span]:
        return [s for s in self.ann.spans if has(s, "cue", name)]

    def before(self, span: Span, window: int = 3) -> list[Span]:
        """Spans ending at most `window` filler tokens before `span` (modifiers such as 'public' or a place pass)."""
        mods = {i for s in self.ann.spans if s.kind in ("concept", "label", "anchor") for i in range(s.start, s.end)}
        out = []
        for s in self.ann.spans:
            if s.end <= span.start:
                gap = range(s.end, span.start)
                plain = [i for i in gap if i not in mods]
                if len(plain) <= window and all(self.ann.tokens[i] in FILLER or self.ann.tokens[i] in
                                                ("within", "of", "near", "around") for i in plain):
                    out.append(s)
        return out

    def just_before(self, span: Span) -> Span | None:
        cands = [s for s in self.before(span, 2)]
        return cands[-1] if cands else None


def _time_from_span(ts: TimeSpec, v: dict, text: str) -> None:
    ts.text.append(text)
    if "years" in v:
        ts.years += [y for y in v["years"] if y not in ts.years]
    if "months" in v:
        ts.months += [m for m in v["months"] if m not in ts.months]
    if "isodow" in v:
        ts.isodow += [d for d in v["isodow"] if d not in ts.isodow]
    if "hours" in v:
        ts.hours += [h for h in v["hours"] if h not in ts.hours]
    if "year_range" in v:
        a, b = v["year_range"]
        ts.date_from, ts.date_to = f"{a}-01-01", f"{b}-12-31"
    if "year_from" in v:
        ts.date_from = f"{v['year_from']}-01-01"
    if "year_to" in v:
        ts.date_to = f"{v['year_to']}-12-31"
    if v.get("last_n_years"):
        ts.last_n_years = v["last_n_years"]
    if v.get("latest_year"):
        ts.latest_year = True


def _side_label(span: Span) -> str:
    if span.kind == "anchor":
        return span.value["name"].strip()
    return span.text.removeprefix("in ").removeprefix("during ").removeprefix("on ").strip()


def interpret(ann: Annotation, pack: Pack, question: str = "") -> Frame:
    """Assemble one frame; entity-specific fields are resolved later by the repair layer."""
    cx = Ctx(ann, pack)
    f = Frame(source="rules")
    f.unknown = list(ann.unknown)
    spans = ann.spans
    entity_spans = [s for s in spans if has(s, "entity") or has(s, "field")]
    group_cues = cx.cue("group")
    which_cues = cx.cue("which")
    rank_desc, rank_asc = cx.cue("rank_desc"), cx.cue("rank_asc")
    topn = [s for s in spans if s.kind == "topn"]
    distances = [s for s in spans if s.kind == "distance"]
    superlative = bool(rank_desc or rank_asc or topn)

    # --- roles of entity words: near (support), group, or target
    near_spans: list[Span] = []
    group_spans: list[Span] = []
    target_spans: list[Span] = []
    for s in entity_spans:
        prev = cx.before(s, 3)
        prev_kinds = kinds(prev)
        after_distance = any(p.kind == "distance" for p in prev)
        after_near = ("cue", "near") in prev_kinds or ("cue", "along") in prev_kinds and has(s, "entity", "road")
        after_group = any(p in group_cues for p in cx.before(s, 1))
        after_which = any(p in which_cues or p in topn or p in rank_desc or p in rank_asc for p in cx.before(s, 1))
        ents = readings(s, "entity")
        if (after_distance or after_near) and ents and s is not entity_spans[0]:
            near_spans.append(s)
        elif after_group or (after_which and superlative and not _is_event(pack, ents)):
            group_spans.append(s)
        elif ents or readings(s, "field"):
            target_spans.append(s)
    target_span = next((s for s in target_spans if readings(s, "entity") and _is_event(pack, readings(s, "entity"))),
                       None) or next((s for s in target_spans if readings(s, "entity")), None)
    for s in target_spans:
        if s is not target_span and readings(s, "entity"):
            # a second entity word with no relation cue: a superlative makes it a group ("towns with most crashes")
            if superlative or group_cues:
                group_spans.append(s)
            elif s.start > (target_span.end if target_span else 0):
                near_spans.append(s)
    f.target = readings(target_span, "entity")[0] if target_span else ""

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
        elif p.concept and pack.concepts[p.concept].time:
            ts_conv = pack.convention(pack.concepts[p.concept].time["hours_from"], "hours") or []
            time_spans.append(Span(s.start, s.end, "time", {"hours": ts_conv}, s.text))
        else:
            target_preds.append((s, p))
    time_spans.sort(key=lambda s: s.start)

    # --- places
    anchors = [s for s in spans if s.kind == "anchor"]
    scope_spans, anchor_near, support_scope = [], None, []
    for a in anchors:
        ent = pack.entities[a.value["entity"]]
        qualifies = [n for n in near_spans + group_spans if 0 <= n.start - a.end <= 2]
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
    more_or = ors and (which_cues or {"more", "fewer", "less"} & set(ann.tokens))
    compare = bool(strong or cx.cue("change") or more_or)
    sides: list[Side] = []
    if compare:
        sides = _sides(cx, f, scope_spans, time_spans, target_preds)

    # --- assemble
    for s in time_spans:
        _time_from_span(f.time, s.value, s.text)
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
        if cx.cue("nearest") and topn:
            n.mode, n.k = "nearest", topn[0].value["n"]
        f.near = n
    # groups
    for g in group_spans:
        grp = _group(pack, f, g)
        if grp and grp not in f.group_by:
            f.group_by.append(grp)
    for s in spans:
        if s.kind == "timepart" or has(s, "timepart"):
            if any(p in group_cues for p in cx.before(s, 1)) or (cx.cue("trend") and not f.group_by) \
                    or s.text.split()[0] in ("by", "per", "each", "every") \
                    or any(p in which_cues for p in cx.before(s, 1)):
                g = Group("time", readings(s, "timepart")[0])
                if g not in f.group_by:
                    f.group_by.append(g)
    # measure and intent
    if cx.cue("epdo"):
        f.measure = Measure("epdo")
    if cx.cue("rate") or any(s.kind == "per" for s in spans):
        per = next((s.value["per"] for s in spans if s.kind == "per"), None)
        f.measure = Measure("rate", per=per or pack.convention("population", "per", default=1000))
    if sides:
        f.intent, f.compare = "compare", sides
    elif cx.cue("share"):
        f.intent = "share"
        after = [p for s, p in target_preds if target_span is None or s.start > target_span.start]
        f.share_of = after or [p for _, p in target_preds[-1:]]
        target_preds = [(s, p) for s, p in target_preds if p not in f.share_of]
        if not f.share_of and not f.group_by and f.time.isodow:
            f.share_of = [Predicate(op="time", values=[{"isodow": f.time.isodow}], text="time")]
            f.time.isodow = []
    elif cx.cue("trend") and (f.group_by or not superlative):
        f.intent = "trend"
        if not any(g.kind == "time" for g in f.group_by):
            f.group_by.append(Group("time", "year"))
    elif superlative and (f.group_by or f.near):
        f.intent = "rank"
    elif cx.cue("list") and not cx.cue("count") and not f.group_by and f.measure.kind == "count":
        f.intent = "list"
    else:
        f.intent = "count"  # a bare "icy crashes in worcester" asks how many; show/list/map ask for the features
    if f.intent == "rank":
        limit = topn[0].value["n"] if topn else (1 if which_cues and not _plural_group(cx, group_spans) else None)
        f.rank = Rank("asc" if rank_asc and not rank_desc else "desc", limit)
    f.filters = [p for _, p in target_preds]
    f.output = ["map", "table"] if f.intent in ("list", "locate") else ["table", "chart"] if f.group_by else ["table"]
    return f


def _is_event(pack: Pack, ents: list[str]) -> bool:
    """Entities whose rows are events (have time), i.e. what questions count."""
    return any(pack.entities[e].time for e in ents)


def _plural_group(cx: Ctx, group_spans: list[Span]) -> bool:
    return any(s.text.endswith("s") and not s.text.endswith("ss") for s in group_spans)


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


def _sides(cx: Ctx, f: Frame, scope_spans: list, time_spans: list, target_preds: list) -> list[Side]:
    """Two or more items of one kind joined by a comparison become sides, each with its own predicate."""
    years = [s for s in time_spans if "years" in s.value and "months" not in s.value]
    ranges = [s for s in time_spans if "year_range" in s.value]
    dows = [s for s in time_spans if "isodow" in s.value]
    months = [s for s in time_spans if "months" in s.value]
    concepts = [(s, p) for s, p in target_preds]
    sides: list[Side] = []
    if len(scope_spans) >= 2:
        for a in list(scope_spans):
            sides.append(Side(label=_side_label(a), scope=[Place(text=a.text, entity=a.value["entity"],
                                                               name=a.value["name"], score=a.value["score"])]))
        scope_spans.clear()
    elif len(years) >= 2 or (ranges and cx.cue("change") and len(years) == 0):
        items = years if len(years) >= 2 else []
        if not items:
            a, b = ranges[0].value["year_range"]
            for y in (a, b):
                sides.append(Side(label=str(y), time=TimeSpec(years=[y])))
            time_spans.remove(ranges[0])
        for s in items:
            sides.append(Side(label=str(s.value["years"][0]), time=TimeSpec(years=list(s.value["years"]))))
            time_spans.remove(s)
    elif len(concepts) >= 2:
        for s, p in concepts:
            sides.append(Side(label=s.text, filters=[p]))
        target_preds.clear()
    elif len(dows) >= 2:
        for s in dows:
            sides.append(Side(label=s.value.get("label") or s.text, time=TimeSpec(isodow=list(s.value["isodow"]))))
            time_spans.remove(s)
    elif len(months) >= 2:
        for s in months:
            sides.append(Side(label=s.value.get("season") or s.text, time=TimeSpec(months=list(s.value["months"]))))
            time_spans.remove(s)
    elif len(concepts) == 1 and (dows or scope_spans or years):
        pass
    return sides if len(sides) >= 2 else []
