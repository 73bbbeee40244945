"""Numeric conditions in questions ('75 or older', 'under 18', 'at least 3') and how they select coded bands."""
from __future__ import annotations

import re

from .tokens import Span

# op of "N <words>" and of "<words> N"
_OPS = ("gt", "gte", "lt", "lte")
_BAND = re.compile(r"^\s*(?:(\d+)\s*-\s*(\d+)|([<>])\s*=?\s*(\d+)|(\d+)\s*\+)\s*$")


def comparisons(toks: list[str], lang: dict, locked: set[int]) -> list[Span]:
    """Spans {'op', 'n'} for numbers with a comparison word before ('over 80') or after ('75 or older')."""
    cmp = lang.get("comparisons", {})
    before = {tuple(p.split()): op for op in _OPS for p in cmp.get(op + "_before", [])}
    after = {tuple(p.split()): op for op in _OPS for p in cmp.get(op + "_after", [])}
    out: list[Span] = _ranges(toks, cmp, locked)
    ranged = {i for s in out for i in range(s.start, s.end)}
    for i, t in enumerate(toks):
        if i in locked | ranged or not re.fullmatch(r"\d+(\.\d+)?", t):
            continue
        n = float(t)
        for words, op in sorted(after.items(), key=lambda kv: -len(kv[0])):
            j = i + 1 + len(words)
            if tuple(toks[i + 1:j]) == words and not locked & set(range(i, j)):
                out.append(Span(i, j, "numcmp", {"op": op, "n": n}, " ".join(toks[i:j])))
                break
        else:
            for words, op in sorted(before.items(), key=lambda kv: -len(kv[0])):
                s = i - len(words)
                if s >= 0 and tuple(toks[s:i]) == words and not locked & set(range(s, i + 1)):
                    out.append(Span(s, i + 1, "numcmp", {"op": op, "n": n}, " ".join(toks[s:i + 1])))
                    break
    return out


def _ranges(toks: list[str], cmp: dict, locked: set[int]) -> list[Span]:
    """'aged 16 to 20', 'between 3 and 5': a span {'op': 'range', 'n': low, 'm': high}."""
    opens, joins = set(cmp.get("range_before", [])), set(cmp.get("range_joins", []))
    num = r"\d+(\.\d+)?"
    out = []
    for i in range(1, len(toks) - 2):
        if toks[i - 1] in opens and re.fullmatch(num, toks[i]) and toks[i + 1] in joins and \
                re.fullmatch(num, toks[i + 2]) and not locked & set(range(i - 1, i + 3)) and \
                float(toks[i]) < float(toks[i + 2]):
            out.append(Span(i - 1, i + 3, "numcmp", {"op": "range", "n": float(toks[i]), "m": float(toks[i + 2])},
                            " ".join(toks[i - 1:i + 3])))
    return out


def split_range(value: dict) -> list[tuple[str, float]]:
    """The comparisons a numeric condition stands for: a range is at least its low end and at most its high end."""
    if value["op"] == "range":
        return [("gte", value["n"]), ("lte", value["m"])]
    return [(value["op"], value["n"])]


def band(label: str) -> tuple[float, float] | None:
    """The whole numbers a published band label covers: '75-84' -> (75, 84), '<16' -> (-inf, 15), '>84' ->
    (85, inf), '65+' -> (65, inf); None for a label that is not a band ('Unknown')."""
    m = _BAND.match(str(label))
    if not m:
        return None
    if m.group(1):
        return float(m.group(1)), float(m.group(2))
    if m.group(3):
        k = float(m.group(4))
        return (float("-inf"), k - 1) if m.group(3) == "<" else (k + 1, float("inf"))
    return float(m.group(5)), float("inf")


def holds(op: str, n: float, lo: float, hi: float) -> bool | None:
    """True when every value of [lo, hi] meets the condition, False when none does, None when it straddles."""
    test = {"gt": lambda v: v > n, "gte": lambda v: v >= n, "lt": lambda v: v < n, "lte": lambda v: v <= n}[op]
    a, b = test(lo), test(hi)
    return a if a == b else None
