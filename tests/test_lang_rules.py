"""Every phrasing rule's own examples, run through the rules and the annotator with no database."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from plugin.core.annotate import Annotator
from plugin.core.pack import language_for, load_pack
from plugin.core.phrase_rules import LANG_DIR, REWRITE_FILES, apply_rewrites, rewrite_rules, rule_files
from plugin.core.text import language, normalize

ROOT = Path(__file__).resolve().parent.parent
PACK = load_pack(ROOT / "knowledge" / "massachusetts")


@pytest.fixture(scope="module")
def annotator() -> Annotator:
    return Annotator(PACK, None)  # no anchor index: no database


def _rewrite_examples():
    for name in REWRITE_FILES:
        for rule in rule_files("en").get(name, {}).get("rules", []):
            for ex in rule.get("examples", []):
                yield pytest.param(rule["name"], ex["text"], ex["out"], id=f"{name}:{ex['text']}")


@pytest.mark.parametrize("rule,text,out", list(_rewrite_examples()))
def test_rewrite_examples(rule, text, out):
    rules, classes = rewrite_rules("en", language("en"))
    got, done = apply_rewrites(normalize(text).split(), rules, classes)
    assert " ".join(got) == out
    assert done, f"rule '{rule}' did not fire on '{text}'"


def _context_examples():
    for ex in rule_files("en")["context"].get("examples", []):
        yield pytest.param(ex["text"], ex["context"], id=ex["text"][:40])


@pytest.mark.parametrize("text,context", list(_context_examples()))
def test_context_examples(annotator, text, context):
    ann = annotator.annotate(text)
    taken = [" ".join(ann.tokens[c.start:c.end]) for c in ann.clauses if c.kind != "question"]
    assert " ".join(taken) == context


def _exclusion_examples():
    for ex in rule_files("en")["exclusion"].get("examples", []):
        yield pytest.param(ex["text"], ex["excluded"], id=ex["text"][:40])


@pytest.mark.parametrize("text,excluded", list(_exclusion_examples()))
def test_exclusion_examples(annotator, text, excluded):
    ann = annotator.annotate(text)
    got = [" ".join(ann.tokens[a:b]) for a, b, _ in ann.excluded]
    assert got == excluded


def _either_way_examples():
    for ex in rule_files("en")["exclusion"].get("examples", []):
        if "either_way" in ex:
            yield pytest.param(ex["text"], ex["either_way"], id=ex["text"][:40])


@pytest.mark.parametrize("text,words", list(_either_way_examples()))
def test_either_way_examples(annotator, text, words):
    """'<value> or not': the value is read, set aside as context, and no span of it is left to filter on."""
    ann = annotator.annotate(text)
    for w in words:
        assert all(w not in s.text for s in ann.spans if s.kind != "cue")
        assert set(w.split()) <= set(ann.context)


def _quantifier_examples():
    for ex in rule_files("en")["quantifiers"].get("examples", []):
        yield pytest.param(ex["text"], ex["quantifier"], ex.get("grouped"), id=ex["text"][:40])


@pytest.mark.parametrize("text,quantifier,grouped", list(_quantifier_examples()))
def test_quantifier_examples(annotator, text, quantifier, grouped):
    from plugin.core.interpret_rules import interpret
    f = interpret(annotator.annotate(text), PACK, text)
    assert f.near is not None and f.near.quantifier == quantifier
    assert grouped is None or bool(f.group_by) == grouped


def _time_examples():
    for rule in rule_files("en")["time"].get("rules", []):
        for ex in rule.get("examples", []):
            yield pytest.param(rule["name"], ex["text"], ex["kind"], ex.get("value"), id=f"time:{ex['text']}")


def _plain(value: object) -> object:
    return json.loads(json.dumps(value))  # tuples as lists, as the examples write them


@pytest.mark.parametrize("rule,text,kind,value", list(_time_examples()))
def test_time_examples(annotator, rule, text, kind, value):
    ann = annotator.annotate(text)
    read = annotator.time.read(" ".join(ann.tokens))
    if kind == "none":  # an example of what the rule must not read
        assert not [v for r, _, _, v, _ in read if r.name == rule], f"rule '{rule}' read it"
        return
    assert (kind, value) in [(s.kind, _plain(s.value)) for s in ann.spans]
    assert value in [_plain(v) for r, _, _, v, _ in read if r.name == rule], f"rule '{rule}' did not give it"


def test_every_time_rule_has_two_to_four_examples_and_a_reader():
    from plugin.core.timeparse import READERS
    for rule in rule_files("en")["time"]["rules"]:
        assert 2 <= len(rule.get("examples", [])) <= 4, rule["name"]
        assert rule["kind"] in READERS, rule["name"]


def test_every_rule_file_has_examples():
    for path in sorted((LANG_DIR / "en").glob("*.yaml")):
        doc = rule_files("en")[path.stem]
        rules = doc.get("rules", [])
        templates = path.stem in ("readback", "explain")  # sentence templates, not rules that read a question
        assert doc.get("examples") or (rules and all(r.get("examples") for r in rules)) or templates, \
            f"{path.name} has rules without examples"


def test_typo_corrections_are_logged_and_read(annotator):
    ann = annotator.annotate("how many motorcyle crashes on icy roads")
    assert {"from": "motorcyle", "to": "motorcycle", "why": "spelling"} in ann.corrections
    assert not ann.unknown


def test_a_correction_into_a_grammar_word_is_not_made(annotator):
    ann = annotator.annotate("ramps by condition rating")
    assert not any(c["to"] in language_for(PACK)["stopwords"] for c in ann.corrections)


def test_a_word_that_can_only_be_a_verb_is_phrasing(annotator):
    """A verb the pack does not know is context (lemminflect knows it only as a verb); a noun stays unknown."""
    ann = annotator.annotate("fatal crashes investigated in boston")
    assert "investigated" in ann.context and "investigated" not in ann.unknown
    ann = annotator.annotate("fatal crashes near the aquarium in boston")
    assert "aquarium" in ann.unknown
