"""Reading annotated spans: what each span can be (readings), the cues around it, and time spans into a TimeSpec."""
from __future__ import annotations

from dataclasses import dataclass

from .annotate import Annotation
from .frame import TimeSpec
from .pack import Pack, language_for
from .tokens import Span, readings  # noqa: F401 (read from here by the interpreter)


def words(pack: Pack, key: str) -> set[str]:
    """A word list of the pack's language file (link words, filler, ...) as a set, built once per pack."""
    sets = pack.__dict__.setdefault("_word_sets", {})
    if key not in sets:
        sets[key] = set(language_for(pack).get(key, []))
    return sets[key]



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
        """Spans ending at most `window` filler tokens before `span` (modifiers such as 'public' or a place pass,
        and so do the words joining modifiers: 'a <value> or <value> <feature>')."""
        mods = {i for s in self.ann.spans if s.kind in ("concept", "label", "anchor") for i in range(s.start, s.end)}
        mods |= {i for i in range(1, len(self.ann.tokens) - 1) if i - 1 in mods and i + 1 in mods
                 and self.ann.tokens[i] in words(self.pack, "list_joins")}
        out = []
        for s in self.ann.spans:
            if s.end <= span.start:
                gap = range(s.end, span.start)
                plain = [i for i in gap if i not in mods]
                if len(plain) <= window and all(self.ann.tokens[i] in words(self.pack, 'filler') or self.ann.tokens[i] in
                                                words(self.pack, "relation_gap") for i in plain):
                    out.append(s)
        return out

    def just_before(self, span: Span) -> Span | None:
        cands = [s for s in self.before(span, 2)]
        return cands[-1] if cands else None


def narrower_or_both(have: list[int], new: list[int]) -> list[int]:
    """One set inside the other means the narrower ('mornings 7-9am', 'winter weekends in December');
    otherwise either ('January or February')."""
    both = [x for x in have if x in new]
    if have and both and (set(both) == set(new) or set(both) == set(have)):
        return both
    return have + [x for x in new if x not in have]


def time_from_span(ts: TimeSpec, v: dict, text: str) -> None:
    ts.text.append(text)
    if "years" in v:
        ts.years += [y for y in v["years"] if y not in ts.years]
    for part in ("months", "isodow", "hours"):
        if part == "hours" and ts.hours and v.get("hours") and not set(v["hours"]) & set(ts.hours) and \
                {(h + 12) % 24 for h in v["hours"]} <= set(ts.hours):
            continue  # ('from 3 to 6 pm (3:00-5:59)'): the same hours said again on the 12-hour clock
        if part in v:
            setattr(ts, part, narrower_or_both(getattr(ts, part), v[part]))
    if "days_of_month" in v:
        ts.days_of_month += [d for d in v["days_of_month"] if d not in ts.days_of_month]
    if "date_from" in v:
        ts.date_from = v["date_from"]
    if "date_to" in v:
        ts.date_to = v["date_to"]
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
