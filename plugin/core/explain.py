"""Plain-language answer: one sentence with the key numbers and one honest caveat, in lang/<code>/explain.yaml's
templates."""
from __future__ import annotations

from functools import lru_cache

from .frame import LENGTH_FIELD, Frame
from .pack import Pack
from .phrase_rules import rule_files
from .spelling import allowed_edits, edit_distance
from .text import language


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".") if abs(v) < 1000 else f"{v:,.0f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v).strip()


def _lab(v, t: dict) -> str:
    return str(v).strip() if v is not None else t["none_label"]


def _cap(text: str) -> str:
    return text[0].upper() + text[1:]


def _templates(pack: Pack) -> dict:
    return rule_files(pack.raw.get("language", "en"))["explain"]


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


def _distance(n, t: dict) -> str:
    """The distance as the user said it, with metres ('2 miles (3,218.7 m)'), or metres alone."""
    metres = f"{n.distance_m:,.1f}".rstrip("0").rstrip(".")
    said = (n.distance_text or "").strip()
    alone = t["distance"].format(metres=metres)
    return t["distance_said"].format(said=said, metres=metres) if said and said.replace(" ", "") != \
        alone.replace(" ", "") else alone


def _spelt(text: str, concept) -> str:
    """A concept said with a misspelling the pack tolerates ('pedestrain') is written with the pack's own word."""
    if concept is None or not concept.words or text.lower() == concept.words[0]:
        return text
    close = [w for w in concept.words if len(w) > 3 and edit_distance(text.lower(), w) <= allowed_edits(w)]
    own = concept.words[0]
    return own if close and text.lower() in concept.words and edit_distance(text.lower(), own) <= allowed_edits(own) \
        else text


def _near(pack: Pack, f: Frame, t: dict) -> str:
    """Where the records are, said from what they are near ('within 50 m of schools', 'along Main Street')."""
    sup = pack.entity(f.near.entity)
    what = f.near.anchor.name if f.near.anchor else " ".join(
        [p.text for p in f.near.filters if p.text and p.op != "time"] + [sup.plural] +
        [p.text for p in f.near.filters if p.text and p.op == "time"])
    if f.near.mode == "along":
        return t["along"].format(what=what, metres=f.near.distance_m)
    if f.near.distance_m == 0 and f.near.mode == "within":  # (an area and the features inside it)
        return t["held_none" if f.near.quantifier == "none" else "held_some"].format(what=what)
    if f.near.quantifier == "none":
        return t["near_none"].format(what=what, distance=_distance(f.near, t))
    if f.near.mode == "nearest":
        return t["nearest"].format(what=what)
    return t["within"].format(what=what, distance=_distance(f.near, t))


def _when(f: Frame, t: dict) -> list[str]:
    """The time said ('in 2019', 'since 2020-03-01'), as the user said it when the frame keeps their words."""
    if f.time.text:
        return [" ".join(f.time.text)]
    if f.time.years:
        return [t["years"].format(years=", ".join(map(str, f.time.years)))]
    if f.time.date_from and f.time.date_to:
        return [t["date_range"].format(date_from=f.time.date_from, date_to=f.time.date_to)]
    if f.time.date_from:
        return [t["date_from"].format(date_from=f.time.date_from)]
    return [t["date_to"].format(date_to=f.time.date_to)] if f.time.date_to else []


def describe(pack: Pack, f: Frame, one: bool = False) -> str:
    """'<value> <records> within <d> of <features> in <year>' from the frame (`one`: a single record)."""
    t = _templates(pack)
    ent = pack.entity(f.target)
    after = ("area_attr", "near_place")  # said after the records: 'in towns with ...', 'within 50 m of X'
    place_fields = {pf.get("field"): key for key, pf in ent.places.items()}
    places = [p for p in f.filters if p.field in place_fields and p.op == "in" and p.text and not p.negate]  # a place
    pre, post = _placed(pack, [p for p in f.filters if p.text and p.op not in after and p not in places
                               and not p.negate])
    parts = [(" ".join(pre) + " " if pre else "") + (ent.label if one else ent.plural)] + post
    parts += [t["excluded"].format(text=p.text) for p in f.filters if p.negate and p.text]
    if f.near:
        parts.append(_near(pack, f, t))
    names = [pl.name.title() if pl.name.isupper() else pl.name for pl in f.scope] + \
        [t["place_value"].format(value=str(v).title(), field=ent.fields[p.field].label)
         for p in places for v in p.values]
    if names:
        parts.append(t["places"].format(names=f" {t['or']} ".join(names)))
    parts += [t["also"].format(text=p.text) if f.near and p.op == "near_place" else p.text
              for p in f.filters if p.text and p.op in after]
    return " ".join(parts + _when(f, t)).rstrip(",")  # (an exclusion said last needs no comma)


