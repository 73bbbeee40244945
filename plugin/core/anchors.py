"""Named places and features from the database (towns, neighbourhoods, schools, streets...) matched fuzzily."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from . import fuzzy
from .pack import Pack
from .text import language, normalize


@dataclass
class AnchorMatch:
    entity: str
    name: str          # the published name
    score: float
    start: int
    end: int
    text: str
    others: list[dict] = field(default_factory=list)


@dataclass
class AnchorIndex:
    """Variant text -> [(entity, published name)], built once per pack and database."""
    variants: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, entity: str, name: str, abbreviations: dict[str, str], numbers: dict[str, int]) -> None:
        base = normalize(name)
        if not base:
            return
        forms = {base}
        toks = base.split()
        expanded = " ".join(abbreviations.get(t, t) for t in toks)
        forms.add(expanded)
        # "Neighborhood Nine" is also said "neighborhood 9"
        forms.add(" ".join(str(numbers[t]) if t in numbers else t for t in toks))
        for form in forms:
            lst = self.variants.setdefault(form, [])
            if (entity, name) not in lst:
                lst.append((entity, name))

    @classmethod
    def build(cls, pack: Pack, fetch: Callable[[str, str, str], list[str]]) -> "AnchorIndex":
        """`fetch(table, column, entity)` returns the distinct names of one column (run read-only by the caller)."""
        idx = cls()
        lang = language(pack.raw.get("language", "en"))
        abbreviations = lang.get("street_abbreviations", {})
        numbers = {k: v for k, v in lang.get("number_words", {}).items() if " " not in k}
        for ent in pack.entities.values():
            for col in ent.names:
                for name in fetch(ent.table, col, ent.name):
                    if name:
                        idx.add(ent.name, name, abbreviations if ent.geometry == "line" else {}, numbers)
        return idx

    def match(self, toks: list[str], locked: set[int], pack: Pack, stop: set[str],
              known: set[str]) -> list[AnchorMatch]:
        """Longest, best-scoring names found in the token list, not overlapping `locked` positions."""
        found: list[AnchorMatch] = []
        taken = set(locked)
        choices = list(self.variants)
        for n in range(min(6, len(toks)), 0, -1):
            for i in range(0, len(toks) - n + 1):
                span = range(i, i + n)
                if any(j in taken for j in span):
                    continue
                gram = toks[i:i + n]
                text = " ".join(gram)
                exact = self.variants.get(text)
                if exact:
                    hits = [(text, 100.0)]
                else:
                    if gram[0] in stop or gram[-1] in stop or all(t in stop or t in known or t.isdigit() for t in gram):
                        continue
                    if len(text) < 5:
                        continue
                    cutoff = 90.0 if len(text) < 8 else 85.0
                    hits = fuzzy.best(text, choices, cutoff)
                    if not hits:
                        continue
                cands = []
                for variant, score in hits:
                    for ent, name in self.variants[variant]:
                        need = pack.entities[ent].anchor_min_score if score < 100 else 0
                        if score >= need:
                            cands.append({"entity": ent, "name": name, "score": round(score, 1)})
                if not cands:
                    continue
                cands.sort(key=lambda c: (-c["score"], pack.priority(c["entity"]), c["name"]))
                top = cands[0]
                found.append(AnchorMatch(top["entity"], top["name"], top["score"], i, i + n, text,
                                         others=[c for c in cands[1:] if c["score"] >= top["score"] - 3]))
                taken.update(span)
        return sorted(found, key=lambda m: m.start)
