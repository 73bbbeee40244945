"""Annotate a question: every span the pack or the grammar knows, longest and most specific first."""
from __future__ import annotations

import re

from dataclasses import dataclass, field

from .anchors import AnchorIndex
from .numbers import comparisons
from .pack import Pack, language_for, norm_label
from .text import normalize, phrase_key, tokens
from .timeparse import Span, TimeParser


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
            for f in e.fields.values():
                for w in f.words:
                    lex.add(w, "field", (e.name, f.name))
                    if not w.endswith("s"):
                        lex.add(w + "s", "field", (e.name, f.name))  # "streets" groups like "street"
                if f.kind == "coded" and f.match_labels:
                    for code in f.codes:
                        parts = code.split(f.separator) if f.separator else [code]
                        for part in parts:
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
                for cue in ("by", "per", "each", "every", "for each"):
                    if not w.startswith(cue + " "):
                        lex.add(f"{cue} {w}", "timepart", part)
        return lex


def _spellings(label: str, lang: dict) -> list[str]:
    """A published label and, when it spells a number ('Four-way intersection'), the same with digits ('4 way')."""
    words = lang.get("number_words", {})
    toks = tokens(label)
    digits = [str(words[t]) if t in words else t for t in toks]
    out = [label] + ([" ".join(digits)] if digits != toks else [])
    # 'STOP SIGNS' is also said 'stop sign'
    return out + [o.rstrip()[:-1] for o in out if o.rstrip().lower().endswith("s") and not o.rstrip().lower().endswith("ss")
                  and len(o.split()) > 1]


@dataclass
class Annotation:
    tokens: list[str]
    spans: list[Span]
    unknown: list[str]


class Annotator:
    def __init__(self, pack: Pack, anchors: AnchorIndex | None):
        self.pack = pack
        self.lang = language_for(pack)  # the language's grammar words and the pack's stopwords
        self.lex = Lexicon.build(pack, self.lang)
        self.anchors = anchors
        seasons = {k: v for k, v in (pack.convention("seasons") or {}).items() if isinstance(v, list)}
        self.time = TimeParser(self.lang, seasons)
        self.stop = set(self.lang["stopwords"])
        # words the pack knows are never read as (parts of) place names on their own
        self.known_words = {t for key in self.lex.phrases for t in key}

    def annotate(self, question: str) -> Annotation:
        # '100k', '1k': thousands written the short way
        text = re.sub(r"\b(\d+(?:\.\d+)?)k\b", lambda m: f"{float(m.group(1)) * 1000:g}", normalize(question))
        toks = text.split()
        spans = self.time.parse(text)
        locked = {i for s in spans for i in range(s.start, s.end)}
        for s in comparisons(toks, self.lang, locked):  # before the lexicon: the 'or' of '75 or older' compares nothing
            spans.append(s)
            locked.update(range(s.start, s.end))
        if self.anchors:
            for m in self.anchors.match(toks, locked, self.pack, self.stop, self.known_words):
                spans.append(Span(m.start, m.end, "anchor", {"entity": m.entity, "name": m.name, "score": m.score,
                                                             "others": m.others}, m.text))
                locked.update(range(m.start, m.end))
        i = 0
        while i < len(toks):
            if i in locked:
                i += 1
                continue
            for n in range(min(self.lex.max_len, len(toks) - i), 0, -1):
                key = tuple(toks[i:i + n])
                if any(j in locked for j in range(i, i + n)):
                    continue
                items = self.lex.phrases.get(key)
                if items:
                    spans.append(Span(i, i + n, items[0][0], items[0][1], " ".join(key), list(items)))
                    locked.update(range(i, i + n))
                    i += n
                    break
            else:
                i += 1
        spans.sort(key=lambda s: s.start)
        # a number no reading used is said, not ignored, when it is long enough to name something (an id, a route)
        unknown = [t for j, t in enumerate(toks) if j not in locked and t not in self.stop and
                   (not t.isdigit() or len(t) >= 3)]
        return Annotation(toks, spans, unknown)
