"""Follow-up questions: the previous frame refined by what the new question says, or compared with it."""
from __future__ import annotations

import copy

from .frame import Frame, Place, Side
from .phrasing import pred_fields
from .pack import Pack


def follow_up(pack: Pack, prev: Frame, new: Frame, comparing: bool = False) -> Frame:
    """'only at night', 'now for 2016': keep the previous question and apply what the new one says;
    'compare with somerville' (`comparing`, one new side) sets the previous place, time or condition beside it."""
    f = copy.deepcopy(prev)
    if comparing and not new.compare and not prev.compare:
        side = _side_against(pack, f, new)
        if side:
            return side
    if new.target and new.target != prev.target and not new.filters and new.time.empty():
        f.target = new.target
    f.filters += new.filters
    if not new.time.empty():
        f.time = new.time
    if new.scope:
        if new.compare or new.intent == "compare":
            f.compare, f.intent = new.compare, "compare"
        else:
            f.scope = new.scope
    if new.group_by:
        f.group_by = new.group_by
    if new.near:
        f.near = new.near
    if new.compare:
        f.compare, f.intent = new.compare, "compare"
    f.notes = prev.notes + ["follow-up"]
    return f


def _side_against(pack: Pack, f: Frame, new: Frame) -> Frame | None:
    """The previous frame `f` compared with the one thing the follow-up names (a place, a period, a condition
    on a field the previous question also conditioned); None when the follow-up names none of these."""
    def names(places: list[Place]) -> str:
        return ", ".join(p.name or p.text for p in places)
    if new.scope and f.scope:
        sides = [Side(label=names(f.scope), scope=f.scope), Side(label=names(new.scope), scope=new.scope)]
        f.scope = []
    elif not new.time.empty() and not f.time.empty():
        sides = [Side(label=" ".join(t.text).removeprefix("in ") or said, time=t)
                 for t, said in ((f.time, "before"), (new.time, "now"))]
        f.time = type(f.time)()
    else:
        def fields(preds: list) -> set[str]:
            return {x.split(".")[-1] for p in preds for _, fl in pred_fields(pack, p) for x in (fl or "").split("|")}
        said = fields(new.filters) - {""}
        old = [p for p in f.filters if fields([p]) & said]
        if not new.filters or not old:
            return None
        sides = [Side(label=" ".join(p.text for p in old), filters=old),
                 Side(label=" ".join(p.text for p in new.filters), filters=new.filters)]
        f.filters = [p for p in f.filters if p not in old]
    f.intent, f.compare, f.rank = "compare", sides, None
    f.notes = f.notes + ["follow-up"]
    return f
