"""Which words of the question were read as something the answer then did not use (for the verifier)."""
from __future__ import annotations

import json
from dataclasses import asdict

from .frame import Frame
from .tokens import Span

# the kinds of reading whose name must show up in the frame when the reading was used
_NAMED = ("entity", "concept", "label", "field", "anchor")


def unused_readings(spans: list[Span], clauses: list, frame: Frame) -> list[str]:
    """Texts of the question's spans (in its asking clauses) none of whose readings appears in the frame:
    a word read as a source, concept, value, field or place that the answer leaves out."""
    blob = json.dumps(asdict(frame), default=str).lower()
    asked = {i for c in clauses if c.kind == "question" for i in range(c.start, c.end)} if clauses else None
    out = []
    for s in spans:
        if asked is not None and s.start not in asked:
            continue
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


def ambiguous_words(spans: list[Span], clauses: list) -> list[str]:
    """Texts of spans in the asking clauses read more than one way ('road': a surface field or the street layer)."""
    asked = {i for c in clauses if c.kind == "question" for i in range(c.start, c.end)} if clauses else None
    out = []
    for s in spans:
        if asked is not None and s.start not in asked:
            continue
        kinds = {(k, json.dumps(v, default=str)) for k, v in (s.items or []) if k in _NAMED}
        if len(kinds) > 1:
            out.append(s.text)
    return out


def unused_numbers(tokens: list[str], clauses: list, frame: Frame) -> list[str]:
    """Numbers said in the asking clauses that the frame does not hold (a threshold or band read another way)."""
    blob = json.dumps(asdict(frame), default=str)
    asked = {i for c in clauses if c.kind == "question" for i in range(c.start, c.end)} if clauses else range(len(tokens))
    out = []
    for i in sorted(asked):
        t = tokens[i] if i < len(tokens) else ""
        if t.replace(".", "", 1).isdigit() and t not in blob and str(float(t)) not in blob:
            out.append(t)
    return out
