"""Rules interpreter: choose a consistent reading of the annotated question and assemble a semantic frame."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from .annotate import Annotation
from .clauses import asked_positions
from .frame import EPDO_FIELD, Frame, Measure, Near, Place, Predicate, Side, TimeSpec
from .groups import groups
from .intent import assemble_intent
from .numbers import split_range
from .pack import Pack, language_for
from .phrasing import (place_of, applies, compared_field, either, is_event, is_place_pred, listed_fields, measurable,
                       no_records, numeric, plural, pred_fields, value_predicate, value_run)
from .qualifiers import excluded, exists, quantifier, time_left_out
from .relation_sides import either_places, near_sides, support_sides
from .sides import comparison_sides
from .spans import Ctx, has, kinds, readings, time_from_span, words
from .tokens import Span
from .word_roles import (source_said_aside, area_grouped, asks_rate, heads_anchor, inverse, named_boundaries, names_records_again,
                         place_values, restatements, value_fields)


@dataclass
class Work:
    """What the stages of one reading share: the spans sorted by the role they play, and the frame being filled."""
    ann: Annotation
    pack: Pack
    cx: Ctx
    f: Frame
    spans: list[Span]
    entity_spans: list[Span]
    topn: list[Span]
    distances: list[Span]
    counts: list[Span]
    near_spans: list[Span] = field(default_factory=list)
    group_spans: list[Span] = field(default_factory=list)
    target_spans: list[Span] = field(default_factory=list)
    inverse: tuple[Span, Span] | None = None
    target_span: Span | None = None
    time_spans: list[Span] = field(default_factory=list)
    support_preds: list[Predicate] = field(default_factory=list)
    support_said: list[tuple[Span, Predicate]] = field(default_factory=list)  # (the conditions on the supports as said)
    target_preds: list[tuple[Span, Predicate]] = field(default_factory=list)
    used_fields: list[Span] = field(default_factory=list)
    scope_spans: list[Span] = field(default_factory=list)
    support_scope: list[Span] = field(default_factory=list)
    anchor_near: tuple[Span, str] | None = None
    sides: list[Side] = field(default_factory=list)

    @property
    def superlative(self) -> bool:
        return bool(self.cx.cue("rank_desc") or self.cx.cue("rank_asc") or self.topn)

    def before_is_rank(self, s: Span) -> bool:
        """The word right before `s` asks which one or ranks ('which <x>', 'top 5 <x>', 'most <x>'), also across
        the records' word ('top 3 <records> <x>')."""
        cx = self.cx
        records = [e for e in self.spans if e.end == s.start and e.kind == "entity" and s.kind == "timepart"]
        return any(p in cx.cue("which") or p in self.topn or p in cx.cue("rank_desc") or p in cx.cue("rank_asc")
                   for x in [s, *records] for p in cx.before(x, 1))


def interpret(ann: Annotation, pack: Pack, question: str = "") -> Frame:
    """Assemble one frame; entity-specific fields are resolved later by the repair layer."""
    w = _work(ann, pack)
    _roles(w)
    _second_entities(w)
    _predicates(w)
    _compared_numbers(w)
    _number_measures(w)
    _places(w)
    _sides(w)
    either_places(w)
    _time_and_scope(w)
    _near(w)
    groups(w)
    assemble_intent(w)
    return w.f


