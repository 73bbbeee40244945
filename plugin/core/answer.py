"""What one question gets back: the answer with its status, rows, SQL, frame, repairs, confidence and reasons,
as the dock, the CLI and the audit entry read it."""
from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Answer:
    question: str
    status: str = "error"           # answered | clarify | refused | error
    answer: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[list] = field(default_factory=list)
    sql: str = ""
    frame: dict = field(default_factory=dict)
    repairs: list[dict] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    confidence: float | None = None
    features: list[dict] = field(default_factory=list)
    clarify: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    guard: dict = field(default_factory=dict)
    plan: list[dict] = field(default_factory=list)
    truncated: bool = False
    geometry_column: str | None = None
    order_matters: bool = False
    result_hash: str = ""
    error: str = ""
    unknown: list[str] = field(default_factory=list)
    candidates: list[dict] = field(default_factory=list)
    recipe: dict | None = None
    model: dict | None = None
    selection: str = ""
    judge: dict | None = None
    cost: dict | None = None
    understood: dict = field(default_factory=dict)  # context words, corrections, rewrites, how much was read
    readback: dict = field(default_factory=dict)    # what MapAsk understood, written from the frame
    reasons: list[str] = field(default_factory=list)  # why this confidence, weightiest first
    choice: int | None = None                       # the reading a user chose after an ask-back

    def public(self) -> dict:
        """The CLI's JSON contract (rows without geometry, which maps take from `sql`)."""
        keep = [i for i, c in enumerate(self.columns) if c != self.geometry_column]
        return {"status": self.status, "readback": self.readback.get("text", ""), "answer": self.answer,
                "confidence": self.confidence, "reasons": self.reasons, "clarify": self.clarify,
                "columns": [self.columns[i] for i in keep],
                "rows": [[r[i] for i in keep] for r in self.rows], "sql": self.sql, "frame": self.frame,
                "repairs": self.repairs, "timings_ms": self.timings_ms}


def _jsonable(v: Any) -> Any:
    if isinstance(v, (dt.date, dt.datetime, dt.time)):
        return v.isoformat()
    if hasattr(v, "is_finite"):  # Decimal
        return float(v)
    if isinstance(v, memoryview):
        return bytes(v).hex()
    return v


def result_hash(columns: list[str], rows: list[list]) -> str:
    """Order-insensitive hash of the normalised result: same data, same answer, same hash."""
    norm = sorted(json.dumps([round(x, 6) if isinstance(x, float) else x for x in r], default=str) for r in rows)
    return hashlib.sha256(json.dumps([sorted(columns), norm]).encode()).hexdigest()[:16]
