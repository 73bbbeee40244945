"""Whether a question was understood well enough to answer: too little read, a word left over, a place or
measure outside the data, a judgement with no measure, another language; and the summary of how it was read."""
from __future__ import annotations

from .frame import Frame
from .pack import Pack, measures_summary, pack_summary
from .spans import has
from .text import normalize


def other_language(lang: dict, ann) -> str | None:
    """The language a question is written in when it is not the pack's (two or more words the pack's language
    does not read that are common words of another language), else None."""
    unread = set(ann.unknown)
    hits = {name: len(unread & set(words)) for name, words in (lang.get("other_languages") or {}).items()}
    best = max(hits, key=hits.get) if hits else None
    return best if best and hits[best] >= 2 else None


def too_little(pack: Pack, lang: dict, ann, frame: Frame) -> str | None:
    """A plain reason to ask back when too little of the question was understood, else None."""
    known = [s for s in ann.spans if s.kind not in ("cue", "timepart")]
    content = [t for t in ann.tokens if t not in lang["stopwords"] and not t.isdigit()]
    ins = set(lang["cues"]["in"]) | set(lang["cues"]["near"]) | set(lang["cues"]["along"]) | \
        set(lang["cues"]["place_or_day"])
    causes = [tuple(c.split()) for c in lang["cues"]["cause"]]
    for i, tok in enumerate(ann.tokens):
        if tok not in ann.unknown or i == 0:
            continue
        after_distance = ann.tokens[i - 1] in ("of", "from") and any(s.kind == "distance" and s.end == i - 1
                                                                      for s in ann.spans)
        if ann.tokens[i - 1] in ins or after_distance:
            return (f"MapAsk found no place, feature or day named '{tok}' in this pack. "
                    + pack_summary(pack))
        if any(tuple(ann.tokens[max(0, i - len(c)):i]) == c for c in causes):
            # 'caused by speeding': a condition the pack does not record; answering without it would mislead
            return (f"MapAsk does not know '{tok}' as a condition recorded in this pack: it can "
                    f"{measures_summary(pack)}. " + pack_summary(pack))
    said = any(has(s, "entity") or has(s, "field") or has(s, "label") or has(s, "concept") for s in ann.spans)
    content_unknown = [u for u in ann.unknown if not any(ch.isdigit() for ch in u)]
    if not said and content_unknown and not frame.target and frame.measure.kind == "count":
        # 'how many potholes in <town>': the thing asked about is a word the pack does not know
        return (f"MapAsk does not know what '{content_unknown[0]}' {'are' if content_unknown[0].endswith('s') else 'is'}"
                f" in this pack. " + pack_summary(pack))
    for u in ann.unknown:
        if any(ch.isdigit() for ch in u):  # a numeric condition on nothing the pack records (or on a count)
            return (f"MapAsk cannot apply '{u}': it found no recorded number it compares (a field, or how many "
                    f"records each group has). " + pack_summary(pack))
    heads = [s for s in ann.spans if s.kind == "entity"]
    for h in heads:
        near = [ann.tokens[i] for i in (h.start - 1, h.end) if 0 <= i < len(ann.tokens)]
        odd = [t for t in near if t in ann.unknown]
        if odd and frame.measure.kind == "count" and frame.intent in ("list", "count"):
            ent = pack.entities.get(h.value) if isinstance(h.value, str) else None
            return (f"MapAsk does not know '{odd[0]}' for {ent.plural if ent else 'these records'}: it can "
                    f"{measures_summary(pack)}. " + pack_summary(pack))
    if not known and not frame.target:
        return "MapAsk could not find anything it knows in this question. " + pack_summary(pack)
    if content and len(ann.unknown) / len(content) > 0.5:
        return (f"MapAsk did not understand: {', '.join(ann.unknown[:8])}. " + pack_summary(pack))
    if ann.unknown and not frame.target and frame.intent in ("count", "list") and not frame.filters \
            and not frame.scope and frame.near is None and frame.time.empty():
        return f"MapAsk did not understand: {', '.join(ann.unknown[:8])}. " + pack_summary(pack)
    return None


def outside_data(pack: Pack, frame: Frame) -> str | None:
    """A word left over that names a place outside the pack's area, or a measure the data does not record:
    refused with the reason."""
    raw = pack.raw
    words = [normalize(w) for w in frame.unknown]
    toks = " ".join(words)
    for place in raw.get("elsewhere") or []:
        if f" {place} " in f" {toks} ":
            return (f"'{place.title()}' is outside this pack's area ({raw.get('area', 'its area')}): "
                    f"MapAsk answers only from the data it has.")
    for w in words:
        why = (raw.get("not_recorded") or {}).get(w)
        if why:
            return f"MapAsk cannot answer '{w}': {why}."
    return None


def judgement(pack: Pack, lang: dict, ann, frame: Frame) -> dict | None:
    """'the most dangerous neighbourhood': a judgement with neither the records nor a measure named is asked
    back with the measures the pack has (a choice to put in its place)."""
    j = lang.get("judgement") or {}
    text = " ".join(ann.tokens)
    said = next((w for w in sorted(j.get("words", []), key=len, reverse=True) if f" {w} " in f" {text} "), None)
    measures = {"count", "epdo", "rate", "sum", "avg", "share"}
    # (records named as a source, 'in the statewide sample', say where to look, not what to count)
    sources = set(lang.get("source_words", []))
    named = any(s.kind == "cue" and s.value in measures for s in ann.spans) or any(
        s.kind == "entity" and pack.entities[s.value].time and s.text.split()[-1] not in sources for s in ann.spans
        if isinstance(s.value, str) and s.value in pack.entities)
    if not said or named:
        return None
    ent = pack.entity(frame.target) if frame.target in pack.entities else \
        pack.entity(pack.default_entity)
    epdo = pack.convention("epdo", "name", default=None)
    readings = j.get("readings", {})
    choices = [readings["count"].format(records=ent.plural)] if "count" in readings else []
    if epdo and "epdo" in readings:
        choices.append(readings["epdo"].format(epdo=epdo))
    if pack.convention("population") and "rate" in readings:
        choices.append(readings["rate"].format(records=ent.plural))
    return {"text": said, "choices": choices}


def summary(lang: dict, ann) -> dict:
    """How the question was read, for the read-back, the verifier and the audit."""
    stop = set(lang["stopwords"])
    asked = [i for c in ann.clauses if c.kind == "question" for i in range(c.start, c.end)]
    content = [i for i in asked if ann.tokens[i] not in stop and not ann.tokens[i].isdigit()]
    read = {i for s in ann.spans for i in range(s.start, s.end)}
    return {"context": list(dict.fromkeys(ann.context)), "corrections": ann.corrections,
            "rewrites": ann.rewrites, "words": len(asked),
            # (a purpose or a deadline gives nothing to the answer: only the clauses that do can be misread)
            "clauses": max(1, sum(c.kind not in ("purpose", "deadline") for c in ann.clauses)),
            "read_share": round(sum(i in read for i in content) / len(content), 3) if content else 1.0}


def left_over(frame: Frame) -> str | None:
    """A content word no reading used stops the answer: asked back naming it, never dropped."""
    words = list(dict.fromkeys(frame.unknown))
    if not words:
        return None
    said = ", ".join(f"'{w}'" for w in words[:6])
    return (f"MapAsk did not understand {said} in this question, and answering without "
            f"{'it' if len(words) == 1 else 'them'} could give the wrong number. Rephrase "
            f"{'it' if len(words) == 1 else 'them'} with words from the data, or leave "
            f"{'it' if len(words) == 1 else 'them'} out.")
