"""Dates, years, months, seasons, days, hours, distances and counts found in a token list."""
from __future__ import annotations

import re
from typing import Any

from .text import to_number
from .tokens import Span

YEAR = r"(19[5-9]\d|20[0-4]\d)"




def _hour(num: str, ampm: str | None) -> int | None:
    if num in ("midnight", "noon"):
        return 0 if num == "midnight" else 12
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
        holidays = "|".join(sorted((re.escape(h) for h in lang.get("holidays", {})), key=len, reverse=True)) or "(?!)"
        self._days = days
        units = "|".join(sorted((re.escape(u) for u in lang["units"]), key=len, reverse=True))
        nums = r"(\d+(?:\.\d+)?|" + "|".join(sorted(lang["number_words"], key=len, reverse=True)) + ")"
        cue = lambda name: "|".join(sorted((re.escape(c) for c in lang["cues"][name]), key=len, reverse=True))
        periods = "|".join(sorted((re.escape(k) for k in lang.get("periods", {})), key=len, reverse=True))
        hr = r"(\d{1,2}(?::\d\d)?|midnight|noon)"
        self.patterns: list[tuple[str, re.Pattern]] = [
            ("distance", re.compile(rf"\b{nums} ({units})\b")),
            ("topn", re.compile(rf"\b(?:top|first|best|worst|highest|lowest|bottom|which|what) {nums}\b|\b{nums} (?:most|highest|worst|least|fewest|lowest|safest|busiest|top)\b|\b(?:nearest|closest) {nums}\b|\b(?:show|list|give) all {nums}\b|\b{nums} (?=(?:\w+ ){{0,2}}(?:nearest|closest)\b)")),
            ("per", re.compile(r"\bper (\d+) (?:residents|people|inhabitants|population|persons|capita)\b")),
            ("hour_range", re.compile(rf"\b(?:between|from) {hr} ?(am|pm)? (?:and|to|up to|until|till|through|thru) {hr} ?(am|pm)?(?: in the (morning|afternoon|evening))?\b")),
            # '7-9am', '3 to 5 pm': a range without 'between' needs its am/pm, or '5 to 10' would be hours
            ("hour_range", re.compile(rf"\b{hr} ?(am|pm)? to {hr} ?(am|pm)(?: in the (morning|afternoon|evening))?\b")),
            ("date_range", re.compile(rf"\b(?:between|from) ({months}) (\d{{1,2}}) (?:{YEAR} )?(?:and|to|through|until) (?:({months}) )?(\d{{1,2}}) ?{YEAR}?\b")),
            ("date_since", re.compile(rf"\b(since|after|from|starting|before|prior to|until|through) ({months}) (\d{{1,2}})(?: {YEAR})?\b")),
            ("month_range", re.compile(rf"\b(?:(?:from|between) ({months}) (?:to|and|through|thru|until|till)|({months}) (?:through|thru|until|till|to)) ({months})\b(?! \d)")),
            ("month_since", re.compile(rf"\b(since|after|starting in|starting|before|prior to|until|till) ({months})\b(?! \d)")),
            ("date", re.compile(rf"\b(?:on )?({months}) (\d{{1,2}})(?: {YEAR})?\b")),
            ("holiday", re.compile(rf"\b(?:on )?({holidays})(?: day)?(?: (?:of |in )?{YEAR})?\b")),
            ("dom", re.compile(rf"\b(?:on )?(?:the )?(\d{{1,2}}) of ({months})(?: {YEAR})?\b")),
            ("period", re.compile(rf"\b(?:in |during )?(?:the )?({periods})(?: of {YEAR})?\b")),
            ("hour_after", re.compile(r"\b(after|before|since) (\d{1,2}(?::\d\d)?) ?(am|pm)\b")),
            ("hour_onward", re.compile(r"\b(\d{1,2}(?::\d\d)?) ?(am|pm) (or later|and later|onwards|onward|or after|or earlier|and earlier|or before)\b")),
            ("hour_at", re.compile(r"\b(?:at |around )?(\d{1,2}(?::\d\d)?) ?(am|pm)\b")),
            ("hour_24", re.compile(r"\b(?:at |around )?(\d{1,2}):(\d\d)\b")),
            ("latest", re.compile(rf"\b(?:in |during |for )?(?:the )?({cue('latest')})\b")),
            ("last_n", re.compile(rf"\b(?:in |during |over |for )?(?:the )?(?:{cue('last_n')}) {nums} years?\b")),
            ("year_range", re.compile(rf"\b(?:between|from) {YEAR} (?:and|to|through|thru|until) {YEAR}\b|\bfor {YEAR} (?:to|through|thru|until) {YEAR}\b|\b{YEAR} (?:to|through|thru) {YEAR}\b")),
            ("year_onward", re.compile(rf"\b{YEAR} (onwards?|forward|and after|and later|or later|and beyond|and up|and since|"
                                       rf"and before|and earlier|or earlier|and prior)\b")),
            ("year_since", re.compile(rf"\b(since|after|from|starting in|starting|beginning in|as of|before|prior to|until|till|up to|through|earlier than) {YEAR}\b")),
            ("month_year", re.compile(rf"\b(?:in |during )?({months}) (?:of )?{YEAR}\b")),
            ("year", re.compile(rf"\b(?:in |during |for |of )?{YEAR}\b")),
            ("month", re.compile(rf"\b(?:in |during )?({months})\b")),
            ("weekend", re.compile(r"\b(?:on |during |over )?(?:the )?(" + "|".join(map(re.escape, lang["weekend"])) + r")\b")),
            ("weekday", re.compile(r"\b(?:on |during )?(?:the )?(" + "|".join(map(re.escape, lang["weekday"])) + r")\b")),
            ("day_dom", re.compile(rf"\b(?:on )?(?:a )?({days}) the (\d{{1,2}})\b")),
            ("day_range", re.compile(rf"\b(?:from )?({days}) (?:thru|through|to|until|till) ({days})\b")),
            ("day", re.compile(rf"\b(?:on |during )?(?:a )?({days})\b")),
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
            if not (g[1] or g[3] or g[4]) and not any(x in ("midnight", "noon") for x in (g[0], g[2])):
                return None  # "between 2012 and 2016" is not a time of day
            late = g[4] in ("afternoon", "evening")
            ampm = g[3] or ("pm" if late else "am" if g[4] else None)
            a, b = _hour(g[0], g[1] or ampm), _hour(g[2], ampm)
            if b is not None and ":" in g[2] and not g[2].endswith(":00"):
                b = (b + 1) % 24  # 'until 3:59' includes the hour 3
            return {"hours": _hours_between(a, b)} if a is not None and b is not None else None
        if kind == "hour_after":
            h = _hour(g[1], g[2])
            if h is None:
                return None
            return {"hours": list(range(h, 24)) if g[0] in ("after", "since") else list(range(0, h))}
        if kind == "hour_onward":
            h = _hour(g[0], g[1])
            if h is None:
                return None
            return {"hours": list(range(0, h + 1)) if "earlier" in g[2] or "before" in g[2] else list(range(h, 24))}
        if kind == "hour_at":
            h = _hour(g[0], g[1])
            return {"hours": [h]} if h is not None else None
        if kind == "hour_24":
            h = int(g[0])
            return {"hours": [h]} if 0 <= h <= 23 else None
        if kind in ("date", "dom", "holiday"):
            mon, day, year = (g[0], g[1], g[2]) if kind == "date" else (g[1], g[0], g[2]) if kind == "dom" else \
                (*self.lang["holidays"][g[0]], g[1])
            m, d = mon if kind == "holiday" else self.lang["months"][mon], int(day)
            if not 1 <= d <= 31:
                return None
            if year:
                iso = f"{year}-{m:02d}-{d:02d}"
                return {"date_from": iso, "date_to": iso}
            return {"months": [m], "days_of_month": [d]}
        if kind == "date_range":
            m1, d1, y1, m2, d2, y2 = g
            y = y2 or y1
            if not y:
                return None
            m2 = m2 or m1
            return {"date_from": f"{y1 or y}-{self.lang['months'][m1]:02d}-{int(d1):02d}",
                    "date_to": f"{y}-{self.lang['months'][m2]:02d}-{int(d2):02d}"}
        if kind == "date_since":
            word, mon, day, year = g
            if not year:
                return None
            iso = f"{year}-{self.lang['months'][mon]:02d}-{int(day):02d}"
            return {"date_from": iso} if word in ("since", "after", "from", "starting") else {"date_to": iso}
        if kind == "period":
            out = {"months": list(self.lang["periods"][g[0]]), "label": g[0]}
            if g[1]:
                out["years"] = [int(g[1])]
            return out
        if kind == "day_dom":
            return {"isodow": [self.lang["days"][g[0]]], "days_of_month": [int(g[1])]}
        if kind == "latest":
            return {"latest_year": True}
        if kind == "last_n":
            n = self._num(g[0])
            return {"last_n_years": int(n)} if n else None
        if kind == "year_range":
            ys = [int(y) for y in g if y]
            return {"year_range": (min(ys), max(ys)), "connector": m.group(0)}
        if kind == "month_range":
            a, b = self.lang["months"][g[0] or g[1]], self.lang["months"][g[2]]
            return {"months": list(range(a, b + 1)) if a <= b else list(range(a, 13)) + list(range(1, b + 1))}
        if kind == "month_since":
            # 'since october': the rest of the latest year; 'before march': its first months
            word, m = g[0], self.lang["months"][g[1]]
            months = list(range(m + (word == "after"), 13)) if word in ("since", "after", "starting in", "starting") \
                else list(range(1, m))
            return {"months": months, "latest_year": True} if months else None
        if kind == "year_onward":
            y, word = int(g[0]), g[1]
            return {"year_to": y} if word in ("and before", "and earlier", "or earlier", "and prior") else {"year_from": y}
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
        if kind == "day_range":  # 'monday thru friday', 'fri to sun': every day from the first to the last
            a, b = self.lang["days"][g[0]], self.lang["days"][g[1]]
            return {"isodow": [(a - 1 + i) % 7 + 1 for i in range((b - a) % 7 + 1)]}
        if kind == "day":
            # 'sun', 'sat': ordinary words unless introduced by on/during or linked to another day ('sat or sun')
            linked = re.search(rf"\b(?:{self._days}) (?:or|and|to) $", m.string[max(0, m.start() - 16):m.start()]) or \
                re.match(rf" (?:or|and|to) (?:{self._days})\b", m.string[m.end():m.end() + 16])
            if g[0] in ("sun", "sat", "wed", "mon") and not m.group(0).startswith(("on ", "during ")) and not linked:
                return None
            return {"isodow": [self.lang["days"][g[0]]]}
        if kind == "season":
            name = self.lang["seasons"][g[0]]
            if name == "fall" and not m.group(0).startswith(("in", "during")):
                return None  # 'fall' is also a verb
            return {"months": list(self.seasons.get(name, [])), "season": name}
        if kind == "tod":
            return {"hours": list(self.lang["time_of_day"][g[0]]), "vague": True}
        if kind == "distance":
            n = self._num(g[0])
            return {"metres": n * self.lang["units"][g[1]], "text": m.group(0)} if n is not None else None
        if kind == "topn":
            n = self._num(next(x for x in g if x))
            return {"n": int(n)} if n else None
        if kind == "per":
            return {"per": int(g[0])}
        return None
