"""How names and feature words relate in a question: a name that is a value of a place field ('worcester
county'), a kind word heading a name ('the city of X'), features qualified by records near them."""
from __future__ import annotations

from .annotate import Annotation
from .pack import Pack
from .phrase_rules import rule_files
from .phrasing import is_event
from .spans import Ctx, has, readings, words
from .tokens import Span


def place_values(ann: Annotation, pack: Pack) -> list[tuple[Span, Span, Span]]:
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


def heads_anchor(ann: Annotation, s: Span, anchors: list[Span], pack: Pack) -> bool:
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


def inverse(cx: Ctx, target_spans: list[Span], distances: list[Span]) -> tuple[Span, Span] | None:
    """(features, records) when features are qualified by records near them: a feature word, a relative word
    ('that had', 'with', 'where'), record words, then a distance or a proximity word after the records."""
    pack, ann = cx.pack, cx.ann
    # ('<features> in <place> with a <record> within <d>': a place of the features may stand between them)
    mods = {i for s in ann.spans if s.kind in ("concept", "label", "anchor") or has(s, "cue", "share_split")
            or has(s, "cue", "in") for i in range(s.start, s.end)}
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


def named_boundaries(ann: Annotation, pack: Pack) -> list[Span]:
    """'the <town> city boundary': a town named right before the word of an area layer that covers only that town
    is that layer's polygon (located by where the records lie, not by their town field)."""
    from .pack import norm_label
    out = []
    for s in ann.spans:
        if s.kind == "anchor":
            nxt = next((e for e in ann.spans if e.start == s.end and e.kind == "entity"), None)
            area = pack.entities.get(nxt.value) if nxt is not None and isinstance(nxt.value, str) else None
            if area is not None and area.area and not area.names and \
                    norm_label(str(area.coverage.get("town", ""))) == norm_label(s.value["name"]):
                s = Span(s.start, s.end, s.kind, {**s.value, "entity": area.name}, s.text, s.items)
        elif s.kind == "entity" and _lone_area(pack, s) and not any(
                a.kind == "anchor" and a.end == s.start for a in ann.spans) and (cue := next((
                c for c in ann.spans if c.kind == "cue" and s.start - 3 <= c.end <= s.start and {"in", "exclude_before"} &
                {v for k, v in (c.items or [(c.kind, c.value)]) if k == "cue"}), None)):
            # 'outside the city boundary': the one polygon of a layer that covers one town is a place
            area = pack.entities[s.value]
            if ("cue", "exclude_before") in (cue.items or [(cue.kind, cue.value)]):
                ann.excluded.append((s.start, s.end, lambda t, said=cue.text: f"{said} {t}"))
            s = Span(s.start, s.end, "anchor", {"entity": area.name, "name": str(area.coverage.get("town", "")),
                                                "score": 100.0, "others": []}, s.text)
        out.append(s)
    return out


def _lone_area(pack: Pack, s: Span) -> bool:
    """Whether an entity word names an area layer of one unnamed polygon covering one town."""
    area = pack.entities.get(s.value) if isinstance(s.value, str) else None
    return area is not None and area.area and not area.names and bool(area.coverage.get("town"))


def restatements(spans: list[Span], pack: Pack, rate: bool) -> list[Span]:
    """Spans that only restate another part of the question: a year beside a field that holds that year's
    values ('the 2010 population'), and, when a rate per residents is asked, the population it is computed
    with ('per 10,000 residents (census population)')."""
    pop = (pack.convention("population", "entity"), pack.convention("population", "field"))
    fields = [s for s in spans if s.kind == "field"]
    compared = {s.end for s in spans if s.kind == "numcmp"} | {s.end + 1 for s in spans if s.kind == "numcmp"}
    # (a population compared with a number, '<areas> over <n> people', is a condition, not a restatement)
    out = [s for s in fields if rate and readings(s, "field") and all(r == pop for r in readings(s, "field"))
           and s.start not in compared]
    for t in spans:
        years = t.value.get("years", []) if t.kind == "time" and isinstance(t.value, dict) else []
        if len(years) == 1 and set(t.value) == {"years"} and any(
                min(abs(f.start - t.end), abs(t.start - f.end)) <= 2 and any(str(years[0]) in name for _, name in
                                                                         readings(f, "field")) for f in fields):
            out.append(t)
    return out


def area_grouped(cx: Ctx, s: Span, distances: list[Span]) -> bool:
    """An area word that groups the records by containment: 'within each <area>' (no distance said) and
    'which <areas> have <features>, how many ...'."""
    ents = readings(s, "entity")
    if not ents or not all(cx.pack.entities[e].area for e in ents) or distances:
        return False
    before = cx.before(s, 3)
    if any(p in cx.cue("group") for p in before) and any(p in cx.cue("near") for p in before):
        return True
    after = [p for p in cx.ann.spans if s.end <= p.start <= s.end + 2]
    which = any(p in cx.cue("which") for p in cx.before(s, 1))
    return which and bool(cx.cue("count")) and any(p.value in words(cx.pack, "plural_after_which") or
                                                   p.text in words(cx.pack, "plural_after_which") for p in after)


def asks_rate(spans: list[Span]) -> bool:
    """Whether a rate per residents is asked ('per 10,000 people', 'crash rate')."""
    return any(s.kind == "per" or (s.kind == "cue" and s.value == "rate") for s in spans)


def names_records_again(ann: Annotation, pack: Pack, s: Span, targets: list[Span]) -> bool:
    """'<features> with no <other features> within <d> of the <feature>': a word of the records asked about, after a
    referring word, names them again; it is no second layer to be near."""
    refer = set(rule_files(pack.raw.get("language", "en")).get("context", {}).get("referring_words", []))
    ents = readings(s, "entity")
    return bool(s.start and ann.tokens[s.start - 1] in refer and ents) and any(
        t.start < s.start and readings(t, "entity")[:1] == ents[:1] for t in targets)


def value_fields(pack: Pack, v: Span) -> set[tuple]:
    """(entity, field) of each reading of a value: a label's own field, the fields a concept is defined on."""
    out = {tuple(r[:2]) for r in readings(v, "label")}
    for c in readings(v, "concept"):
        for ent, where in (pack.concepts[c].where.items() if c in pack.concepts else []):
            if isinstance(where, dict) and where.get("field"):
                out.add((ent, where["field"]))
    return out


def source_said_aside(ann, pack: Pack, events: list[Span]) -> Span | None:
    """('the <source> has a <field> column ... . how many <records> ...'): a source named by its own name in a
    sentence set aside is the records the one general word the question says stands for: that word read so."""
    named = [s for s in ann.aside if s.kind == "entity" and readings(s, "entity") and len(events) == 1 and
             len(s.text.split()) > 1 and  # (its name, not one word a purpose may use: 'the report')
             pack.entities[readings(s, "entity")[0]].shares_words_with == readings(events[0], "entity")[0]]
    if not named:
        return None
    return Span(events[0].start, events[0].end, "entity", named[-1].value, events[0].text, named[-1].items)
