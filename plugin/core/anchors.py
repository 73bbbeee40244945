"""Named places and features from the database (towns, neighbourhoods, schools, streets...) matched fuzzily."""
from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field, replace
from typing import Callable

from . import fuzzy
from .pack import Pack
from .spelling import parts_of_speech
from .text import language
from .text import normalize as _normalize

# names repeat across columns, rows and packs' rebuilds
normalize = functools.lru_cache(maxsize=100_000)(_normalize)


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
    # (entity, normalised name) -> every name the same features carry in the entity's other name columns
    same: dict[tuple[str, str], set[str]] = field(default_factory=dict)
    # (part entity, {two normalised part names}) -> [(joined entity, published name)]: "A & B" intersections
    pairs: dict[tuple[str, frozenset], list[tuple[str, str]]] = field(default_factory=dict)
    joiners: set[str] = field(default_factory=set)
    # word -> the names (entity, published name) whose variants hold it: 'rindge' -> three schools, a street
    by_word: dict[str, set[tuple[str, str]]] = field(default_factory=dict)
    # a part's name without its kind word ('hampshire' for 'Hampshire St'): read only as part of a joined name
    bare: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def add(self, entity: str, name: str, abbreviations: dict[str, str], numbers: dict[str, int],
            endings: dict[str, str] | None = None, said: str | None = None, needs_word: bool = False) -> None:
        base = normalize(said or name)
        if not base:
            return
        forms = {base}
        toks = base.split()
        expanded = " ".join(abbreviations.get(t, t) for t in toks)
        forms.add(expanded)
        # "Neighborhood Nine" is also said "neighborhood 9"
        forms.add(" ".join(str(numbers[t]) if t in numbers else t for t in toks))
        for end, short in (endings or {}).items():  # "Middleborough" is also written "Middleboro"
            if toks[-1].endswith(end) and len(toks[-1]) > len(end) + 2:
                forms.add(" ".join(toks[:-1] + [toks[-1][:-len(end)] + short]))
        for form in forms:
            lst = self.variants.setdefault(form, [])
            if (entity, name) not in lst:
                lst.append((entity, name))
            for word in form.split() if not needs_word else ():
                self.by_word.setdefault(word, set()).add((entity, name))

    def synonyms(self, entity: str, name: str) -> set[str]:
        n = normalize(name)
        return self.same.get((entity, n), set()) | {n}

    @classmethod
    def build(cls, pack: Pack, fetch: Callable[[str, list[str], str], list[tuple]]) -> "AnchorIndex":
        """`fetch(table, columns, entity)` returns the distinct rows of the name columns (run read-only by the
        caller); names in one row are names of the same features ('Massachusetts Ave', alias 'Mass Ave')."""
        idx = cls()
        lang = language(pack.raw.get("language", "en"))
        abbreviations = lang.get("street_abbreviations", {})
        numbers = {k: v for k, v in lang.get("number_words", {}).items() if " " not in k}
        idx.joiners = set(lang.get("junction_words", []))
        for ent in pack.entities.values():
            if not ent.names:
                continue
            for row in fetch(ent.table, ent.names, ent.name):
                names = [n for n in row if n]
                for name in names:
                    idx.add(ent.name, name, abbreviations if ent.geometry == "line" else {}, numbers,
                            lang.get("place_name_endings", {}) if ent.area else None, needs_word=ent.anchor_needs_word)
                    idx.same.setdefault((ent.name, normalize(name)), set()).update(normalize(n) for n in names)
        # names the pack knows a feature by that the data does not hold ('Area 4' for a neighbourhood)
        for entity, table in (pack.raw.get("aliases") or {}).items():
            for said, real in (table or {}).items():
                for e, name in list(idx.variants.get(normalize(real), [])):
                    if e == entity:
                        idx.add(entity, name, {}, numbers, said=said)
        kinds = set(abbreviations) | set(abbreviations.values())
        for ent in pack.entities.values():
            if not ent.joins:
                continue
            part_ent, sep = ent.joins["entity"], normalize(ent.joins.get("separator", "&"))
            for form, names in list(idx.variants.items()):
                words = form.split()
                if len(words) > 1 and words[-1] in kinds:
                    idx.bare.setdefault(" ".join(words[:-1]), []).extend(n for n in names if n[0] == part_ent)
            for name in {nm for v in idx.variants.values() for e, nm in v if e == ent.name}:
                parts = [p.strip() for p in normalize(name).split(f" {sep} ")]
                for a, b in itertools.combinations(parts, 2):
                    for x, y in itertools.product(idx.synonyms(part_ent, a), idx.synonyms(part_ent, b)):
                        lst = idx.pairs.setdefault((part_ent, frozenset((x, y))), [])
                        if (ent.name, name) not in lst:
                            lst.append((ent.name, name))
        return idx

    def join(self, found: list["AnchorMatch"], toks: list[str]) -> list["AnchorMatch"]:
        """Names of one entity side by side or linked by a junction word ('<street> and <street>',
        '<street> / <street> / <street>') become the feature whose name joins them all (their intersection), when the
        pack has such an entity and the database such a name."""
        out: list[AnchorMatch] = []
        parts: list[list[AnchorMatch]] = []  # the names each entry of `out` joins
        for m in found:
            prev = out[-1] if out else None
            gap = toks[prev.end:m.start] if prev else None
            linked = prev is not None and m.start >= prev.end and (not gap or (len(gap) == 1 and gap[0] in self.joiners))
            named = parts[-1] + [m] if linked and parts[-1][0].entity == m.entity else None
            hits = self._joining(named) if named and len(named) > 1 else set()
            if hits:
                hits = sorted(hits, key=lambda h: (h[1].count("&"), h))  # the plain crossing first
                ent, name = hits[0]
                score = min(x.score for x in named)
                out[-1] = AnchorMatch(ent, name, score, named[0].start, m.end, " ".join(toks[named[0].start:m.end]),
                                      others=[{"entity": e, "name": n, "score": score} for e, n in hits[1:]])
                parts[-1] = named
                continue
            out.append(m)
            parts.append([m])
        return out

    def _joining(self, named: list["AnchorMatch"]) -> set[tuple[str, str]]:
        """The features whose names join every pair of the given names (a bare name: any of the names it may be)."""
        hits = None
        for a, b in itertools.combinations(named, 2):
            pair = {h for x in self._said(a) for y in self._said(b)
                    for h in self.pairs.get((a.entity, frozenset((x, y))), [])}
            hits = pair if hits is None else hits & pair
        return hits or set()

    def _said(self, m: "AnchorMatch") -> set[str]:
        return set().union(*(self.synonyms(m.entity, n) for n in [m.name] + [o["name"] for o in m.others if o.get("bare")]))

    def _bare_parts(self, toks: list[str], taken: set[int]) -> list["AnchorMatch"]:
        """Names said without their kind word ('hampshire and broadway'), each possibly several features."""
        out: list[AnchorMatch] = []
        used = set(taken)
        for n in (3, 2, 1):
            for i in range(len(toks) - n + 1):
                names = self.bare.get(" ".join(toks[i:i + n]))
                if names and not used & set(range(i, i + n)):
                    out.append(AnchorMatch(names[0][0], names[0][1], 100.0, i, i + n, " ".join(toks[i:i + n]),
                                           others=[{"entity": e, "name": nm, "score": 100.0, "bare": True}
                                                   for e, nm in names]))
                    used.update(range(i, i + n))
        return out

    def _joined_bare(self, found: list["AnchorMatch"], toks: list[str], taken: set[int],
                     pack: Pack) -> list["AnchorMatch"]:
        """`found` with the names that bare parts join into a feature ('the hampshire and broadway intersection'),
        when the feature's kind word stands beside them or most parts were said whole."""
        bare = self._bare_parts(toks, taken)
        if not bare:
            return found
        out = []
        for m in self.join(sorted(found + bare, key=lambda m: m.start), toks):
            parts = [b for b in bare if m.start <= b.start and b.end <= m.end]
            if m in bare:
                continue  # (a bare name alone names nothing)
            if parts and m not in found and not (_beside_word(toks, m.start, m.end, pack.entities[m.entity].words)
                                                 or len(parts) * 2 <= len(m.text.split()) - len(parts)):
                out += [f for f in found if m.start <= f.start and f.end <= m.end]
                continue
            out.append(m)
        return out

    def match(self, toks: list[str], locked: set[int], pack: Pack, stop: set[str],
              known: set[str]) -> list[AnchorMatch]:
        """Longest, best-scoring names found in the token list, not overlapping `locked` positions."""
        found: list[AnchorMatch] = []
        taken = set(locked)
        choices = list(self.variants)
        # long names ('<street> & <street> & <street> & <street>') are matched exactly; up to 6 words, fuzzily too
        for n in range(min(MAX_EXACT_WORDS, len(toks)), 0, -1):
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
                    if n > MAX_FUZZY_WORDS or gram[0] in stop or gram[-1] in stop or all(t in stop or t in known or t.isdigit() for t in gram):
                        continue
                    if len(text) < 5 or n == 1 and parts_of_speech(text):
                        continue  # (an English word is meant as typed, not a name misspelt: 'range' is no 'Orange')
                    if any(" ".join(g) in self.variants for g in (gram[1:], gram[:-1]) if g):
                        continue  # 'st western ave': a name spelt exactly, one word off, is that name alone

                    cutoff = 90.0 if len(text) < 8 else 85.0
                    hits = fuzzy.best(text, choices, cutoff)
                    if not hits:
                        continue
                cands = []
                for variant, score in hits:
                    for ent, name in self.variants[variant]:
                        need = pack.entities[ent].anchor_min_score if score < 100 else 0
                        if score >= need and (not pack.entities[ent].anchor_needs_word or
                                              _beside_word(toks, i, i + n, pack.entities[ent].words)):
                            cands.append({"entity": ent, "name": name, "score": round(score, 1)})
                if not cands:
                    continue
                # ('<name> station'): the layer a word beside the name names comes first
                cands.sort(key=lambda c: (-c["score"], not _beside_word(toks, i, i + n, pack.entities[c["entity"]].words),
                                          pack.priority(c["entity"]), c["name"]))
                top = cands[0]
                found.append(AnchorMatch(top["entity"], top["name"], top["score"], i, i + n, text,
                                         others=[c for c in cands[1:] if c["score"] >= top["score"] - 3]))
                taken.update(span)
        found = self._joined_bare(found, toks, taken, pack)
        taken = set(locked) | {j for m in found for j in range(m.start, m.end)}
        found += self._partial(toks, taken, pack, stop, known)
        found = _widened_all(sorted(found, key=lambda m: m.start), toks, set(locked))
        return self.join(sorted(found, key=lambda m: m.start), toks)

    def _partial(self, toks: list[str], taken: set[int], pack: Pack, stop: set[str], known: set[str]) -> list[AnchorMatch]:
        """'near rindge school': a word no name is, but part of a few names (with the words beside it that those
        names also hold) names one of them; which one is asked back (score PARTIAL_SCORE), never guessed."""
        out = []
        for i, tok in enumerate(toks):
            if i in taken or tok in stop or tok in known or tok.isdigit() or len(tok) < 4 or tok not in self.by_word:
                continue
            lo, hi = i, i + 1
            while hi < len(toks) and hi not in taken and toks[hi] not in stop and self._names_with(toks[lo:hi + 1]):
                hi += 1
            while lo > 0 and lo - 1 not in taken and toks[lo - 1] not in stop and self._names_with(toks[lo - 1:hi]):
                lo -= 1
            names = sorted(self._names_with(toks[lo:hi]), key=lambda en: (pack.priority(en[0]), en[1]))
            if not 1 <= len(names) <= MAX_PARTIAL:
                continue
            cands = [{"entity": e, "name": n, "score": PARTIAL_SCORE} for e, n in names]
            out.append(AnchorMatch(names[0][0], names[0][1], PARTIAL_SCORE, lo, hi, " ".join(toks[lo:hi]),
                                   others=cands[1:]))
            taken.update(range(lo, hi))
        return out

    def _names_with(self, words: list[str]) -> set[tuple[str, str]]:
        sets = [self.by_word.get(w, set()) for w in words]
        return set.intersection(*sets) if sets else set()