def _work(ann: Annotation, pack: Pack) -> Work:
    """The spans of the question with place values merged in, and the words no span reads left as unknown."""
    f = Frame(source="rules")
    f.unknown = list(ann.unknown)
    ann = replace(ann, spans=named_boundaries(ann, pack))
    spans = ann.spans
    values = place_values(ann, pack)
    spans = [s for s in spans if not any(s is a or s is b for a, b, _ in values)] + [p for _, _, p in values]
    spans += no_records(ann.tokens, spans, pack)
    said_again = restatements(spans, pack, asks_rate(spans))
    spans = [s for s in spans if not any(s is r for r in said_again)]
    read = {i for s in spans + said_again for i in range(s.start, s.end)}
    f.unknown = [u for u in f.unknown if any(t == u and i not in read for i, t in enumerate(ann.tokens))]
    spans.sort(key=lambda s: s.start)
    ann = replace(ann, spans=spans)
    cx = Ctx(ann, pack)
    anchors_all = [s for s in spans if s.kind == "anchor"]
    # ('<place>, the city, not the <field>': a field an exclusion covers is a reading ruled out, not asked for)
    entity_spans = [s for s in spans if (has(s, "entity") or has(s, "field")) and not heads_anchor(ann, s, anchors_all, pack)
                    and not (s.kind == "field" and excluded(ann, s))]
    # 'more than 100 crashes', 'at least 5 pedestrian crashes': a condition on how many records each group has
    counts = [c for c in spans if c.kind == "numcmp" and any(
        c in cx.before(e, 3) and is_event(pack, readings(e, "entity")) for e in entity_spans if readings(e, "entity"))]
    return Work(ann, pack, cx, f, spans, entity_spans, topn=[s for s in spans if s.kind == "topn"],
                distances=[s for s in spans if s.kind == "distance"], counts=counts)


def _roles(w: Work) -> None:
    """The role of each entity word: near (a support the records relate to), group, or target; then the target."""
    cx, pack = w.cx, w.pack
    for s in w.entity_spans:
        prev = cx.before(s, 3)
        prev_kinds = kinds(prev)
        after_distance = any(p.kind == "distance" for p in prev)
        ents = readings(s, "entity")
        lines = [e for e in ents if pack.entities[e].geometry == "line"]
        along_only = ("cue", "along") in prev_kinds and ("cue", "near") not in prev_kinds
        if along_only and lines and not w.distances:
            continue  # 'ice on the road': where the records happened, not a relation to the street features
        after_near = ("cue", "near") in prev_kinds or along_only and bool(lines)
        after_group = any(p in cx.cue("group") for p in cx.before(s, 1))
        if _modifies_area(w, s):
            continue  # ('the city's neighbourhoods'): a place word before an area word only says whose areas
        if (after_distance or after_near) and names_records_again(w.ann, pack, s, w.target_spans):
            continue
        if area_grouped(cx, s, w.distances):
            w.group_spans.append(s)  # ('<features> within each <area>'): contained, not near
        elif (after_distance or after_near) and ents and not (
                is_event(pack, ents) and any(a.kind == "anchor" and not pack.entities[a.value["entity"]].area
                                             for a in w.spans)):
            w.near_spans.append(s)  # (records named after '<d> of each,' with a feature named are the source said)
        elif (after_group and not is_event(pack, ents)) or (w.before_is_rank(s) and w.superlative
                                                             and not is_event(pack, ents)):
            w.group_spans.append(s)  # ('<areas> by <records> per <n> residents': the records are counted, not grouped by)
        elif ents or readings(s, "field"):
            w.target_spans.append(s)
    _counted_after_rank(w)
    w.inverse = None if w.superlative or cx.cue("group") or w.near_spans or w.counts else \
        inverse(cx, w.target_spans, w.distances)
    if w.inverse:
        # "<features> that had a <record> within <d>": the features are listed, the records qualify them
        w.target_spans.remove(w.inverse[1])
        w.near_spans.append(w.inverse[1])
    events = [s for s in w.target_spans if readings(s, "entity") and is_event(pack, readings(s, "entity"))]
    # '<records> in the <source> data': a source named after the general word is the records meant
    specific = [s for s in events if any(pack.entities[readings(s, "entity")[0]].shares_words_with ==
                                         readings(o, "entity")[0] for o in events if o is not s)]
    renamed = source_said_aside(w.ann, pack, events) if not specific else None
    if renamed is not None:  # (the general word said in the question stands for the source said before)
        w.target_spans[w.target_spans.index(events[0])] = events[0] = renamed
    w.target_span = w.inverse[0] if w.inverse else next(iter(specific + events), None) or next(
        (s for s in w.target_spans if readings(s, "entity")), None)


