"""Dates, years, months, seasons, days, hours, distances and counts found in a token list."""
from __future__ import annotations

import calendar
import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from .text import to_number
from .tokens import Span

YEAR = r"(19[5-9]\d|20[0-4]\d)"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")  # {months}, {from}; never a repetition such as {1,2}


@dataclass(frozen=True)
class TimeRule:
    """One rule of lang/<code>/time.yaml: `kind` names the reader of its match, `words` its own word lists."""
    name: str
    kind: str
    pattern: re.Pattern
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _alt(words, escape: bool = True, longest_first: bool = True) -> str:
    """Words as a regex alternation; longest first so that 'christmas eve' is tried before 'christmas'."""
    out = [re.escape(w) if escape else w for w in words]
    return "|".join(sorted(out, key=len, reverse=True) if longest_first else out)


def _placeholders(lang: dict, doc: dict) -> dict[str, str]:
    """What a rule's {placeholder} stands for: the language's word lists, as alternations."""
    fill = {
        "months": _alt(lang["months"], escape=False), "days": _alt(lang["days"], escape=False),
        "holidays": _alt({**lang.get("holidays", {}), **lang.get("weekday_holidays", {})}) or "(?!)", "units": _alt(lang["units"]),
        "nums": r"(\d+(?:\.\d+)?|" + _alt(lang["number_words"], escape=False) + ")",
        "periods": _alt(lang.get("periods", {})), "seasons": _alt(lang["seasons"], escape=False),
        "weekend": _alt(lang["weekend"], longest_first=False), "weekday": _alt(lang["weekday"], longest_first=False),
        "time_of_day": _alt(lang["time_of_day"]), "year": YEAR,
        "hr": r"(\d{1,2}(?::\d\d)?|" + _alt(doc.get("hour_words", {}), longest_first=False) + ")",
        "ampm": _alt(doc.get("meridiem", {}), longest_first=False),
        "day_parts": _alt(doc.get("day_parts", {}), longest_first=False),
        "inclusive": f"(?: ?(?:{_alt(doc.get('inclusive', []))}))?" if doc.get("inclusive") else "",
    }
    fill.update({f"cue_{name}": _alt(words) for name, words in lang["cues"].items()})
    return fill


def load_rules(doc: dict, lang: dict) -> list[TimeRule]:
    """The rules of a time rule file, their patterns filled in and compiled, in the file's order."""
    fill = _placeholders(lang, doc)
    rules = []
    for r in doc.get("rules", []):
        if r["kind"] not in READERS:
            raise ValueError(f"time rule '{r['name']}': no reader for kind '{r['kind']}'")
        words = {k: tuple(v) for k, v in (r.get("words") or {}).items()}
        own = {k: _alt(v, longest_first=False) for k, v in words.items()}
        pattern = _PLACEHOLDER.sub(lambda m: own[m.group(1)] if m.group(1) in own else fill[m.group(1)], r["pattern"])
        rules.append(TimeRule(r["name"], r["kind"], re.compile(pattern), words))
    return rules


def _hour(num: str, half: str | None, named: dict[str, int]) -> int | None:
    """'7', '7:30' or a named hour, in the half of the day `half` ('pm': 7 is 19); None when no hour."""
    if num in named:
        return named[num]
    h = int(float(num.split(":")[0]))
    if half == "pm" and h < 12:
        h += 12
    if half == "am" and h == 12:
        h = 0
    return h if 0 <= h <= 23 else None


def _hours_between(a: int, b: int) -> list[int]:
    """Hours from a up to but excluding b ('between 7 and 9 am' = 7:00-8:59); wraps past midnight."""
    out, h = [], a
    while h != b and len(out) < 24:
        out.append(h)
        h = (h + 1) % 24
    return out or [a]


def _introduced(m: re.Match, intro: tuple[str, ...]) -> bool:
    """The match opens with one of the words that make an ambiguous word a time ('in may', 'on sun')."""
    return m.group(0).startswith(tuple(w + " " for w in intro))


