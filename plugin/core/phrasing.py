"""How users phrase conditions and counts: 'no crashes', 'injury or fatal', '3 towns', 'younger than 16',
place values, plurals; small readings the rules interpreter asks of the pack."""
from __future__ import annotations

from .frame import Place, Predicate
from dataclasses import replace
from .pack import Pack, language_for, norm_label
from .numbers import band
from .spans import Ctx, has, readings, words as word_list
from .tokens import Span


def is_place_pred(pack: Pack, p: Predicate) -> bool:
    """A predicate on a place field (county...) scopes the base of a share rather than its numerator."""
    if not p.field or not p.entity:
        return False
    f = pack.entities[p.entity].fields.get(p.field)
    return bool(f and f.place)


def number_before(toks: list[str], group_spans: list[Span], spans: list[Span] = ()) -> int | None:
    """A bare count said just before the grouped features (at most one word between, or the place they are in),
    as in '3 towns ...', 'the 5 <county> county towns ...'."""
    places = {i for s in spans if s.kind in ("anchor", "label", "field") and s.end - s.start <= 3
              for i in range(s.start, s.end)}
    for g in group_spans:
        start = g.start
        while start - 1 in places:
            start -= 1
        for i in (start - 1, start - 2):
            if i >= 0 and toks[i].isdigit() and 0 < int(toks[i]) <= 100 and (i == start - 1 or not toks[i + 1].isdigit()):
                return int(toks[i])
    return None


def no_records(toks: list[str], spans: list[Span], pack: Pack) -> list[Span]:
    """'towns with no crashes': 'no' before records counted is the count condition 'at most 0'."""
    words = set(language_for(pack).get("none_words", []))
    covered = {i for s in spans for i in range(s.start, s.end)}
    out = []
    for i, t in enumerate(toks):
        if t in words and i not in covered:
            nxt = next((s for s in sorted(spans, key=lambda s: s.start) if s.start > i and readings(s, "entity")), None)
            mods = [s for s in spans if s.start > i and nxt and s.end <= nxt.start]  # 'no fatal crashes'

            if nxt and readings(nxt, "entity") and is_event(pack, readings(nxt, "entity")) and \
                    nxt.start - i - 1 == sum(s.end - s.start for s in mods) and len(mods) <= 2:
                out.append(Span(i, i + 1, "numcmp", {"op": "lte", "n": 0}, t))
    return out


def either(cx: Ctx, preds: list) -> list:
    """'injury or fatal crashes', 'injury crashes incl fatal': conditions joined by an either-word hold for
    records meeting any of them (one predicate), even when one names a subset of the other."""
    words = set(language_for(cx.pack).get("either_words", []))
    lists = set(word_list(cx.pack, "list_joins"))
    sums = set(language_for(cx.pack).get("sum_words", []))
    # ('either in <value> or on <value>'): the prepositions of each alternative stand between them
    gaps = set(word_list(cx.pack, "after_noun_prepositions")) | set(word_list(cx.pack, 'filler'))
    out: list = []
    for span, p in preds:
        # ('<value> (not <value> or <value>)': what is left out is never an alternative to what is kept)
        if out and not is_place_pred(cx.pack, p) and not is_place_pred(cx.pack, out[-1][1]) \
                and p.negate == out[-1][1].negate:
            # the either-word just before this condition ('..., incl fatal'); the one it joins may be further back
            j = span.start
            while j > out[-1][0].end and cx.ann.tokens[j - 1] in words | lists | gaps:
                j -= 1
            joins = set(cx.ann.tokens[j:span.start])
            # ('fatal and injury crashes'): a record holds one value of a field, so 'and' between two values of
            # the same field can only mean either
            # (nor can two values side by side, the comma of '<value>, <value> or <value>' gone)
            side = span.start == out[-1][0].end and _one_field(cx.pack, out[-1][1], p, apart=True)
            summed = joins & sums and _one_field(cx.pack, out[-1][1], p, nested=True)
            if joins & words or side or summed or (joins & lists and _one_field(cx.pack, out[-1][1], p)):
                prev_span, prev = out.pop()
                members = (prev.any_of if prev.op == "any" and not prev.concept else [prev]) + [p]
                # 'not A or B' leaves out the records meeting either: the negation holds for the group
                members = [replace(m, negate=False) for m in members]
                out.append((Span(prev_span.start, span.end, "either", None, " ".join(cx.ann.tokens[prev_span.start:span.end])),
                            Predicate(op="any", any_of=members, negate=p.negate,
                                      text=language_for(cx.pack).get("either_join", " / ").join(m.text for m in members))))
                continue
        out.append((span, p))
    return out


