"""Comparison sides: the items a question compares, each side with its own predicate, place or period."""
from __future__ import annotations

from typing import Callable

from .frame import Frame, Place, Predicate, Side, TimeSpec
from .phrasing import pred_fields
from .spans import Ctx, time_from_span, words
from .tokens import Span


def _side_label(span: Span) -> str:
    if span.kind == "anchor":
        return span.value["name"].strip()
    return span.text.removeprefix("in ").removeprefix("during ").removeprefix("on ").strip()





def _best_chain(cx: Ctx, items: dict) -> tuple[list, str, bool]:
    """The longest run of items of one kind that comparison or list words join, and its kind; runs a comparison
    word joins come before items that merely stand side by side (and whether a comparison word joins them)."""
    best: list[tuple[Span, object]] = []
    best_kind, best_rank = "", (False, False, 0)
    # ('for <month>, <month> and <month>, <A> vs <B>'): items a comparison word joins come before a list
    compared = {i for c in cx.cue("compare") for i in range(c.start, c.end)}
    for kind, lst in items.items():
        lst.sort(key=lambda x: x[0].start)
        chain: list[tuple[Span, object]] = []
        split = strong = False
        for it in lst:
            gap = cx.ann.tokens[chain[-1][0].end:it[0].start] if chain else []
            # ('<condition> in <A> vs <B>': only items a comparison or list word joins are sides)
            # (side by side with no word between, only values of one field: '<value> <value of another field> vs
            # <value>' compares the last two, the first holds for both)
            beside = not gap and "either" not in (it[0].kind, chain[-1][0].kind) if chain else False
            if beside and kind == "pred":
                beside = bool(set(pred_fields(cx.pack, it[1])) & set(pred_fields(cx.pack, chain[-1][1])))
            if chain and all(tok in words(cx.pack, 'link_words') for tok in gap) and len(gap) <= 4 \
                    and (set(gap) & words(cx.pack, 'split_words') or beside):
                strong = strong or bool(compared & set(range(chain[-1][0].end, it[0].start)))
                chain.append(it)
                split = split or bool(set(gap) & words(cx.pack, 'split_words'))
            elif len(chain) < 2:
                chain, split, strong = [it], False, False
        if len(chain) >= 2 and (strong, split, len(chain)) > best_rank:
            best, best_kind, best_rank = chain, kind, (strong, split, len(chain))
    return best, best_kind, best_rank[0]


def comparison_sides(cx: Ctx, f: Frame, scope_spans: list, time_spans: list, target_preds: list,
                     place_pred: Callable[[Predicate], bool] = lambda p: False) -> list[Side]:
    """Items of one kind joined by comparison words ('boston vs worcester', 'at night or in daylight') become
    sides, each with its own predicate; everything else stays shared by all sides."""
    items: dict[str, list[tuple[Span, object]]] = {"place": [(a, a) for a in scope_spans], "pred": list(target_preds),
                                                   "year": [], "range": [], "dow": [], "month": []}
    for t in time_spans:
        v = t.value
        kind = "range" if {"year_range", "year_from", "year_to"} & set(v) else "year" if "years" in v and "months" not in v else \
            "dow" if "isodow" in v else "month" if "months" in v else None
        if kind:
            items[kind].append((t, t))
    best, best_kind, strong = _best_chain(cx, items)
    sides: list[Side] = []
    if best and not strong and cx.cue("compare"):
        # ('<value> <value> <records> compare with ones <value>'): values side by side that no comparison word
        # joins are no sides when the comparison word splits the question elsewhere
        split = _segment_sides(cx, {**items, "pred": list(items["pred"])}, list(scope_spans), list(time_spans),
                               list(target_preds))
        best = [] if len(split) == 2 else best
    if not best:
        ranges = items["range"]
        if ranges and cx.cue("change") and "year_range" in ranges[0][0].value:  # "change from 2012 to 2016"
            a, b = ranges[0][0].value["year_range"]
            time_spans.remove(ranges[0][0])
            return [Side(label=str(y), time=TimeSpec(years=[y])) for y in (a, b)]
        for t in time_spans:  # seasons, hours, date ranges: sides of their own only when split by a word
            if not any(t is it[0] for lst in items.values() for it in lst):
                items["time"] = items.get("time", []) + [(t, t)]
        # a place named by a field value ('middlesex county') is a place, not a condition, when parts are compared
        items["pred"], items["place_pred"] = [it for it in items["pred"] if not place_pred(it[1])], \
            [it for it in items["pred"] if place_pred(it[1])]
        return _segment_sides(cx, items, scope_spans, time_spans, target_preds)
    for span, payload in best:
        v = span.value
        if best_kind == "place":
            sides.append(Side(label=_side_label(span), scope=[Place(text=span.text, entity=v["entity"], name=v["name"],
                                                                   score=v["score"])]))
            scope_spans.remove(span)
        elif best_kind == "pred":
            sides.append(Side(label=span.text, filters=[payload]))
            target_preds.remove((span, payload))
        else:
            ts = TimeSpec()
            time_from_span(ts, v, span.text)
            ts.text = []
            label = str(v["years"][0]) if best_kind == "year" else \
                "{}-{}".format(*v["year_range"]) if best_kind == "range" and "year_range" in v else \
                v.get("label") or v.get("season") or span.text
            sides.append(Side(label=label.removeprefix("in ").removeprefix("on ").removeprefix("during "), time=ts))
            time_spans.remove(span)
    return sides


def _segment_sides(cx: Ctx, items: dict, scope_spans: list, time_spans: list, target_preds: list) -> list[Side]:
    """'crashes in boston with crashes in worcester', 'pedestrian crashes in 2014 vs bicycle crashes in 2016':
    the question splits at a comparison word into two parts; the kinds of item said in both parts (place,
    condition, year, ...) belong to each side, the kinds said once are shared by both."""
    toks = cx.ann.tokens
    covered = {i for s in cx.ann.spans if s.kind != "cue" for i in range(s.start, s.end)}
    flat = [(kind, it) for kind, lst in items.items() for it in lst]
    best = None
    for p, tok in enumerate(toks):
        if tok not in words(cx.pack, 'split_words') or p in covered:
            continue
        parts = ([(k, it) for k, it in flat if it[0].end <= p], [(k, it) for k, it in flat if it[0].start > p])
        common = {k for k, _ in parts[0]} & {k for k, _ in parts[1]}
        if common and (best is None or len(common) > len(best[0])):
            best = (common, parts)
    if best is None:
        return []
    common, parts = best
    sides = []
    for part in parts:
        own = sorted(((k, it) for k, it in part if k in common), key=lambda x: x[1][0].start)
        side = Side()
        for kind, (span, payload) in own:
            if kind == "place":
                v = span.value
                side.scope.append(Place(text=span.text, entity=v["entity"], name=v["name"], score=v["score"]))
                scope_spans.remove(span)
            elif kind in ("pred", "place_pred"):
                side.filters.append(payload)
                target_preds.remove((span, payload))
            else:
                time_from_span(side.time, span.value, span.text)
                time_spans.remove(span)
        side.time.text = []
        if all(k == "place" for k, _ in own):
            side.label = ", ".join(_side_label(it[0]) for _, it in own)
        else:
            side.label = " ".join(toks[own[0][1][0].start:own[-1][1][0].end])
            for prep in words(cx.pack, "side_prefixes"):
                side.label = side.label.removeprefix(prep + " ")
        sides.append(side)
    return sides