def _listed(p: TimeParser, r: TimeRule, m: re.Match) -> bool:
    """An ambiguous word said in a list with a name of its kind is that kind ('dec, jan or feb')."""
    skip = set(r.words["listed"]) | set(r.words["ambiguous"])  # (across other such words: 'feb, jan or dec')
    before = [w for w in m.string[:m.start()].split()[-6:] if w not in skip][-1:]
    after = [w for w in m.string[m.end():].split()[:6] if w not in skip][:1]
    return any(w in p.lang["months"] for w in before + after)


class TimeParser:
    """Regex passes over the normalised text; each match becomes a locked Span."""

    def __init__(self, lang: dict, seasons: dict[str, list[int]], rules: dict):
        self.lang = lang
        self.seasons = seasons
        self.hour_words: dict[str, int] = dict(rules.get("hour_words") or {})
        self.meridiem: dict[str, str] = dict(rules.get("meridiem") or {})
        self.day_parts: dict[str, str] = dict(rules.get("day_parts") or {})
        self.day_alternation = _alt(lang["days"], escape=False)  # for the words around a day ('sat or sun')
        self.rules = load_rules(rules, lang)

    def read(self, text: str) -> list[tuple[TimeRule, int, int, Any, str]]:
        """(rule, first token, end token, value, text matched) of every match kept, in rule order; earlier rules
        win where they overlap."""
        starts = [m.start() for m in re.finditer(r"\S+", text)]

        def tok_index(pos: int) -> int:
            return max(i for i, s in enumerate(starts) if s <= pos)
        out: list[tuple[TimeRule, int, int, Any, str]] = []
        used: set[int] = set()
        for rule in self.rules:
            for m in rule.pattern.finditer(text):
                a, b = tok_index(m.start()), tok_index(m.end() - 1) + 1
                if any(i in used for i in range(a, b)):
                    continue
                value = READERS[rule.kind](self, rule, m)
                if value is None:
                    continue
                out.append((rule, a, b, value, m.group(0)))
                used.update(range(a, b))
        return out

    def parse(self, text: str) -> list[Span]:
        """Spans over token positions; earlier patterns win where they overlap."""
        spans = []
        for rule, a, b, value, said in self.read(text):
            spans.append(Span(a, b, "time", value, said))
            if rule.kind in ("distance", "topn", "per"):  # spans of their own kind; every other rule's is a time
                spans[-1].kind = rule.kind
        return sorted(spans, key=lambda s: s.start)

    def num(self, tok: str) -> float | None:
        return to_number(tok, self.lang)

    def half(self, word: str | None) -> str | None:
        """The half of the day an 'am'/'pm' word names."""
        return self.meridiem.get(word) if word else None

    def hour(self, num: str, half: str | None) -> int | None:
        return _hour(num, half, self.hour_words)

    def month(self, word: str) -> int:
        return self.lang["months"][word]


# Readers: one per rule kind, from a match to a span value (None: the match is not what it looks like).
Reader = Callable[[TimeParser, TimeRule, re.Match], Any]