# the longest names matched at all, and the longest matched approximately
MAX_EXACT_WORDS, MAX_FUZZY_WORDS = 14, 6
# a name found only as part of longer names: always confirmed with the user; at most this many are offered
PARTIAL_SCORE = 70.0
MAX_PARTIAL = 8


def _widened_all(found: list["AnchorMatch"], toks: list[str], locked: set[int]) -> list["AnchorMatch"]:
    """Each match widened over the words of its name beside it, in order; parts of one name that meet become one."""
    out: list[AnchorMatch] = []
    for m in found:
        taken = locked | {j for o in out + found if o is not m for j in range(o.start, o.end)}
        w = _widened(m, toks, taken)
        if out and out[-1].name == w.name and out[-1].entity == w.entity and w.start <= out[-1].end + 1 and \
                all(toks[j] in _normalize(w.name).split() for j in range(out[-1].end, w.start)):
            prev = out.pop()
            w = _widened(replace(prev, end=max(prev.end, w.end), text=" ".join(toks[prev.start:max(prev.end, w.end)]),
                                 others=[]), toks, taken)
        out.append(w)
    return out


def _widened(m: "AnchorMatch", toks: list[str], taken: set[int]) -> "AnchorMatch":
    """A name matched by a part of it ('latin') takes in the words of the same name said right beside the part
    ('rindge and latin'), so none of them is left over as a word no reading took."""
    name = _normalize(m.name).split()
    said = toks[m.start:m.end]
    at = next((k for k in range(len(name) - len(said) + 1) if name[k:k + len(said)] == said), None)
    if at is None:
        return m
    lo, hi, k = m.start, m.end, at
    while lo > 0 and k > 0 and lo - 1 not in taken and toks[lo - 1] == name[k - 1]:
        lo, k = lo - 1, k - 1
    k = at + len(said)
    while hi < len(toks) and k < len(name) and hi not in taken and toks[hi] == name[k]:
        hi, k = hi + 1, k + 1
    # (the more of the name is said, the surer the match: 'rindge and latin' is 3 of its 4 words)
    covered = round(100 * (hi - lo) / len(name), 1)
    if (lo, hi) == (m.start, m.end) and (m.score >= covered or hi - lo < 2):
        return m
    return replace(m, start=lo, end=hi, text=" ".join(toks[lo:hi]), score=max(m.score, covered))


def _beside_word(toks: list[str], start: int, end: int, words: list[str]) -> bool:
    """Whether one of an entity's words comes right after the name, or right before it ('Central station')."""
    for w in words:
        parts = w.split()
        if toks[end:end + len(parts)] == parts or (start >= len(parts) and toks[start - len(parts):start] == parts):
            return True
    return False
