"""The pack's severity weights said again in a question ('<values> at 21, the rest at 1'): a definition of
the measure, not a condition on the records."""
from __future__ import annotations

from .pack import Pack
from .tokens import Span
from .value_words import fields_of, label_sets

_VALUES = ("label", "concept", "blank", "either")
_WALK = 12  # how far before a weight its values are looked for


def weights_said(ann, pack: Pack, passing: set[str]) -> None:
    """Set aside as context the values said just before a weight of the pack's weighted measure, when the question
    asks for that measure; `passing` are the words that may stand between them ('at', 'count', 'all other')."""
    conv = pack.convention("epdo") or {}
    weights = {str(w) for w in (conv.get("weights") or {}).values()} | {str(conv.get("default_weight", ""))} - {""}
    if not weights or not any(s.kind == "cue" and s.value == "epdo" for s in ann.spans):
        return
    said: set[int] = set()
    for p, tok in enumerate(ann.tokens):
        if tok in weights:
            values = _values_before(ann, p, passing, pack)
            said |= values | ({p} if values else set())
    if not said:
        return
    gone = [s for s in ann.spans if s.start in said and s.kind in (*_VALUES, "field")]
    ann.aside += gone
    ann.spans = [s for s in ann.spans if s not in gone]
    words = {i for s in gone for i in range(s.start, s.end)} | {p for p in said if ann.tokens[p] in weights}
    ann.context += [ann.tokens[i] for i in sorted(words) if ann.tokens[i] not in ann.context]


def _values_before(ann, p: int, passing: set[str], pack: Pack) -> set[int]:
    """Positions of the value spans between the weight at `p` and the previous weight or other reading."""
    out: set[int] = set()
    fields: set = set()
    i = p - 1
    while i >= max(0, p - _WALK):
        s = _span_ending(ann.spans, i)
        if s is not None and s.kind in _VALUES:
            fields |= set(label_sets(pack, s))
        if s is not None and (s.kind in _VALUES or s.kind == "field" and set(fields_of(s)) & fields and
                              any(0 <= v - s.end <= 1 for v in out)):
            out.add(s.start)  # (a field is said with the values: '<field> <value> or <value> at 21')
        elif s is not None and s.kind not in ("cue", "entity"):
            break  # (a place, a time or a distance: the number is no weight of these values)
        elif s is None and (ann.tokens[i].isdigit() or ann.tokens[i] in ann.unknown or ann.tokens[i] not in passing):
            break
        i = s.start - 1 if s is not None else i - 1
    return out


def _span_ending(spans: list[Span], i: int) -> Span | None:
    return next((s for s in spans if s.start <= i < s.end), None)
