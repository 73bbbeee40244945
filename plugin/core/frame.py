"""The semantic frame: a typed, versioned description of what a question asks (dataclasses + JSON schema)."""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from dataclasses import asdict, dataclass, fields, is_dataclass
from dataclasses import field as dc_field
from typing import Any, Optional, get_args, get_origin, get_type_hints

FRAME_VERSION = "1"
INTENTS = ("list", "count", "rank", "share", "compare", "trend", "locate")
MEASURES = ("count", "epdo", "rate", "share", "sum", "avg")
# the field of an 'avg' measure that stands for the per-record weighted score (EPDO) rather than a number field
EPDO_FIELD = "epdo"
# the field of a 'sum' measure that stands for the length of line features (their geometry), not a number field
LENGTH_FIELD = "length"
TIME_PARTS = ("year", "quarter", "month", "dow", "hour", "season")
QUANTIFIERS = ("some", "none")
# fields added after version 1 with their defaults: a frame that leaves them at the default hashes as before
LATER_DEFAULTS = {("near", "quantifier"): "some", ("measure", "unit"): None}


# conditions on no field of the records: a time, a relation, a place, an area's attribute, having a location, lying
# inside an area's polygon (whatever the records' own place field says), near a feature meeting conditions
NON_FIELD_OPS = ("time", "near", "place", "area_attr", "near_place", "located", "in_area", "near_where")


@dataclass
class Predicate:
    """field op values on `entity` (None = the primary entity); `any_of` is an OR group of predicates."""
    field: str = ""
    op: str = "in"  # in | not_in | has | eq | between | gte | lte | blank, or one of NON_FIELD_OPS
    values: list = dc_field(default_factory=list)
    entity: Optional[str] = None
    concept: Optional[str] = None
    any_of: list["Predicate"] = dc_field(default_factory=list)
    text: str = ""
    negate: bool = False  # 'excluding ...', 'not counting ...': the records for which the condition does not hold


@dataclass
class TimeSpec:
    """Calendar constraints; lists are ORed within, ANDed across. Dates are ISO, both ends inclusive."""
    date_from: Optional[str] = None
    date_to: Optional[str] = None
    years: list[int] = dc_field(default_factory=list)
    months: list[int] = dc_field(default_factory=list)
    isodow: list[int] = dc_field(default_factory=list)
    hours: list[int] = dc_field(default_factory=list)
    days_of_month: list[int] = dc_field(default_factory=list)
    last_n_years: Optional[int] = None
    latest_year: bool = False
    text: list[str] = dc_field(default_factory=list)

    def empty(self) -> bool:
        return not (self.date_from or self.date_to or self.years or self.months or self.isodow or self.hours
                    or self.days_of_month or self.last_n_years or self.latest_year)


def year_of(iso: Optional[str]) -> Optional[int]:
    """The year of an ISO date; None for a day said without one ('--12-24', resolved by repair)."""
    return int(iso[:4]) if iso and iso[:4].isdigit() else None


@dataclass
class Place:
    """A named place or feature: as said, and as resolved to the pack's entity and published name."""
    text: str = ""
    entity: Optional[str] = None
    name: Optional[str] = None
    score: float = 0.0
    candidates: list[dict] = dc_field(default_factory=list)
    # said as its outline ('inside the <city> boundary'): the records inside the polygon, even those of a source
    # that only covers that place
    outline: bool = False


@dataclass
class Near:
    """Spatial relation to a class of features (optionally one named anchor)."""
    entity: Optional[str] = None
    anchor: Optional[Place] = None
    distance_m: Optional[float] = None
    distance_text: str = ""
    filters: list[Predicate] = dc_field(default_factory=list)
    scope: list[Place] = dc_field(default_factory=list)
    mode: str = "within"  # within | along | nearest
    k: Optional[int] = None
    quantifier: str = "some"  # some: at least one feature within the distance | none: no feature within it


@dataclass
class Measure:
    kind: str = "count"
    field: Optional[str] = None
    per: Optional[int] = None
    total: bool = False  # a rate over all units together ("statewide") rather than per unit
    unit: Optional[str] = None  # a length: the unit word it is given in ('mile'), None for metres


@dataclass
class Group:
    kind: str = "field"  # field | time | area | support
    key: str = ""
    outside: bool = False  # area: the records outside every area form a group of their own
    empty: bool = True     # area: areas without any record are listed with 0


@dataclass
class Rank:
    order: str = "desc"
    limit: Optional[int] = None


@dataclass
class Side:
    """One side of a comparison, with its own predicates, time and scope."""
    label: str = ""
    filters: list[Predicate] = dc_field(default_factory=list)
    time: TimeSpec = dc_field(default_factory=TimeSpec)
    scope: list[Place] = dc_field(default_factory=list)


