"""The read-back: what MapAsk understood, written from the repaired frame in the language's own templates."""
from __future__ import annotations

from .frame import EPDO_FIELD, LENGTH_FIELD, NON_FIELD_OPS, Frame, Predicate, TimeSpec
from .pack import Entity, Pack
from .phrase_rules import rule_files
from .text import language

MAX_LABELS = 3


def _join(items: list[str], word: str) -> str:
    items = [i for i in items if i]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {word} " + items[-1] if items else ""


def _labels(values: list, t: dict) -> str:
    shown = [f"'{str(v).strip()}'" for v in values[:MAX_LABELS]]
    if len(values) > MAX_LABELS:
        shown.append(t["more"].format(n=len(values) - MAX_LABELS))
    return _join(shown, t["or"])


def _name(name: str | None) -> str:
    return (name.title() if name and name.isupper() else name) or ""


def condition(pack: Pack, ent: Entity, p: Predicate, t: dict) -> str:
    """One condition with the exact labels it stands for ('manner of collision 'Rear-end'')."""
    if p.op == "any":
        return _join([condition(pack, ent, m, t) for m in p.any_of], t["or"])
    fld = ent.fields.get(p.field)
    if fld is None or p.op in NON_FIELD_OPS:
        return p.text
    vals = t["blank"] if p.op == "blank" else _labels(p.values, t) if p.op in ("in", "not_in", "has", "eq") else \
        f"{p.op} {' - '.join(str(v) for v in p.values)}"
    key = "condition_negated" if p.negate or p.op == "not_in" else "condition"
    return t[key].format(field=fld.label, labels=vals)


def time_text(ts: TimeSpec, lang: dict, t: dict) -> str:
    """Years, dates, months, days and hours of a time spec, in words."""
    out = []
    if ts.date_from or ts.date_to:
        out.append(f"{ts.date_from or '…'} – {ts.date_to or '…'}")
    if ts.years:
        ys = sorted(ts.years)
        out.append(f"{ys[0]}–{ys[-1]}" if len(ys) > 2 and ys[-1] - ys[0] == len(ys) - 1 else _join(map(str, ys), t["or"]))
    if ts.months:
        out.append(_join([lang["month_names"][m] for m in sorted(ts.months)], t["or"]))
    if ts.isodow:
        out.append(_join([lang["day_names"][d] for d in sorted(ts.isodow)], t["or"]))
    if ts.hours:
        out.append(_join([f"{a:02d}:00–{b:02d}:59" for a, b in _runs(sorted(ts.hours))], t["or"]))
    return "; ".join(out)


def _runs(xs: list[int]) -> list[tuple[int, int]]:
    runs: list[list[int]] = []
    for x in xs:
        if runs and x == runs[-1][1] + 1:
            runs[-1][1] = x
        else:
            runs.append([x, x])
    return [(a, b) for a, b in runs]


def readback(pack: Pack, f: Frame, understood: dict) -> dict:
    """{'parts': [...], 'text': 'Read as: ...'}: source and years, each condition with its labels, places,
    distance in the user's unit and metres, time, measure, grouping, ranking, context, corrections, defaults.
    `understood` carries the annotation's context words, corrections, rewrites and the repairs."""
    code = pack.raw.get("language", "en")
    t, lang = rule_files(code)["readback"], language(code)
    if not f.target or f.target not in pack.entities:
        return {"parts": [], "text": ""}
    ent = pack.entity(f.target)
    parts = [_measure(pack, f, ent, t)]
    yrs = ent.years()
    parts.append(t["source"].format(source=ent.label, years=f"{yrs[0]}–{yrs[1]}" if yrs and yrs[0] != yrs[1]
                                    else yrs[0] if yrs else "?"))
    parts += [condition(pack, ent, p, t) for p in f.filters]
    if f.scope:
        parts.append(t["place"].format(names=_join([_name(pl.name) for pl in f.scope], t["or"])))
    if f.near:
        parts.append(_near(pack, f, t))
    if not f.time.empty():
        parts.append(t["time"].format(time=time_text(f.time, lang, t)))
    parts += _shape(pack, f, ent, t)
    parts += _said(understood, t)
    parts = [p for p in parts if p]
    return {"parts": parts, "text": t["lead"] + "; ".join(parts) + "."}