def _epdo(pack: Pack, t: dict, default: str) -> str:
    """The pack's name for the severity-weighted score, or the template's."""
    return pack.convention("epdo", "name", default=t[default])


def _measured(pack: Pack, f: Frame, what: str, t: dict) -> str:
    """'total <field> (<unit>) of <records>' for a sum or an average; the records alone otherwise."""
    if f.measure.kind not in ("sum", "avg"):
        return what
    fld = pack.entity(f.target).fields.get(f.measure.field or "")
    if f.measure.field == LENGTH_FIELD:  # the length of line features, in the unit asked (metres by default)
        return t["measure"][f.measure.kind].format(field=t["length_field"], what=what,
                                                   unit=t["unit"].format(unit=f.measure.unit or t["metres"]))
    unit = t["unit"].format(unit=fld.unit) if fld and fld.unit else ""
    return t["measure"][f.measure.kind].format(field=fld.label if fld else f.measure.field, unit=unit, what=what)


def _nearest_one(pack: Pack, f: Frame, columns: list[str], rows: list, t: dict) -> str:
    """The one nearest record, its name and how far it is."""
    ent = pack.entity(f.target)
    name = rows[0][columns.index(ent.display)] if ent.display in columns else None
    return t["nearest_one"].format(what=describe(pack, f, one=True),
                                   name=t["nearest_name"].format(name=_lab(name, t)) if name is not None else "",
                                   metres=float(rows[0][columns.index("distance_m")]))


def _compared(pack: Pack, f: Frame, what: str, columns: list[str], rows: list, value_col: int | None,
              t: dict) -> str:
    """Each side's value and, for two numbers, their difference ('A: 10; B: 12; difference 2 (+20%)')."""
    if f.measure.kind == "epdo":
        what = t["epdo_of"].format(epdo=_epdo(pack, t, "epdo_name"), what=what)
    vals = [(r[columns.index("side")], r[value_col]) for r in rows]
    s = t["sides_joiner"].join(t["side"].format(label=lab, value=_fmt(v)) for lab, v in vals)
    if len(vals) == 2 and isinstance(vals[0][1], (int, float)) and isinstance(vals[1][1], (int, float)):
        a, b = vals[0][1] or 0, vals[1][1] or 0
        pct = t["pct"].format(pct=(b - a) / a * 100) if a else ""
        s += t["difference"].format(value=_fmt(b - a), pct=pct)
    return t["compared"].format(what=_cap(what), sides=s)


def _single(pack: Pack, f: Frame, what: str, rows: list, value_col: int, t: dict) -> str:
    """One number: a total, an average, a share, a score, a rate or a count."""
    v = rows[0][value_col]
    if f.measure.kind in ("sum", "avg"):
        return t["value"].format(what=what, value=_fmt(v) if v is not None else t["unknown"])
    if f.intent == "share":
        return t["share"].format(value=_fmt(v), what=what, part=_fmt(rows[0][0]), whole=_fmt(rows[0][1])) \
            if v is not None else t["share_none"].format(what=what)
    if f.measure.kind == "epdo":
        return t["epdo_value"].format(epdo=_epdo(pack, t, "epdo_name_before_score"), what=what, value=_fmt(v))
    if f.measure.kind == "rate":
        points = t["rate_points"].format(epdo=_epdo(pack, t, "epdo_name_before_points")) \
            if f.measure.field == "epdo" else ""
        return t["rate"].format(value=_fmt(v), points=points, what=what, per=f.measure.per)
    if v == 1:
        return t["one"].format(what=describe(pack, f, one=True))
    return t["count"].format(value=_fmt(v), what=what)


def _grouped_what(pack: Pack, f: Frame, what: str, columns: list[str], value_col: int | None, t: dict) -> str:
    """What the groups' values are of: a score, a rate, a share of the records."""
    if f.measure.kind == "epdo" or f.measure.field == "epdo":
        what = t["epdo_of"].format(epdo=_epdo(pack, t, "epdo_name"), what=what)
    if f.measure.kind == "rate":
        what = t["per_residents"].format(what=what, per=f.measure.per or 1000)
    if f.intent == "share" and columns[value_col or 0] == "share_pct":
        cond = f" {t['and']} ".join(p.text for p in f.share_of if p.text)
        what = t["share_of"].format(what=what) + (t["share_conditions"].format(conditions=cond) if cond else "")
    return what


