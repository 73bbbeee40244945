"""Comparisons whose sides are relations: named features at one distance, or conditions on the features near."""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from .frame import Predicate, Side
from .spans import readings, words

if TYPE_CHECKING:
    from .interpret_rules import Work


def near_sides(w: Work) -> bool:
    """'within <d> of <feature> vs <feature>': each named feature is a side, its records those near it."""
    if not (w.anchor_near and w.distances):
        return False
    a = w.anchor_near[0]
    others = _named_after(w, a, lambda between: bool(between & words(w.pack, "split_words")))
    if not others:
        return False
    for x in [a] + others:
        w.sides.append(Side(label=x.value["name"], filters=[_near_place(w, x)]))
    w.scope_spans = [b for b in w.scope_spans if b not in others]
    w.anchor_near = None
    return True


def support_sides(w: Work) -> bool:
    """'within <d> of public vs private <features>': each condition on the features is a side, its records those near
    a feature meeting it."""
    said = sorted(w.support_said, key=lambda sp: sp[0].start)
    if not (w.near_spans and w.distances and len(said) == 2) or not \
            set(w.ann.tokens[said[0][0].end:said[1][0].start]) & words(w.pack, "split_words"):
        return False
    ent = readings(w.near_spans[0], "entity")[0]
    d = round(w.distances[0].value["metres"], 3)
    for span, p in said:
        w.support_preds.remove(p)
        w.sides.append(Side(label=span.text, filters=[Predicate(op="near_where", values=[{"entity": ent, "distance_m": d}],
                                                                 any_of=[p], text=f"{w.distances[0].value['text']} {span.text}")]))
    w.near_spans = []
    return True


def either_places(w: Work) -> None:
    """'within <d> of <feature> or <feature>': the records near either named feature, one condition (an 'and'
    between two streets names their corner, read elsewhere)."""
    if not (w.anchor_near and w.distances):
        return
    a = w.anchor_near[0]
    either = words(w.pack, "either_words")
    stop = words(w.pack, "stopwords") | words(w.pack, "filler")
    others = _named_after(w, a, lambda between: bool(between & either) and between <= either | stop)
    if not others:
        return
    near = [_near_place(w, x) for x in [a] + others]
    joined = Predicate(op="any", any_of=near, text=" / ".join(p.text for p in near))
    w.target_preds.append((a, joined))
    w.scope_spans = [b for b in w.scope_spans if b not in others]
    w.anchor_near = None


def _named_after(w: Work, a, joined: Callable[[set[str]], bool]) -> list:
    """Features of the same layer as the one named `a`, named after it with words between that `joined` accepts."""
    return [b for b in w.scope_spans if b.value["entity"] == a.value["entity"] and b.start > a.end
            and joined(set(w.ann.tokens[a.end:b.start]))]


def _near_place(w: Work, x) -> Predicate:
    """The records within the question's distance of the one feature `x` names."""
    d = round(w.distances[0].value["metres"], 3)
    return Predicate(op="near_place", values=[{"entity": x.value["entity"], "name": x.value["name"], "distance_m": d}],
                     text=f"{w.distances[0].value['text']} {x.text}")
