"""Annotate a question: every span the pack or the grammar knows, longest and most specific first."""
from __future__ import annotations

import re

from dataclasses import dataclass, field, replace

from .anchors import AnchorIndex
from .clauses import Clause, clause_at, pieces
from .exclusion_scope import either_way, exclusion_scopes, weaken
from .numbers import band, comparisons
from .pack import Pack, language_for, norm_label
from .phrase_rules import apply_rewrites, rewrite_rules, rule_files
from .weights_said import weights_said
from .spelling import Speller, lemmas, number_runs, parts_of_speech, singular, verb_forms
from .text import drop_expansions, normalize, phrase_key, tokens
from .timeparse import TimeParser
from .tokens import Span
from .asides import set_aside
from .clause_roles import ClauseRoles
from .value_words import ValueWords


@dataclass
class Lexicon:
    """Phrase (token tuple) -> readings, built once per pack."""
    phrases: dict[tuple[str, ...], list[tuple[str, object]]] = field(default_factory=dict)
    max_len: int = 1

    def add(self, phrase: str, kind: str, value: object) -> None:
        key = phrase_key(phrase)
        if not key:
            return
        items = self.phrases.setdefault(key, [])
        if (kind, value) not in items:
            items.append((kind, value))
        self.max_len = max(self.max_len, len(key))

    @classmethod
    def build(cls, pack: Pack, lang: dict) -> "Lexicon":
        lex = cls()
        for e in pack.entities.values():
            for w in e.words:
                lex.add(w, "entity", e.name)
            for name in e.dataset_names:  # 'the bike crash file', 'the ramp inventory': the source itself
                for word in lang.get("source_words", []):
                    lex.add(f"{name} {word}", "entity", e.name)
            for f in e.fields.values():
                # a field's own name as people copy it from the attribute table ('yearadded')
                typed = [f.name.replace("_", ""), f.name] if "_" in f.name else []
                for w in list(f.words) + typed:
                    lex.add(w, "field", (e.name, f.name))
                    if not w.endswith("s"):
                        lex.add(w + "s", "field", (e.name, f.name))  # "streets" groups like "street"
                if f.kind == "coded" and f.unit and not f.match_labels:
                    # ('posted at 25 mph'): a label that is a number is read with the field's unit after it
                    for code in f.codes:
                        if str(code).strip().isdigit():
                            lex.add(f"{str(code).strip()} {f.unit}", "label", (e.name, f.name, norm_label(code)))
                if f.kind == "coded" and f.match_labels:
                    for code in f.codes:
                        parts = code.split(f.separator) if f.separator else [code]
                        for part in parts:
                            if band(part) and not any(ch.isalnum() for ch in part.split(maxsplit=1)[0][:1]):
                                continue  # ('<16'): read as a comparison of numbers, never as the bare number
                            for said in _spellings(part, lang):
                                lex.add(said, "label", (e.name, f.name, norm_label(part)))
                                if said.strip() and not said.strip().endswith("s"):
                                    lex.add(said + "s", "label", (e.name, f.name, norm_label(part)))
        for c in pack.concepts.values():
            for w in c.words:
                lex.add(w, "concept", c.name)
        for cue, words in lang["cues"].items():
            for w in words:
                lex.add(w, "cue", cue)
        for part, words in lang["time_parts"].items():
            for w in words:
                lex.add(w, "timepart", part)
                # "by hour of day" must not be read as "by hour" + "of day"
                for cue in lang.get("group_prefixes", []):
                    if not w.startswith(cue + " "):
                        lex.add(f"{cue} {w}", "timepart", part)
        lex._column_names(pack)
        # ('in the GTFS stops'): a name of its own (a word known from no other phrase) names the source said alone
        names = {e.name: [n for n in e.dataset_names] for e in pack.entities.values()}
        known = {t for key, items in lex.phrases.items() for t in key
                 if not any(k == "entity" and " ".join(key).startswith(n) for k, v in items for n in names.get(v, []))}
        for ent, said in names.items():
            for name in said:
                if name.split()[0] not in known:
                    lex.add(name, "entity", ent)
        return lex

    def _column_names(self, pack: Pack) -> None:
        """A field's column name read out ('roadway junction type') when it holds a name the field already goes by
        and means nothing else."""
        for e in pack.entities.values():
            for f in e.fields.values():
                said = phrase_key(f.name.replace("_", " "))
                if "_" not in f.name or said in self.phrases or f.kind not in ("coded", "text"):
                    continue
                if any(phrase_key(w) and " ".join(phrase_key(w)) in " ".join(said) for w in f.words):
                    self.add(" ".join(said), "field", (e.name, f.name))


