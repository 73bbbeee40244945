"""Approved recipes: match a question to a reviewed, parameterised analysis and fill its typed parameters."""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .annotate import Annotation
from .clauses import asked_positions
from .errors import PackError
from .frame import Frame, frame_from_dict
from .pack import Pack
from .text import phrase_key

PARAM_TYPES = ("distance", "year_from", "count", "concept")


@dataclass
class RecipeMatch:
    id: str
    title: str
    params: dict[str, Any]
    frame: Frame


def _contains(ann: Annotation, phrase: tuple[str, ...]) -> bool:
    """Whether the phrase is said in a clause that asks (a purpose or statement naming it is only context)."""
    tokens, n = ann.tokens, len(phrase)
    asked = asked_positions(ann.clauses)
    return any(tuple(tokens[i:i + n]) == phrase and (asked is None or i in asked) for i in range(len(tokens) - n + 1))


def _agrees(recipe: Frame, fresh: Frame | None) -> bool:
    """A recipe stands for the question only when it keeps every concept the question's own reading asks for
    ('bike crashes near schools' is not the pedestrian school-zone recipe)."""
    if fresh is None:
        return True
    kept = {q.concept for q in recipe.filters + (recipe.near.filters if recipe.near else []) if q.concept}
    asked = {m.concept for q in fresh.filters for m in ([q] + q.any_of) if m.concept}
    return asked <= kept


def _param(kind: str, spec: dict, ann: Annotation) -> Any:
    """The value the question gives for one typed parameter, or None."""
    if kind == "distance":
        return next((s.value["metres"] for s in ann.spans if s.kind == "distance"), None)
    if kind == "count":
        return next((s.value["n"] for s in ann.spans if s.kind == "topn"), None)
    if kind == "year_from":
        for s in ann.spans:
            if s.kind == "time" and ("year_from" in s.value or "years" in s.value):
                y = s.value.get("year_from") or min(s.value["years"])
                return f"{y}-01-01"
        return None
    if kind == "concept":
        return next((v for s in ann.spans for k, v in (s.items or [(s.kind, s.value)])
                     if k == "concept" and v in spec.get("choices", [])), None)
    raise PackError(f"unknown recipe parameter type {kind}")


def _fill(node: Any, params: dict[str, Any]) -> Any:
    """Substitute "{name}" placeholders; list items whose placeholder is empty are dropped."""
    if isinstance(node, str) and node.startswith("{") and node.endswith("}"):
        return params.get(node[1:-1])
    if isinstance(node, dict):
        out = {k: _fill(v, params) for k, v in node.items()}
        return out
    if isinstance(node, list):
        items = [_fill(v, params) for v in node]
        return [i for i in items if not (isinstance(i, dict) and any(v is None for k, v in i.items()
                                                                       if k in ("concept", "field")))]
    return node


def match_recipe(pack: Pack, ann: Annotation, fresh: Frame | None = None) -> RecipeMatch | None:
    for r in pack.recipes:
        if not any(_contains(ann, phrase_key(t)) for t in r.get("triggers", [])):
            continue
        params = {}
        for name, spec in (r.get("parameters") or {}).items():
            if spec["type"] not in PARAM_TYPES:
                raise PackError(f"recipe {r['id']}: parameter {name} has unknown type {spec['type']}")
            v = _param(spec["type"], spec, ann)
            params[name] = spec.get("default") if v is None else v
        frame = frame_from_dict(_fill(copy.deepcopy(r["frame"]), params))
        frame.source = f"recipe:{r['id']}"
        if not _agrees(frame, fresh):
            continue
        for q in frame.filters + (frame.near.filters if frame.near else []):
            if q.concept and q.text == q.concept and q.concept in pack.concepts:
                q.text = pack.concepts[q.concept].words[0]
        if frame.near and frame.near.distance_m is not None:
            frame.near.distance_m = float(frame.near.distance_m)
        if frame.rank and frame.rank.limit is not None:
            frame.rank.limit = int(frame.rank.limit)
        return RecipeMatch(r["id"], r.get("title", r["id"]), params, frame)
    return None
