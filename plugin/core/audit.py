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


def entry_problems(entry: Any) -> list[str]:
    """What makes `entry` unusable as an audit entry (empty when it is fine)."""
    if not isinstance(entry, dict):
        return [f"expected an object, found {type(entry).__name__}"]
    out = []
    if not isinstance(entry.get("id"), str) or not _ID.match(entry["id"]):
        out.append("missing or malformed id")
    if not isinstance(entry.get("question"), str):
        out.append("missing question")
    try:
        dt.datetime.fromisoformat(str(entry.get("time")))
    except ValueError:
        out.append(f"bad time {entry.get('time')!r}")
    if entry.get("status") not in STATUSES:
        out.append(f"unknown status {entry.get('status')!r}")
    for key, kind in (("frame", dict), ("repairs", list), ("plan", list), ("timings_ms", dict),
                      ("review", dict), ("replays", list), ("layer_ids", list)):
        if entry.get(key) is not None and not isinstance(entry[key], kind):
            out.append(f"{key} is not {'an object' if kind is dict else 'a list'}")
    review = entry.get("review") or {}
    if isinstance(review, dict) and review.get("status") not in (None, *VERDICTS):
        out.append(f"unknown review status {review.get('status')!r}")
    return out


@dataclass
class AuditStore:
    """The history of one project: entries in the order asked, plus what could not be read back."""

    entries: list[dict] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
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
                      when: str | None = None) -> dict:
        """Keep the outcome of a replay; `match` says whether the result hash is still the recorded one."""
        e = self.get(entry_id)
        item = {"time": when or now_iso(), "status": status, "row_count": row_count, "result_hash": result_hash,
                "match": bool(result_hash) and result_hash == e.get("result_hash")}
        e.setdefault("replays", []).append(item)
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
            return
        bad = entry_problems(obj)
        if bad:
            label = obj.get("question") if isinstance(obj, dict) and isinstance(obj.get("question"), str) else None
            self.problems.append(f"{where}{f' ({label[:60]!r})' if label else ''}: {'; '.join(bad)}")
            return
        if any(e["id"] == obj["id"] for e in self.entries):
            self.problems.append(f"{where}: duplicate id {obj['id']}")
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
