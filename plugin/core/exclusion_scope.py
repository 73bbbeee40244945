"""Which conditions an exclusion cue leaves out ('excluding <value>', '<value> doesn't count') and which an
either-way cue sets aside ('<value> or not')."""
from __future__ import annotations

from .clauses import clause_at
from .pack import Pack
from .value_words import label_sets


def either_way(ann, rules: dict, pack: Pack) -> None:
    """'<value> or not': the one condition the cue follows is read and set aside (context), not a filter."""
    passes = set(rules.get("passes", []))  # (the records word of a statement, set aside, still walked over)
    conds = sorted([s for s in ann.spans if s.kind != "cue"] + [s for s in ann.aside if s.kind in passes],
                   key=lambda s: s.start)
    dropped: set[int] = set()
    for s in [s for s in ann.spans if s.kind == "cue"]:
        c = clause_at(ann.clauses, s.start)
        bounds = (c.start, c.end) if c is not None else (0, len(ann.tokens))
        # (a word of several cue lists, 'whatever': the first reading that covers anything)
        kinds = [v for k, v in (s.items or [(s.kind, s.value)]) if k == "cue" and str(v).startswith("either_way_")]
        covered = next((got for kind in kinds if (got := _either_covered(ann, s, kind, conds, rules, bounds, pack))), [])
        dropped |= {i for a, b in covered for i in range(a, b)} | set(range(s.start, s.end)) if covered else set()
    for s in _declined(ann):  # ('as a row of its own instead of dropping them'): the leaving out is declined
        dropped |= set(range(s.start, s.end))
    if dropped:
        ann.spans = [s for s in ann.spans if s.start not in dropped]
        ann.context += [ann.tokens[i] for i in sorted(dropped)]


def _either_covered(ann, s, kind: str, conds: list, rules: dict, bounds: tuple[int, int],
                    pack: Pack) -> list[tuple[int, int]]:
    """What one either-way cue covers, by its kind."""
    if kind == "either_way_after":  # (the value before it, and those of the same field listed before that)
        # (not a reading reaching into an earlier clause: '<value>? <kind>, <kind>, whatever' keeps the value)
        return _same_field_run(ann, pack, conds, [(a, b) for a, b in _covered(ann, conds, rules, s.start - 1, -1, bounds)
                                                  if a >= bounds[0]])
    if kind == "either_way_kept":  # (only what is counted anyway: a value left blank)
        return [(a, b) for a, b in _covered(ann, conds, rules, s.end, 1, bounds)[:1]
                if any(x.start == a and x.kind in rules.get("either_way_kept_covers", []) for x in conds)]
    if kind == "either_way_restated":
        return _restating(ann, conds, rules, s, bounds, pack)
    if kind == "either_way_beyond":  # ('<county>, not only <town>'): the place is in what is asked already
        return _covered(ann, conds, rules, s.end, 1, bounds)
    # only a field just after the cue: 'of any <value>' still keeps the value ('any dark light')
    nxt = next((c for c in conds if c.start == s.end), None)
    return [(nxt.start, nxt.end)] if nxt and nxt.kind in rules.get("either_way_before_covers", []) else []


