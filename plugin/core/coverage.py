"""Which words of the question were read as something the answer then did not use (for the verifier)."""
from __future__ import annotations

import json
from dataclasses import asdict

from .clauses import asked_positions
from .frame import Frame
from .tokens import Span

# the kinds of reading whose name must show up in the frame when the reading was used
_NAMED = ("entity", "concept", "label", "field", "anchor")


def coverage(ann, frame: Frame) -> dict[str, list[str]]:
    """How much of what the asking clauses said the frame holds: readings not used, words of several readings,
    numbers not held (the frame is written out once for all three)."""
    blob = json.dumps(asdict(frame), default=str)
    asked = asked_positions(ann.clauses)
    spans = [s for s in ann.spans if asked is None or s.start in asked]
    return {"unused": unused_readings(spans, blob.lower()), "ambiguous": ambiguous_words(spans),
            "numbers_unused": unused_numbers(ann.tokens, asked, blob)}


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