def _trend(what: str, columns: list[str], rows: list, value_col: int, t: dict) -> str:
    """A value per period: the first, the last and the peak."""
    label = 0
    if len(rows) == 1:
        return t["trend_one"].format(what=_cap(what), value=_fmt(rows[0][value_col]), column=columns[label],
                                     label=_lab(rows[0][label], t))
    known = [r for r in rows if r[label] is not None] or rows  # records without the time part sort last
    first, last = known[0], known[-1]
    peak = max(known, key=lambda r: r[value_col] or 0)
    return t["trend"].format(what=_cap(what), column=columns[label], first=_lab(first[label], t),
                             first_value=_fmt(first[value_col]), last=_lab(last[label], t),
                             last_value=_fmt(last[value_col]), peak=_lab(peak[label], t),
                             peak_value=_fmt(peak[value_col]))


def _groups(pack: Pack, f: Frame, what: str, columns: list[str], rows: list, value_col: int, t: dict) -> str:
    """The first groups and their values, the one at the top of a ranking, and ties left out of it."""
    label, top = 0, rows[0]
    shown = ", ".join(t["group_item"].format(label=_lab(r[label], t), value=_fmt(r[value_col])) for r in rows[:5])
    fld = pack.entity(f.target).fields.get(columns[label]) or \
        (pack.entity(f.near.entity).fields.get(columns[label]) if f.near and f.near.entity else None)
    by = fld.label if fld else columns[label].replace("_", " ")
    if f.having:  # 'towns with more than 100 crashes': say which groups were kept, and how many
        by += t["having"].format(n=len(rows), conditions=f" {t['and']} ".join(h.text for h in f.having))
    more = t["groups_more"].format(n=len(rows) - 5) if len(rows) > 5 else ""
    s = t["groups"].format(what=_cap(what), by=by, shown=shown, more=more)
    if f.rank and f.rank.limit == 1:
        s = t["rank_one_desc" if f.rank.order == "desc" else "rank_one_asc"].format(
            label=_lab(top[label], t), what=what, value=_fmt(top[value_col]))
    if f.rank and f.rank.limit and "tied" in columns:
        last = rows[-1][value_col]
        left_out = rows[-1][columns.index("tied")] - sum(1 for r in rows if r[value_col] == last)
        if left_out > 0:
            s += t["tied_one" if left_out == 1 else "tied_many"].format(n=left_out, value=_fmt(last))
    return s


def _by_group(pack: Pack, f: Frame, what: str, columns: list[str], rows: list, value_col: int | None,
              t: dict) -> str:
    """Several rows: a trend over periods or values by group."""
    if columns[0] == "month":  # month numbers read as names; the rows keep the numbers
        names = language(pack.raw.get("language", "en"))["month_names"]
        rows = [[names.get(r[0], r[0]), *r[1:]] for r in rows]
    what = _grouped_what(pack, f, what, columns, value_col, t)
    if f.intent == "trend":
        return _trend(what, columns, rows, value_col, t)
    return _groups(pack, f, what, columns, rows, value_col, t)


def explain(pack: Pack, f: Frame, columns: list[str], rows: list, value_col: int | None, notes: list[str],
            truncated: bool) -> str:
    """The answer in one sentence, with the first note as its caveat."""
    t = _templates(pack)
    what = _measured(pack, f, describe(pack, f), t)
    if f.intent in ("list", "locate") and len(rows) == 1 and f.near and f.near.mode == "nearest" \
            and "distance_m" in columns:
        s = _nearest_one(pack, f, columns, rows, t)
    elif f.intent in ("list", "locate"):
        s = t["found_truncated" if truncated else "found"].format(n=len(rows), what=what)
    elif f.compare:
        s = _compared(pack, f, what, columns, rows, value_col, t)
    elif not rows:
        s = t["none_found"].format(what=what)
    elif len(rows) == 1 and value_col is not None and len(columns) <= 4 and not f.group_by:
        s = _single(pack, f, what, rows, value_col, t)
    else:
        s = _by_group(pack, f, what, columns, rows, value_col, t)
    if notes:
        s += t["note"].format(note=notes[0])
    return s