def _measure(pack: Pack, f: Frame, ent: Entity, t: dict) -> str:
    what = ent.plural
    kind = f.measure.kind
    if f.intent == "list":
        return t["list"].format(what=what) if "list" in t else t["measure"]["list"].format(what=what)
    if f.intent == "share" or f.share_of:
        return t["measure"]["share"].format(what=what, share=_join([condition(pack, ent, p, t) for p in f.share_of],
                                                                     t["and"]))
    if f.compare:
        return t["measure"]["compare"].format(what=what, sides=_join([s.label for s in f.compare], t["and"]))
    if kind == "epdo":
        return t["measure"]["epdo"].format(epdo=pack.convention("epdo", "name", default="EPDO"), what=what)
    if kind == "rate":
        if f.measure.field == EPDO_FIELD:  # (the weighted score per residents)
            what = t["measure"]["epdo"].format(epdo=pack.convention("epdo", "name", default="EPDO"), what=what)
        return t["measure"]["rate"].format(what=what, per=f"{f.measure.per or 1000:,}")
    if kind in ("sum", "avg"):
        fld = ent.fields.get(f.measure.field or "")
        label = t["length"].format(unit=f.measure.unit or t["metres"]) if f.measure.field == LENGTH_FIELD else \
            fld.label if fld else f.measure.field
        return t["measure"][kind].format(field=label, what=what)
    return t["measure"]["trend" if f.intent == "trend" else "count"].format(what=what)


def _near(pack: Pack, f: Frame, t: dict) -> str:
    n = f.near
    sup = pack.entities.get(n.entity or "")
    what = _name(n.anchor.name) if n.anchor and n.anchor.name else (sup.plural if sup else n.entity or "")
    if sup and n.filters:
        what = _join([condition(pack, sup, p, t) for p in n.filters], t["and"]) + " " + what
    if n.scope and not n.anchor:  # (the features in a place: '<stops> in <town>')
        what += " " + t["place"].format(names=_join([_name(pl.name) for pl in n.scope], t["or"]))
    if n.mode == "nearest":
        return t["nearest"].format(what=what)
    if n.mode == "along":
        return t["along"].format(what=what)
    if n.distance_m == 0 and n.mode == "within":  # (an area and the features inside it)
        return t["held_none" if n.quantifier == "none" else "held_some"].format(what=what)
    metres = f"{n.distance_m:,.1f}".rstrip("0").rstrip(".") if n.distance_m is not None else "?"
    said = n.distance_text.strip()
    key = "near_none" if n.quantifier == "none" else "near"
    if said and said.replace(" ", "") not in (f"{metres}m",):
        return t[key].format(said=said, metres=metres, what=what)
    return t[key + "_metres"].format(metres=metres, what=what)


def _shape(pack: Pack, f: Frame, ent: Entity, t: dict) -> list[str]:
    out = []
    keys = []
    for g in f.group_by:
        if g.kind == "field":
            first = g.key.split("|")[0]
            e, _, name = first.partition(".") if "." in first else (ent.name, "", first)
            owner = pack.entities.get(e)
            fld = owner.fields.get(name) if owner else None
            keys.append(fld.label if fld else name.replace("_", " "))
        elif g.kind in ("area", "support"):
            keys.append(pack.entity(g.key).label if g.key in pack.entities else g.key)
        else:
            keys.append(g.key)
    if keys:
        out.append(t["group"].format(keys=_join(keys, t["and"])))
    if f.having:
        out.append(t["having"].format(conds=_join([h.text for h in f.having], t["and"])))
    if f.rank:
        if f.rank.limit:
            out.append(t[f"rank_{f.rank.order}"].format(n=f.rank.limit))
        else:
            out.append(t[f"rank_{f.rank.order}_all"])
    return out


def _said(u: dict, t: dict) -> list[str]:
    out = []
    if u.get("context"):
        out.append(t["context"].format(words=", ".join(f"'{w}'" for w in u["context"])))
    pairs = [t["corrected_pair"].format(**{"from": c["from"], "to": c["to"]}) for c in u.get("corrections", [])]
    pairs += [t["corrected_pair"].format(**{"from": c["from"], "to": c["to"]}) for c in u.get("rewrites", [])]
    if pairs:
        out.append(t["corrected"].format(pairs=", ".join(pairs)))
    assumed = [r["reason"] for r in u.get("repairs", []) if r.get("code") == "entity" and r.get("reason")]
    if assumed:
        out.append(t["assumed"].format(what="; ".join(assumed)))
    return out
