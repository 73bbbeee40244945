"""Two value lists on one field of the same records: either value (a record holds one), or the narrower set."""
from __future__ import annotations

import json

from .frame import Predicate


def merge_same_field(preds: list[Predicate], log, codes: dict[str, list[str]] | None = None) -> list[Predicate]:
    """A record has one value per field: two value lists on one field mean either ('wet or snowy roads')."""
    _kept_restated(preds, codes or {}, log)
    out: list[Predicate] = []
    said: set[tuple] = set()
    for q in preds:
        key = (q.op, q.entity, q.field, q.negate, frozenset(map(repr, q.values)))
        if q.op == "in" and key in said:
            continue  # one condition said twice is one condition, whatever was said between ('<a> ... <b> as <a> too')
        said.add(key)
        twin = next((o for o in out if {o.op, q.op} <= {"in", "eq"} and o.field == q.field and o.entity == q.entity
                     and not o.negate and not q.negate), None)  # (what is left out stays its own condition)
        if twin is None:
            out.append(q)
            continue
        twin.op = "in"  # (a coded number said twice, '<code 0> or <code 2>': one value list as for labels)
        before = list(twin.values)
        a, b = set(twin.values), set(q.values)
        if a == b:
            continue  # ('for a <county> request, ... in <county>'): one condition said twice is one condition
        if q.text == twin.text:  # ('aged 16 to 20'): one condition said with both ends, each end a value list
            twin.values = [v for v in before if v in b]
            log("range_ends", "filters", before, twin.values, f"both ends of one range ({q.text})")
            continue
        if a <= b or b <= a:  # "unlit roads after dark": the narrower value set is meant
            twin.values = sorted(a & b, key=lambda v: (before + q.values).index(v))
            twin.text = f"{twin.text} {q.text}"
            log("values_narrowed", "filters", before, twin.values, f"one field named twice: the narrower set ({twin.text})")
            continue
        twin.values += [v for v in q.values if v not in twin.values]
        twin.concept = None  # the union of two readings: a replay must keep these values, not one concept's
        twin.text = f"{twin.text} or {q.text}"
        # (a record holds one value of a field: values said of it together can only mean any of them)
        log("values_any", "filters", before, twin.values, f"one field, several values: any of them ({twin.text})")
    return out


def _kept_restated(preds: list[Predicate], codes: dict[str, list[str]], log) -> None:
    """'other than <a> (<b>, <c> or <d>)': conditions left out on one field that together leave out every label
    of it cannot all be meant; those said after the first are the labels kept, said again."""
    left_out: dict[tuple, list[Predicate]] = {}
    for q in preds:
        if q.negate and q.op in ("in", "eq") and codes.get(q.field):
            left_out.setdefault((q.entity, q.field), []).append(q)
    for (_, fld), qs in left_out.items():
        said = {str(v).strip().lower() for q in qs for v in q.values}
        if len(qs) > 1 and said >= {str(c).strip().lower() for c in codes[fld]}:
            for q in qs[1:]:
                q.negate = False
                log("exclusion_restated", "filters", q.text, q.values, "left out every label: the ones after the "
                    "first are those kept, said again")


def condition_key(p: Predicate) -> str:
    """What a resolved condition selects, whatever words said it."""
    def plain(q: Predicate) -> dict:
        return {"field": q.field, "op": q.op, "values": q.values, "entity": q.entity, "negate": q.negate,
                "any_of": [plain(m) for m in q.any_of]}
    return json.dumps(plain(p), sort_keys=True, default=str)
