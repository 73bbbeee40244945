"""Which source answers: each entity that could hold the records scored by how much of the frame it can express."""
from __future__ import annotations

from .frame import Frame, Predicate, year_of
from .pack import Entity, Pack, norm_label


def choose_entity(pack: Pack, f: Frame, log, r) -> None:
    p = pack
    said = f.target if f.target in p.entities else None
    if f.target and not said:
        log("entity_unknown", "target", f.target, None, "the pack has no such entity")
    if not said:
        said = _owner_of_concepts(p, f)  # 'map the bike paths': the one kind of record the words can describe
    if said and not p.entities[said].time:
        cands = [said]
    else:
        family = {said} if said else set()
        base = said or p.default_entity
        for e in p.entities.values():
            if e.time and (e.shares_words_with == base or e.name == base or
                           (said is None) or p.entities[base].shares_words_with == e.name):
                family.add(e.name)
        cands = sorted(family, key=p.priority)
    latest = max((p.entities[c].years()[1] for c in cands if p.entities[c].years()), default=None)
    scored = [(fit(pack, p.entities[c], f, latest, named=c == said) + (0.5 if c == said else 0), -p.priority(c), c)
              for c in cands]
    scored.sort(reverse=True)
    best = scored[0][2] if scored else p.default_entity
    if best != f.target:
        only = len(scored) > 1 and scored[0][0] > scored[1][0]
        why = "it is the only source that can answer every part of the question" if only else \
            "the pack's default source for this kind of question"
        # (a source no other could stand in for is no guess: the code tells the verifier which it was)
        log("entity_only" if only else "entity", "target", f.target or None, best,
            f"used {p.entities[best].label}: {why}")
    tied = [c for sc, _, c in scored[1:] if sc == scored[0][0]]
    if tied:  # (another source could answer it all as well: the pack's order chose, and a reader may not agree)
        log("source_tie", "target", tied[0], best, f"{p.entities[tied[0]].label} could answer it as well")
    f.target = best

def _owner_of_concepts(pack: Pack, f: Frame) -> str | None:
    """With no record kind named, the one entity every concept of the question applies to, when the default
    source is not among them."""
    owners = [set(pack.concepts[q.concept].where) for q in f.filters if q.concept and q.concept in pack.concepts]
    common = set.intersection(*owners) if owners else set()
    if len(common) == 1 and pack.default_entity not in common:
        return common.pop()
    return None


def fit(pack: Pack, e: Entity, f: Frame, latest: int | None = None, named: bool = False) -> float:
    """How well an entity can express the frame: +1 per expressible part, -5 per impossible part."""
    score = 0.0
    preds = f.filters + f.share_of + [q for s in f.compare for q in s.filters]
    preds = [m for q in preds for m in (q.any_of if q.op == "any" and not q.concept else [q])]
    for q in preds:
        if q.concept:
            score += 1 if q.concept in pack.concepts and e.name in pack.concepts[q.concept].where else -5
        elif q.field:
            score += 1 if (q.entity in (None, e.name) and q.field in e.fields) or \
                same_field(pack, e, q) else -5
    if (f.measure.kind == "epdo" or f.measure.field == "epdo") and not e.severity_field:
        score -= 5
    asked = {q.concept for q in preds if q.concept}
    if e.always and not set(e.always) <= asked and not named:  # (a source named outright needs no such word)
        score -= 5  # a source holding only bicycle crashes cannot answer about all crashes
    years = e.years()
    open_ended = any((t.date_from and not t.date_to) or t.latest_year or t.last_n_years
                     for t in [f.time] + [s.time for s in f.compare])
    if open_ended and years and latest and years[1] == latest:
        score += 0.3  # "since 2015", "the latest year": the source that reaches furthest
    times = [f.time] + [s.time for s in f.compare]
    years = e.years()
    for t in times:
        if t.hours and not (e.time.get("time") or e.time.get("timestamp")):
            score -= 5
        whole_years = (not t.date_from or t.date_from.endswith("-01-01")) and \
            (not t.date_to or t.date_to.endswith("-12-31"))
        if (t.months or t.days_of_month or not whole_years) and not (e.time.get("date") or e.time.get("timestamp")):
            score -= 5
        if years and t.years and any(y < years[0] or y > years[1] for y in t.years):
            score -= 3
        start, end = year_of(t.date_from), year_of(t.date_to)
        if years and start and start > years[1]:
            score -= 3
        if years and end and end < years[0]:
            score -= 3
        if years and start and start < years[0]:
            score -= 1  # part of the asked period is not covered
        if years and end and end > years[1]:
            score -= 1
    town = e.coverage.get("town")
    for pl in f.scope + [pl for s in f.compare for pl in s.scope]:
        if town and pl.entity and pack.entities.get(pl.entity) and \
                pack.entities[pl.entity].coverage.get("town") is None and \
                norm_label(pl.name or "") != norm_label(town):
            score -= 5
    for g in f.group_by:
        if g.kind == "time" and not has_time_part(e, g.key):
            score -= 5
        if g.kind == "time" and g.key == "year" and f.scope and years and years[0] == years[1]:
            score -= 2  # '<place> <records> per year': a source of one year has no trend to show
        if g.kind == "field" and not any(fn in e.fields and en in (e.name, f.target)
                                         for en, fn in field_keys(g.key, f.target)):
            score -= 2
    return score

def same_field(pack: Pack, e: Entity, q: Predicate) -> bool:
    src = pack.entities.get(q.entity or "")
    if not src or q.field not in src.fields:
        return False
    label = src.fields[q.field].label
    return any(f.label == label for f in e.fields.values())


def has_time_part(e: Entity, part: str) -> bool:
    """Whether records of `e` say the hour, month, season, quarter, weekday or year they happened."""
    t = e.time
    if part == "hour":
        return bool(t.get("time") or t.get("timestamp"))
    if part in ("month", "season", "quarter"):
        return bool(t.get("date") or t.get("timestamp"))
    if part == "dow":
        return bool(t.get("date") or t.get("timestamp") or t.get("dow_label"))
    return bool(t)


def field_keys(key: str, default_entity: str) -> list[tuple[str, str]]:
    """'crash.weath_cond_descr|bicycle_crash.weather_condition_1' or a bare field of the target."""
    return [tuple(k.split(".", 1)) if "." in k else (default_entity, k) for k in key.split("|")]
