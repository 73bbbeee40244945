"""Interpretable verification: features with evidence -> a fitted, calibrated confidence the user can trace."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from .coverage import unused_operators
from .frame import EPDO_FIELD, Frame
from .pack import Pack


WEIGHTY = 0.3  # a feature moving the log-odds less than this is no reason worth reading
# repairs that keep what was asked: a label spelt as published, a condition met already, a field or condition
# carried to the same field of the source chosen (the choice itself is a repair of its own), a range said as the
# published bands it covers exactly
_SPELLING_ONLY = {"value_normalised", "group_field", "scope_satisfied", "already_excluded", "filter_moved",
                  "threshold_bands", "range_ends", "area_holds", "source_tie", "entity_only", "values_any", "values_narrowed",
                  "area_condition"}


@dataclass
class Feature:
    name: str
    value: float
    weight: float
    evidence: str


@dataclass
class Verdict:
    confidence: float
    features: list[Feature] = field(default_factory=list)

    def reasons(self) -> list[str]:
        """What lowers (first) and raises the confidence, in plain words, most weighty first."""
        active = [f for f in self.features if abs(f.value * f.weight) >= WEIGHTY]
        active.sort(key=lambda f: f.value * f.weight)
        return [f.evidence for f in active]

    def to_dict(self) -> dict:
        return {"confidence": self.confidence, "features": [f.__dict__ for f in self.features]}


@dataclass
class Evidence:
    """Everything the verifier reads about one answer: how the question was read, repaired, planned and what
    came back."""
    frame: Frame
    repairs: list = field(default_factory=list)          # Repair objects
    notes: list[str] = field(default_factory=list)
    clarify: list = field(default_factory=list)
    rows: list = field(default_factory=list)
    truncated: bool = False
    value_index: int | None = None
    missing_geometry: tuple[int, int] | None = None
    understood: dict[str, Any] = field(default_factory=dict)  # context, corrections, rewrites, read_share, ...


def features(pack: Pack, ev: Evidence) -> list[tuple[str, float, str]]:
    """(name, value, evidence) of every feature: coverage of the question, the result's shape, the plan."""
    return _coverage(pack, ev) + _result(ev) + _plan(ev)


def _coverage(pack: Pack, ev: Evidence) -> list[tuple[str, float, str]]:
    u, reps = ev.understood, ev.repairs
    codes = [r.code for r in reps]
    # (a label spelt as published or a field picked among one source's twins changes nothing the user asked)
    deep = [r for r in reps if r.code not in _SPELLING_ONLY]
    ctx, corr, unused = u.get("context", []), u.get("corrections", []), u.get("unused", [])
    amb, nums = u.get("ambiguous", []), unaccounted(pack, ev, u.get("numbers_unused", []))
    ops, skipped = unused_operators(u.get("operators", []), ev.frame), u.get("asked_unread", [])
    return [
        ("ambiguous_words", min(len(amb), 3), "words with several readings: " + ", ".join(amb)
         if amb else "every word had one reading"),
        ("numbers_unused", min(len(nums), 2), "numbers of the question not in the answer: " + ", ".join(nums)
         if nums else "every number was used"),
        ("unused_readings", min(len(unused), 3), "read but not used in the answer: " + ", ".join(unused)
         if unused else "every word read was used"),
        ("operators_unused", min(len(ops), 2), "asked but not carried out: " + ", ".join(ops)
         if ops else "every ranking, share or grouping asked was carried out"),
        ("context_words", min(len(ctx), 5) / 5, f"taken as context: {', '.join(ctx)}" if ctx else "no context words"),
        ("asked_words_unread", min(len(skipped), 3), "words of the question itself no reading took: " + ", ".join(skipped)
         if skipped else "every word of the question itself was read"),
        ("corrections", min(len(corr), 3), "spelling corrected: " + ", ".join(f"{c['from']}→{c['to']}" for c in corr)
         if corr else "no spelling corrected"),
        ("clauses", min(int(u.get("clauses", 1)) - 1, 3), "the message has several sentences or clauses"),
        ("long_question", min(int(u.get("words", 0)), 40) / 20, f"{u.get('words', 0)} words in the question"),
        # (each repair's reason is read once: the ones of meaning under the next feature)
        ("repairs", min(len(reps), 4), f"{len(reps)} repair(s)" + (": " + "; ".join(
            [r.reason for r in reps if r not in deep][:3]) if len(deep) < len(reps) else "")),
        ("repairs_of_meaning", min(len(deep), 3), f"{len(deep)} repair(s) that changed what was asked: " +
         "; ".join(r.reason for r in deep[:3]) if deep else "no repair changed what was asked"),
        ("entity_guessed", float("entity" in codes), next((r.reason for r in reps if r.code == "entity"),
                                                          "the data source was named")),
        ("source_tied", float("source_tie" in codes), next((f"another source could answer: {r.reason}" for r in reps
                                                            if r.code == "source_tie"), "one source fitted best")),
        ("anchor_fuzzy", float("anchor_fuzzy" in codes), "a place name was matched approximately"),
        # (a field named twice, '<dark> <unlit> roads', is read as the narrower values: weighed on its own)
        ("values_narrowed", float("values_narrowed" in codes), next((r.reason for r in reps if r.code ==
                                                                     "values_narrowed"), "no values narrowed")),
        ("ambiguous_anchor", float(bool(ev.clarify)), "a place name matched several features"),
        ("default_distance", float(bool({"distance_default", "near_added"} & set(codes))),
         "no distance was given: the pack's default was used"),
        ("filter_dropped", float("filter_dropped" in codes or "time_dropped" in codes),
         "a condition could not be applied and was left out"),
    ]


