"""The language layer and the interpreter hold no English word: words live in language_en.yaml and lang/en/.
A string literal that is a word of those files fails the test, unless the code uses it as a name (a span kind,
an operator, a key), which is how a second language's folder can leave the code untouched."""
from __future__ import annotations

import ast
from pathlib import Path

import yaml

CORE = Path(__file__).resolve().parent.parent / "plugin" / "core"
# the language layer, the rules interpreter, the time patterns' readers and the answer sentence
MODULES = ["annotate.py", "clauses.py", "spelling.py", "phrase_rules.py", "interpret_rules.py", "spans.py",
           "sides.py", "phrasing.py", "tokens.py", "numbers.py", "qualifiers.py", "intent.py", "word_roles.py", "coverage.py",
           "timeparse.py",
           "explain.py"]
NAME_ATTRS = {"kind", "op", "code", "value", "mode", "intent", "order", "quantifier", "text", "name", "key",
              "entity", "field", "geometry", "concept"}


def _code_names() -> set[str]:
    """Names the code gives things (frame enums, time spec fields, clause kinds, rule-file classes): English-looking,
    but identifiers, not words a user reads."""
    from dataclasses import fields

    from plugin.core.frame import INTENTS, MEASURES, TIME_PARTS, TimeSpec
    lang = yaml.safe_load((CORE / "language_en.yaml").read_text(encoding="utf-8"))
    names = set(INTENTS) | set(MEASURES) | set(TIME_PARTS) | {f.name for f in fields(TimeSpec)}
    names |= set(lang["cues"]) | set(lang["time_parts"])
    names |= {"question", "statement", "purpose", "deadline", "reported", "within", "along", "nearest", "some", "none", "map", "table",
              "chart", "number", "fraction", "unit", "sum", "product", "label", "either", "field"}
    return names


def _language_words() -> set[str]:
    lang = yaml.safe_load((CORE / "language_en.yaml").read_text(encoding="utf-8"))
    words: set[str] = set(lang["stopwords"]) | set(lang["number_words"]) | set(lang["units"])
    for key in ("either_words", "none_words", "junction_words", "link_words", "split_words", "filler",
                "group_prefixes", "side_prefixes", "compare_or", "naming_words", "source_words"):
        words |= set(lang.get(key, []))
    for ws in list(lang["cues"].values()) + list(lang["comparisons"].values()):
        words |= set(ws)
    for path in (CORE / "lang" / "en").glob("*.yaml"):
        doc = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        for key in ("before", "after", "joiners", "exists", "none", "farther", "question_words",
                    "question_openers", "purpose_openers", "greetings", "reporting_verbs"):
            words |= set(doc.get(key, []))
    return {str(w).lower() for w in words}


def _names_used_as_names(tree: ast.AST) -> set[int]:
    """ids of literals that name things: dict keys, subscripts, call arguments, and what an attribute that
    holds a name (`.kind`, `.op`, ...) is compared with."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            out.update(id(k) for k in node.keys if k is not None)
        elif isinstance(node, ast.Subscript):
            out.add(id(node.slice))
        elif isinstance(node, ast.Call):
            out.update(id(a) for a in node.args)
            out.update(id(k.value) for k in node.keywords)
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(isinstance(s, ast.Attribute) and s.attr in NAME_ATTRS for s in sides) or \
                    any(isinstance(s, ast.Name) for s in sides):
                for s in sides:
                    out.add(id(s))
                    if isinstance(s, (ast.Tuple, ast.List, ast.Set)):
                        out.update(id(e) for e in s.elts)
    return out


def test_no_english_word_literal_in_the_language_layer_and_interpreter():
    words, names = _language_words(), _code_names()
    found = []
    for name in MODULES:
        tree = ast.parse((CORE / name).read_text(encoding="utf-8"))
        named = _names_used_as_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in named:
                if node.value.strip().lower() in words - names:
                    found.append(f"{name}:{node.lineno} {node.value!r}")
    assert not found, "English words in code (move them to language_en.yaml or lang/en/): " + ", ".join(found)