@dataclass
class Frame:
    version: str = FRAME_VERSION
    intent: str = "count"
    target: str = ""
    measure: Measure = dc_field(default_factory=Measure)
    filters: list[Predicate] = dc_field(default_factory=list)
    time: TimeSpec = dc_field(default_factory=TimeSpec)
    scope: list[Place] = dc_field(default_factory=list)
    near: Optional[Near] = None
    group_by: list[Group] = dc_field(default_factory=list)
    rank: Optional[Rank] = None
    share_of: list[Predicate] = dc_field(default_factory=list)
    having: list[Predicate] = dc_field(default_factory=list)  # conditions on the measure per group (field empty)
    compare: list[Side] = dc_field(default_factory=list)
    output: list[str] = dc_field(default_factory=lambda: ["table"])
    unknown: list[str] = dc_field(default_factory=list)
    notes: list[str] = dc_field(default_factory=list)
    source: str = "rules"

    def to_dict(self) -> dict:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    def hash(self) -> str:
        """Identity of what will be computed (notes and unknown words do not change the answer)."""
        d = self.to_dict()
        for k in ("unknown", "notes", "source", "output"):
            d.pop(k, None)
        for path, default in LATER_DEFAULTS.items():  # fields added later count only when set: old hashes stand
            parent = d.get(path[0])
            if isinstance(parent, dict) and parent.get(path[1]) == default:
                parent.pop(path[1])
        _drop_unset_negate(d)
        return hashlib.sha256(json.dumps(d, sort_keys=True).encode()).hexdigest()[:16]


def _drop_unset_negate(d: Any) -> None:
    """Predicate.negate came later: an unset one leaves a predicate's identity as it was."""
    if isinstance(d, dict):
        if d.get("negate") is False and "any_of" in d:
            d.pop("negate")
        for v in d.values():
            _drop_unset_negate(v)
    elif isinstance(d, list):
        for v in d:
            _drop_unset_negate(v)


def _build(tp: Any, value: Any) -> Any:
    origin = get_origin(tp)
    if value is None:
        return None
    if origin is list:
        if not isinstance(value, list):  # a string would be split into characters
            raise ValueError(f"expected a list, got {type(value).__name__} {value!r}")
        (inner,) = get_args(tp)
        return [_build(inner, v) for v in value]
    if origin is not None and type(None) in get_args(tp):  # Optional[X]
        inner = next(a for a in get_args(tp) if a is not type(None))
        return _build(inner, value)
    if isinstance(tp, type) and is_dataclass(tp):
        if not isinstance(value, dict):
            raise ValueError(f"expected an object for {tp.__name__}, got {type(value).__name__}")
        hints = get_type_hints(tp)
        known = {f.name for f in fields(tp)}
        return tp(**{k: _build(hints[k], v) for k, v in value.items() if k in known})
    return value


def frame_from_dict(data: dict) -> Frame:
    """Frame from plain data (model output, audit replay); unknown keys are ignored, wrong shapes raise ValueError."""
    return _build(Frame, data)


def _schema_of(tp: Any, defs: dict) -> dict:
    origin = get_origin(tp)
    if origin is list:
        return {"type": "array", "items": _schema_of(get_args(tp)[0], defs)}
    if origin is not None and type(None) in get_args(tp):
        inner = next(a for a in get_args(tp) if a is not type(None))
        return {"anyOf": [_schema_of(inner, defs), {"type": "null"}]}
    if isinstance(tp, type) and is_dataclass(tp):
        name = tp.__name__
        if name not in defs:  # recursive types (Predicate.any_of) refer to their definition
            defs[name] = {}
            hints = get_type_hints(tp)
            defs[name] = {"type": "object", "additionalProperties": False,
                          "properties": {f.name: _schema_of(hints[f.name], defs) for f in fields(tp)}}
        return {"$ref": f"#/definitions/{name}"}
    return {str: {"type": "string"}, int: {"type": "integer"}, float: {"type": "number"},
            bool: {"type": "boolean"}, dict: {"type": "object"}}.get(tp, {})


def frame_problems(f: Frame) -> list[str]:
    """Where a frame breaks its JSON schema, as 'path: message' (at most 5); empty when it conforms or when
    jsonschema is not installed (a stock QGIS: the repair and compile checks still stand)."""
    try:
        import jsonschema
    except ImportError:
        return []
    errors = jsonschema.Draft7Validator(_schema()).iter_errors(f.to_dict())
    return [f"{'.'.join(map(str, e.path)) or 'frame'}: {e.message}" for e in list(errors)[:5]]


@lru_cache(maxsize=1)
def _schema() -> dict:
    return frame_json_schema()


def frame_json_schema() -> dict:
    """JSON schema of the frame, derived from the dataclasses so the two cannot drift apart."""
    defs: dict = {}
    _schema_of(Frame, defs)
    defs["Frame"]["properties"]["intent"] = {"enum": list(INTENTS)}
    defs["Measure"]["properties"]["kind"] = {"enum": list(MEASURES)}
    defs["Near"]["properties"]["quantifier"] = {"enum": list(QUANTIFIERS)}
    return {"$schema": "http://json-schema.org/draft-07/schema#", "title": f"MapAsk semantic frame v{FRAME_VERSION}",
            "$ref": "#/definitions/Frame", "definitions": defs}