def _modifies_area(w: Work, s: Span) -> bool:
    """Whether a place word stands right before a word for an area layer (the head of the phrase)."""
    # (past how many there are: 'the city's 13 <areas>')
    gap = 1 if s.end < len(w.ann.tokens) and w.ann.tokens[s.end].isdigit() else 0
    head = next((x for x in w.entity_spans if x.start == s.end + gap), None)
    areas = lambda x: [e for e in readings(x, "entity") if w.pack.entities[e].area]
    places = [f for f in readings(s, "field") if w.pack.entities[f[0]].fields[f[1]].place]
    return head is not None and bool(areas(head)) and bool(places or areas(s))


def _counted_after_rank(w: Work) -> None:
    """'<places> with the most <features>': with no records to count, the features right after the rank word
    are what is counted, and the places named before them what they are grouped by."""
    pack, cx = w.pack, w.cx
    if any(is_event(pack, readings(t, "entity")) for t in w.target_spans if readings(t, "entity")):
        return
    ranks = cx.cue("rank_desc") + cx.cue("rank_asc")
    for s in [s for s in w.group_spans if readings(s, "entity") and any(p in ranks for p in cx.before(s, 1))]:
        if is_event(pack, readings(s, "entity")) or pack.entities[readings(s, "entity")[0]].area:
            continue
        areas = [a for a in w.target_spans + w.group_spans if a.start < s.start and a is not s
                 and any(pack.entities[e].area for e in readings(a, "entity"))]
        if areas:
            w.group_spans.remove(s)
            w.target_spans.append(s)
            for a in areas:
                if a in w.target_spans:
                    w.target_spans.remove(a)
                    w.group_spans.append(a)
            return


def _second_entities(w: Work) -> None:
    """Entity words besides the target: the same records named twice, a group, or a support the records are near."""
    pack, f, target_span = w.pack, w.f, w.target_span
    for s in w.target_spans:
        if target_span and readings(s, "entity") and readings(s, "entity")[0] in (
                readings(target_span, "entity")[0], pack.entities[readings(target_span, "entity")[0]].shares_words_with):
            continue  # "<records> ... were <value> <records>", "<records> in the <source> data": the same records twice
        if s is not target_span and readings(s, "entity") and _field_of_values_before(w, s):
            continue  # ('<value> or <value> covered roads'): the field the values are of, no layer
        if s is not target_span and readings(s, "entity"):
            # a second entity word with no relation cue: a superlative makes it a group ("towns with most crashes"),
            # and so does a condition on the count ("towns with more than 100 crashes")
            if w.superlative or w.cx.cue("group") or w.counts:
                w.group_spans.append(s)
            elif not w.distances and all(pack.entities[e].geometry == "line" for e in readings(s, "entity")):
                continue  # '<records> where the <street> was dark': where they happened, no relation was said
            elif s.start > (target_span.end if target_span else 0) and (
                    w.distances or not pack.entities[readings(s, "entity")[0]].area):
                w.near_spans.append(s)  # (an area named in passing, 'with date and town', is no proximity)
    f.target = readings(target_span, "entity")[0] if target_span else ""
    if target_span and not is_event(pack, [f.target]) and pack.entities[f.target].area and (
            w.cx.cue("epdo") or w.cx.cue("rate") or any(
                c not in pack.concepts or f.target not in pack.concepts[c].where
                for c in (v for s in w.spans for k, v in (s.items or [(s.kind, s.value)]) if k == "concept"))):
        # "epdo for the neighbourhoods": areas are what the events are counted by, not what is counted
        w.group_spans.append(target_span)
        f.target = ""


def _field_of_values_before(w: Work, s: Span) -> bool:
    """Whether a word that also names a layer names the field of the values said just before it, or of those
    said just after it and a joining word ('the <field> was <value>')."""
    fields = set(readings(s, "field"))
    joined = {s.end + 1} if s.end < len(w.ann.tokens) and any(has(c, "cue", "share_split") and c.start == s.end
                                                               for c in w.spans) else set()
    return bool(fields) and any((0 <= s.start - v.end <= 1 or v.start in joined) and value_fields(w.pack, v) & fields
                                for v in w.spans if v.kind in ("label", "concept"))


