"""The token and span types the language layer and the interpreter share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Span:
    """A run of tokens [start, end) the pack or the grammar knows; `items` are its possible readings."""
    start: int
    end: int
    kind: str
    value: Any = None
    text: str = ""
    items: list[tuple[str, Any]] = field(default_factory=list)


def readings(span: Span, kind: str) -> list:
    """The values a span may have of one kind ('entity', 'label', ...)."""
    return [v for k, v in span.items if k == kind] if span.items else ([span.value] if span.kind == kind else [])
