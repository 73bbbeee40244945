"""Words that say how to read the others rather than what to count, set aside as context once the question is read:
'count each <record> once', a score's weights restated, a feature in a clause that says when, a season said of a
condition."""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

from .clauses import clause_at
from .pack import Pack
from .spelling import lemmas
from .text import phrase_key
from .tokens import Span
from .value_words import fields_of, label_sets


def set_aside(ann, pack: Pack, lang: dict, rules: dict, records: Callable[[Span], bool]) -> None:
    """Every such reading of an annotation (`records`: whether an entity word names records that happen)."""
    _each_once(ann, rules)
    _weights_restated(ann, pack, lang)
    _features_in_time_clauses(ann, rules, records)
    _season_of_a_condition(ann, pack)
    _time_named(ann, rules, set(lang.get("stopwords", [])))
    _day_part_of_hours(ann, set(rules.get("context", {}).get("day_part_names", [])), set(lang.get("stopwords", [])))
    _dimension_asked(ann)
    _layer_word_of_a_label(ann, pack)
    _one_feature_named_twice(ann)
    _layer_referred_back(ann, pack, set(rules.get("context", {}).get("referring_words", [])))
    _either_of_the_fields(ann, rules.get("context", {}).get("either_of", []))
    _values_defined_as(ann, set(rules.get("context", {}).get("defining_words", [])), records)
    _ties_broken_by_name(ann, rules.get("context", {}).get("tie_breaks", []))
    _named_by_the_values_after(ann, pack)
    _examples_given(ann, rules, set(lang.get("list_joins", [])))
    _groups_listed(ann, pack, set(lang.get("list_joins", [])), set(lang.get("stopwords", [])))
    _boundary_of_a_layer(ann, pack, set(lang.get("boundary_words", [])))
    _own_boundary(ann, pack, set(lang.get("boundary_words", [])), set(lang.get("stopwords", [])))


def _own_boundary(ann, pack: Pack, words: set[str], stop: set[str]) -> None:
    """'<areas> with no <features> inside their boundary': a boundary word said after a containment word, past
    grammar words only, in a question about an area layer, is the areas' own outline, which 'inside' reads."""
    if not any(e.kind == "entity" and pack.entities.get(str(e.value)) is not None and
               pack.entities[str(e.value)].area for e in ann.spans):
        return
    for i, tok in enumerate(ann.tokens):
        j = i - 1
        while j >= 0 and ann.tokens[j] in stop and not any(s.start <= j < s.end for s in ann.spans):
            j -= 1
        if tok in words and tok in ann.unknown and any(s.kind == "cue" and s.value == "in" and s.end == j + 1
                                                       for s in ann.spans):
            ann.unknown.remove(tok)
            ann.context.append(tok)


def _boundary_of_a_layer(ann, pack: Pack, words: set[str]) -> None:
    """'outside every <area> boundary': a boundary word after an area layer's word names that layer's polygons,
    which the layer's word already does."""
    for k, e in enumerate(ann.spans):
        ents = [v for kd, v in (e.items or [(e.kind, e.value)]) if kd == "entity" and v in pack.entities]
        if e.kind == "entity" and ents and all(pack.entities[v].area for v in ents) and \
                e.end < len(ann.tokens) and ann.tokens[e.end] in words and ann.tokens[e.end] in ann.unknown:
            ann.spans[k] = replace(e, end=e.end + 1, text=f"{e.text} {ann.tokens[e.end]}")
            ann.unknown.remove(ann.tokens[e.end])


def _examples_given(ann, rules: dict, joins: set[str]) -> None:
    """'<place> (<name>, <name> and so on)', 'e.g. <name>, <name>': names given as examples of what is asked
    illustrate it; they are context, never conditions of their own."""
    ex = rules.get("context", {}).get("examples_given", {})
    toks = ann.tokens
    for side, phrases in (("after", ex.get("closers", [])), ("before", ex.get("openers", []))):
        for w in [p.split() for p in phrases]:
            for k in [k for k in range(len(toks)) if toks[k:k + len(w)] == w]:
                said = set(range(k, k + len(w)))
                run = _named_run(ann, k if side == "after" else k + len(w), -1 if side == "after" else 1, joins)
                if len(run) < 2 and side == "after":
                    continue  # ('<value> and so on' of one name: nothing shows it is an example)
                ann.spans = [s for s in ann.spans if s not in run and not set(range(s.start, s.end)) & said]
                ann.unknown = [u for u in ann.unknown if u not in w]
                ann.context += [x.text for x in run] + [" ".join(w)]