def _spellings(label: str, lang: dict) -> list[str]:
    """A published label and, when it spells a number ('Four-way intersection'), the same with digits ('4 way')."""
    words = lang.get("number_words", {})
    toks = tokens(label)
    digits = [str(words[t]) if t in words else t for t in toks]
    out = [label] + ([" ".join(digits)] if digits != toks else [])
    # ('Not Reported' is also said 'was not reported'): the forms a negated label takes in a sentence
    for neg, forms in (lang.get("negated_label_forms") or {}).items():
        if len(toks) > 1 and toks[0] == neg:
            out += [" ".join([f] + toks[1:]) for f in forms]
    # 'STOP SIGNS' is also said 'stop sign'
    return out + [o.rstrip()[:-1] for o in out if o.rstrip().lower().endswith("s") and not o.rstrip().lower().endswith("ss")
                  and len(o.split()) > 1]


# a closing parenthesis, as a token of its own while the words are read (no word of any language)
_BREAK = "zzbreakzz"


@dataclass
class Annotation:
    tokens: list[str]
    spans: list[Span]
    unknown: list[str]
    context: list[str] = field(default_factory=list)       # words taken as context, not as part of the question
    corrections: list[dict] = field(default_factory=list)  # {from, to, why}: spelling, lemmas
    rewrites: list[dict] = field(default_factory=list)     # {rule, from, to}: quantities said in words
    clauses: list[Clause] = field(default_factory=list)
    excluded: list[tuple] = field(default_factory=list)  # (start, end, how the cue words it) an exclusion covers
    aside: list[Span] = field(default_factory=list)  # readings set aside as context (an exclusion still walks over them)
    breaks: set[int] = field(default_factory=set)  # token positions just after a closing parenthesis