def _named_fields(w: Work, s: Span, joins: set[str]) -> set:
    """Fields named just before a value ('where the <field> was <value>'), or just after the list it closes
    ('<value>, <value> or <value> <field>')."""
    run = value_run(w.spans, w.ann.tokens, s, joins)
    start, end = min(v.start for v in run), max(v.end for v in run)  # ('<field> ... <value> or <value>': of both)
    near = {r for x in w.spans if 0 <= start - x.end <= 4 or 0 <= x.start - end <= 1 for r in readings(x, "field")}
    # (a label of many fields, 'unknown', named by none beside it: of the field the question groups by, if one)
    return near or {r for x in w.group_spans for r in readings(x, "field")
                    if (r[0], r[1]) in {(lb[0], lb[1]) for lb in readings(s, "label")}}


def _predicates(w: Work) -> None:
    """Concepts and labels: conditions on the target, on the supports, or hours a concept stands for."""
    pack = w.pack
    w.time_spans = [s for s in w.spans if s.kind == "time"]
    values = {i for v in w.spans if has(v, "concept") or has(v, "label") for i in range(v.start, v.end)}
    joins = words(pack, "either_words") | words(pack, "list_joins")
    splits = words(pack, "split_words")  # ('public vs private <features>': both qualify the features)
    support: list[tuple[Span, Predicate]] = []
    for s in (s for s in w.spans if has(s, "concept") or has(s, "label")):
        p = value_predicate(s, _named_fields(w, s, joins), listed_fields(pack, w.spans, w.ann.tokens, s, joins), pack)
        if p.concept and not _asked(w.ann, s) and w.f.target and not _sources(w) & set(pack.concepts[p.concept].where):
            continue  # ('for the bike network slide, how many <facilities> ...'): context, not a condition
        # ('a <value> or <value> <feature>': values joined by 'or' before the feature word all qualify it)
        nxt = [n for n in w.near_spans + w.group_spans if n.start >= s.end and (n.start - s.end <= 1 or all(
            i in values or w.ann.tokens[i] in joins | splits for i in range(s.end, n.start)))]
        # ('within <d> of any <feature>, <value> or <value>'): values right after the feature word, of it alone
        run_start = min(v.start for v in value_run(w.spans, w.ann.tokens, s, joins))
        # (or left out just after it: '<value> <feature> (not the <value> ones)')
        gap = 3 if excluded(w.ann, s) else 1
        before = [n for n in w.near_spans if 0 <= run_start - n.end <= gap and w.target_span is not None and
                  p.concept and not applies(pack, p, readings(w.target_span, "entity")[0])]
        if (nxt or before) and p.concept and any(e in pack.concepts[p.concept].where
                                                 for e in readings((nxt or before)[0], "entity")):
            support.append((s, p))
        elif w.inverse and not applies(pack, p, readings(w.target_span, "entity")[0]):
            w.support_preds.append(p)
        elif p.concept and pack.concepts[p.concept].time:
            ts_conv = pack.convention(pack.concepts[p.concept].time["hours_from"], "hours") or []
            w.time_spans.append(Span(s.start, s.end, "time", {"hours": ts_conv, "vague": True}, s.text))
        else:
            w.target_preds.append((s, p))
    for s in (s for s in w.spans if s.kind == "area_shape"):  # ('inside the <town> boundary'): by where they lie
        w.target_preds.append((s, Predicate(op="in_area", values=[dict(s.value)], text=s.text)))
    for s in (s for s in w.spans if s.kind == "blank"):  # ('a blank <field>', 'no <field> filled in')
        ent, fld, blank = s.value
        w.target_preds.append((s, Predicate(field=fld, op="blank", entity=ent, negate=not blank, text=s.text)))
    for s in w.cx.cue("located") + w.cx.cue("not_located"):  # ('geocoded <records>', '<records> with no location')
        w.target_preds.append((s, Predicate(op="located", negate=s in w.cx.cue("not_located"), text=s.text)))
    for sp, p in support:  # ('<features>, not the <value> ones'): left out of the features
        cue = excluded(w.ann, sp)
        if cue:
            p.negate, p.text = not p.negate, cue(p.text)
    w.support_said = either(w.cx, support)
    w.support_preds += [p for _, p in w.support_said]
    w.time_spans.sort(key=lambda s: s.start)
    if any("hours" in s.value and not s.value.get("vague") for s in w.time_spans):
        # 'evening (6pm or later)', 'mornings 7-9am': the hours said outright define the vague word
        w.time_spans = [s for s in w.time_spans if not s.value.get("vague")]
    if any("months" in s.value and "season" not in s.value for s in w.time_spans) and not any(
            c.text != "or" for c in w.cx.cue("compare")):
        # ('winter riding ... November to February'): the months said outright define the season
        w.time_spans = [s for s in w.time_spans if "season" not in s.value]