def _groups_listed(ann, pack: Pack, joins: set[str], stop: set[str]) -> None:
    """'for each <field> (<a>, <b>, <c>)', 'each <field> - <a>, <b>, <c>?': values of the field grouped by, listed
    right after it, name the groups; they are context, no condition."""
    for g in [s for s in ann.spans if s.kind == "field" and any(
            c.kind == "cue" and c.value == "group" and c.end == s.start for c in ann.spans)]:
        fields = set(fields_of(g))
        j, run = g.end, []
        while j < len(ann.tokens):
            v = next((s for s in ann.spans if s.start == j), None)
            if v is not None and v.kind in ("label", "concept") and set(label_sets(pack, v)) & fields:
                run.append(v)
                j = v.end
            elif v is not None and v.kind == "cue" and all(t in joins for t in ann.tokens[v.start:v.end]):
                j = v.end  # ('<a>, <b> or <c>': the 'or' read as a cue of its own)
            elif v is None and (ann.tokens[j] in joins | stop or ann.tokens[j] in ann.unknown and not run):
                j += 1
            else:
                break
        if len(run) >= 2:
            ann.spans = [s for s in ann.spans if s not in run]
            ann.context += [v.text for v in run]


def _named_run(ann, at: int, step: int, joins: set[str]) -> list:
    """The names of one kind listed from token `at` on, backwards (-1) or forwards (1), list words between."""
    by_end = {s.end: s for s in ann.spans}
    by_start = {s.start: s for s in ann.spans}
    run: list = []
    j = at
    while 0 <= j <= len(ann.tokens):
        s = by_end.get(j) if step < 0 else by_start.get(j)
        # (a name right after a cue word is what the examples illustrate: 'outside <city> (<town>, <town> ...)')
        head = s is not None and run and step < 0 and any(c.kind == "cue" and c.end == s.start for c in ann.spans)
        if s is not None and s.kind in ("anchor", "label") and (not run or s.kind == run[0].kind) and not head:
            run.append(s)
            j = s.start if step < 0 else s.end
        elif run and 0 <= j + min(step, 0) < len(ann.tokens) and ann.tokens[j + min(step, 0)] in joins:
            j += step
        else:
            break
    return run


def _named_by_the_values_after(ann, pack: Pack) -> None:
    """'a <word> <field> - <value>, <value> or <value>': a word the pack lacks, said of a field whose values follow
    at once, is a name for those values (context), not a word left over."""
    used = {i for s in ann.spans for i in range(s.start, s.end)}
    for f in [s for s in ann.spans if s.kind == "field" and s.start > 0]:
        word = ann.tokens[f.start - 1]
        values = [v for v in ann.spans if v.kind in ("label", "concept") and 0 <= v.start - f.end <= 1
                  and set(fields_of(f)) & set(label_sets(pack, v))]
        if values and word in ann.unknown and f.start - 1 not in used:
            ann.unknown = [u for u in ann.unknown if u != word]
            ann.context.append(word)


def _one_feature_named_twice(ann) -> None:
    """'the <square> intersection (<street> & <street>)': two names of features either side of a layer's word name
    one feature, the one of that layer; the other name is context."""
    spans = sorted(ann.spans, key=lambda s: s.start)
    for a, e, b in zip(spans, spans[1:], spans[2:]):
        if a.kind == b.kind == "anchor" and e.kind == "entity" and a.end == e.start and e.end == b.start:
            named = [x for x in (b, a) if x.value.get("entity") == e.value]
            if len(named) == 1:
                other = a if named[0] is b else b
                ann.spans.remove(other)
                ann.context.append(other.text)
                return


def _layer_referred_back(ann, pack: Pack, pointing: set[str]) -> None:
    """'<bus stops> ... within <d> of the stop': a layer's word after a referring word, every word of it a word of
    an earlier span naming another layer of the same table, names that earlier layer again."""
    ents = [s for s in ann.spans if s.kind == "entity" and str(s.value) in pack.entities]
    for k, e in enumerate(ents):
        if not e.start or ann.tokens[e.start - 1] not in pointing:
            continue
        said = {lem for w in e.text.split() for lem in lemmas(w)}
        for b in reversed(ents[:k]):
            if b.value != e.value and pack.entities[str(b.value)].table == pack.entities[str(e.value)].table and \
                    said <= {lem for w in b.text.split() for lem in lemmas(w)}:
                ann.spans[ann.spans.index(e)] = replace(e, value=b.value, items=b.items)
                break


def _ties_broken_by_name(ann, phrases: list[str]) -> None:
    """'(break any ties alphabetically)' said of a ranking: equal values are ordered by name in every ranking, so the
    words are context."""
    if not any(s.kind == "topn" or s.kind == "cue" and str(s.value).startswith("rank") for s in ann.spans):
        return
    taken: set[int] = set()
    for w in sorted((p.split() for p in phrases), key=len, reverse=True):
        for k in [k for k in range(len(ann.tokens)) if ann.tokens[k:k + len(w)] == w and k not in taken]:
            taken |= set(range(k, k + len(w)))
            ann.spans = [s for s in ann.spans if not k <= s.start < k + len(w)]
            ann.unknown = [u for u in ann.unknown if u not in w]
            ann.context.append(" ".join(w))


