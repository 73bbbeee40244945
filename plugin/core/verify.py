"""Interpretable verification: features with evidence -> a confidence the user can read and trace."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from .pack import Pack


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
        return [f.evidence for f in sorted(self.features, key=lambda f: f.value * f.weight) if f.value and f.weight < 0]

    def to_dict(self) -> dict:
        return {"confidence": self.confidence, "features": [f.__dict__ for f in self.features]}


def verify(pack: Pack, unknown: list[str], repairs: list, notes: list[str], clarify: list, rows: list,
           truncated: bool, value_index: int | None, missing_geometry: tuple[int, int] | None = None) -> Verdict:
    """`missing_geometry` = (records without geometry, records) of the target when the question is spatial."""
    w = pack.convention("verifier", "weights", default={})
    feats = [
        Feature("unknown_words", min(len(unknown), 3), w.get("unknown_words", 0),
                f"words not understood: {', '.join(unknown)}" if unknown else "every word was understood"),
        Feature("repairs", min(len(repairs), 4), w.get("repairs", 0),
                f"{len(repairs)} repair(s): " + "; ".join(r.reason for r in repairs[:3]) if repairs else "no repairs"),
        Feature("ambiguous_anchor", len(clarify), w.get("ambiguous_anchor", 0),
                "a place name matched several features" if clarify else "place names matched uniquely"),
        Feature("empty_result", 1.0 if not rows or (value_index is not None and all(
            (r[value_index] or 0) == 0 for r in rows)) else 0.0, w.get("empty_result", 0),
                "the result is empty or all zero" if not rows else "the result has values"),
        Feature("truncated", 1.0 if truncated else 0.0, w.get("truncated", 0),
                "the result was cut at the row cap" if truncated else "complete result"),
        Feature("outside_coverage", 1.0 if any("outside that range" in n for n in notes) else 0.0,
                w.get("outside_coverage", 0), next((n for n in notes if "outside that range" in n), "within the data's years")),
        Feature("default_distance", 1.0 if any(r.code in ("distance_default", "near_added") for r in repairs) else 0.0,
                w.get("default_distance", 0), "a default distance was used" if any(
                    r.code in ("distance_default", "near_added") for r in repairs) else "distance as asked"),
        Feature("entity_guessed", 1.0 if any(r.code == "entity" for r in repairs) else 0.0, w.get("entity_guessed", 0),
                next((r.reason for r in repairs if r.code == "entity"), "the data source was named")),
    ]
    if missing_geometry:
        n, total = missing_geometry
        feats.append(Feature("missing_geometry_share", round(n / total, 4) if total else 0.0,
                             w.get("missing_geometry_share", 0),
                             f"{n:,} of {total:,} records have no location and cannot be in a spatial answer"
                             if n else "every record has a location"))
    z = pack.convention("verifier", "bias", default=2.0) + sum(f.value * f.weight for f in feats)
    return Verdict(round(1 / (1 + math.exp(-z)), 3), feats)