def _compared_numbers(w: Work) -> None:
    """A number compared with something: a condition on the count, on a number field, or a word left over."""
    pack, f, ann = w.pack, w.f, w.ann
    for s in (s for s in w.spans if s.kind == "numcmp" and not exists(s, w.near_spans)):
        # '75 or older' after 'the oldest driver (was)': a condition on the field named just before
        after = [x for x in w.spans if x.start == s.end and readings(x, "field") and measurable(pack, *readings(x, "field")[0])]
        fields = after or [x for x in w.entity_spans if readings(x, "field") and x.end <= s.start and s.start - x.end <= 5
                           and measurable(pack, *readings(x, "field")[0])]
        if not after and s in w.counts:
            counted_end = next((e.end for e in w.entity_spans if s in w.cx.before(e, 3)), s.end)
            f.having += [Predicate(op=op, values=[n], text=" ".join(ann.tokens[s.start:counted_end]))
                         for op, n in split_range(s.value)]  # 'more than 100 crashes'
        elif fields:
            w.used_fields.append(fields[-1])
            _defined_by_numbers(w, s)
            said = f"{s.text} {fields[-1].text}" if after else f"{fields[-1].text} {s.text}"
            for op, n in split_range(s.value):
                ent, fname = compared_field(pack, [r for r in readings(fields[-1], "field") if measurable(pack, *r)], op)
                w.target_preds.append((s, Predicate(field=fname, op=op, values=[n], entity=ent, text=said)))
        else:
            ann.unknown.append(s.text)  # a number compared with nothing MapAsk knows: said, not ignored
    w.target_preds.sort(key=lambda sp: sp[0].start)
    for sp, p in w.target_preds:
        cue = excluded(ann, sp)
        if cue:
            p.negate, p.text = not p.negate, cue(p.text)  # 'excluding rear-ends', 'wet roads don't count'
    if not (_more_or(w) and words(w.pack, "compare_or") & set(ann.tokens)):
        w.target_preds = either(w.cx, w.target_preds)  # (but 'were there more A or B': two sides, not one condition)


def _defined_by_numbers(w: Work, s: Span) -> None:
    """('a teen, aged 17 to 19'): the numbers said right after a concept define it: the concept's own labels give
    way to them."""
    w.target_preds = [(x, p) for x, p in w.target_preds if not (
        p.concept and x.kind == "concept" and 0 <= s.start - x.end <= 1 and not excluded(w.ann, x))]