class Annotator:
    def __init__(self, pack: Pack, anchors: AnchorIndex | None):
        self.pack = pack
        self.lang = language_for(pack)  # the language's grammar words and the pack's stopwords
        self.lex = Lexicon.build(pack, self.lang)
        self.anchors = anchors
        seasons = {k: v for k, v in (pack.convention("seasons") or {}).items() if isinstance(v, list)}
        self.time = TimeParser(self.lang, seasons, rule_files(pack.raw.get("language", "en")).get("time", {}))
        self.stop = set(self.lang["stopwords"])
        # words the pack knows are never read as (parts of) place names on their own
        self.known_words = {t for key in self.lex.phrases for t in key}
        self.rules = rule_files(pack.raw.get("language", "en"))
        self.values = ValueWords(pack, self.lang, self.rules, self.stop)
        self.roles = ClauseRoles(pack, self.lang, self.rules, self.stop)
        self.quantities = rewrite_rules(pack.raw.get("language", "en"), self.lang)
        names = set(anchors.by_word) if anchors else set()
        meaning = {k[0]: frozenset(map(repr, v)) for k, v in self.lex.phrases.items() if len(k) == 1}
        # spelling and word forms are corrected only into the pack's own vocabulary (entities, fields, values,
        # concepts): a correction into a grammar word ('rating' -> 'rate', 'numbers' -> 'number') changes the
        # question's shape, not its subject
        domain = {t for key, items in self.lex.phrases.items() for t in key
                  if any(k in ("entity", "field", "label", "concept") for k, _ in items)}
        # (a field's name typed as one word is read when said exactly, never a word to correct into)
        typed = {f.name.replace("_", "") for e in pack.entities.values() for f in e.fields.values() if "_" in f.name}
        # (and the names of months and days: 'febuary')
        calendar = {w for w in [*self.lang["months"], *self.lang["days"]] if len(w) >= 5}
        self.speller = Speller(vocab={w for w in (domain | calendar) - self.stop - typed if w.isalpha()},
                               protected=(names - self.known_words) | _named_elsewhere(pack) |
                               set(self.rules.get("context", {}).get("question_openers", [])), meaning=meaning)
        # a long grammar word misspelt by one letter ('conditon') is that grammar word: read as such, not left over
        # (forms of one verb tie without harm: 'happend' is as near 'happened' as 'happens')
        # (and a short one with two letters swapped: 'teh')
        grammar = {w for w in self.stop if (len(w) >= 6 or len(w) == 3) and w.isalpha()}
        self.grammar = Speller(vocab=grammar, protected=self.speller.protected, most=1,
                               meaning={w: lemmas(w) for w in grammar})

    def annotate(self, question: str) -> Annotation:
        """Cut the message into clauses, rewrite quantities said in words, find every span, correct the spelling
        of words the lexicon does not hold (then read again), and set aside context."""
        clauses = pieces(question, self.rules.get("context", {}))
        toks: list[str] = []
        rewrites: list[dict] = []
        breaks: set[int] = set()
        for c in clauses:
            # '100k', '1k': thousands written the short way
            raw = drop_expansions(c.raw).replace(")", f" {_BREAK} ")  # (kept through the rewrites, so none reads across it)
            t = re.sub(r"\b(\d+(?:\.\d+)?)k\b", lambda m: f"{float(m.group(1)) * 1000:g}", normalize(raw)).split()
            t, done = number_runs(t, self.lang["number_words"], set(self.lang.get("number_joiners", [])))
            t, done2 = apply_rewrites(t, *self.quantities)
            rewrites += done + done2
            breaks.update(len(toks) + j - k for k, j in enumerate(j for j, x in enumerate(t) if x == _BREAK))
            t = [x for x in t if x not in (_BREAK, "/")]  # (a slash no fraction rule took is no word)
            c.start, toks, c.end = len(toks), toks + t, len(toks) + len(t)
        cuts = {c.start for c in clauses if c.opens and c.start}
        ann = self._context(self._read(toks, cuts, breaks), clauses)
        fixes = self._spell(ann)
        if fixes:
            fixed = self._context(self._read([fixes[i]["to"] if i in fixes else t for i, t in enumerate(toks)], cuts, breaks), clauses)
            # (an English word corrected into a place's name is another word, not a name misspelt: 'range')
            used = {i for s in fixed.spans for i in range(s.start, s.end)
                    if s.kind != "anchor" or not parts_of_speech(toks[i])}
            # a correction stands only when the word it gives is read as part of the question
            fixes = {i: c for i, c in fixes.items() if i in used or c["to"] in self.stop}
            if fixes:
                ann = self._context(self._read([fixes[i]["to"] if i in fixes else t for i, t in enumerate(toks)], cuts, breaks),
                                    clauses)
        ann.corrections, ann.rewrites, ann.breaks = list(fixes.values()), rewrites, breaks
        # a word the pack does not know that can only be a verb or an adverb ('noticed', 'flagged', 'entirely') is
        # phrasing: context
        plain, named = set(self.lang.get("noncontent_pos", [])), set(self.lang.get("content_verb_forms", []))
        kept = set(self.lang.get("noncontent_except", []))
        verbs = [u for u in ann.unknown if plain and (pos := parts_of_speech(u)) and pos <= plain
                 and not verb_forms(u) & named and u not in kept]
        ann.unknown = [u for u in ann.unknown if u not in verbs]
        ann.context += [v for v in dict.fromkeys(verbs) if v not in ann.context]
        ann.excluded = exclusion_scopes(ann, self.rules.get("exclusion", {}))
        either_way(ann, self.rules.get("exclusion", {}), self.pack)
        set_aside(ann, self.pack, self.lang, self.rules, self.roles.records)
        weights_said(ann, self.pack, self.stop | set(self.rules.get("exclusion", {}).get("joiners", [])))
        return ann

    def _context(self, ann: Annotation, clauses: list[Clause]) -> Annotation:
        ann.clauses = [replace(c) for c in clauses]
        self.roles.set_aside(ann)
        return ann

    def _spell(self, ann: Annotation) -> dict[int, dict]:
        """Token index -> correction, for words of the question no span used and the lexicon does not hold."""
        used = {i for s in ann.spans for i in range(s.start, s.end)}
        out = {}
        for i, t in enumerate(ann.tokens):
            # (a word set aside as context is looked at too: a statement keeps the value it is a misspelling of)
            if i in used or t not in ann.unknown and t not in ann.context or t in self.stop or not t.isalpha():
                continue
            # (a word set aside: only one no dictionary knows, in a statement, and only into a value, never into
            # another form or a grammar word)
            aside = t not in ann.unknown
            c = clause_at(ann.clauses, i)
            named = self.anchors is not None and t in self.anchors.by_word  # (a word of a place's name is no typo)
            if aside and (parts_of_speech(t) or named or c is None or c.kind != "statement"):
                continue
            lemma = None if aside else self.speller.lemma(t)
            fix = lemma or self.speller.correct(t) or (None if aside else self._in_phrase(ann.tokens, i) or
                                                       self.grammar.correct(t))
            if aside and fix in self.stop:
                continue
            if fix and fix != t:
                out[i] = {"from": t, "to": fix, "why": "another form of a known word" if lemma else "spelling"}
        return out

    def _in_phrase(self, toks: list[str], i: int) -> str | None:
        """Of words tied as nearest a misspelt one, the one that makes a phrase of the pack with a word beside it
        ('traffic signls': 'signals', not 'signs')."""
        fits = [v for v in self.speller.nearest(toks[i]) if (i > 0 and (toks[i - 1], v) in self.lex.phrases) or
                (i + 1 < len(toks) and (v, toks[i + 1]) in self.lex.phrases)]
        return fits[0] if len(fits) == 1 else None

    def _read(self, toks: list[str], cuts: set[int], breaks: set[int] = frozenset()) -> Annotation:
        """Every span of the tokens; none reads across the start of a sentence (`cuts`), and no time or count
        across a closing bracket (`breaks`: '(... = 1), highest first')."""
        # a phrase of the pack holding a year is read before any time ('the 2010 population'); then the times
        spans: list[Span] = []
        locked: set[int] = set()
        if any(t.isdigit() and len(t) == 4 for t in toks):
            self._phrases(toks, spans, locked, cuts, numbered=True)
        ends = sorted(cuts | {b for b in breaks if 0 < b < len(toks)})
        for a, b in zip([0, *ends], [*ends, len(toks)]):
            spans += [t for t in (replace(s, start=s.start + a, end=s.end + a) for s in self.time.parse(" ".join(toks[a:b])))
                      if not locked & set(range(t.start, t.end))]
        locked = {i for s in spans for i in range(s.start, s.end)}
        for s in comparisons(toks, self.lang, locked):  # before the lexicon: the 'or' of '75 or older' compares nothing
            spans.append(s)
            locked.update(range(s.start, s.end))
        if self.anchors:
            for m in self.anchors.match(toks, locked, self.pack, self.stop, self.known_words):
                if self._inside_longer_phrase(toks, m.start, m.end, locked) or self._field_words(toks, m.start, m.end):
                    continue  # ('under <city of name> jurisdiction'): a longer value of the pack holds the name
                spans.append(Span(m.start, m.end, "anchor", {"entity": m.entity, "name": m.name, "score": m.score,
                                                             "others": m.others}, m.text))
                locked.update(range(m.start, m.end))
            spans = self._addresses(spans, toks)
        self._phrases(toks, spans, locked, cuts)
        spans.sort(key=lambda s: s.start)
        spans = self._shared_head(spans, toks)
        locked.update(i for s in spans for i in range(s.start, s.end))
        spans = self._restated(spans, toks, locked)
        spans = self.values.read(spans, toks, locked)
        spans = self._area_shapes(spans, toks, locked)
        weaken(toks, spans, self.rules.get("exclusion", {}))
        # a number no reading used is said, not ignored, when it is long enough to name something (an id, a route)
        unknown = [t for j, t in enumerate(toks) if j not in locked and t not in self.stop and
                   (not t.isdigit() or len(t) >= 3)]
        return Annotation(toks, spans, unknown)


    def _area_shapes(self, spans: list[Span], toks: list[str], locked: set[int]) -> list[Span]:
        """'inside the <town> town boundary': a named area followed (past its kind word) by a boundary word is its
        polygon, a condition on where the records lie, not on their place field."""
        words = set(self.lang.get("boundary_words", []))
        for s in [s for s in spans if s.kind == "anchor"]:
            ent = self.pack.entities.get(s.value.get("entity", ""))
            kind = next((k for k in spans if k.start == s.end and k.kind in ("entity", "field")), None)
            end = kind.end if kind is not None else s.end
            own = kind is None or ent.name in [v for k, v in (kind.items or [(kind.kind, kind.value)])]
            if ent is None or not ent.area or not ent.names or end >= len(toks) or toks[end] not in words or not own:
                continue  # ('<town> city boundary': the pack's own boundary layer, read as such elsewhere)
            spans[:] = [x for x in spans if x is not s and x is not kind]
            spans.append(Span(s.start, end + 1, "area_shape", {"entity": ent.name, "name": s.value["name"]},
                              " ".join(toks[s.start:end + 1])))
            locked.add(end)
        return sorted(spans, key=lambda x: x.start)

    def _field_words(self, toks: list[str], start: int, end: int) -> bool:
        """Whether a name said in full is word for word a field's words ('cross street'): the field is meant."""
        items = self.lex.phrases.get(tuple(toks[start:end])) or []
        return end - start > 1 and any(kind == "field" for kind, _ in items)

    def _value_phrase(self, toks: list[str], i: int, n: int, locked: set[int]) -> bool:
        """Whether toks[i:i+n], none of it locked, is a value or concept phrase of the lexicon."""
        items = self.lex.phrases.get(tuple(toks[i:i + n]))
        return bool(items) and not any(j in locked for j in range(i, i + n)) and \
            any(kind in ("label", "concept") for kind, _ in items)

    def _value_inside(self, toks: list[str], i: int, n: int, locked: set[int]) -> bool:
        """Whether a value or concept phrase starts inside toks[i:i+n] and runs past its end."""
        return any(self._value_phrase(toks, k, m, locked) for k in range(i + 1, i + n)
                   for m in range(i + n - k + 1, min(self.lex.max_len, len(toks) - k) + 1))

    def _phrases(self, toks: list[str], spans: list[Span], locked: set[int], cuts: set[int],
                 numbered: bool = False) -> None:
        """The pack's phrases, longest first from the left, over tokens not yet read (only those holding a year
        when `numbered`)."""
        i = 0
        while i < len(toks):
            if i in locked:
                i += 1
                continue
            for n in range(min(self.lex.max_len, len(toks) - i), 0, -1):
                key = tuple(toks[i:i + n])
                if any(j in locked for j in range(i, i + n)) or any(j in cuts for j in range(i + 1, i + n)):
                    continue
                items = self.lex.phrases.get(key)
                if not items and n >= 3:  # ('dark roadways not lighted'): a word of a long label said in the plural
                    items = [x for x in self.lex.phrases.get(tuple(singular(t) for t in key), [])
                             if x[0] in ("label", "concept")]
                if numbered and not any(t.isdigit() and len(t) == 4 for t in key):
                    continue
                if items and n > 1 and all(k == "cue" for k, _ in items) and self._value_inside(toks, i, n, locked):
                    continue  # ('<value> or not reported'): a cue does not swallow the first word of a longer value
                if items and n > 1 and self._none_near(toks, i, n):
                    continue  # ('no <feature> within <d>'): no features near, not the value 'no <feature>'
                if items:
                    spans.append(Span(i, i + n, items[0][0], items[0][1], " ".join(key), list(items)))
                    locked.update(range(i, i + n))
                    i += n
                    break
            else:
                i += 1

    def _addresses(self, spans: list[Span], toks: list[str]) -> list[Span]:
        """A street said right after a feature ('the <school> on <street>') says where that feature is: one
        mention of the feature, not a second place."""
        out: list[Span] = []
        said = set(self.lang.get("address_words", []))
        for s in sorted(spans, key=lambda x: x.start):
            prev = out[-1] if out else None
            if prev is not None and prev.kind == s.kind == "anchor" and s.start == prev.end + 1 and \
                    toks[prev.end] in said and self.pack.entities[s.value["entity"]].geometry == "line" and \
                    self.pack.entities[prev.value["entity"]].geometry == "point":
                out[-1] = replace(prev, end=s.end, text=" ".join(toks[prev.start:s.end]))
                continue
            out.append(s)
        return out

    def _none_near(self, toks: list[str], i: int, n: int) -> bool:
        """Whether toks[i:i+n] is a word for none and a layer's word, before a distance or a word for near."""
        after = self.lex.phrases.get((toks[i + n],), []) if i + n < len(toks) else []
        return toks[i] in self.rules.get("quantifiers", {}).get("none", []) and \
            any(k == "entity" for k, _ in self.lex.phrases.get(tuple(toks[i + 1:i + n]), [])) and \
            (("cue", "near") in after or i + n < len(toks) and toks[i + n].replace(".", "", 1).isdigit())

    def _inside_longer_phrase(self, toks: list[str], start: int, end: int, locked: set[int]) -> bool:
        """Whether a longer value or concept phrase of the lexicon (not a record word) covers [start, end)."""
        return any(self._value_phrase(toks, i, n, locked) for n in range(min(self.lex.max_len, len(toks)), end - start, -1)
                   for i in range(max(0, end - n), min(start, len(toks) - n) + 1))

    def _restated(self, spans: list[Span], toks: list[str], locked: set[int]) -> list[Span]:
        """A word beside a value that every label of the value holds ('<dark> roadway' when each dark label says
        roadway) only restates it: read with the value, not left over."""
        for k, s in enumerate(spans):
            marking = set(self.lang.get("marking_words", []))
            # ('<value> marked <label>'): the label said after a word that marks it restates the value too
            after = s.end + 1 if s.end + 1 < len(toks) and toks[s.end] in marking and s.end not in locked else s.end
            beside = [j for j in (after, s.start - 1)
                      if 0 <= j < len(toks) and j not in locked and toks[j] not in self.stop]
            if s.kind not in ("concept", "label") or not beside:
                continue  # (the labels are read only for a value with a word left beside it)
            words = set().union(*[self._label_words(kind, v) for kind, v in (s.items or [(s.kind, s.value)])])
            for j in beside:
                if j not in locked and toks[j] in words:
                    spans[k] = s = replace(s, start=min(s.start, j), end=max(s.end, j + 1),
                                           text=" ".join(toks[min(s.start, j):max(s.end, j + 1)]))
                    locked.add(j)
        out: list[Span] = []
        for s in spans:  # ('<n> people (<year> pop)', '<n> residents in the <year> census'): one field said twice
            prev = next((k for k in range(len(out) - 1, -1, -1) if out[k].kind == "field"), None)
            # (said in other words, close by: the same word again is a mention of its own)
            if prev is not None and s.kind == "field" and s.items == out[prev].items and s.text != out[prev].text and \
                    s.start - out[prev].end <= 2 and all(t in self.stop for t in toks[out[prev].end:s.start]):
                out[prev] = replace(out[prev], end=s.end, text=" ".join(toks[out[prev].start:s.end]))
                out = out[:prev + 1]  # (the grammar words between are part of it)
                continue
            out.append(s)
        return out

    def _label_words(self, kind: str, value: object) -> set[str]:
        """The words every label of a value holds: a label's own words, or those all labels of a concept share
        (on some source)."""
        if kind == "label":
            return set(normalize(str(value[2])).split())
        concept = self.pack.concepts.get(str(value)) if kind == "concept" else None
        out: set[str] = set()
        for where in (concept.where.values() if concept else []):
            labels = [set(normalize(str(v)).split()) for v in where.get("in", [])] if isinstance(where, dict) else []
            out |= set.intersection(*labels) if labels else set()
        return out

    def _shared_head(self, spans: list[Span], toks: list[str]) -> list[Span]:
        """'<value>, <value> or <value> <head>': a list of values ending in a phrase with a head word reads each value
        with that head ('snowy roads'), when the pack knows the phrase."""
        joins = set(self.lang.get("either_words", [])) | set(self.lang.get("list_joins", []))
        values = [s for s in spans if s.kind in ("concept", "label")]
        out = {id(s): s for s in spans}
        for k, last in enumerate(values):
            if last.end - last.start < 2:
                continue
            head = toks[last.end - 1]
            j = k
            while j > 0 and all(t in joins for t in toks[values[j - 1].end:values[j].start]):
                j -= 1
                x = values[j]
                items = self.lex.phrases.get(tuple(toks[x.start:x.end]) + (head,))
                if items:
                    out[id(x)] = Span(x.start, x.end, items[0][0], items[0][1], x.text, list(items))
        return sorted(out.values(), key=lambda s: s.start) + self._bare_items(spans, toks, joins)

    def _bare_items(self, spans: list[Span], toks: list[str], joins: set[str]) -> list[Span]:
        """'<a>, <b> or <c> <head>' where <a> and <b> are read as nothing alone ('<letter>, <letter> or <kind> <head>'): a word
        that makes a value of the pack with the head word is that value."""
        read = {i for s in spans for i in range(s.start, s.end)}
        out = []
        for last in [s for s in spans if s.kind in ("concept", "label") and s.end - s.start >= 2]:
            head, j = toks[last.end - 1], last.start - 1
            while j >= 0 and (toks[j] in joins or j not in read):
                items = self.lex.phrases.get((toks[j], head)) if toks[j] not in joins else None
                if toks[j] not in joins and not (items and items[0][0] in ("label", "concept")):
                    break
                if items:
                    out.append(Span(j, j + 1, items[0][0], items[0][1], toks[j], list(items)))
                j -= 1
        return out


def _named_elsewhere(pack: Pack) -> set[str]:
    """Words the pack names as outside its data (other places, measures not recorded): never 'corrected'."""
    words = {t for p in pack.raw.get("elsewhere") or [] for t in str(p).split()}
    return words | {str(w) for w in (pack.raw.get("not_recorded") or {})}
