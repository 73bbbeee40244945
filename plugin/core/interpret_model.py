"""Model interpreter: a local GGUF (llama-cpp-python) or an OpenAI-compatible server fills the frame as JSON,
constrained by the frame's JSON schema; the repair layer then treats it like any other candidate."""
from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Protocol

from .errors import MapAskError
from .frame import Frame
from .pack import Pack

class ModelError(MapAskError):
    """The model backend is missing, unreachable or failed; the rules interpreter still answers."""


class Backend(Protocol):
    id: str

    def complete(self, messages: list[dict], schema: dict, max_tokens: int) -> str: ...


class LlamaCppBackend:
    """A GGUF file run in-process by llama-cpp-python (optional dependency)."""

    def __init__(self, path: str, n_ctx: int = 4096, threads: int | None = None):
        try:
            from llama_cpp import Llama
        except ImportError as e:
            raise ModelError("llama-cpp-python is not installed: `pip install llama-cpp-python` "
                             "(or use a model server URL instead)") from e
        try:
            self.llm = Llama(model_path=path, n_ctx=n_ctx, n_threads=threads, verbose=False)
        except (ValueError, OSError) as e:
            raise ModelError(f"cannot load the model file {path}: {e}") from e
        self.id = f"gguf:{path.rsplit('/', 1)[-1]}"

    def complete(self, messages: list[dict], schema: dict, max_tokens: int) -> str:
        try:
            out = self.llm.create_chat_completion(messages=messages, temperature=0.0, max_tokens=max_tokens,
                                                  response_format={"type": "json_object", "schema": schema})
        except Exception as e:  # the C library reports failures as plain exceptions
            raise ModelError(f"the local model failed: {e}") from e
        return out["choices"][0]["message"]["content"] or ""


class ServerBackend:
    """An OpenAI-compatible chat-completions server (llama.cpp server, Ollama, vLLM) on a URL."""

    def __init__(self, url: str, model: str = "local", timeout_s: float = 60.0, api_key: str | None = None):
        self.url = url.rstrip("/")
        self.model = model
        self.timeout_s = timeout_s
        self.api_key = api_key
        self.id = f"server:{self.url}"

    def complete(self, messages: list[dict], schema: dict, max_tokens: int) -> str:
        body = {"model": self.model, "messages": messages, "temperature": 0.0, "max_tokens": max_tokens,
                "response_format": {"type": "json_object", "schema": schema}}
        req = urllib.request.Request(self.url + "/v1/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})})
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                data = json.loads(resp.read().decode("utf-8"))
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as e:
            raise ModelError(f"the model server at {self.url} did not answer: {getattr(e, 'reason', e)}") from e
        except ValueError as e:
            raise ModelError(f"the model server at {self.url} sent something that is not JSON") from e
        try:
            return data["choices"][0]["message"]["content"] or ""
        except (KeyError, IndexError, TypeError) as e:
            raise ModelError(f"the model server at {self.url} sent an unexpected reply") from e


@dataclass
class ScriptedBackend:
    """A scripted stand-in for exact prompt and retry tests (next to the real model, not instead of it)."""
    replies: list[str]
    id: str = "scripted"
    prompts: list[list[dict]] = field(default_factory=list)

    def complete(self, messages: list[dict], schema: dict, max_tokens: int) -> str:
        self.prompts.append(messages)
        if not self.replies:
            raise ModelError("the scripted model has no more replies")
        return self.replies.pop(0)


def model_schema(pack: Pack) -> dict:
    """A small flat schema (names from the pack as enums, bounded arrays): a grammar a small model can follow
    quickly. It is expanded to a full frame by `to_frame`."""
    groups = ["", "year", "quarter", "month", "dow", "hour", "season"] + \
        sorted({w for e in pack.entities.values() for f in e.fields.values() for w in f.words[:1]}) + \
        sorted(e.name for e in pack.entities.values() if e.area or e.names)
    return {"type": "object", "additionalProperties": False,
            "required": ["intent", "target"],
            "properties": {
                "intent": {"enum": ["list", "count", "rank", "share", "compare", "trend"]},
                "target": {"enum": sorted(pack.entities)},
                "concepts": {"type": "array", "items": {"enum": sorted(pack.concepts)}, "maxItems": 3},
                "places": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 3},
                "near": {"enum": [""] + sorted(pack.entities)},
                "distance_m": {"type": "number"},
                "group_by": {"enum": groups},
                "years": {"type": "array", "items": {"type": "integer"}, "maxItems": 4},
                "limit": {"type": "integer"},
            }}


