"""Plain-language answer: one sentence with the key numbers and one honest caveat."""
from __future__ import annotations

from functools import lru_cache

from .frame import Frame
from .pack import Pack
from .spelling import allowed_edits, edit_distance
from .text import language


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".") if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v).strip()


def _lab(v) -> str:
    return str(v).strip() if v is not None else "(none)"


@lru_cache(maxsize=8)
def _word_order(code: str) -> tuple[frozenset, tuple]:
    lang = language(code)
    return frozenset(lang.get("after_noun_prepositions") or []), tuple(lang.get("after_noun_joiner") or ())


def _placed(pack: Pack, preds: list) -> tuple[list[str], list[str]]:
    """Conditions said before the records' noun ('fatal crashes') and after it ('crashes with injuries', 'at night')."""
    preps, joiner = _word_order(pack.raw.get("language", "en"))
    before, after, joined = [], [], []
    for p in preds:
        concept = pack.concepts.get(p.concept) if p.concept else None
        text = _spelt(" ".join(p.text.split()), concept)
        # the pack's own word with a preposition before what was said: 'injuries' -> 'with injuries'
        said = sorted((w for w in (concept.words if concept else []) if w.endswith(" " + text.lower())
                       and w.split()[0] in preps), key=len)
        if text.split()[0].lower() in preps:
            after.append(text)
        elif said:
            after.append(said[0])
        elif len(text.split()) == 1 or len(joiner) < 2:
            before.append(text)
        else:
            joined.append(text)
    if joined:  # 'with wet roads and head on collisions'
        after.insert(0, f"{joiner[0]} " + f" {joiner[1]} ".join(joined))
    return before, after


def _distance(n) -> str:
    """The distance as the user said it, with metres ('2 miles (3,218.7 m)'), or metres alone."""
    metres = f"{n.distance_m:,.1f}".rstrip("0").rstrip(".")
    said = (n.distance_text or "").strip()
    return f"{said} ({metres} m)" if said and said.replace(" ", "") != f"{metres}m" else f"{metres} m"


def _spelt(text: str, concept) -> str:
    """A concept said with a misspelling the pack tolerates ('pedestrain') is written with the pack's own word."""
    if concept is None or not concept.words or text.lower() == concept.words[0]:
        return text
    close = [w for w in concept.words if len(w) > 3 and edit_distance(text.lower(), w) <= allowed_edits(w)]
    own = concept.words[0]
    return own if close and text.lower() in concept.words and edit_distance(text.lower(), own) <= allowed_edits(own) \
        else text


def describe(pack: Pack, f: Frame, one: bool = False) -> str:
    """'<value> <records> within <d> of <features> in <year>' from the frame (`one`: a single record)."""
    ent = pack.entity(f.target)
    after = ("area_attr", "near_place")  # said after the records: 'in towns with ...', 'within 50 m of X'
    place_fields = {pf.get("field"): key for key, pf in ent.places.items()}
    places = [p for p in f.filters if p.field in place_fields and p.op == "in" and p.text]  # 'middlesex': a place
    pre, post = _placed(pack, [p for p in f.filters if p.text and p.op not in after and p not in places
                               and not p.negate])
    parts = [(" ".join(pre) + " " if pre else "") + (ent.label if one else ent.plural)] + post
    parts += [p.text + "," for p in f.filters if p.negate and p.text]  # 'crashes excluding rear-ends, in ...'
    if f.near:
        sup = pack.entity(f.near.entity)
        what = f.near.anchor.name if f.near.anchor else " ".join(
            [p.text for p in f.near.filters if p.text and p.op != "time"] + [sup.plural] +
            [p.text for p in f.near.filters if p.text and p.op == "time"])
        rel = "along" if f.near.mode == "along" else "nearest to" if f.near.mode == "nearest" else "within"
        if f.near.mode == "along":
            parts.append(f"along {what} (within {f.near.distance_m:g} m)")
        elif f.near.quantifier == "none":
            parts.append(f"with no {what} within {_distance(f.near)}")
        else:
            parts.append(f"{rel} {_distance(f.near)} of {what}" if f.near.mode != "nearest" else f"{rel} {what}")
    names = [pl.name.title() if pl.name.isupper() else pl.name for pl in f.scope] + \
        [f"{str(v).title()} {ent.fields[p.field].label}" for p in places for v in p.values]
    if names:
        parts.append("in " + " or ".join(names))
    parts += [("and " if f.near and p.op == "near_place" else "") + p.text for p in f.filters if p.text and p.op in after]
    if f.time.text:
        parts.append(" ".join(f.time.text))
    elif f.time.years:
        parts.append("in " + ", ".join(map(str, f.time.years)))
    elif f.time.date_from or f.time.date_to:
        parts.append(f"from {f.time.date_from} to {f.time.date_to}" if f.time.date_from and f.time.date_to
                     else f"since {f.time.date_from}" if f.time.date_from else f"until {f.time.date_to}")
    return " ".join(parts)