def _hour_range(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    g = m.groups()
    if not (g[1] or g[3] or g[4]) and not any(x in p.hour_words for x in (g[0], g[2])):
        return None  # a range of years is not a time of day
    half = p.half(g[3]) or p.day_parts.get(g[4] or "")
    a, b = p.hour(g[0], p.half(g[1]) or half), p.hour(g[2], half)
    if b is not None and ":" in g[2] and not g[2].endswith(":00"):
        b = (b + 1) % 24  # 'until 3:59' includes the hour 3
    return {"hours": _hours_between(a, b)} if a is not None and b is not None else None


def _hour_after(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    word, num, ampm = m.groups()
    h = p.hour(num, p.half(ampm))
    if h is None:
        return None
    return {"hours": list(range(h, 24)) if word in r.words["from"] else list(range(0, h))}


def _hour_onward(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    num, ampm, word = m.groups()
    h = p.hour(num, p.half(ampm))
    if h is None:
        return None
    return {"hours": list(range(0, h + 1)) if word in r.words["to"] else list(range(h, 24))}


def _hour_at(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    h = p.hour(m.group(1), p.half(m.group(2)))
    return {"hours": [h]} if h is not None else None


def _hour_24(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    h = int(m.group(1))
    return {"hours": [h]} if 0 <= h <= 23 else None


def _day_of_year(month: int, day: str | int, year: str | None) -> Any:
    """One day: a date in a year, or that day of that month in every year."""
    d = int(day)
    if not 1 <= d <= 31:
        return None
    if year:
        iso = f"{year}-{month:02d}-{d:02d}"
        return {"date_from": iso, "date_to": iso}
    return {"months": [month], "days_of_month": [d]}


def _date(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    mon, day, year = m.groups()
    return _day_of_year(p.month(mon), day, year)


def _dom(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    day, mon, year = m.groups()
    return _day_of_year(p.month(mon), day, year)


def _holiday(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    day = holiday_date(p.lang, m.group(1), m.group(2))
    return _day_of_year(day[0], day[1], m.group(2)) if day else None


def holiday_date(lang: dict, name: str, year: str | None) -> tuple[int, int] | None:
    """(month, day) of a day named: a fixed date, or the nth weekday of a month in the year said ('thanksgiving
    2017': the 4th Thursday of November); a day of the second kind said without a year is none."""
    if name in lang.get("holidays", {}):
        return tuple(lang["holidays"][name])
    month, isodow, nth = lang.get("weekday_holidays", {}).get(name) or (0, 0, 0)
    if not (month and year):
        return None
    days = [d for d in range(1, calendar.monthrange(int(year), month)[1] + 1)
            if dt.date(int(year), month, d).isoweekday() == isodow]
    return month, days[nth - 1 if nth > 0 else nth]


def _date_range(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    m1, d1, y1, m2, d2, y2 = m.groups()
    return _days_between((p.month(m1), int(d1)), y1, (p.month(m2 or m1), int(d2)), y2)


def _day_span(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    """'from <holiday> through <holiday or date>': each end a day named or a date."""
    h1, m1, d1, y1, h2, m2, d2, y2 = m.groups()
    ends = [holiday_date(p.lang, h, y1 or y2) if h else (p.month(mo), int(d)) for h, mo, d in ((h1, m1, d1), (h2, m2, d2))]
    return _days_between(ends[0], y1, ends[1], y2) if all(ends) else None


def _days_between(a: tuple[int, int], y1: str | None, b: tuple[int, int], y2: str | None) -> Any:
    """Both ends of a range of days; said without a year, the days of the records' latest year (a range reaching
    into the next year starts in the year before)."""
    if not (1 <= a[1] <= 31 and 1 <= b[1] <= 31):
        return None
    y = y2 or y1
    if not y:
        return {"date_from": f"--{a[0]:02d}-{a[1]:02d}", "date_to": f"--{b[0]:02d}-{b[1]:02d}", "latest_year": True}
    start = y1 or (str(int(y) - 1) if a > b else y)
    return {"date_from": f"{start}-{a[0]:02d}-{a[1]:02d}", "date_to": f"{y}-{b[0]:02d}-{b[1]:02d}"}


def _date_since(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    word, mon, day, year = m.groups()
    if not year:
        return None
    iso = f"{year}-{p.month(mon):02d}-{int(day):02d}"
    return {"date_from": iso} if word in r.words["from"] else {"date_to": iso}


def _period(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    name, year = m.groups()
    out = {"months": list(p.lang["periods"][name]), "label": name}
    if year:
        out["years"] = [int(year)]
    return out


def _month_range(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    g = m.groups()
    a, b = p.month(g[0] or g[1]), p.month(g[2])
    return {"months": list(range(a, b + 1)) if a <= b else list(range(a, 13)) + list(range(1, b + 1))}


def _month_since(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    word, mon = m.group(1), p.month(m.group(2))
    months = list(range(mon + (word in r.words["exclusive"]), 13)) if word in r.words["from"] \
        else list(range(1, mon))
    return {"months": months, "latest_year": True} if months else None


def _year_range(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    said = [y for y in m.groups() if y]
    # ('2010-17'): an end year written with two digits is in the century of the start
    ys = [int(said[0][:2] + y) if len(y) == 2 and len(said[0]) == 4 else int(y) for y in said]
    if ys != sorted(ys):
        return None
    return {"year_range": (min(ys), max(ys)), "connector": m.group(0)}


def _year_onward(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    y, word = int(m.group(1)), m.group(2)
    return {"year_to": y} if word in r.words["to"] else {"year_from": y}


def _year_since(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    word, y = m.group(1), int(m.group(2))
    shift = int(word in r.words["exclusive"])
    return {"year_from": y + shift} if word in r.words["from"] else {"year_to": y - shift}


def _month(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    if m.group(1) in r.words["ambiguous"] and not _introduced(m, r.words["intro"]) and not _listed(p, r, m):
        return None
    return {"months": [p.month(m.group(1))]}


def _day_range(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    """'monday thru friday', 'fri to sun': every day from the first to the last."""
    a, b = p.lang["days"][m.group(1)], p.lang["days"][m.group(2)]
    return {"isodow": [(a - 1 + i) % 7 + 1 for i in range((b - a) % 7 + 1)]}


def _day(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    links = _alt(r.words["links"], longest_first=False)
    linked = re.search(rf"\b(?:{p.day_alternation}) (?:{links}) $", m.string[max(0, m.start() - 16):m.start()]) or \
        re.match(rf" (?:{links}) (?:{p.day_alternation})\b", m.string[m.end():m.end() + 16])
    if m.group(1) in r.words["ambiguous"] and not _introduced(m, r.words["intro"]) and not linked:
        return None
    return {"isodow": [p.lang["days"][m.group(1)]]}


def _season(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    name = p.lang["seasons"][m.group(1)]
    if name in r.words["ambiguous"] and not _introduced(m, r.words["intro"]) and not _beside_season(p, r, m):
        return None
    return {"months": list(p.seasons.get(name, [])), "season": name}


def _beside_season(p: TimeParser, r: TimeRule, m: re.Match) -> bool:
    """Whether another season is joined to this word ('summer vs <season>', '<season> and winter')."""
    others = "|".join(re.escape(k) for k, v in p.lang["seasons"].items() if v not in r.words["ambiguous"])
    joins = "|".join(map(re.escape, r.words.get("beside", [])))
    if not others or not joins:
        return False
    return bool(re.search(rf"\b(?:{others}) (?:{joins})$", m.string[:m.start(1)].rstrip())) or \
        bool(re.match(rf"\s+(?:{joins}) (?:the )?(?:{others})\b", m.string[m.end():]))


def _distance(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    n = p.num(m.group(1))
    return {"metres": n * p.lang["units"][m.group(2)], "text": m.group(0)} if n is not None else None


def _topn(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    said = next(x for x in m.groups() if x)
    if m.group(0).startswith(said) and re.fullmatch(YEAR, said):
        return None  # ('<years>, most to fewest'): a year before a ranking word ends a time range, it counts nothing
    n = p.num(said)
    return {"n": int(n)} if n else None


def _last_n(p: TimeParser, r: TimeRule, m: re.Match) -> Any:
    n = p.num(m.group(1))
    return {"last_n_years": int(n)} if n else None


READERS: dict[str, Reader] = {
    "hour_range": _hour_range, "hour_after": _hour_after, "hour_onward": _hour_onward, "hour_at": _hour_at,
    "hour_24": _hour_24, "date": _date, "dom": _dom, "holiday": _holiday, "date_range": _date_range,
    "date_since": _date_since, "day_span": _day_span, "period": _period, "month_range": _month_range, "month_since": _month_since,
    "year_range": _year_range, "year_onward": _year_onward, "year_since": _year_since, "month": _month,
    "day_range": _day_range, "day": _day, "season": _season, "distance": _distance, "topn": _topn,
    "last_n": _last_n,
    "day_dom": lambda p, r, m: {"isodow": [p.lang["days"][m.group(1)]], "days_of_month": [int(m.group(2))]},
    "latest": lambda p, r, m: {"latest_year": True},
    "month_year": lambda p, r, m: {"months": [p.month(m.group(1))], "years": [int(m.group(2))]},
    "year": lambda p, r, m: {"years": [int(m.group(1))]},
    "weekend": lambda p, r, m: {"isodow": [6, 7], "label": "weekend"},
    "weekday": lambda p, r, m: {"isodow": [1, 2, 3, 4, 5], "label": "weekday"},
    "tod": lambda p, r, m: {"hours": list(p.lang["time_of_day"][m.group(1)]), "vague": True},
    "per": lambda p, r, m: {"per": int(next(g for g in m.groups() if g))},
}