def unaccounted(pack: Pack, ev: Evidence, numbers: list[str]) -> list[str]:
    """The numbers the frame does not hold that the answer does not restate either: how many rows came back
    ('each of the <n> <areas>'), how many labels a condition holds or fields it reads ('all three dark
    codes', 'either of the 2 fields'), a weight or a field name of the measure ('weighted 21', '2010 population')."""
    f = ev.frame
    counts = {len(ev.rows)} if len(ev.rows) > 1 else set()
    preds = f.filters + f.share_of + (f.near.filters if f.near else []) + [p for side in f.compare for p in side.filters]
    while preds:
        p = preds.pop()
        counts |= {len(p.values), len(p.any_of)}
        preds += p.any_of
    return [n for n in numbers if not (n.isdigit() and int(n) in counts - {0, 1}) and n not in measure_numbers(pack, f)]


def measure_numbers(pack: Pack, f: Frame) -> set[str]:
    """Numbers the measure's convention holds: the weights of a weighted score, the year in the name of the
    population field a rate divides by."""
    out: set[str] = set()
    if f.measure.kind == "epdo" or f.measure.field == EPDO_FIELD:
        ep = pack.convention("epdo", default={}) or {}
        out |= {f"{v:g}" for v in list(ep.get("weights", {}).values()) + [ep.get("default_weight", 1)]}
    if f.measure.kind == "rate":
        out |= set(re.findall(r"\d+", str(pack.convention("population", "field", default=""))))
    return out


def _result(ev: Evidence) -> list[tuple[str, float, str]]:
    rows, vi, f = ev.rows, ev.value_index, ev.frame
    values = [r[vi] for r in rows if vi is not None and vi < len(r)]
    zero = bool(rows) and vi is not None and all((v or 0) == 0 for v in values)
    share_bad = f.intent == "share" and any(isinstance(v, (int, float)) and not 0 <= v <= 100 for v in values)
    topn = f.rank.limit if f.rank and f.rank.limit else None
    top_bad = topn is not None and len(rows) < topn
    n, total = ev.missing_geometry or (0, 0)
    return [
        ("empty_result", float(not rows), "the result is empty"),
        ("all_zero", float(zero), "every value in the result is zero"),
        ("truncated", float(ev.truncated), "the result was cut at the row cap"),
        ("share_out_of_range", float(share_bad), "a share fell outside 0-100 %"),
        ("fewer_than_asked", float(top_bad), f"the top {topn} asked for returned {len(rows)} rows"),
        ("many_rows", min(len(rows), 1000) / 1000, f"{len(rows):,} rows"),
        ("missing_geometry_share", round(n / total, 4) if total else 0.0,
         f"{n:,} of {total:,} records have no location and cannot be in a spatial answer"),
    ]


def _plan(ev: Evidence) -> list[tuple[str, float, str]]:
    f = ev.frame
    negated = any(p.negate for p in f.filters)
    return [
        ("compare", float(bool(f.compare)), "a comparison of several sides"),
        ("share", float(f.intent == "share"), "a share"),
        ("trend", float(f.intent == "trend"), "a trend"),
        ("rank", float(f.rank is not None), "a ranking"),
        ("groups", min(len(f.group_by), 2), "grouped results"),
        ("near", float(f.near is not None), "a distance relation"),
        ("named_feature", float(bool(f.near and f.near.anchor)), "a relation to one named feature"),
        ("weighted_or_rate", float(f.measure.kind in ("epdo", "rate")), "a weighted score or a rate"),
        ("sum_or_avg", float(f.measure.kind in ("sum", "avg")), "a total or average of a number field"),
        ("having", float(bool(f.having)), "a condition on how many records each group has"),
        ("negation", float(negated), "some records are excluded"),
        ("conditions", min(len(f.filters), 4), f"{len(f.filters)} condition(s)"),
        ("places", min(len(f.scope), 2), f"{len(f.scope)} place(s)"),
    ]


def verify(pack: Pack, ev: Evidence) -> Verdict:
    """Confidence = logistic(bias + sum(weight x feature)), with the weights the pack's conventions hold (fitted by
    bench/fit_verifier.py on the development splits' right/wrong labels)."""
    conf = pack.convention("verifier", default={}) or {}
    w = conf.get("weights", {})
    feats = [Feature(name, float(value), float(w.get(name, 0.0)), why) for name, value, why in features(pack, ev)]
    z = float(conf.get("bias", 0.0)) + sum(f.value * f.weight for f in feats)
    return Verdict(round(1 / (1 + math.exp(-max(-30.0, min(30.0, z)))), 3), feats)