def _values_defined_as(ann, words: set[str], records: Callable[[Span], bool]) -> None:
    """'don't count <value> or <value> as <features>': a feature layer's word after a defining word that follows
    values names what the values are taken for; it is context, no layer to be near."""
    for e in [s for s in ann.spans if s.kind == "entity" and not records(s)]:
        if e.start >= 2 and ann.tokens[e.start - 1] in words and any(
                v.kind in ("label", "concept") and v.end == e.start - 1 for v in ann.spans):
            ann.spans.remove(e)
            ann.context.append(e.text)


def _either_of_the_fields(ann, phrases: list[str]) -> None:
    """'a <label> as either of 2 <things>': a word not understood after 'either (of the)', just after a
    value, says the value may be in any of its fields, which the value's reading says already: context."""
    toks = ann.tokens
    for v in [s for s in ann.spans if s.kind in ("label", "concept")]:
        for w in sorted((p.split() for p in phrases), key=len, reverse=True):
            for k in range(v.end, min(v.end + 2, len(toks))):  # (past one word: 'as', 'in')
                end = k + len(w)
                if toks[k:end] == w and end < len(toks) and toks[end] in ann.unknown:
                    ann.unknown.remove(toks[end])
                    ann.context += [" ".join(w), toks[end]]
                    break


def _layer_word_of_a_label(ann, pack: Pack) -> None:
    """'the <field> was a <feature> (<label>)': a feature layer's word between a field and one of its labels that
    holds that word restates the label; it is no layer to be near."""
    for e in [s for s in ann.spans if s.kind == "entity" and isinstance(s.value, str) and s.value in pack.entities
              and not pack.entities[s.value].time]:
        fields = [f for f in ann.spans if f.kind == "field" and 0 <= e.start - f.end <= 3]
        said = {fe for f in fields for fe in fields_of(f)}
        label = next((v for v in ann.spans if v.kind == "label" and 0 <= v.start - e.end <= 1 and set(e.text.split())
                      <= set(v.text.split()) and tuple(v.value[:2]) in said), None)
        if label is not None:
            ann.spans.remove(e)
            ann.context.append(e.text)


def _dimension_asked(ann) -> None:
    """'which day had more': a word right after 'which' that also names a part of time asks for that part (the
    day of the week), never for the value the word also names (daylight)."""
    for s in list(ann.spans):
        part = next((v for k, v in (s.items or []) if k == "timepart"), None)
        before = [p for p in ann.spans if p.end == s.start and p.kind == "cue"]
        if part is not None and s.kind != "timepart" and any(("cue", "which") in (p.items or []) for p in before):
            s.kind, s.value, s.items = "timepart", part, [("timepart", part)]


def _day_part_of_hours(ann, names: set[str], stop: set[str]) -> None:
    """'<day> night <records> 9 pm to midnight': a value said as a part of the day, with only the records' word or
    grammar words between it and an hour range said outright, names those hours; it is no condition of its own."""
    hours = [s for s in ann.spans if s.kind == "time" and len((s.value or {}).get("hours") or []) > 1]
    for v in [s for s in ann.spans if s.kind in ("concept", "label") and s.text in names]:
        for h in hours:
            gap = range(v.end, h.start) if v.end <= h.start else range(h.end, v.start)
            if len(gap) <= 3 and all(ann.tokens[j] in stop or any(
                    s.start <= j < s.end and s.kind in ("entity", "time") for s in ann.spans) for j in gap):
                ann.spans.remove(v)
                ann.context.append(v.text)
                break