def _number_measures(w: Work) -> None:
    """'average age of ...', 'total population of ...': the sum or mean of a number field; a field named alone
    asks for its distribution."""
    pack, f, cx = w.pack, w.f, w.cx
    for c in cx.cue("avg"):
        if any(0 <= e.start - c.end <= 1 for e in cx.cue("epdo")):
            f.measure = Measure("avg", field=EPDO_FIELD)  # 'the mean EPDO per <record>': the weight per record
    units = set(language_for(pack).get("units", {}))
    # ('how many lane feet ...'): how many of a number field measured in a unit of length is its total
    counted = [c for c in cx.cue("count") if any(0 <= s.start - c.end <= 1 and any(
        numeric(pack, *r) and pack.entities[r[0]].fields[r[1]].unit in units for r in readings(s, "field")) for s in w.spans)]
    for kind in ("sum", "avg"):
        for c in cx.cue(kind) + (counted if kind == "sum" else []):
            fld = next((s for s in w.spans if 0 <= s.start - c.end <= 2 and any(
                numeric(pack, *r) for r in readings(s, "field"))), None)
            if fld is None:
                continue
            ent, fname = next(r for r in readings(fld, "field") if numeric(pack, *r))
            f.measure = Measure(kind, field=fname)
            w.used_fields.append(fld)
            if w.target_span is None or fname not in pack.entities[f.target].fields:
                f.target = ent  # 'total population of towns in X': the records holding the number
    filtered = {(e, fl) for sp in w.spans if has(sp, "concept") or has(sp, "label")
                for e, fl in pred_fields(pack, value_predicate(sp))}
    for s in w.target_spans:
        # a field named without a value ('<field> breakdown', '<field> for <records> in <place>') asks for its
        # distribution, unless a value of that field is asked for too ('<field> was <value>')
        flds = readings(s, "field")
        if flds and w.time_spans and not any(0 <= s.start - g.end <= 1 for g in cx.cue("group")) and all(pack.entities[e].fields[fl].kind in ("date", "timestamp", "time")
                                         for e, fl in flds if e in pack.entities and fl in pack.entities[e].fields):
            continue  # ('with a crash date between <date> and <date>, both dates inclusive'): the time's own field
        if flds and not readings(s, "entity") and s not in w.used_fields and s not in w.group_spans \
                and not any(x in filtered for x in flds) and not cx.cue("share") \
                and (not cx.cue("list") or cx.cue("breakdown")):  # 'give me the <field> breakdown'
            w.group_spans.append(s)


def _places(w: Work) -> None:
    """Each named place: the scope of the records, a place qualifying the supports, or the one feature they are near."""
    pack, cx = w.pack, w.cx
    mods = {i for m in w.spans if m.kind in ("concept", "label") for i in range(m.start, m.end)}
    for a in (s for s in w.spans if s.kind == "anchor"):
        ent = pack.entities[a.value["entity"]]
        qualifies = [n for n in w.near_spans + w.group_spans if readings(n, "entity") and 0 <= n.start - a.end <= 2
                     and all(i in mods for i in range(a.end, n.start))]
        if ent.area and qualifies:
            w.support_scope.append(a)  # "<town> public schools": the place qualifies the schools
            continue
        prev_kinds = kinds(cx.before(a, 3))
        near_cue = ("cue", "near") in prev_kinds or any(p.kind == "distance" for p in cx.before(a, 3))
        along_cue = ("cue", "along") in prev_kinds
        if ent.area and not (near_cue and not ("cue", "in") in prev_kinds):
            w.scope_spans.append(a)
        elif w.anchor_near is None and (near_cue or along_cue or not ent.area):
            w.anchor_near = (a, "along" if (along_cue or ent.geometry == "line") and not near_cue else "within")
        else:
            w.scope_spans.append(a)


def _more_or(w: Work) -> bool:
    """'which had more, A or B': an 'or' that compares ("what share ... A or B" asks for the share of either)."""
    cx = w.cx
    return bool([c for c in cx.cue("compare") if c.text == "or"]) and bool(
        cx.cue("which") and not cx.cue("share") or words(w.pack, "compare_or") & set(w.ann.tokens))


def _said_of_each(w: Work) -> bool:
    """Whether the question asks of each thing named in turn ('within <d> of each', 'each of <A> and <B>')."""
    toks = w.ann.tokens
    return any(toks[i:i + len(p.split())] == p.split() for p in words(w.pack, "each_of") for i in range(len(toks)))


def _sides(w: Work) -> None:
    """The sides of a comparison, when the question compares."""
    cx, pack = w.cx, w.pack
    strong = [c for c in cx.cue("compare") if c.text != "or"]
    if (strong or _more_or(w)) and (near_sides(w) or support_sides(w)):
        return  # ('were there more <records> within <d> of <feature> or of <feature>?')
    if w.distances and _said_of_each(w) and near_sides(w):
        return  # ('<records> within <d> of each, <feature> or <feature>'): one side per feature
    # 'how have ... changed year to year': a trend, not a comparison of two sides
    if strong or (cx.cue("change") and not cx.cue("trend")) or _more_or(w):
        w.sides = comparison_sides(cx, w.f, w.scope_spans, w.time_spans, w.target_preds,
                                   lambda p: is_place_pred(pack, p))
        if strong and not w.sides:
            w.f.unknown.append(strong[0].text)  # 'compare with X' and nothing to compare it with: asked, not dropped


