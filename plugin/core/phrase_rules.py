"""Phrasing rules kept as data, one folder of YAML files per language (lang/<code>/): loading and token patterns."""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

LANG_DIR = Path(__file__).with_name("lang")


@dataclass(frozen=True)
class Element:
    """One token of a pattern: a word among `options`, or a word of class `cls`; `optional` may be skipped."""
    options: tuple[str, ...] = ()
    cls: str = ""
    optional: bool = False


@dataclass
class Rewrite:
    """A quantity rule: `pattern` is replaced by `emit`, with {value} (the numbers combined) and {<class>}."""
    name: str
    pattern: list[Element]
    emit: str
    combine: str = "product"
    examples: list[dict] = field(default_factory=list)


def compile_pattern(text: str) -> list[Element]:
    """'[a|one] <fraction> of <unit>' -> elements (optional alternatives, classes, plain words)."""
    out = []
    for raw in text.split():
        optional = raw.startswith("[") and raw.endswith("]")
        body = raw[1:-1] if optional else raw
        if body.startswith("<") and body.endswith(">"):
            out.append(Element(cls=body[1:-1], optional=optional))
        else:
            out.append(Element(options=tuple(body.split("|")), optional=optional))
    return out


def match(pattern: list[Element], toks: list[str], i: int, classes: dict[str, dict]) -> tuple[int, list] | None:
    """Match `pattern` at token `i`: (end, [(class, token), ...]) for the longest way it fits, else None."""
    if not pattern:
        return i, []
    el, rest = pattern[0], pattern[1:]
    best = None
    if i < len(toks) and _fits(el, toks[i], classes):
        tail = match(rest, toks, i + 1, classes)
        if tail is not None:
            best = (tail[0], ([(el.cls, toks[i])] if el.cls else []) + tail[1])
    if el.optional:
        skip = match(rest, toks, i, classes)
        if skip is not None and (best is None or skip[0] > best[0]):
            best = skip
    return best


def _fits(el: Element, tok: str, classes: dict[str, dict]) -> bool:
    if el.cls:
        words = classes.get(el.cls, {})
        return tok in words or (el.cls == "number" and _is_number(tok))
    return tok in el.options


def _is_number(tok: str) -> bool:
    try:
        float(tok)
        return True
    except ValueError:
        return False


def apply_rewrites(toks: list[str], rules: list[Rewrite], classes: dict[str, dict]) -> tuple[list[str], list[dict]]:
    """Tokens with every rewrite applied until none applies (one rule's output may start another's), and what
    was rewritten (for the audit)."""
    done: list[dict] = []
    for _ in range(4):
        toks, step = _rewrite_once(toks, rules, classes)
        if not step:
            break
        done += step
    return toks, done


def _rewrite_once(toks: list[str], rules: list[Rewrite], classes: dict[str, dict]) -> tuple[list[str], list[dict]]:
    out: list[str] = []
    done: list[dict] = []
    i = 0
    while i < len(toks):
        hit = None
        for r in rules:
            m = match(r.pattern, toks, i, classes)
            if m and m[0] > i and (hit is None or m[0] > hit[1][0]):
                hit = (r, m)
        if hit is None:
            out.append(toks[i])
            i += 1
            continue
        r, (end, caps) = hit
        said = " ".join(toks[i:end])
        new = _emit(r, caps, classes)
        out += new.split()
        done.append({"rule": r.name, "from": said, "to": new})
        i = end
    return out, done


NUMERIC = ("number", "fraction")


def _emit(r: Rewrite, caps: list[tuple[str, str]], classes: dict[str, dict]) -> str:
    nums = [float(classes[c][t]) if t in classes.get(c, {}) else float(t) for c, t in caps if c in NUMERIC]
    if r.combine == "ratio":  # ('1 / 4 mile'): the first number over the second
        value = nums[0] / nums[1] if len(nums) == 2 and nums[1] else float("nan")
    else:
        value = sum(nums) if r.combine == "sum" else functools.reduce(lambda a, b: a * b, nums, 1.0)
    named = {c: t for c, t in caps}
    return r.emit.format(value=f"{round(value, 6):g}", **named)


@functools.lru_cache(maxsize=8)
def rule_files(code: str = "en") -> dict[str, Any]:
    """Every rule file of one language, by file stem ('quantities', 'context', 'exclusion', ...)."""
    folder = LANG_DIR / code
    return {p.stem: yaml.safe_load(p.read_text(encoding="utf-8")) or {} for p in sorted(folder.glob("*.yaml"))}


REWRITE_FILES = ("quantities", "containment")


def rewrite_rules(code: str, lang: dict) -> tuple[list[Rewrite], dict[str, dict]]:
    """The rewrites of a language (quantities said in words, placing verbs) and the word classes they use."""
    files = rule_files(code)
    classes: dict[str, dict] = {}
    rules: list[Rewrite] = []
    for name in REWRITE_FILES:
        doc = files.get(name, {})
        classes.update({k: dict(v) for k, v in (doc.get("classes") or {}).items()})
        rules += [Rewrite(r["name"], compile_pattern(r["pattern"]), r["emit"], r.get("combine", "product"),
                          r.get("examples", [])) for r in doc.get("rules", [])]
    classes["number"] = {k: v for k, v in lang.get("number_words", {}).items() if " " not in k}
    classes["unit"] = dict(lang.get("units", {}))
    return rules, classes
