"""Which words of the question were read as something the answer then did not use (for the verifier)."""
from __future__ import annotations

import json
from dataclasses import asdict

from .clauses import asked_positions
from .frame import Frame
from .tokens import Span

# the kinds of reading whose name must show up in the frame when the reading was used
_NAMED = ("entity", "concept", "label", "field", "anchor")


def coverage(ann, frame: Frame, stop: set[str] | frozenset = frozenset(), pack=None) -> dict[str, list]:
    """How much of what the asking clauses said the frame holds: readings not used, words of several readings,
    numbers not held (the frame is written out once for all three), operators said, and the words of the asking
    clauses no reading took (`stop`: the grammar words, which need none)."""
    blob = json.dumps(asdict(frame), default=str) + json.dumps(implied_names(pack, frame))
    asked = asked_positions(ann.clauses)
    spans = [s for s in ann.spans if asked is None or s.start in asked]
    read = {i for s in ann.spans for i in range(s.start, s.end)}
    # (a word set aside as context was read, as context: the verifier weighs it once, under that name)
    context = {w for c in ann.context for w in str(c).split()}
    unread = [t for i, t in enumerate(ann.tokens) if (asked is None or i in asked) and i not in read and t not in stop
              and t not in context and not t.replace(".", "", 1).isdigit()]
    numbers = [n for n in unused_numbers(ann.tokens, asked, blob) if n not in context]
    return {"unused": unused_readings(spans, blob.lower()), "ambiguous": ambiguous_words(spans),
            "numbers_unused": numbers, "operators": said_operators(spans), "asked_unread": unread}


# what a question operator leaves in the frame when it is used: a ranking, a share, a trend, a measure
_OPERATORS = {
    "rank_desc": lambda f: f.rank is not None, "rank_asc": lambda f: f.rank is not None,
    "topn": lambda f: f.rank is not None and bool(f.rank.limit),
    "share": lambda f: f.intent == "share" or f.measure.kind == "share",
    "trend": lambda f: f.intent == "trend" or any(g.kind == "time" for g in f.group_by),
    "epdo": lambda f: f.measure.kind == "epdo" or f.measure.field == "epdo",
    "rate": lambda f: f.measure.kind == "rate", "avg": lambda f: f.measure.kind == "avg",
}  # (not 'total' or 'by': a count is a total, and 'by' also says how records are placed)


def implied_names(pack, frame: Frame) -> list[str]:
    """Names the frame holds without writing them: the town every record of a layer it reads lies in (a place said
    of them restricts nothing), and the source whose words the chosen source shares ('crashes' said of the police
    reports)."""
    if pack is None:
        return []
    out = []
    for name in (frame.target, frame.near.entity if frame.near else None):
        ent = pack.entities.get(name or "")
        if ent is not None:
            out += [str(ent.coverage.get("town") or ""), str(ent.shares_words_with or "")]
    return [n for n in out if n]


def said_operators(spans: list[Span]) -> list[dict]:
    """The question operators said in the asking clauses ('the most', 'which 4', 'what share'), with their text."""
    out = []
    for s in spans:
        ops = [s.kind] if s.kind == "topn" else [v for k, v in (s.items or [(s.kind, s.value)]) if k == "cue"]
        if any(o in _OPERATORS for o in ops):
            out.append({"ops": [o for o in ops if o in _OPERATORS], "text": s.text})
    return out


def unused_operators(said: list[dict], frame: Frame) -> list[str]:
    """Texts of the operators said that the frame as answered (after repair) does not carry out: an answer to
    another question."""
    return [o["text"] for o in said if not any(_OPERATORS[op](frame) for op in o["ops"] if op in _OPERATORS)]


def unused_readings(spans: list[Span], blob: str) -> list[str]:
    """Texts of spans none of whose readings appears in the frame (`blob`, its JSON in lower case): a word read as
    a source, concept, value, field or place that the answer leaves out."""
    out = []
    for s in spans:
        names = [_name(k, v) for k, v in (s.items or [(s.kind, s.value)]) if k in _NAMED]
        names = [n for n in names if n]
        if names and not any(f'"{n}' in blob or f'.{n}"' in blob for n in names):
            out.append(s.text)
    return out


def _name(kind: str, value) -> str:
    """The name a reading leaves in the frame's JSON when it is used."""
    if kind == "anchor" and isinstance(value, dict):
        return str(value.get("name", "")).lower()
    if kind in ("label", "field") and isinstance(value, (tuple, list)) and len(value) >= 2:
        return str(value[1]).lower()
    return str(value).lower() if isinstance(value, str) else ""


def ambiguous_words(spans: list[Span]) -> list[str]:
    """Texts of spans read more than one way ('road': a surface field or the street layer)."""
    out = []
    for s in spans:
        kinds = {(k, json.dumps(v, default=str)) for k, v in (s.items or []) if k in _NAMED}
        if len(kinds) > 1:
            out.append(s.text)
    return out


def unused_numbers(tokens: list[str], asked: set[int] | None, blob: str) -> list[str]:
    """Numbers said in the asking clauses that the frame (`blob`, its JSON) does not hold (a threshold or band
    read another way)."""
    out = []
    for i in sorted(asked) if asked is not None else range(len(tokens)):
        t = tokens[i] if i < len(tokens) else ""
        if t.replace(".", "", 1).isdigit() and t not in blob and str(float(t)) not in blob:
            out.append(t)
    return out
