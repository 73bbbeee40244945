"""Qualifiers of a reading: exclusions ('excluding ...'), quantifiers ('no X within d'), how many a 'which'
asks for, and groupings named by a field's label word."""
from __future__ import annotations

import datetime as dt

from .annotate import Annotation
from .frame import Frame, Group, TimeSpec, year_of
from .pack import Pack
from .phrase_rules import rule_files
from .phrasing import is_event
from .spans import Ctx, readings, time_from_span, words
from .spelling import is_plural_word
from .tokens import Span


def asks_for_one(cx: Ctx, which_cues: list[Span], group_spans: list[Span]) -> bool:
    """'which town has', 'which one': one; 'which towns have': a ranking. The verb after 'which' decides; without
    one, whether the grouped word is a plural (its lemma differs from it)."""
    one, many = set(words(cx.pack, "singular_after_which")), set(words(cx.pack, "plural_after_which"))
    after = next((t for t in cx.ann.tokens[which_cues[0].end:] if t in one | many), None)
    if after is not None:
        return after in one
    return not any(is_plural_word(s.text.split()[-1]) for s in group_spans)


def names_one(cx: Ctx, group_spans: list[Span]) -> bool:
    """'<town> with the highest rate', no 'which': one when the grouped word is singular and no grouping word
    ('by', 'per', 'each') comes before it (that asks for every group, ranked)."""
    prefixes = {p.split()[-1] for p in words(cx.pack, "group_prefixes")}
    toks = cx.ann.tokens
    return bool(group_spans) and not any(
        is_plural_word(s.text.split()[-1]) or (s.start > 0 and toks[s.start - 1] in prefixes) for s in group_spans)


def excluded(ann: Annotation, s: Span):
    """How the exclusion cue that covers this span (its first token) words it, or None."""
    return next((cue for a, b, cue in ann.excluded if a <= s.start < b), None)


def time_left_out(f: Frame, s: Span, cue: str, span: tuple[int, int] | None = None) -> None:
    """'excluding weekends', 'not in winter': the complement of a day, month or hour set; 'leave out 2025': the
    years kept (or that the records cover, `span`) but those; any other time (a date range) cannot be
    complemented here and is reported, not applied."""
    tv = TimeSpec()
    time_from_span(tv, s.value, s.text)
    if tv.years and not (tv.date_from or tv.date_to or tv.months or tv.isodow or tv.hours) and (f.time.years or span):
        # ('since <year>, leaving out <year>'): the years of the range said, where the records may reach
        lo, hi = year_of(f.time.date_from) or span[0], year_of(f.time.date_to) or span[1]
        kept = f.time.years or list(range(lo, hi + 1))
        f.time.years = [y for y in kept if y not in tv.years]
        f.time.text.append(cue(s.text))
        return
    if bool(tv.date_from) != bool(tv.date_to) and not (tv.years or tv.months or tv.isodow or tv.hours or
                                                         tv.days_of_month or tv.last_n_years or tv.latest_year):
        _open_range_left_out(f, tv)  # ('skip everything before <year>'): from that year on
        f.time.text.append(cue(s.text))
        return
    full = {"isodow": range(1, 8), "months": range(1, 13), "hours": range(0, 24)}
    parts = {k: getattr(tv, k) for k in full if getattr(tv, k)}
    other = tv.years or tv.date_from or tv.date_to or tv.days_of_month or tv.last_n_years or tv.latest_year
    if not parts or other:
        f.unknown.append(s.text)
        return
    for k, vals in parts.items():
        keep = [x for x in full[k] if x not in vals]
        have = getattr(f.time, k)
        setattr(f.time, k, [x for x in keep if not have or x in have])
    f.time.text.append(cue(s.text))


def _open_range_left_out(f: Frame, tv: TimeSpec) -> None:
    """The complement of a range open at one end: the days after its end, or before its start."""
    day = dt.timedelta(days=1)
    if tv.date_to:
        start = (dt.date.fromisoformat(tv.date_to) + day).isoformat()
        f.time.date_from = max(start, f.time.date_from or start)
    else:
        end = (dt.date.fromisoformat(tv.date_from) - day).isoformat()
        f.time.date_to = min(end, f.time.date_to or end)


def exists(s: Span, near_spans: list[Span]) -> bool:
    """'near at least one signal': a count of one or more said of the features a relation names is the relation."""
    return s.value.get("op") in ("gte", "gt") and s.value.get("n", 9) <= 1 and any(
        0 <= n.start - s.end <= 2 for n in near_spans)


def _ends_at(toks: list[str], phrases: list[str], end: int, window: int) -> bool:
    """Whether one of `phrases` ends at most `window` tokens before token `end`."""
    for ph in phrases:
        w = ph.split()
        for stop in range(max(len(w), end - window), end + 1):
            if toks[stop - len(w):stop] == w:
                return True
    return False


def quantifier(ann: Annotation, pack: Pack, support: Span | None, distances: list[Span], target: str = "") -> str:
    """'no <feature> within <d>', 'farther than <d> from any <feature>': none; otherwise some."""
    rules = rule_files(pack.raw.get("language", "en")).get("quantifiers", {})
    window = int(rules.get("window", 3))
    # (features dated by when they were added are still features to crashes, whose rows are the events)
    if support is not None and is_event(pack, readings(support, "entity")) and not (target and is_event(pack, [target])):
        return "some"  # 'schools with no crash within 100 m': a count of at most 0 per feature (no_records)
    # (the support may be named twice: 'no <feature> within 100 feet (the <feature> layer)')
    named = [x for x in ann.spans if support is not None and set(readings(x, "entity")) & set(readings(support, "entity"))]
    if any(_ends_at(ann.tokens, rules.get("none", []), x.start, window) for x in named):
        return "none"
    if distances and _ends_at(ann.tokens, rules.get("farther", []), distances[0].start, 0) and not \
            _ends_at(ann.tokens, rules.get("within", []), distances[0].start, 0):
        return "none"
    return "some"


def groups_by_label_word(cx: Ctx, f: Frame, group_cues: list[Span]) -> list[Group]:
    """'ramps by condition': after a grouping cue, a word no reading took that ends the label of exactly one of
    the records' own fields ('ramp condition') groups by that field."""
    ent = cx.pack.entities.get(f.target)
    if ent is None:
        return []
    taken = {i for s in cx.ann.spans for i in range(s.start, s.end)}
    out = []
    for c in group_cues:
        if c.end >= len(cx.ann.tokens) or c.end in taken:
            continue
        word = cx.ann.tokens[c.end]
        # (the field's label or any of its words ending so: 'crashes by condition' could be light, weather or
        # road surface, and stays unread)
        fields = [n for n, fl in ent.fields.items() if fl.kind == "coded" and
                  any(w.split()[-1] == word for w in [fl.label, *fl.words])]
        if len(fields) == 1:
            out.append(Group("field", f"{ent.name}.{fields[0]}"))
        elif any(g.start > c.end and g.start - c.end <= 5 and readings(g, "field") for g in cx.ann.spans):
            continue  # ('by who maintains them (<field>)'): the field said a few words on is what is grouped by
        elif word not in words(cx.pack, "filler") | words(cx.pack, "by_method") | words(cx.pack, "pronouns") \
                and not word.isdigit():  # ('each one', 'each of them'): the things named before, no new grouping
            f.unknown.append(word)  # a grouping asked for by a word that names no field: asked back, not dropped
    return out
