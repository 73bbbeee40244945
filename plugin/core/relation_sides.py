"""Comparisons whose sides are relations: named features at one distance, or conditions on the features near."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .frame import Predicate, Side
from .spans import readings, words

if TYPE_CHECKING:
    from .interpret_rules import Work


def near_sides(w: Work) -> bool:
    """'within <d> of <feature> vs <feature>': each named feature is a side, its records those near it."""
    if not (w.anchor_near and w.distances):
        return False
    a = w.anchor_near[0]
    others = [b for b in w.scope_spans if b.value["entity"] == a.value["entity"] and b.start > a.end
              and set(w.ann.tokens[a.end:b.start]) & words(w.pack, "split_words")]
    if not others:
        return False
    d = round(w.distances[0].value["metres"], 3)
    for x in [a] + others:
        near = Predicate(op="near_place", values=[{"entity": x.value["entity"], "name": x.value["name"], "distance_m": d}],
                         text=f"{w.distances[0].value['text']} {x.text}")
        w.sides.append(Side(label=x.value["name"], filters=[near]))
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
    others = [b for b in w.scope_spans if b.value["entity"] == a.value["entity"] and b.start > a.end
              and set(w.ann.tokens[a.end:b.start]) & either and set(w.ann.tokens[a.end:b.start]) <= either | stop]
    if not others:
        return
    d = round(w.distances[0].value["metres"], 3)
    near = [Predicate(op="near_place", values=[{"entity": x.value["entity"], "name": x.value["name"], "distance_m": d}],
                      text=f"{w.distances[0].value['text']} {x.text}") for x in [a] + others]
    joined = Predicate(op="any", any_of=near, text=" / ".join(p.text for p in near))
    w.target_preds.append((a, joined))
    w.scope_spans = [b for b in w.scope_spans if b not in others]
    w.anchor_near = None