def _values_of(pack: Pack, p) -> dict[tuple[str, str], set]:
    """(entity, field) -> the values a plain value condition allows there: its own, or its concept's."""
    if p.concept and p.concept in pack.concepts:
        return {(e, w["field"]): set(map(norm_label, w["in"])) for e, w in pack.concepts[p.concept].where.items()
                if isinstance(w, dict) and "field" in w and "in" in w}
    # (a label of a field holding several values at once, 'rain/snow', may be said with another: not one value)
    single = p.op == "has" and p.entity in pack.entities and p.field in pack.entities[p.entity].fields and \
        not pack.entities[p.entity].fields[p.field].separator
    return {(p.entity, p.field): set(map(norm_label, p.values))} if p.field and (p.op == "in" or single) else {}


def _one_field(pack: Pack, a, b, apart: bool = False, nested: bool = False) -> bool:
    """Whether two conditions give values of one same field, the second not a narrowing of the first: 'fatal
    and injury' lists kinds (either), 'dark and unlit' narrows (both); `apart`: no value in common at all;
    `nested`: a narrowing too."""
    va, vb = _values_of(pack, a), _values_of(pack, b)
    return not a.negate and not b.negate and any(nested or not (va[k] & vb[k] if apart else vb[k] < va[k])
                                                 for k in va.keys() & vb.keys())


def plural(pack: Pack, span: Span) -> bool:
    """Whether an entity word was said in the plural ('schools', 'bus stops')."""
    ents = readings(span, "entity")
    words = span.text.split()
    return bool(ents) and (span.text.endswith(pack.entities[ents[0]].plural.split()[-1].lower()) or
                           (words[-1].endswith("s") and not span.text.endswith(pack.entities[ents[0]].label.lower())))


def compared_field(pack: Pack, cands: list[tuple[str, str]], op: str) -> tuple[str, str]:
    """'drivers younger than 16': of fields holding the least and the greatest of several values, a record has
    one under 16 when its least is, and one over 80 when its greatest is."""
    want = "min" if op in ("lt", "lte") else "max"
    return next((c for c in cands if pack.entities[c[0]].fields[c[1]].extreme == want), cands[0])


def numeric(pack: Pack, entity: str, field: str) -> bool:
    f = pack.entities[entity].fields.get(field) if entity in pack.entities else None
    return bool(f and f.kind == "number")


def measurable(pack: Pack, entity: str, field: str) -> bool:
    """A field a number can be compared with: a number, or published in bands ('75-84')."""
    f = pack.entities[entity].fields.get(field) if entity in pack.entities else None
    return bool(f and (f.kind == "number" or any(band(c) for c in f.codes)))


def is_event(pack: Pack, ents: list[str]) -> bool:
    """Entities whose rows are events (have time), i.e. what questions count."""
    return any(pack.entities[e].time for e in ents)


def applies(pack: Pack, p: Predicate, entity: str) -> bool:
    """Whether a concept or label predicate can be said of `entity`'s records."""
    if p.concept:
        c = pack.concepts.get(p.concept)
        return bool(c and entity in c.where)
    return p.entity == entity


def pred_fields(pack: Pack, p: Predicate) -> list[tuple[str, str]]:
    """(entity, field) pairs a concept or label predicate tests; an either-condition, those of its alternatives."""
    if p.op == "any" and p.any_of and not p.concept:
        return [fe for q in p.any_of for fe in pred_fields(pack, q)]
    if p.concept:
        c = pack.concepts.get(p.concept)
        out = []
        for ent, w in (c.where.items() if c else []):
            for part in w.get("any", [w]):
                out.append((ent, part.get("field")))
        return out
    return [(p.entity, p.field)]


