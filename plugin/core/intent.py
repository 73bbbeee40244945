"""What a reading asks for: the measure, the intent (count, list, share, trend, rank, compare) and the output."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .frame import EPDO_FIELD, LENGTH_FIELD, Group, Measure, Predicate, Rank, TimeSpec
from .phrasing import is_event, is_place_pred, number_before, pred_fields
from .qualifiers import asks_for_one, excluded, names_one
from .clauses import clause_at
from .pack import Pack, language_for
from .phrase_rules import rule_files
from .spans import readings, time_from_span, words

if TYPE_CHECKING:
    from .interpret_rules import Work


def assemble_intent(w: Work) -> None:
    """Measure, intent, ranking and output of the frame, from the cues and the roles already read."""
    f, cx = w.f, w.cx
    _measure(w)
    by_id = _by_record_id(w)
    if w.sides:
        f.intent, f.compare = "compare", w.sides
        if cx.cue("share"):
            f.share_of = [p for _, p in w.target_preds]
            w.target_preds = []
    elif cx.cue("share"):
        f.intent = "share"
        _share(w)
    elif (cx.cue("trend") or any(g.kind == "time" and g.key in ("year", "quarter", "month") for g in f.group_by)) \
            and not w.superlative:
        f.intent = "trend"
        if not any(g.kind == "time" for g in f.group_by):
            f.group_by.append(Group("time", "year"))
    elif w.superlative and (f.group_by or f.near):
        f.intent = "rank"
    elif (_asks_list(w) or (w.target_span and any(x in cx.cue("which") for x in cx.before(w.target_span, 2)))
          or _bare_features(w) or _which_of_those(w) or by_id) and not cx.cue("count") \
            and not f.group_by \
            and f.measure.kind == "count":
        # "show ...", and "which <features> had ...": the features themselves
        f.intent = "list"
    else:
        f.intent = "count"  # a bare "<condition> <records> in <place>" asks how many; show/list/map ask for the features
    if f.near and f.near.mode == "nearest" and not f.group_by and not f.compare:
        f.intent = "list"  # the k nearest features, ordered by distance
    if f.intent == "rank":
        topn, which = w.topn, cx.cue("which")
        said_n = number_before(w.ann.tokens, w.group_spans, w.spans)  # '3 <city> neighbourhoods with the fewest ...'
        limit = topn[0].value["n"] if topn else said_n if said_n else \
            (1 if (asks_for_one(cx, which, w.group_spans) if which else names_one(cx, w.group_spans or [
                s for s in w.spans if s.kind == "timepart" and w.before_is_rank(s)])) else  # ('busiest hour')
             0 if cx.cue("rank_all") else None)  # ('rank the <groups> by ...'): every group, in order
        f.rank = Rank("asc" if cx.cue("rank_asc") and not cx.cue("rank_desc") else "desc", limit)
    f.filters = [p for _, p in w.target_preds if not (cx.cue("keep_outside") and _null_group_said(w, p))]
    # ('<a> vs <b> - count any <a> kind'): a condition that is one side's, said again, is that side's alone
    said = {_key(p) for side in f.compare for p in side.filters}
    f.filters = [p for p in f.filters if _key(p) not in said]
    f.output = ["map", "table"] if f.intent in ("list", "locate") else ["table", "chart"] if f.group_by else ["table"]


def _null_group_said(w: Work, p: Predicate) -> bool:
    """'by <field>, the ones with no <field> as a group of their own': no value of the field grouped by is the
    group of records without one, kept already, and no condition."""
    grouped = {g.key.split(".")[-1] for g in w.f.group_by if g.kind == "field"}
    ent = w.pack.entities.get(w.f.target or "")
    # ('by <part of time>'): a part of time kept in a field of its own ('<day> label') is grouped by that field
    grouped |= {f for g in w.f.group_by if g.kind == "time" and ent is not None
                for k, f in ent.time.items() if k.split("_")[0] == g.key}
    where = w.pack.concepts[p.concept].where.get(w.f.target, {}) if p.concept in w.pack.concepts else {}
    blank = (p.op == "blank" and p.field) or (isinstance(where, dict) and where.get("blank") and where.get("field"))
    return bool(blank) and blank in grouped


def _asks_list(w: Work) -> bool:
    """A word asking for the records themselves ('show', 'where were'); one that also joins a condition to its
    records ('<records> where <condition>') asks so only opening its clause."""
    for s in w.cx.cue("list"):
        clause = clause_at(w.ann.clauses, s.start)
        opening = clause is None or all(t in w.ann.context for t in w.ann.tokens[clause.start:s.start])
        if "share_split" not in readings(s, "cue") or opening:
            return True
    return False


def _key(p: Predicate) -> tuple:
    return p.op, p.field, p.concept, repr(p.values), p.negate


def _by_record_id(w: Work) -> bool:
    """'<records> ... just the <record numbers>': a grouping by the records' own id has one record a group, so it
    asks for the records (the grouping is dropped)."""
    f = w.f

    def own_id(g: Group) -> bool:
        ent = w.pack.entities.get(g.key.split(".")[0] if "." in g.key else f.target or "")
        return g.kind == "field" and ent is not None and g.key.split(".")[-1] in (ent.id_field, ent.key)
    ids = [g for g in f.group_by if own_id(g)]
    if not ids or f.measure.kind != "count":
        return False
    f.group_by = [g for g in f.group_by if g not in ids]
    return True


def _which_of_those(w: Work) -> bool:
    """'<features> ... - which of those ...?': 'which' after the features named asks for those features."""
    return bool(w.target_span and w.f.target and not is_event(w.pack, [w.f.target]) and
                any(x.start >= w.target_span.end for x in w.cx.cue("which")))


def _bare_features(w: Work) -> bool:
    """'<features> in <place>' with no question word: the features themselves, where a bare '<records> in
    <place>' asks how many."""
    return bool(w.target_span and w.f.target and not is_event(w.pack, [w.f.target])
                and not any(c.kind == "cue" and c.value in ("share", "compare") for c in w.spans)
                and not any(c.asks for c in w.ann.clauses))


