"""Audit history: entries, tolerant JSON (de)serialisation, filters, review, promotion to examples, JSONL export."""
from __future__ import annotations

import datetime as dt
import json
import os
import re
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import yaml

from .frame import frame_from_dict

FORMAT = "mapask-audit"
FORMAT_VERSION = 1
STATUSES = ("answered", "clarify", "refused", "error")
VERDICTS = ("approved", "rejected")
EXAMPLES_FILE = "examples.yaml"
_ID = re.compile(r"^[A-Za-z0-9_-]{4,64}$")
# Keys whose values are credentials or could carry them; dropped wherever they appear.
SECRET_KEYS = {"password", "passwd", "pwd", "dsn", "conninfo", "connection_string", "authcfg", "secret",
               "token", "api_key", "apikey", "pgpass"}
# password=... inside a libpq string, and user:password@ inside a URL.
_SECRET_KV = re.compile(r"(?i)\b(password|passwd|pwd)\s*=\s*('(?:[^'\\]|\\.)*'|\S+)")
_SECRET_URL = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^/\s:@]+):[^@\s/]+@")


class AuditError(ValueError):
    """An audit action that is not allowed (unknown entry, promoting an unapproved entry, bad verdict)."""


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")


def scrub(obj: Any) -> Any:
    """A copy of `obj` with credential keys dropped and passwords in strings redacted."""
    if isinstance(obj, dict):
        return {k: scrub(v) for k, v in obj.items() if str(k).lower() not in SECRET_KEYS}
    if isinstance(obj, (list, tuple)):
        return [scrub(v) for v in obj]
    if isinstance(obj, str):
        return _SECRET_URL.sub(r"\1:***@", _SECRET_KV.sub(r"\1=***", obj))
    return obj


def frame_hash(entry: dict) -> str:
    """Hash of the entry's final frame ('' when it has none or it no longer parses)."""
    try:
        return frame_from_dict(entry["frame"]).hash() if entry.get("frame") else ""
    except (ValueError, TypeError, KeyError):
        return ""


_TEXT = {"type": ["string", "null"]}
_PACK = {"type": ["object", "null"], "properties": {"id": {"type": ["string", "number", "null"]},
                                                   "version": {"type": ["string", "number", "null"]}, "hash": _TEXT}}
_VERDICT = {"enum": [None, *VERDICTS]}
_REVIEW_ITEM = {"type": "object", "properties": {"status": _VERDICT, "comment": _TEXT, "reviewer": _TEXT,
                                                 "time": _TEXT}}
# The shape of an entry in JSON Schema's words: what the audit panel, replay and promotion read. Other keys are
# free-form (they are only shown as JSON). Checked by `shape_problems` below, because jsonschema may be missing
# in a stock QGIS; tests check that jsonschema, where installed, agrees.
ENTRY_SCHEMA: dict = {
    "type": "object",
    "required": ["id", "question", "time", "status"],
    "properties": {
        "id": {"type": "string", "pattern": _ID.pattern},
        "question": {"type": "string"},
        "time": {"type": "string"},
        "status": {"enum": list(STATUSES)},
        "seq": {"type": "integer"},
        "follow_up_of": _TEXT, "connection": _TEXT, "answer": _TEXT, "sql": _TEXT, "error": _TEXT,
        "frame_hash": _TEXT, "result_hash": _TEXT,
        "row_count": {"type": "integer", "minimum": 0},
        "confidence": {"type": ["number", "null"]},
        "frame": {"type": ["object", "null"]},
        "candidates": {"type": ["array", "null"]}, "repairs": {"type": ["array", "null"]},
        "plan": {"type": ["array", "null"]}, "notes": {"type": ["array", "null"]},
        "timings_ms": {"type": ["object", "null"]},
        "pack": _PACK,
        "layer_ids": {"type": ["array", "null"], "items": {"type": "string"}},
        "review": {"type": ["object", "null"], "properties": {
            **_REVIEW_ITEM["properties"], "history": {"type": ["array", "null"], "items": _REVIEW_ITEM}}},
        "replays": {"type": ["array", "null"], "items": {"type": "object", "properties": {
            "time": _TEXT, "status": {"enum": [None, *STATUSES]}, "recorded_status": {"enum": [None, *STATUSES]},
            "row_count": {"type": ["integer", "null"]}, "result_hash": _TEXT, "match": {"type": ["boolean", "null"]},
            "summary": _TEXT, "connection": _TEXT, "rerun": {"enum": [None, "frame", "question"]}, "pack": _PACK,
            "notes": {"type": ["array", "null"], "items": {"type": "string"}}}}},
        "promoted": {"type": ["object", "null"], "properties": {"path": _TEXT, "time": _TEXT}},
    },
}
_KINDS = {"object": "an object", "array": "a list", "string": "text", "integer": "a whole number",
          "number": "a number", "boolean": "true or false", "null": "null"}


