"""Audit entries with a wrong nested shape are set aside with a reason; what is kept always renders; replay records."""

import html
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mapask_qgis_helpers import module

from plugin.core.audit import ENTRY_SCHEMA, AuditStore, entry_problems, shape_problems

GOOD = {"id": "abcd1234", "question": "how many crashes", "time": "2026-11-30T10:00:00+00:00", "status": "answered",
        "answer": "There were 42 crashes.", "row_count": 1, "result_hash": "abc123", "connection": "work db",
        "frame": {"version": "1", "intent": "count", "target": "crash"},
        "pack": {"id": "demo", "version": "1", "hash": "ffff"}, "layer_ids": ["l1"], "replays": [],
        "review": {"status": "approved", "comment": "fine", "reviewer": "ana", "time": "2026-12-01T09:00:00+00:00",
                   "history": [{"status": "approved", "comment": "fine", "time": "2026-12-01T09:00:00+00:00"}]}}

# the auditor's hand edits, and the words the reason must hold
DAMAGED = [("pack", "p", "pack should be an object"), ("row_count", "12", "row_count should be a whole number"),
           ("row_count", None, "row_count should be a whole number, not null"),
           ("replays", ["x"], "replays[0] should be an object"),
           ("review", {"status": "approved", "history": ["a", "b"]}, "review.history[0] should be an object"),
           ("promoted", "yes", "promoted should be an object"), ("layer_ids", [1], "layer_ids[0] should be text"),
           ("seq", "3", "seq should be a whole number"), ("review", {"status": "ok"}, "review.status is text")]


def entry_html():
    return module("ui.audit_panel").entry_html


@pytest.mark.parametrize("key,value,reason", DAMAGED)
def test_a_wrong_nested_shape_is_set_aside_with_its_reason(key, value, reason):
    bad = {**GOOD, "id": "bad00001", "question": "edited by hand", key: value}
    store = AuditStore.from_blocks({"abcd1234": json.dumps(GOOD), "bad00001": json.dumps(bad)})
    assert [e["id"] for e in store.entries] == ["abcd1234"] and store.skipped == 1
    (problem,) = store.problems
    assert problem.startswith("entry bad00001 ('edited by hand'):") and reason in problem


@pytest.mark.parametrize("key,value,reason", DAMAGED)
def test_entry_html_shows_a_damaged_entry_raw_instead_of_raising(qgis_app, key, value, reason):
    entry = {**GOOD, key: value}
    text = entry_html()(entry)
    assert "how many crashes" in text
    if key != "seq" and reason != "review.status is text":  # the edits that broke the old panel
        assert "unexpected shape and is shown as recorded" in text
        raw = text[text.index("<pre>") + 5:text.index("</pre>")]
        assert json.loads(html.unescape(raw)) == entry  # the whole record, as recorded


def test_a_good_entry_renders_in_full(qgis_app):
    assert entry_problems(GOOD) == []
    text = entry_html()(GOOD)
    assert "unexpected shape" not in text and "demo 1 (hash ffff)" in text and "Review:</b> approved" in text


# values of every shape for the keys the panel reads: scalars, lists, objects, lists of objects, and the right one
_SCALARS = st.none() | st.booleans() | st.integers(-3, 10**6) | st.floats(-1e6, 1e6) | st.text(min_size=1, max_size=6)
_NAMES = st.sampled_from(["id", "version", "hash", "status", "comment", "time", "path", "history", "row_count",
                          "match", "notes", "result_hash"])
_OBJECTS = st.dictionaries(_NAMES, _SCALARS | st.lists(_SCALARS, max_size=2) | st.lists(
    st.dictionaries(_NAMES, _SCALARS, max_size=2), min_size=1, max_size=2), max_size=3)
_KEYS = ["pack", "row_count", "replays", "review", "promoted", "layer_ids", "seq", "follow_up_of", "confidence",
         "frame", "answer", "status", "connection", "notes", "repairs", "timings_ms"]


@st.composite
def edited_entries(draw):
    e = dict(GOOD)
    for key in draw(st.lists(st.sampled_from(_KEYS), min_size=1, max_size=3, unique=True)):
        e[key] = draw(st.one_of(_SCALARS, st.lists(_SCALARS, min_size=1, max_size=2), _OBJECTS,
                                st.lists(_OBJECTS, min_size=1, max_size=2), st.just(GOOD.get(key))))
    return e


@settings(max_examples=300, deadline=None)
@given(edited_entries())
def test_whatever_passes_the_checks_renders_in_full(qgis_app, e):
    html = entry_html()(e)  # never raises
    if not entry_problems(e):
        assert "unexpected shape" not in html, html


@settings(max_examples=300, deadline=None)
@given(edited_entries())
def test_jsonschema_agrees_with_the_plain_checks(e):
    jsonschema = pytest.importorskip("jsonschema")  # absent in a stock QGIS, which is why the checks are plain
    assert jsonschema.Draft7Validator(ENTRY_SCHEMA).is_valid(e) == (shape_problems(e, ENTRY_SCHEMA) == [])


def store_with(**values) -> tuple[AuditStore, str]:
    store = AuditStore()
    e = store.add({**GOOD, **values})
    return store, e["id"]


def test_a_question_that_asked_back_is_compared_by_status():
    store, eid = store_with(status="clarify", result_hash="", row_count=0, answer="Which Springfield?")
    same = store.record_replay(eid, "", 0, "clarify", rerun="question")
    assert same["match"] is True and same["summary"] == "still asks back"
    now = store.record_replay(eid, "beef", 3, "answered", rerun="question")
    assert now["match"] is False and now["summary"] == "now answers (it asked back when asked): 3 rows, hash beef"
    refused = store.record_replay(eid, "", 0, "error", error="the database could not answer")
    assert refused["summary"] == "now fails (it asked back when asked) (the database could not answer)"


def test_an_answer_is_compared_by_result_hash():
    store, eid = store_with()
    assert store.record_replay(eid, "abc123", 1, "answered")["summary"] == "same result (1 rows, hash abc123)"
    other = store.record_replay(eid, "0000", 2, "answered")
    assert other["match"] is False and other["summary"].startswith("different result: 2 rows, hash 0000")
    lost = store.record_replay(eid, "", 0, "clarify")
    assert lost["match"] is False and lost["summary"] == "now asks back (it answered when asked)"


def test_a_changed_pack_connection_or_interpreter_is_named():
    store, eid = store_with(model={"id": "qwen-test", "log": []}, status="refused", result_hash="")
    r = store.record_replay(eid, "", 0, "refused", pack={"id": "demo", "version": "2", "hash": "aaaa"},
                            connection="home db", rerun="question")
    assert r["match"] is True
    assert r["notes"] == ["the knowledge pack changed since: demo 1 (hash ffff) -> demo 2 (hash aaaa)",
                          "replayed on the connection 'home db'; the question was asked on 'work db'",
                          "asked with the model qwen-test; asked again with the rules interpreter only"]
    assert r["summary"].startswith("still refuses; the knowledge pack changed since")
    quiet = store.record_replay(eid, "", 0, "refused", pack=GOOD["pack"], connection="work db", rerun="question")
    assert quiet["notes"] == ["asked with the model qwen-test; asked again with the rules interpreter only"]
    # the recorded replay keeps the entry's shape, and a hand-nulled replay list does not break the next one
    assert entry_problems(store.get(eid)) == []
    store.get(eid)["replays"] = None
    assert store.record_replay(eid, "", 0, "refused")["notes"] == [] and len(store.get(eid)["replays"]) == 1