def _measure(w: Work) -> None:
    """EPDO and rates per population ('per 10,000 residents')."""
    f, cx = w.f, w.cx
    if cx.cue("epdo") and f.measure.field != EPDO_FIELD:
        f.measure = Measure("epdo")
    if cx.cue("length") and f.measure.kind == "count":
        f.target = f.target or _line_records(w)
        ent = w.pack.entities.get(f.target or "")
        if ent is None or ent.geometry != "line":
            f.unknown.append(cx.cue("length")[0].text)  # a length of what is no line: asked back, never counted
        else:
            f.measure = Measure("sum", field=LENGTH_FIELD, unit=_unit_said(w, cx.cue("length")[0]))
    if cx.cue("rate") or any(s.kind == "per" for s in w.spans):
        per = next((s.value["per"] for s in w.spans if s.kind == "per"), None)
        f.measure = Measure("rate", per=per or w.pack.convention("population", "per", default=1000),
                            total=bool(cx.cue("statewide")), field="epdo" if cx.cue("epdo") else None)


def _line_records(w: Work) -> str:
    """With no records named, the line features a length is asked of: those a value said qualifies ('separated
    bike lane'), else a line layer a word names ('the longest streets')."""
    lines = [e for e, ent in w.pack.entities.items() if ent.geometry == "line"]
    for s in w.spans:
        for kind, v in s.items or [(s.kind, s.value)]:
            ents = ([v[0]] if kind == "label" else list(w.pack.concepts[v].where) if kind == "concept"
                    and v in w.pack.concepts else [])
            if any(e in lines for e in ents):
                return next(e for e in ents if e in lines)
    return next((e for s in w.spans for e in readings(s, "entity") if e in lines), "")


def _stated(w: Work, s, p: Predicate) -> bool:
    """Whether a condition left out is said in another sentence than the share word ('... what share were <part>?
    Leave <value> out of the total.'): it narrows the whole of a share, never its part; unless that sentence
    also restates a value kept of the same field ('Count any <part> labels, but not <value>')."""
    c = clause_at(w.ann.clauses, s.start)
    if c is None or c is clause_at(w.ann.clauses, w.cx.cue("share")[0].start) or not excluded(w.ann, s):
        return False
    restated = [q for x, q in w.target_preds if x.start < c.end and x.end > c.start and not excluded(w.ann, x)]
    return not _fields_of(w.pack, restated) & _fields_of(w.pack, [p])


def _unit_said(w: Work, cue) -> str | None:
    """The unit word in or beside a length cue ('miles of', 'centerline miles', 'length in km'), None for metres."""
    units = language_for(w.pack).get("units", {})
    toks = w.ann.tokens
    return next((toks[i] for i in range(max(0, cue.start - 1), min(len(toks), cue.end + 2)) if toks[i] in units
                 and units[toks[i]] != 1.0), None)


def _split_at(w: Work, start: int) -> int | None:
    """Where the part of a share starts: the first split word after `start`; but a relative clause right after the
    records ('... of the <records> that happened <whole>, resulted in <part>') describes the whole, so the split
    is then the first split word past a condition of that clause."""
    # ('out of all of that <area>'s <records>'): a pointing word right before a field or records word points at
    # them, and splits nothing
    pointers = set(rule_files(w.pack.raw.get("language", "en")).get("context", {}).get("pointing_words", []))
    heads = {x.start for x in w.ann.spans if x.kind in ("field", "entity")}
    cues = sorted(c.start for c in w.cx.cue("share_split") if c.start >= start and not (
        c.end in heads and w.ann.tokens[c.start] in pointers))
    rel = words(w.pack, "relative_words")
    if len(cues) > 1 and w.target_span and cues[0] == w.target_span.end and w.ann.tokens[cues[0]] in rel:
        conds = [s.start for s, _ in w.target_preds]
        past = next((c for c in cues[1:] if any(cues[0] < x < c for x in conds)), None)
        if past is not None:
            return past
    return cues[0] if cues else None