def _same_field_run(ann, pack: Pack, conds: list, covered: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The first value of the conditions covered, and those after it that give values of one same field with it,
    with the words beside them that give none ('<value> street, <value> street, whatever'): a list of values said
    to be all the same to the asker."""
    spans = [next(c for c in conds if (c.start, c.end) == ab) for ab in covered]
    keys: set = set()
    said: dict = {}
    run: list[tuple[int, int]] = []
    for sp, ab in zip(spans, covered):
        own = label_sets(pack, sp)
        # (a value holding one said already is what they are kinds of: '<dark>, <lit> or not' keeps the dark)
        if keys and own and (not keys & set(own) or any(own[k] & said.get(k, set()) for k in own)):
            break
        keys = keys or set(own)
        for k, labels in own.items():
            said.setdefault(k, set()).update(labels)
        run.append(ab)
        if not keys and len(run) > 1:
            break
    # (nothing but words that give no value: only the one right before the cue, as before)
    return run if keys else run[:1]


def _declined(ann) -> list:
    """The declining cues ('rather than', 'instead of') and the exclusion cues right after them."""
    lead = [s for s in ann.spans if s.kind == "cue" and s.value == "declining"]
    cues = [s for s in ann.spans if s.kind == "cue" and any(
        v in ("exclude_before", "exclude_after") for k, v in (s.items or [(s.kind, s.value)]) if k == "cue")]
    return [x for d in lead for x in [d] + [c for c in cues if c.start == d.end]]


def _restating(ann, conds: list, rules: dict, cue, bounds: tuple[int, int], pack: Pack) -> list[tuple[int, int]]:
    """The conditions after the cue when every value among them is of the field of a value said before it and
    there are as many as that value has labels there (so they restate it case by case), else none: 'whether <a>,
    <b> or <c>' of a value with more labels names some of its kinds, and narrows it."""
    after = _covered(ann, conds, rules, cue.end, 1, bounds)
    before: dict = {}
    for s in [s for s in conds if s.end <= cue.start and s.kind in ("label", "concept")]:
        for k, labels in label_sets(pack, s).items():
            before.setdefault(k, set()).update(labels)
    values = [s for s in conds if (s.start, s.end) in after and s.kind in ("label", "concept")]
    shared = [k for k in before if all(k in label_sets(pack, s) for s in values)]
    # (one of them at least a kind of the earlier value: 'after dark, whether dusk or dawn' restates nothing)
    inside = [k for k in shared if any(label_sets(pack, s)[k] <= before[k] for s in values)]
    return after if values and any(len(values) >= len(before[k]) for k in inside) else []


def exclusion_scopes(ann, rules: dict) -> list[tuple[int, int, str]]:
    """(start, end, cue) of the conditions an exclusion cue covers: right after a `before` cue (or right before
    an `after` cue), joined only by the rule file's joiners. A place a `before` cue names is covered too, so it
    is asked back rather than counted."""
    passes = set(rules.get("passes", []))
    cued = set(rules.get("covers_cues", []))  # ('skip those lacking coordinates'): a cue that is a condition
    conds = sorted([s for s in ann.spans if s.kind != "cue" or s.value in cued] + [s for s in ann.aside if s.kind in passes],
                   key=lambda s: s.start)
    out = []
    declined = {(s.start, s.end) for s in _declined(ann)}
    for s in ann.spans:
        if (s.start, s.end) in declined:
            continue
        sides = [v for k, v in (s.items or [(s.kind, s.value)]) if k == "cue" and v in ("exclude_before", "exclude_after")]
        # ('<conditions> - dont count <value>'): a cue that reads either way covers what follows it, when anything does
        for side in sorted(sides, key=lambda x: x != "exclude_before"):  # (the forward reading first)
            fwd = side == "exclude_before"
            said = (lambda t, cue=s.text: f"{cue} {t}") if fwd else (lambda t, cue=s.text: f"{t} {cue}")
            c = clause_at(ann.clauses, s.start)
            lo, hi = (c.start, c.end) if c is not None else (0, len(ann.tokens))
            got = _covered(ann, conds, rules, s.end if fwd else s.start - 1, 1 if fwd else -1, (lo, hi))
            out += [(a, b, said) for a, b in got]
            if fwd and got:
                break
    return out


def weaken(toks: list[str], spans: list[Span], rules: dict) -> None:
    """A cue that is also a word of a change or of a noun, said where it is one (right after records, a value or
    a word that makes it so, or right before one), is that other word: its exclusion reading is dropped."""
    kinds = set(rules.get("weak_not_after_kinds", []))
    for s in [s for s in spans if s.text in rules.get("weak_before", [])]:
        after = s.start > 0 and toks[s.start - 1] in rules.get("weak_not_after", []) or any(
            x.end == s.start and x.kind in kinds for x in spans)
        if after or s.end < len(toks) and toks[s.end] in rules.get("weak_not_before", []):
            s.items = [(k, v) for k, v in (s.items or [(s.kind, s.value)]) if (k, v) != ("cue", "exclude_before")]
            if not s.items:
                spans.remove(s)
            elif s.value == "exclude_before":
                s.kind, s.value = s.items[0]


def _covered(ann, conds: list[Span], rules: dict, pos: int, step: int,
             bounds: tuple[int, int]) -> list[tuple[int, int]]:
    """Walk from `pos` in direction `step` over conditions, passed spans and joiners, within the cue's clause
    (`bounds`); the conditions covered."""
    joiners, covers = set(rules.get("joiners", [])), set(rules.get("covers", []))
    leads = set(rules.get("lead_joiners", []))
    passes, asks = set(rules.get("passes", [])), set(rules.get("asks_back", []))
    heads = set(rules.get("names_place", []))
    covered: list[tuple[int, int]] = []
    kinds: list[str] = []
    while bounds[0] <= pos < bounds[1]:
        if pos in ann.breaks and step > 0 and covered:
            break  # ('(not the <value> ones), <year> to <year>'): an aside closed covers nothing after it
        hit = next((c for c in conds if (c.start if step > 0 else c.end - 1) == pos), None)
        # (a count said on the way joins too: 'outside all 13 <areas>')
        tok = ann.tokens[pos]
        if hit is None and tok not in joiners and not tok.isdigit() and (covered or tok not in leads):
            break
        if hit is not None:
            if hit.kind in covers or hit.kind == "cue" and hit.value in set(rules.get("covers_cues", [])) or (
                    step > 0 and hit.kind in asks and all(k in heads or k in asks for k in kinds)):
                covered.append((hit.start, hit.end))
                kinds.append(hit.kind)
            elif hit.kind not in passes:
                break
        pos = (hit.end if step > 0 else hit.start - 1) if hit is not None else pos + step
    return covered