def _time_named(ann, rules: dict, stop: set[str]) -> None:
    """'between 2 and 6 pm (<name> time)', '<name> hour blocks, 10 pm to 4 am': words that name a time said
    outright, up to a word for a stretch of time beside it, are its name (context), not conditions."""
    periods = set(rules.get("context", {}).get("period_words", []))
    asks = set(rules.get("context", {}).get("question_cues", [])) | {"per"}  # ('per year 2018-2025' groups)
    free = ("entity", "cue", "timepart")
    for t in [s for s in ann.spans if s.kind == "time" and not (s.value or {}).get("vague")]:
        right = max((j for j in range(t.end, min(t.end + 5, len(ann.tokens))) if ann.tokens[j] in periods), default=None)
        left = t.start - 1 if t.start and ann.tokens[t.start - 1] in periods else None
        window = set(range(t.end, right + 1)) if right is not None else set()
        if left is not None:
            k = left
            while k > max(0, left - 4) and not any(s.start <= k - 1 < s.end and _grouping(s) for s in ann.spans) and (
                    ann.tokens[k - 1] in set(ann.unknown) | stop | periods or any(
                    s.start <= k - 1 < s.end and (s.kind in free or _a_name(s)) for s in ann.spans)):
                k -= 1
                if any(s.start <= k < s.end and _a_name(s) for s in ann.spans):
                    break  # ('<season> months (<month>-<month>)'): the name is the first word of it
            window |= set(range(k, left + 1))
        inside = [s for s in ann.spans if s is not t and set(range(s.start, s.end)) & window]
        inside += [s for s in ann.spans if s.kind in ("cue", "per") and s.end == min(window | {t.start}) and
                   (s.kind == "per" or s.value in asks)]  # (the cue just before the window counts as in it)
        words = [ann.tokens[j] for j in sorted(window)]
        if not any(w in ann.unknown or w not in stop | periods for w in words) or any(s.kind == "per" or s.kind == "cue" and s.value in asks or
                _grouping(s) or  # ('per year', 'by hour'): a grouping asked
                s.kind not in free and not _a_name(s) for s in inside):
            continue
        ann.spans = [s for s in ann.spans if s not in inside]
        ann.unknown = [u for u in ann.unknown if u not in words]
        ann.context += [w for w in words if w not in stop and w not in ann.context]


def _grouping(s: Span) -> bool:
    """A part of time said as a grouping ('per year', 'month by month')."""
    return s.kind == "timepart" and s.end - s.start > 1


def _a_name(s: Span) -> bool:
    """Whether a time span only names a stretch of time ('late', '<season>'), which times said outright beside it
    define ('<season> months (<month>-<month>)')."""
    return s.kind == "time" and bool((s.value or {}).get("vague") or (s.value or {}).get("season"))


def _season_of_a_condition(ann, pack: Pack) -> None:
    """'a <season> <field> (<value>, <value> or <value>)': a season said of a field whose values the question names
    describes those values; it is no months."""
    for t in [s for s in ann.spans if s.kind == "time" and "season" in (s.value or {})]:
        fld = next((f for f in ann.spans if f.start == t.end and f.kind == "field"), None)
        c = clause_at(ann.clauses, t.start)
        named = {fe for v in ann.spans if v.kind in ("label", "concept") and clause_at(ann.clauses, v.start) is c
                 for fe in label_sets(pack, v)}
        if fld is not None and set(fields_of(fld)) & named:
            ann.spans.remove(t)
            ann.context.append(t.text)

def _features_in_time_clauses(ann, rules: dict, records: Callable[[Span], bool]) -> None:
    """'... when school is out': a feature layer's word in a clause that says when is no place to be near."""
    opens = set(rules.get("context", {}).get("time_clause_openers", []))
    for i in [i for i, t in enumerate(ann.tokens) if t in opens]:
        for s in [s for s in ann.spans if i < s.start <= i + 2 and s.kind == "entity" and not records(s)]:
            ann.spans.remove(s)
            ann.context.append(s.text)

def _weights_restated(ann, pack: Pack, lang: dict) -> None:
    """'EPDO, <values> weighted 21': values said with the weight the pack's severity score gives them restate
    the score's definition; they are context, not conditions."""
    conv = pack.convention("epdo") or {}
    weights, words = conv.get("weights") or {}, set(lang.get("weight_words", []))
    toks = ann.tokens
    if not weights or not any(s.kind == "cue" and s.value == "epdo" for s in ann.spans):
        return
    values = [s for s in ann.spans if s.kind in ("concept", "label")]
    for i, t in enumerate(toks):
        if t not in words or i + 1 >= len(toks) or not toks[i + 1].replace(".", "", 1).isdigit():
            continue
        n, said = float(toks[i + 1]), []
        for v in sorted((v for v in values if v.end <= i), key=lambda v: -v.start):
            labels = {lb for ls in label_sets(pack, v).values() for lb in ls if lb in weights}
            if not labels or any(float(weights[lb]) != n for lb in labels):
                break
            said.append(v)
        for v in said:
            ann.spans.remove(v)
            ann.context.append(v.text)

def _each_once(ann, rules: dict) -> None:
    """'count each <record> once', '<each record> is counted once': the grouping word says how to count (each
    record once), not what to group by."""
    once = [phrase_key(w) for w in rules.get("quantifiers", {}).get("once", [])]
    toks = ann.tokens
    for c in [s for s in ann.spans if s.kind == "cue" and s.value == "group"]:
        rec = next((s for s in ann.spans if s.start == c.end and s.kind == "entity"), None)
        # (right after the records, or past a few words of how: '<record> should be counted once')
        if rec is not None and any(toks[i:i + len(w)] == list(w) for w in once if w
                                   for i in range(rec.end, min(rec.end + 4, len(toks)))):
            ann.spans.remove(c)
            ann.context.append(c.text)
