"""Dates, years, months, seasons, days, hours, distances and counts found in a token list."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .text import to_number

YEAR = r"(19[5-9]\d|20[0-4]\d)"


@dataclass
class Span:
    """A run of tokens [start, end) the pack or the grammar knows; `items` are its possible readings."""
    start: int
    end: int
    kind: str
    value: Any = None
    text: str = ""
    items: list[tuple[str, Any]] = field(default_factory=list)


def _hour(num: str, ampm: str | None) -> int | None:
    h = int(float(num.split(":")[0]))
    if ampm == "pm" and h < 12:
        h += 12
    if ampm == "am" and h == 12:
        h = 0
    return h if 0 <= h <= 23 else None


def _hours_between(a: int, b: int) -> list[int]:
    """Hours from a up to but excluding b ('between 7 and 9 am' = 7:00-8:59); wraps past midnight."""
    out, h = [], a
    while h != b and len(out) < 24:
        out.append(h)
        h = (h + 1) % 24
    return out or [a]


class TimeParser:
    """Regex passes over the normalised text; each match becomes a locked Span."""

    def __init__(self, lang: dict, seasons: dict[str, list[int]]):
        self.lang = lang
        self.seasons = seasons
        months = "|".join(sorted(lang["months"], key=len, reverse=True))
        days = "|".join(sorted(lang["days"], key=len, reverse=True))
        units = "|".join(sorted((re.escape(u) for u in lang["units"]), key=len, reverse=True))
        nums = r"(\d+(?:\.\d+)?|" + "|".join(sorted(lang["number_words"], key=len, reverse=True)) + ")"
        cue = lambda name: "|".join(sorted((re.escape(c) for c in lang["cues"][name]), key=len, reverse=True))
        self.patterns: list[tuple[str, re.Pattern]] = [
            ("distance", re.compile(rf"\b{nums} ({units})\b")),
            ("topn", re.compile(rf"\b(?:top|first|best|worst|highest|lowest|bottom|which|what) {nums}\b|\b{nums} (?:most|highest|worst|least|fewest|lowest|safest|busiest|top)\b")),
            ("per", re.compile(r"\bper (\d+) (?:residents|people|inhabitants|population|persons|capita)\b")),
            ("hour_range", re.compile(rf"\b(?:between|from) (\d{{1,2}}(?::\d\d)?) ?(am|pm)? (?:and|to) (\d{{1,2}}(?::\d\d)?) ?(am|pm)\b")),
            ("hour_after", re.compile(r"\b(after|before|since) (\d{1,2}(?::\d\d)?) ?(am|pm)\b")),
            ("hour_at", re.compile(r"\b(?:at |around )?(\d{1,2}(?::\d\d)?) ?(am|pm)\b")),
            ("hour_24", re.compile(r"\b(?:at |around )?(\d{1,2}):(\d\d)\b")),
            ("latest", re.compile(rf"\b(?:in |during |for )?(?:the )?({cue('latest')})\b")),
            ("last_n", re.compile(rf"\b(?:in |during |over |for )?(?:the )?(?:{cue('last_n')}) {nums} years?\b")),
            ("year_range", re.compile(rf"\b(?:between|from|for) {YEAR} (?:and|to|through|thru|until) {YEAR}\b|\b{YEAR} (?:to|through|thru) {YEAR}\b")),
            ("year_since", re.compile(rf"\b(since|after|from|starting in|starting|beginning in|as of|before|prior to|until|till|up to|through|earlier than) {YEAR}\b")),
            ("month_year", re.compile(rf"\b(?:in |during )?({months}) (?:of )?{YEAR}\b")),
            ("year", re.compile(rf"\b(?:in |during |for |of )?{YEAR}\b")),
            ("month", re.compile(rf"\b(?:in |during )?({months})\b")),
            ("weekend", re.compile(r"\b(?:on |during |over )?(?:the )?(" + "|".join(map(re.escape, lang["weekend"])) + r")\b")),
            ("weekday", re.compile(r"\b(?:on |during )?(?:the )?(" + "|".join(map(re.escape, lang["weekday"])) + r")\b")),
            ("day", re.compile(rf"\b(?:on |during )?({days})\b")),
            ("season", re.compile(r"\b(?:in |during |in the |during the )?(" + "|".join(sorted(lang["seasons"], key=len, reverse=True)) + r")\b")),
            ("tod", re.compile(r"\b(?:in the |during the |at |in |during )?(" + "|".join(sorted(map(re.escape, lang["time_of_day"]), key=len, reverse=True)) + r")\b")),
        ]

    def parse(self, text: str) -> list[Span]:
        """Spans over token positions; earlier patterns win where they overlap."""
        starts = [m.start() for m in re.finditer(r"\S+", text)]
        def tok_index(pos: int) -> int:
            return max(i for i, s in enumerate(starts) if s <= pos)
        spans: list[Span] = []
        used: set[int] = set()
        for kind, pat in self.patterns:
            for m in pat.finditer(text):
                a, b = tok_index(m.start()), tok_index(m.end() - 1) + 1
                if any(i in used for i in range(a, b)):
                    continue
                value = self._value(kind, m)
                if value is None:
                    continue
                spans.append(Span(a, b, "time" if kind not in ("distance", "topn", "per") else kind, value,
                                  m.group(0)))
                used.update(range(a, b))
        return sorted(spans, key=lambda s: s.start)

    def _num(self, tok: str) -> float | None:
        return to_number(tok, self.lang)

    def _value(self, kind: str, m: re.Match) -> Any:
        g = m.groups()
        if kind == "hour_range":
            a, b = _hour(g[0], g[1] or g[3]), _hour(g[2], g[3])
            return {"hours": _hours_between(a, b)} if a is not None and b is not None else None
        if kind == "hour_after":
            h = _hour(g[1], g[2])
            if h is None:
                return None
            return {"hours": list(range(h, 24)) if g[0] in ("after", "since") else list(range(0, h))}
        if kind == "hour_at":
            h = _hour(g[0], g[1])
            return {"hours": [h]} if h is not None else None
        if kind == "hour_24":
            h = int(g[0])
            return {"hours": [h]} if 0 <= h <= 23 else None
        if kind == "latest":
            return {"latest_year": True}
        if kind == "last_n":
            n = self._num(g[0])
            return {"last_n_years": int(n)} if n else None
        if kind == "year_range":
            ys = [int(y) for y in g if y]
            return {"year_range": (min(ys), max(ys)), "connector": m.group(0)}
        if kind == "year_since":
            word, y = g[0], int(g[1])
            if word in ("since", "from", "starting in", "starting", "beginning in", "as of"):
                return {"year_from": y}
            if word == "after":
                return {"year_from": y + 1}
            if word in ("before", "prior to", "earlier than"):
                return {"year_to": y - 1}
            return {"year_to": y}
        if kind == "month_year":
            return {"months": [self.lang["months"][g[0]]], "years": [int(g[1])]}
        if kind == "year":
            return {"years": [int(g[0])]}
        if kind == "month":
            if g[0] in ("may", "mar", "jan", "dec", "sat", "sun") and not m.group(0).startswith(("in ", "during ")):
                return None  # 'may' and friends are ordinary words unless introduced by in/during
            return {"months": [self.lang["months"][g[0]]]}
        if kind == "weekend":
            return {"isodow": [6, 7], "label": "weekend"}
        if kind == "weekday":
            return {"isodow": [1, 2, 3, 4, 5], "label": "weekday"}
        if kind == "day":
            if g[0] in ("sun", "sat", "wed", "mon") and not m.group(0).startswith(("on ", "during ")):
                return None
            return {"isodow": [self.lang["days"][g[0]]]}
        if kind == "season":
            name = self.lang["seasons"][g[0]]
            if name == "fall" and not m.group(0).startswith(("in", "during")):
                return None  # 'fall' is also a verb
            return {"months": list(self.seasons.get(name, [])), "season": name}
        if kind == "tod":
            return {"hours": list(self.lang["time_of_day"][g[0]])}
        if kind == "distance":
            n = self._num(g[0])
            return {"metres": n * self.lang["units"][g[1]], "text": m.group(0)} if n is not None else None
        if kind == "topn":
            n = self._num(g[0] or g[1])
            return {"n": int(n)} if n else None
        if kind == "per":
            return {"per": int(g[0])}
        return None