def to_frame(data: dict, pack: Pack, resolve_place) -> Frame:
    """Expand the model's flat answer into a frame; places are resolved through the pack's anchor index."""
    from .frame import Group, Measure, Near, Place, Predicate, Rank, TimeSpec
    f = Frame(intent=data.get("intent") or "count", target=data.get("target") or "")
    f.filters = [Predicate(concept=c, text=c.replace("_", " ")) for c in data.get("concepts") or [] if c in pack.concepts]
    f.time = TimeSpec(years=[int(y) for y in data.get("years") or [] if 1900 < int(y) < 2100])
    places = [resolve_place(p) for p in data.get("places") or []]
    near = data.get("near") or ""
    anchor = None
    for pl in [p for p in places if p]:
        ent = pack.entities.get(pl.entity or "")
        if ent and ent.area:
            f.scope.append(pl)
        else:
            anchor = pl
    if near in pack.entities or anchor:
        f.near = Near(entity=anchor.entity if anchor else near, anchor=anchor,
                      distance_m=float(data["distance_m"]) if data.get("distance_m") else None,
                      mode="along" if anchor and pack.entities[anchor.entity].geometry == "line" else "within")
    g = data.get("group_by") or ""
    if g in ("year", "quarter", "month", "dow", "hour", "season"):
        f.group_by.append(Group("time", g))
    elif g in pack.entities:
        f.group_by.append(Group("area" if pack.entities[g].area else "support", g))
    elif g:
        keys = [f"{e.name}.{fn}" for e in pack.entities.values() for fn, fd in e.fields.items() if g in fd.words]
        if keys:
            f.group_by.append(Group("field", "|".join(keys)))
    if f.intent == "rank":
        f.rank = Rank("desc", int(data["limit"]) if data.get("limit") else None)
    if f.intent == "share" and f.filters:
        f.share_of = [f.filters.pop()]
    f.measure = Measure("count")
    return f


def _compact(frame: dict) -> dict:
    """A reviewed frame in the model's flat form, for few-shot examples."""
    out: dict = {"intent": frame["intent"], "target": frame["target"]}
    concepts = [p["concept"] for p in frame.get("filters", []) + frame.get("share_of", []) if p.get("concept")]
    if concepts:
        out["concepts"] = concepts
    near = frame.get("near") or {}
    places = [p["name"] for p in frame.get("scope", [])] + ([near["anchor"]["name"]] if near.get("anchor") else [])
    if near.get("entity") and not near.get("anchor"):
        out["near"] = near["entity"]
    if places:
        out["places"] = places
    if near.get("distance_m"):
        out["distance_m"] = near["distance_m"]
    g = (frame.get("group_by") or [{}])[0]
    if g:
        out["group_by"] = g["key"] if g["kind"] != "field" else g["key"].split(".")[-1]
    if frame.get("time", {}).get("years"):
        out["years"] = frame["time"]["years"]
    if (frame.get("rank") or {}).get("limit"):
        out["limit"] = frame["rank"]["limit"]
    return out


def build_messages(pack: Pack, question: str, shots: int = 3) -> list[dict]:
    """System prompt from the pack (entities, concepts), a few reviewed examples, then the question."""
    ents = ", ".join(sorted(pack.entities))
    system = ("Turn the question about a road-safety database into one JSON object. "
              f"Entities: {ents}. Concepts: {', '.join(sorted(pack.concepts))}. "
              "Fields: intent, target, concepts, places (names as said), near (a kind of feature), "
              "distance_m (metres), group_by, years, limit. Leave out what the question does not say.")
    msgs = [{"role": "system", "content": system}]
    for ex in pack.examples[:shots]:
        msgs.append({"role": "user", "content": ex["question"]})
        msgs.append({"role": "assistant", "content": json.dumps(_compact(ex["frame"]), separators=(",", ":"))})
    msgs.append({"role": "user", "content": question})
    return msgs


def interpret_with_model(backend: Backend, pack: Pack, question: str, resolve_place=lambda text: None,
                         retries: int = 1, max_tokens: int = 160) -> tuple[Frame | None, list[dict]]:
    """One frame from the model (or None), and a log of every attempt for the audit."""
    messages = build_messages(pack, question)
    schema = model_schema(pack)
    log: list[dict] = []
    for attempt in range(retries + 1):
        t0 = time.perf_counter()
        try:
            text = backend.complete(messages, schema, max_tokens)
        except ModelError as e:
            log.append({"attempt": attempt, "error": str(e), "ms": (time.perf_counter() - t0) * 1000})
            return None, log
        entry = {"attempt": attempt, "output": text[:2000], "ms": (time.perf_counter() - t0) * 1000}
        log.append(entry)
        try:
            data = json.loads(text)
            if not isinstance(data, dict):
                raise ValueError("the output is not a JSON object")
            _validate(data, schema)
            frame = to_frame(data, pack, resolve_place)
            frame.source = f"model:{backend.id}"
            return frame, log
        except Exception as e:  # any malformed reply (overflow, nesting, wrong types) is a failed attempt
            entry["error"] = f"{type(e).__name__}: {str(e)[:200]}"
            # say what was wrong and ask again (execution-style self-correction)
            messages = messages + [{"role": "assistant", "content": text[:1000]},
                                   {"role": "user", "content": f"That was not a valid frame ({entry['error']}). "
                                                               "Answer with one JSON object only."}]
    return None, log


def _validate(data: dict, schema: dict) -> None:
    """Check the reply against the grammar's schema (a server may ignore the grammar)."""
    try:
        import jsonschema
    except ImportError:  # optional in a stock QGIS: to_frame still checks names and types it uses
        return
    jsonschema.validate(data, schema)


def backend_from_setting(setting: str | None) -> Backend | None:
    """'none' / '' -> None; 'http(s)://...' -> server; anything else -> a GGUF path."""
    if not setting or setting.lower() == "none":
        return None
    if setting.startswith(("http://", "https://")):
        return ServerBackend(setting)
    return LlamaCppBackend(setting)