def _is(value: Any, kind: str) -> bool:
    if kind in ("integer", "number", "boolean") and isinstance(value, bool):
        return kind == "boolean"  # in Python, True is also the number 1
    if kind == "integer" and isinstance(value, float):
        return value.is_integer()  # as JSON Schema has it: 12.0 is a whole number
    return isinstance(value, {"object": dict, "array": list, "string": str, "integer": int, "number": (int, float),
                              "boolean": bool, "null": type(None)}[kind])


def _found(value: Any) -> str:
    shown = json.dumps(value, default=str)
    shown = shown[:40] + "…" if len(shown) > 40 else shown
    if value is None or isinstance(value, bool):
        return shown  # null, true, false say what they are
    kind = next((k for k in ("integer", "number", "string", "array", "object") if _is(value, k)), "")
    return f"{_KINDS.get(kind, type(value).__name__)} {shown}"


def shape_problems(value: Any, schema: dict, where: str = "") -> list[str]:
    """Where `value` departs from `schema` (the JSON Schema subset used by ENTRY_SCHEMA), in plain words."""
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if kinds and not any(_is(value, k) for k in kinds):
        return [f"{where or 'the entry'} should be {' or '.join(_KINDS[k] for k in kinds)}, not {_found(value)}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where} is {_found(value)}, not one of {', '.join(str(v) for v in schema['enum'] if v)}"]
    if "minimum" in schema and value < schema["minimum"]:
        return [f"{where} is {value}, below {schema['minimum']}"]
    if "pattern" in schema and not re.match(schema["pattern"], value):
        return [f"{where} {value[:40]!r} is malformed"]
    out = []
    if isinstance(value, dict):
        out += [f"{k} is missing" for k in schema.get("required", ()) if k not in value]
        for key, sub in schema.get("properties", {}).items():
            if key in value:
                out += shape_problems(value[key], sub, f"{where}.{key}" if where else key)
    if isinstance(value, list) and "items" in schema:
        for i, item in enumerate(value):
            out += shape_problems(item, schema["items"], f"{where}[{i}]")
    return out


def entry_problems(entry: Any) -> list[str]:
    """What makes `entry` unusable as an audit entry (empty when it is fine)."""
    out = shape_problems(entry, ENTRY_SCHEMA)
    if isinstance(entry, dict) and isinstance(entry.get("time"), str):
        try:
            dt.datetime.fromisoformat(entry["time"])
        except ValueError:
            out.append(f"bad time {entry['time']!r}")
    return out


# What each status means for the person who asked, now and as it was when recorded.
_DOES = {"answered": "answers", "clarify": "asks back", "refused": "refuses", "error": "fails"}
_DID = {"answered": "answered", "clarify": "asked back", "refused": "was refused", "error": "failed"}


def pack_label(pack: Any) -> str:
    """'id version (hash …)' of a recorded pack, for messages."""
    pack = pack if isinstance(pack, dict) else {}
    return " ".join([*(str(pack[k]) for k in ("id", "version") if pack.get(k)), f"(hash {pack.get('hash') or '?'})"])


def replay_summary(entry: dict, replay: dict) -> str:
    """How a replay compares with the recorded question, in plain words."""
    was, now = entry.get("status"), replay.get("status")
    if was == "answered" and now == "answered":
        if replay.get("match"):
            text = f"same result ({replay.get('row_count')} rows, hash {replay.get('result_hash')})"
        else:
            text = (f"different result: {replay.get('row_count')} rows, hash {replay.get('result_hash')} "
                    f"(recorded: {entry.get('row_count')} rows, hash {entry.get('result_hash')})")
    elif was == now:
        text = f"still {_DOES.get(now, now)}"
    else:
        text = f"now {_DOES.get(now, now)} (it {_DID.get(was, was)} when asked)"
        if now == "answered":
            text += f": {replay.get('row_count')} rows, hash {replay.get('result_hash')}"
    if now == "error" and replay.get("error"):
        text += f" ({replay['error']})"
    return "; ".join([text, *(replay.get("notes") or [])])