def _part_said_first(w: Work, asked: int) -> bool:
    """'<part> as a percentage of <whole>': the conditions said before the share word are its part; what
    is left out narrows the whole."""
    toks = w.ann.tokens
    if not any(toks[max(0, asked - len(x.split())):asked] == x.split() for x in words(w.pack, "part_before_share")):
        return False
    part = [p for s, p in w.target_preds if s.start < asked and not excluded(w.ann, s) and not is_place_pred(w.pack, p)]
    if part:
        w.f.share_of = part
        w.target_preds = [(s, p) for s, p in w.target_preds if p not in part]
    return bool(part)


def _no_information(pack, p: Predicate) -> bool:
    """Values that say nothing about a record ('Unknown', 'Not reported'): left out, they narrow a share's whole."""
    said = words(pack, "no_information")
    values = p.values or [v for q in p.any_of for v in q.values]  # (a value of several fields: each field's)
    return bool(values) and all(" ".join(str(v).lower().replace("/", " ").split()) in said for v in values)


def _fields_of(pack: Pack, preds: list[Predicate]) -> set[tuple[str, str]]:
    """The (entity, field) pairs conditions test."""
    return {fe for p in preds for fe in pred_fields(pack, p)}


def _share(w: Work) -> None:
    """The part of a share: conditions after the split word, else a late time, the relation, or a late place."""
    f, pack = w.f, w.pack
    start = w.target_span.end if w.target_span else 0
    asked = w.cx.cue("share")[0].start
    if w.target_span and asked > w.target_span.end and any(s.start < asked for s, _ in w.target_preds
                                                           if s.start > w.target_span.start):
        # 'of the <records> that <whole>, what share were <part>': the share word divides them
        start = asked
    if _part_said_first(w, asked):
        return
    split = _split_at(w, start)
    cut = split if split is not None else start
    late = [(s, p) for s, p in w.target_preds if s.start >= cut and not is_place_pred(pack, p) and not _stated(w, s, p)]
    # ('what share are <part>, excluding <records> with no <field>'): what is left out narrows the whole, once a
    # part is said that is not left out, unless it only narrows the part ('<value> (not the <other value> ones)')
    kept = [p for s, p in late if not excluded(w.ann, s)]
    fields = _fields_of(pack, kept)
    after = [p for s, p in late if p in kept or not kept or (p.op != "blank" and not _no_information(pack, p) and
                                                             _fields_of(pack, [p]) & fields)]
    f.share_of = after or ([p for _, p in w.target_preds[-1:]] if not w.group_spans and split is None else [])
    part = _fields_of(pack, f.share_of)
    # ('<topic>. What share of <records> had <part>?'): a statement naming the part's own field is its topic,
    # never a condition on the whole
    asking = clause_at(w.ann.clauses, asked)
    w.target_preds = [(s, p) for s, p in w.target_preds if p not in f.share_of and not (
        part and s.end <= asked and clause_at(w.ann.clauses, s.start) not in (None, asking) and not excluded(w.ann, s)
        and set(pred_fields(pack, p)) <= part)]
    late_time = [s for s in w.time_spans if s.start >= cut and split is not None] if not f.share_of else []
    if not f.share_of and late_time:
        tv = TimeSpec()
        for s in late_time:
            time_from_span(tv, s.value, s.text)
            f.time.text.remove(s.text)
        for k in ("years", "months", "isodow", "hours", "days_of_month"):
            setattr(f.time, k, [x for x in getattr(f.time, k) if x not in getattr(tv, k)])
        f.share_of = [Predicate(op="time", values=[{k: v for k, v in tv.__dict__.items() if v and k != "text"}],
                                text=" ".join(tv.text))]
    elif not f.share_of and not f.group_by and f.time.isodow:
        f.share_of = [Predicate(op="time", values=[{"isodow": f.time.isodow}], text="time")]
        f.time.isodow = []
    if not f.share_of and f.near and not f.group_by:
        f.share_of = [Predicate(op="near", text="near")]
    late_places = [a for a in w.scope_spans if split is not None and a.start >= split]
    if not f.share_of and late_places:
        # "what share of <county> crashes were in <town>": the place is the numerator
        f.share_of = [Predicate(op="place", values=[{"entity": a.value["entity"], "name": a.value["name"]}],
                                text=a.text) for a in late_places]
        f.scope = [pl for pl in f.scope if pl.text not in {a.text for a in late_places}]