def _time_and_scope(w: Work) -> None:
    """The time said and the places in scope, onto the frame."""
    f, pack = w.f, w.pack
    if w.inverse and w.time_spans and not pack.entities[readings(w.target_span, "entity")[0]].time:
        # the listed features have no time: "since 2015" dates the records that qualify them
        tv = TimeSpec()
        for s in w.time_spans:
            time_from_span(tv, s.value, s.text)
        w.support_preds.append(Predicate(op="time", values=[{k: v for k, v in tv.__dict__.items() if v and k != "text"}],
                                         text=" ".join(tv.text)))
        w.time_spans = []
    for s in sorted(w.time_spans, key=lambda s: bool(excluded(w.ann, s))):  # (what is left out, from what is kept)
        cue = excluded(w.ann, s)
        if cue:
            ent = pack.entities.get(f.target or "")
            span = ent.years() if ent is not None else None
            if f.time.date_from or f.time.date_to:  # (the source is chosen later: any the range may be of)
                spans = [e.years() for e in pack.entities.values() if e.years()]
                span = (min(a for a, _ in spans), max(b for _, b in spans)) if spans else span
            time_left_out(f, s, cue, span)
        else:
            time_from_span(f.time, s.value, s.text)
    for a in [a for a in w.scope_spans if excluded(w.ann, a)]:
        # 'not counting <place>': the records outside that place; the same place kept and left out is asked back
        w.scope_spans.remove(a)
        if any((k.value["entity"], k.value["name"]) == (a.value["entity"], a.value["name"]) for k in w.scope_spans):
            f.unknown.append(a.text)
            continue
        w.target_preds.append((a, Predicate(op="place", values=[{"entity": a.value["entity"], "name": a.value["name"]}],
                                            text=excluded(w.ann, a)(a.text), negate=True)))
    # (the same place said twice, by its name and by another it is known by, is one place)
    f.scope = list({(a.value["entity"], a.value["name"]): place_of(a, w.pack) for a in w.scope_spans}.values())


def _sources(w: Work) -> set[str]:
    """The sources the records may still come from: the one named by its own name ('the police crash reports'),
    else the target and the sources sharing its words."""
    if w.target_span is not None and readings(w.target_span, "entity") == [w.f.target] and \
            w.pack.entities[w.f.target].shares_words_with:
        return {w.f.target}
    return _family(w.pack, w.f.target)


def _family(pack: Pack, entity: str) -> set[str]:
    """An entity and the sources that share its words (the records a source choice may still pick)."""
    own = pack.entities[entity].shares_words_with
    return {entity, *([own] if own else []), *(e.name for e in pack.entities.values() if e.shares_words_with == entity)}


def _asked(ann: Annotation, s: Span) -> bool:
    """Whether a span lies in a clause that asks (not a purpose or a statement around the question)."""
    asked = asked_positions(ann.clauses)
    return asked is None or s.start in asked


def _near(w: Work) -> None:
    """The relation to supports or to one named feature: distance, filters, quantifier, nearest."""
    if not (w.near_spans or w.anchor_near):
        return
    n = Near(mode="within")
    if w.anchor_near:
        a, mode = w.anchor_near
        n.anchor = place_of(a, w.pack)
        n.entity, n.mode = a.value["entity"], mode
    elif w.near_spans:
        n.entity = readings(w.near_spans[0], "entity")[0]
    if w.distances:
        n.distance_m = round(w.distances[0].value["metres"], 3)
        n.distance_text = w.distances[0].value["text"]
    n.filters = w.support_preds
    n.scope = [place_of(a, w.pack) for a in w.support_scope]
    n.quantifier = quantifier(w.ann, w.pack, w.near_spans[0] if w.near_spans else None, w.distances, w.f.target)
    if w.cx.cue("nearest"):
        # 'the nearest signal', 'which school is closest': one; 'nearest schools': the pack's default number
        one = w.target_span is not None and not plural(w.pack, w.target_span)
        n.mode, n.k = "nearest", (w.topn[0].value["n"] if w.topn else 1 if one else None)
    w.f.near = n