@dataclass
class AuditStore:
    """The history of one project: entries in the order asked, plus what could not be read back."""

    entries: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    skipped: int = 0  # entries set aside as damaged (problems may also hold notes about the whole block)
    on_change: Callable[[dict], None] | None = field(default=None, repr=False, compare=False)

    # ---- building the history
    def add(self, entry: dict, *, follow_up_of: str | None = None, layer_ids: Iterable[str] = (),
            connection: str | None = None) -> dict:
        """Record a pipeline audit entry (scrubbed of secrets); returns the stored entry with its id."""
        e = scrub(dict(entry))
        e.setdefault("id", uuid.uuid4().hex[:12])
        e.setdefault("time", now_iso())
        e["seq"] = max((x.get("seq", 0) for x in self.entries), default=0) + 1
        e["follow_up_of"] = follow_up_of
        e["layer_ids"] = list(layer_ids)
        if connection:
            e["connection"] = connection  # the saved connection's name, never its settings
        e["frame_hash"] = frame_hash(e)
        e.setdefault("candidates", [e["frame"]] if e.get("frame") else [])
        e.setdefault("review", {"status": None, "comment": "", "history": []})
        e.setdefault("replays", [])
        self.entries.append(e)
        self._changed(e)
        return e

    def get(self, entry_id: str) -> dict:
        for e in self.entries:
            if e.get("id") == entry_id:
                return e
        raise AuditError(f"no audit entry {entry_id!r}")

    def update(self, entry_id: str, **values: Any) -> dict:
        e = self.get(entry_id)
        e.update(scrub(values))
        self._changed(e)
        return e

    def review(self, entry_id: str, verdict: str, comment: str = "", reviewer: str = "",
               when: str | None = None) -> dict:
        """Approve or reject with a comment; earlier verdicts stay in the review's history."""
        if verdict not in VERDICTS:
            raise AuditError(f"verdict must be one of {', '.join(VERDICTS)}, not {verdict!r}")
        e = self.get(entry_id)
        rev = e.get("review") if isinstance(e.get("review"), dict) else {}
        item = scrub({"status": verdict, "comment": comment.strip(), "reviewer": reviewer, "time": when or now_iso()})
        history = list(rev.get("history") or []) + [item]
        e["review"] = {**item, "history": history}
        self._changed(e)
        return e

    def record_replay(self, entry_id: str, result_hash: str, row_count: int, status: str,
                      when: str | None = None, *, pack: dict | None = None, connection: str | None = None,
                      error: str = "", rerun: str = "frame") -> dict:
        """Keep the outcome of a replay and what differs from when the question was asked.

        `match` says whether the replay came out as recorded: the same result hash for an answered question,
        the same status (still asking back, still refused) for one that was not answered. `notes` name a
        changed knowledge pack or connection; `summary` says it all in plain words. `rerun` is "frame" (the
        stored final frame ran again) or "question" (asked again with the rules interpreter only)."""
        e = self.get(entry_id)
        recorded = e.get("status")
        if recorded == "answered":
            match = status == "answered" and bool(result_hash) and result_hash == e.get("result_hash")
        else:
            match = status == recorded
        notes = []
        old_pack = e.get("pack") if isinstance(e.get("pack"), dict) else {}
        if pack and old_pack.get("hash") and pack.get("hash") != old_pack.get("hash"):
            notes.append(f"the knowledge pack changed since: {pack_label(old_pack)} -> {pack_label(pack)}")
        if connection and e.get("connection") and connection != e.get("connection"):
            notes.append(f"replayed on the connection '{connection}'; the question was asked on "
                         f"'{e['connection']}'")
        model = e.get("model") if isinstance(e.get("model"), dict) else {}
        if rerun == "question" and model.get("id"):
            notes.append(f"asked with the model {model['id']}; asked again with the rules interpreter only")
        item = scrub({"time": when or now_iso(), "status": status, "recorded_status": recorded,
                      "row_count": row_count, "result_hash": result_hash, "match": match, "pack": pack,
                      "connection": connection, "error": error, "rerun": rerun, "notes": notes})
        item["summary"] = replay_summary(e, item)
        e["replays"] = list(e.get("replays") or []) + [item]  # a hand-edited null list must not break it
        self._changed(e)
        return item

    def promote(self, entry_id: str, user_pack_dir: str | Path, pack_id: str = "", when: str | None = None) -> Path:
        """Add an approved entry to the user pack's examples file as a question -> frame example."""
        e = self.get(entry_id)
        review = e.get("review") or {}
        if review.get("status") != "approved":
            raise AuditError("only approved entries can become examples; approve this one first")
        if e.get("status") != "answered" or not e.get("frame"):
            raise AuditError("only answered questions with a frame can become examples")
        path = Path(user_pack_dir) / EXAMPLES_FILE
        data = read_examples(path)
        fh = e.get("frame_hash") or frame_hash(e)
        key = (" ".join(e["question"].split()).casefold(), fh)
        if not any((" ".join(str(x.get("question", "")).split()).casefold(), x.get("frame_hash")) == key
                   for x in data["examples"]):
            data["examples"].append({
                "question": e["question"], "frame": e["frame"], "frame_hash": fh,
                "source": {"audit_entry": e["id"], "pack": (e.get("pack") or {}).get("id"),
                           "pack_hash": (e.get("pack") or {}).get("hash"), "result_hash": e.get("result_hash"),
                           "approved_by": review.get("reviewer", ""), "approved_at": review.get("time", ""),
                           "comment": review.get("comment", "")}})
        data["pack"] = data.get("pack") or pack_id or (e.get("pack") or {}).get("id", "")
        _write_atomic(path, "# MapAsk user pack: question -> frame examples promoted from approved audit entries.\n"
                      + yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        e["promoted"] = {"path": str(path), "time": when or now_iso()}
        self._changed(e)
        return path

    # ---- reading it
    def filter(self, status: str | None = None, text: str = "", review: str | None = None) -> list[dict]:
        """Entries with this status ('approved'/'rejected'/'unreviewed' filter on review) containing `text`."""
        phrase = " ".join(text.casefold().split())
        out = []
        for e in self.entries:
            if status and e.get("status") != status:
                continue
            verdict = (e.get("review") or {}).get("status")
            if review and (verdict != review if review != "unreviewed" else verdict is not None):
                continue
            hay = "\n".join(" ".join(str(e.get(k, "")).split()) for k in ("question", "answer", "sql", "error", "id"))
            if phrase in hay.casefold():
                out.append(e)
        return out

    # ---- (de)serialisation
    def to_blocks(self) -> dict[str, str]:
        """One JSON text per entry (id -> text), so a damaged entry never takes the others with it."""
        return {e["id"]: json.dumps(e, sort_keys=True, default=str) for e in self.entries}

    @classmethod
    def from_blocks(cls, blocks: dict[str, str]) -> "AuditStore":
        store = cls()
        for key, text in blocks.items():
            store._take(_parse(text), f"entry {key}")
        store._sort()
        return store

    def to_json(self) -> str:
        return json.dumps({"format": FORMAT, "version": FORMAT_VERSION, "entries": self.entries},
                          sort_keys=True, indent=1, default=str)

    @classmethod
    def from_json(cls, text: str) -> "AuditStore":
        """Read a whole audit document; when it is not valid JSON, recover every entry that still is."""
        store = cls()
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as err:
            store.problems.append(f"the audit block is not valid JSON ({err.msg} at line {err.lineno}); "
                                  "entries were recovered one by one")
            for i, obj in enumerate(_salvage(text)):
                store._take(obj, f"recovered entry {i + 1}")
            store._sort()
            return store
        items = doc.get("entries") if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            store.problems.append("the audit block holds no list of entries")
            return store
        for i, obj in enumerate(items):
            store._take(obj, f"entry {i + 1}")
        store._sort()
        return store

    def to_jsonl(self) -> str:
        return "".join(json.dumps(scrub(e), sort_keys=True, default=str) + "\n" for e in self.entries)

    def write_jsonl(self, path: str | Path) -> Path:
        path = Path(path)
        _write_atomic(path, self.to_jsonl())
        return path

    # ---- helpers
    def _take(self, obj: Any, where: str) -> None:
        if isinstance(obj, Exception):
            self.problems.append(f"{where}: {obj}")
            self.skipped += 1
            return
        bad = entry_problems(obj)
        if bad:
            self.skipped += 1
            label = obj.get("question") if isinstance(obj, dict) and isinstance(obj.get("question"), str) else None
            self.problems.append(f"{where}{f' ({label[:60]!r})' if label else ''}: {'; '.join(bad)}")
            return
        if any(e["id"] == obj["id"] for e in self.entries):
            self.problems.append(f"{where}: duplicate id {obj['id']}")
            self.skipped += 1
            return
        self.entries.append(scrub(obj))

    def _sort(self) -> None:
        self.entries.sort(key=lambda e: (e.get("seq") if isinstance(e.get("seq"), int) else 0, str(e.get("time"))))

    def _changed(self, entry: dict) -> None:
        if self.on_change:
            self.on_change(entry)


def _parse(text: Any) -> Any:
    if not isinstance(text, str):
        return ValueError("not text")
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        return ValueError(f"not valid JSON ({err.msg} at column {err.colno})")


def _salvage(text: str) -> list[dict]:
    """Every JSON object in `text` that looks like an entry, skipping the damaged stretches in between."""
    dec = json.JSONDecoder()
    out: list[dict] = []
    i = text.find("{")
    while i != -1:
        try:
            obj, end = dec.raw_decode(text, i)
        except json.JSONDecodeError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict) and "question" in obj:
            out.append(obj)
            i = text.find("{", end)
        else:  # the document wrapper or a nested object: look inside it
            i = text.find("{", i + 1)
    return out


def read_examples(path: Path) -> dict:
    """The user pack's examples file as {'pack': ..., 'examples': [...]}, empty when absent."""
    if not path.is_file():
        return {"pack": "", "examples": []}
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict) or not isinstance(data.get("examples", []), list):
        raise AuditError(f"{path} is not an examples file (expected a mapping with an 'examples' list)")
    data.setdefault("examples", [])
    return data


def _write_atomic(path: Path, text: str) -> None:
    """Write via a temporary file in the same folder, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
