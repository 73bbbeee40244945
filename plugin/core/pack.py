"""Knowledge pack: load, validate and look up entities, fields, codes, concepts and conventions."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import PackError
from .text import language

PACK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["id", "version", "schema", "srid", "entities", "entity_priority", "default_entity"],
    "properties": {
        "id": {"type": "string"}, "version": {"type": "string"}, "schema": {"type": "string"},
        "srid": {"type": "integer"},
        "entities": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["table", "label", "geometry", "key", "fields"],
            "properties": {
                "table": {"type": "string"}, "label": {"type": "string"},
                "words": {"type": "array", "items": {"type": "string"}},
                "geometry": {"enum": ["point", "line", "polygon"]},
                "fields": {"type": "object", "additionalProperties": {
                    "type": "object", "required": ["kind", "label"],
                    "properties": {"kind": {"enum": ["coded", "number", "text", "name", "id", "date", "time",
                                                     "timestamp", "year", "bool"]}}}}}}},
        "concepts": {"type": "object"},
        "codes": {"type": "object"},
        "conventions": {"type": "object"},
        "examples": {"type": "array"},
        "recipes": {"type": "array"},
        # words of the pack's domain a question may carry without meaning anything (e.g. the name of the whole
        # area the pack covers): merged into the language's stopwords, see language_for()
        "stopwords": {"type": "array", "items": {"type": "string"}},
    },
}


def norm_label(value: Any) -> str:
    """Comparable form of a published label: case-folded, inner whitespace collapsed, trimmed."""
    return " ".join(str(value).split()).casefold()


@dataclass
class Field:
    name: str
    kind: str
    label: str
    words: list[str] = field(default_factory=list)
    match_labels: bool = True
    extreme: str | None = None  # 'min'/'max': the field holds the least/greatest of several (youngest driver age)
    separator: str | None = None
    place: str | None = None
    unit: str | None = None
    description: str = ""
    codes: list[str] = field(default_factory=list)


@dataclass
class Entity:
    name: str
    table: str
    label: str
    plural: str
    words: list[str]
    geometry: str
    key: str
    display: str
    fields: dict[str, Field]
    names: list[str] = field(default_factory=list)
    name_case: str | None = None
    area: bool = False
    coverage: dict = field(default_factory=dict)
    time: dict = field(default_factory=dict)
    places: dict = field(default_factory=dict)
    where: dict | None = None
    severity_field: str | None = None
    shares_words_with: str | None = None
    always: list[str] = field(default_factory=list)
    anchor_min_score: int = 88
    # names of this layer are read only beside one of its words ('Central station'): thousands of stop names
    # would otherwise claim common words
    anchor_needs_word: bool = False
    answers: str = ""
    id_field: str | None = None
    joins: dict = field(default_factory=dict)  # names made of another entity's names: {entity, separator}
    dataset_names: list[str] = field(default_factory=list)  # how people name the source ('bike crash' file)

    def field_by_word(self, phrase: str) -> Field | None:
        for f in self.fields.values():
            if phrase in f.words:
                return f
        return None

    def codes(self) -> dict[str, list[str]]:
        """Field name -> the labels published for it, for the coded fields."""
        return {n: f.codes for n, f in self.fields.items() if f.codes}

    def years(self) -> tuple[int, int] | None:
        y = self.coverage.get("years")
        return (int(y[0]), int(y[1])) if y else None


@dataclass
class Concept:
    name: str
    words: list[str]
    where: dict[str, dict]
    time: dict | None = None


@dataclass
class Pack:
    id: str
    version: str
    schema: str
    srid: int
    entities: dict[str, Entity]
    concepts: dict[str, Concept]
    conventions: dict[str, Any]
    entity_priority: list[str]
    default_entity: str
    examples: list[dict]
    recipes: list[dict]
    content_hash: str
    path: Path | None = None
    raw: dict = field(default_factory=dict, repr=False)

    def entity(self, name: str) -> Entity:
        try:
            return self.entities[name]
        except KeyError:
            raise PackError(f"the pack has no entity '{name}'")

    def priority(self, name: str) -> int:
        return self.entity_priority.index(name) if name in self.entity_priority else len(self.entity_priority)

    def convention(self, *path: str, default: Any = None) -> Any:
        node: Any = self.conventions
        for p in path:
            if not isinstance(node, dict) or p not in node:
                return default
            node = node[p]
        return node

    def qualified(self, entity: Entity) -> str:
        return f"{self.schema}.{entity.table}"

    def never_among(self, ent: Entity, c: Concept) -> bool:
        """Whether a concept holds only for other records of the same table, which the records' own condition
        rules out ('bus stops, not subway': the stops file's bus stops are never subway stops)."""
        own = ent.where or {}
        mine = set(own.get("in", [own["eq"]] if "eq" in own else []))
        for other, w in c.where.items():
            o = self.entities.get(other)
            theirs = set(w.get("in", [w["eq"]] if "eq" in w else []))
            if o is None or o.table != ent.table or w.get("field") != own.get("field") or not theirs or theirs & mine:
                return False
        return bool(mine and c.where)

    def labels_for(self, entity: Entity, field_name: str, wanted: list[Any], mode: str = "in") -> list[str]:
        """Published labels matching readable values: same label ignoring case/padding, or (mode 'has') a part of it."""
        f = entity.fields[field_name]
        out: list[str] = []
        keys = {norm_label(w) for w in wanted}
        for code in f.codes:
            n = norm_label(code)
            parts = {norm_label(p) for p in code.split(f.separator)} if (mode == "has" and f.separator) else {n}
            if parts & keys or n in keys:
                out.append(code)
        return out


def _read_yaml(path: Path) -> dict:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise PackError(f"{path.name}: {exc}")
    if not isinstance(data, dict):
        raise PackError(f"{path.name}: expected a mapping at the top level")
    return data


def validate_schema(raw: dict) -> list[str]:
    """JSON-schema problems of a merged pack (empty when valid or when jsonschema is not installed)."""
    try:
        import jsonschema
    except ImportError:  # optional inside a stock QGIS
        return []
    v = jsonschema.Draft7Validator(PACK_SCHEMA)
    return [f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in v.iter_errors(raw)]


def load_pack(path: str | Path) -> Pack:
    """Read a pack folder (pack.yaml + the files it lists) into a Pack; raises PackError when invalid."""
    root = Path(path)
    if not (root / "pack.yaml").is_file():
        raise PackError(f"no pack.yaml in {root}")
    raw = _read_yaml(root / "pack.yaml")
    digest = hashlib.sha256((root / "pack.yaml").read_bytes())
    for name in raw.get("files", []):
        p = root / name
        if not p.is_file():
            continue  # optional parts (examples, recipes) may be absent
        digest.update(p.read_bytes())
        part = _read_yaml(p)
        for k, v in part.items():
            if isinstance(v, dict) and isinstance(raw.get(k), dict):
                raw[k].update(v)
            else:
                raw[k] = v
    problems = validate_schema(raw)
    if problems:
        raise PackError("pack does not match its schema: " + "; ".join(problems[:5]))
    codes = raw.get("codes") or {}
    entities = {}
    for name, e in raw["entities"].items():
        fields = {}
        for fname, f in e["fields"].items():
            fields[fname] = Field(
                name=fname, kind=f["kind"], label=f["label"], words=[w.lower() for w in f.get("words", [])],
                match_labels=f.get("match_labels", True), separator=f.get("separator"), place=f.get("place"),
                extreme=f.get("extreme"),
                unit=f.get("unit"), description=f.get("description", ""),
                codes=list((codes.get(e["table"]) or {}).get(fname) or []))
        entities[name] = Entity(
            name=name, table=e["table"], label=e["label"], plural=e.get("plural", e["label"] + "s"),
            words=[w.lower() for w in e.get("words", [])], geometry=e["geometry"], key=e["key"],
            display=e.get("display", e["key"]), fields=fields, names=e.get("names", []),
            name_case=e.get("name_case"), area=e.get("area", False), coverage=e.get("coverage", {}),
            time=e.get("time", {}), places=e.get("places", {}), where=e.get("where"),
            severity_field=e.get("severity_field"), shares_words_with=e.get("shares_words_with"),
            always=e.get("always", []), anchor_min_score=e.get("anchor_min_score", 88),
            anchor_needs_word=bool(e.get("anchor_needs_word", False)),
            answers=e.get("answers", ""), id_field=e.get("id_field"), joins=e.get("joins", {}),
            dataset_names=[w.lower() for w in e.get("dataset_names", [])])
    concepts = {n: Concept(name=n, words=[w.lower() for w in c.get("words", [])], where=c.get("where", {}),
                           time=c.get("time")) for n, c in (raw.get("concepts") or {}).items()}
    pack = Pack(id=raw["id"], version=str(raw["version"]), schema=raw["schema"], srid=int(raw["srid"]),
                entities=entities, concepts=concepts, conventions=raw.get("conventions", {}),
                entity_priority=raw["entity_priority"], default_entity=raw["default_entity"],
                examples=raw.get("examples") or [], recipes=raw.get("recipes") or [],
                content_hash=digest.hexdigest()[:16], path=root, raw=raw)
    _check_references(pack)
    return pack


def _check_references(pack: Pack) -> None:
    """Every concept names an entity and a field the pack has."""
    if pack.default_entity not in pack.entities:
        raise PackError(f"default_entity '{pack.default_entity}' is not an entity")
    for c in pack.concepts.values():
        for ename, pred in c.where.items():
            ent = pack.entities.get(ename)
            if ent is None:
                raise PackError(f"concept '{c.name}' names unknown entity '{ename}'")
            for p in pred.get("any", [pred]):
                if p["field"] not in ent.fields:
                    raise PackError(f"concept '{c.name}' names unknown field {ename}.{p['field']}")


def language_for(pack: Pack) -> dict[str, Any]:
    """The pack language's grammar words, with the pack's own `stopwords` added (a copy: packs do not leak into
    each other through the shared language file)."""
    cached = pack.__dict__.get("_language")
    if cached is not None:  # read on every question and in the interpreter's loops: merged once per pack
        return cached
    lang = language(pack.raw.get("language", "en"))
    extra = [str(w).lower() for w in pack.raw.get("stopwords") or []]
    if extra:
        lang = {**lang, "stopwords": list(lang["stopwords"]) + [w for w in extra if w not in lang["stopwords"]]}
    pack.__dict__["_language"] = lang
    return lang


def pack_summary(pack: Pack) -> str:
    """One paragraph of what this pack can answer (used in refusals and clarifications)."""
    ents = sorted(pack.entities.values(), key=lambda e: pack.priority(e.name))
    parts = [f"{e.plural} ({e.answers})" for e in ents if e.answers] or [e.plural for e in ents]
    return "This knowledge pack can answer questions about " + "; ".join(parts) + "."


def measures_summary(pack: Pack) -> str:
    """What the pack can compute, from its conventions (no domain word in code)."""
    out = ["count, list and map them", "group and rank them", "give shares, comparisons and trends"]
    if pack.convention("epdo"):
        out.append("weigh them by severity (" + pack.convention("epdo", "name", default="EPDO") + ")")
    if pack.convention("population"):
        out.append("give rates per residents")
    return ", ".join(out)


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