def value_predicate(s: Span, named: set | None = None, listed: set | None = None, pack: Pack | None = None) -> Predicate:
    """The condition a concept or label word states; a label of several fields is read on the field named just
    before it ('where the <field> is marked <value>'), or on the field of the values it is listed with ('snow,
    ice or slush') when the concept tests another field."""
    labels = readings(s, "label")
    c = readings(s, "concept")
    for fields in (named or set(), listed or set()):
        hit = next((r for r in labels if (r[0], r[1]) in fields), None)
        if hit is None or c and pack and set(pred_fields(pack, Predicate(concept=c[0]))) & fields:
            continue
        if fields is listed and c and len({r[1] for r in labels if r[0] == hit[0] and (r[0], r[1]) in fields}) > 1:
            continue  # ('<value> or <value>' each a label of the same several fields): the concept says which
        if len({(r[0], r[1]) for r in labels}) > 1 or c:
            return Predicate(field=hit[1], op="has", values=[hit[2]], entity=hit[0], text=s.text)
    said_as = _label_of_named(pack, c[0], named or set()) if c and pack else None
    if said_as:  # ('a snowy <surface field>'): the concept's word is a label of the field named with it
        return Predicate(field=said_as[1], op="has", values=[said_as[2]], entity=said_as[0], text=s.text)
    if c:
        return Predicate(concept=c[0], text=s.text)
    ent, fld, label = next((r for r in labels if (r[0], r[1]) in (named or set())), labels[0])
    twins = [r for r in labels if r[0] == ent and r[2] == label and _numbered_twin(r[1], fld)]
    if len(twins) > 1 and (ent, fld) not in (named or set()):
        # ('a <label> as either <object>'): a label of numbered twin fields ('<x>_1', '<x>_2') holds in any of them
        return Predicate(op="any", any_of=[Predicate(field=r[1], op="has", values=[label], entity=ent, text=s.text)
                                           for r in twins], text=s.text, entity=ent)
    return Predicate(field=fld, op="has", values=[label], entity=ent, text=s.text)


def _numbered_twin(a: str, b: str) -> bool:
    """Whether two field names differ only in their digits ('object_1', 'object_2')."""
    return a.translate(_NO_DIGITS) == b.translate(_NO_DIGITS)


_NO_DIGITS = str.maketrans("", "", "0123456789")


def _label_of_named(pack: Pack, concept: str, named: set) -> tuple[str, str, str] | None:
    """A label of a field named beside a concept that tests other fields, spelt as one of the concept's words."""
    if not named or set(pred_fields(pack, Predicate(concept=concept))) & named:
        return None
    said = {norm_label(w) for w in pack.concepts[concept].words}
    hits = {(e, f, norm_label(code)) for e, f in named if e in pack.entities and f in pack.entities[e].fields
            for code in pack.entities[e].fields[f].codes if norm_label(code) in said}
    if len({(e, f) for e, f, _ in hits}) != len(hits):
        return None  # (two labels of one field: no single reading)
    return min(hits, key=lambda h: pack.priority(h[0])) if hits else None  # (the field of the default source first)


def listed_fields(pack: Pack, spans: list[Span], toks: list[str], s: Span, joins: set[str]) -> set[tuple[str, str]]:
    """The fields of the values listed with `s` ('<value>, <value> or <value>'): only list words between."""
    out: set[tuple[str, str]] = set()
    for v in value_run(spans, toks, s, joins)[1:]:
        out |= {(r[0], r[1]) for r in readings(v, "label")}
        out |= {f for c in readings(v, "concept") for f in pred_fields(pack, Predicate(concept=c))}
    return out


def value_run(spans: list[Span], toks: list[str], s: Span, joins: set[str]) -> list[Span]:
    """`s` and the values listed with it, joined only by list words."""
    values = sorted((v for v in spans if has(v, "concept") or has(v, "label")), key=lambda v: v.start)
    k = values.index(s)
    run = [s]
    for step in (-1, 1):
        j = k
        while 0 <= j + step < len(values):
            a, b = sorted((values[j], values[j + step]), key=lambda v: v.start)
            if b.start - a.end > 2 or not all(t in joins for t in toks[a.end:b.start]):
                break
            j += step
            run.append(values[j])
    return run


def place_of(a: Span, pack: Pack) -> Place:
    """A place span as the frame keeps it; said with a boundary word ('inside the <city> boundary'), or as the one
    polygon of a layer of its own, its outline."""
    area = pack.entities.get(a.value["entity"])
    outline = bool(set(a.text.split()) & set(language_for(pack).get("boundary_words", []))) or \
        bool(area is not None and area.area and not area.names)
    return Place(text=a.text, entity=a.value["entity"], name=a.value["name"], score=a.value["score"],
                 candidates=a.value["others"], outline=outline)