def explain(pack: Pack, f: Frame, columns: list[str], rows: list, value_col: int | None, notes: list[str],
            truncated: bool) -> str:
    what = describe(pack, f)
    if f.measure.kind in ("sum", "avg"):
        fld = pack.entity(f.target).fields.get(f.measure.field or "")
        unit = f" ({fld.unit})" if fld and fld.unit else ""
        what = f"{'total' if f.measure.kind == 'sum' else 'average'} {fld.label if fld else f.measure.field}{unit} of {what}"
    if f.intent in ("list", "locate") and len(rows) == 1 and f.near and f.near.mode == "nearest" \
            and "distance_m" in columns:
        ent = pack.entity(f.target)
        name = rows[0][columns.index(ent.display)] if ent.display in columns else None
        s = (f"The {describe(pack, f, one=True)} is {_lab(name) + ', ' if name is not None else ''}"
             f"{float(rows[0][columns.index('distance_m')]):,.0f} m away.")
    elif f.intent in ("list", "locate"):
        s = f"Found {len(rows):,}{'+' if truncated else ''} {what}."
    elif f.compare:
        if f.measure.kind == "epdo":
            what = f"{pack.convention('epdo', 'name', default='severity-weighted score')} of {what}"
        vals = [(r[columns.index("side")], r[value_col]) for r in rows]
        s = "; ".join(f"{lab}: {_fmt(v)}" for lab, v in vals)
        if len(vals) == 2 and isinstance(vals[0][1], (int, float)) and isinstance(vals[1][1], (int, float)):
            a, b = vals[0][1] or 0, vals[1][1] or 0
            pct = f" ({(b - a) / a * 100:+.0f}%)" if a else ""
            s += f"; difference {_fmt(b - a)}{pct}"
        s = f"{what[0].upper() + what[1:]}: {s}."
    elif not rows:
        s = f"No {what} were found."
    elif len(rows) == 1 and value_col is not None and len(columns) <= 4 and not f.group_by:
        v = rows[0][value_col]
        if f.measure.kind in ("sum", "avg"):
            s = f"The {what} is {_fmt(v) if v is not None else 'unknown (no values)'}."
        elif f.intent == "share":
            s = f"{_fmt(v)}% of {what} ({_fmt(rows[0][0])} of {_fmt(rows[0][1])})." if v is not None else f"No {what}."
        elif f.measure.kind == "epdo":
            s = f"The {pack.convention('epdo', 'name', default='severity-weighted')} score of {what} is {_fmt(v)}."
        elif f.measure.kind == "rate":
            s = f"{_fmt(v)} {pack.convention('epdo', 'name', default='weighted') + ' points of ' if f.measure.field == 'epdo' else ''}{what} per {f.measure.per:,} residents."
        elif v == 1:
            s = f"There was 1 {describe(pack, f, one=True)}."
        else:
            s = f"There were {_fmt(v)} {what}."
    else:
        label = 0
        if columns[label] == "month":  # month numbers read as names; the rows keep the numbers
            names = language(pack.raw.get("language", "en"))["month_names"]
            rows = [[names.get(r[0], r[0]), *r[1:]] for r in rows]
        top = rows[0]
        if f.measure.kind == "epdo" or f.measure.field == "epdo":
            what = f"{pack.convention('epdo', 'name', default='severity-weighted score')} of {what}"
        if f.measure.kind == "rate":
            what = f"{what} per {f.measure.per or 1000:,} residents"
        if f.intent == "share" and columns[value_col or 0] == "share_pct":
            cond = " and ".join(p.text for p in f.share_of if p.text)
            what = f"share (%) of {what}" + (f" ({cond})" if cond else "")
        if f.intent == "trend" and len(rows) == 1:
            s = f"{what[0].upper() + what[1:]}: {_fmt(top[value_col])}, all in {columns[label]} {_lab(top[label])}."
        elif f.intent == "trend":
            known = [r for r in rows if r[label] is not None] or rows  # records without the time part sort last
            first, last = known[0], known[-1]
            peak = max(known, key=lambda r: r[value_col] or 0)
            s = (f"{what[0].upper() + what[1:]} by {columns[label]}: {_lab(first[label])}: {_fmt(first[value_col])}, "
                 f"{_lab(last[label])}: {_fmt(last[value_col])}; peak {_lab(peak[label])} ({_fmt(peak[value_col])}).")
        else:
            shown = ", ".join(f"{_lab(r[label])} ({_fmt(r[value_col])})" for r in rows[:5])
            fld = pack.entity(f.target).fields.get(columns[label]) or \
                (pack.entity(f.near.entity).fields.get(columns[label]) if f.near and f.near.entity else None)
            by = fld.label if fld else columns[label].replace("_", " ")
            if f.having:  # 'towns with more than 100 crashes': say which groups were kept, and how many
                by += f" ({len(rows):,} with {' and '.join(h.text for h in f.having)})"
            s = f"{what[0].upper() + what[1:]} by {by}: {shown}" + \
                (f" and {len(rows) - 5} more." if len(rows) > 5 else ".")
            if f.rank and f.rank.limit == 1:
                s = f"{_lab(top[label])} has the {'most' if f.rank.order == 'desc' else 'fewest'} {what} ({_fmt(top[value_col])})."
            if f.rank and f.rank.limit and "tied" in columns:
                last = rows[-1][value_col]
                left_out = rows[-1][columns.index("tied")] - sum(1 for r in rows if r[value_col] == last)
                if left_out > 0:
                    s += (f" {left_out:,} more {'ties' if left_out == 1 else 'tie'} with the last one shown "
                          f"({_fmt(last)}), not listed.")
    if notes:
        s += " Note: " + notes[0] + "."
    return s
