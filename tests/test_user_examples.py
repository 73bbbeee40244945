"""Approved answers teach MapAsk: a promoted example's frame is reused for the same question; unapproved never."""
from __future__ import annotations

import dataclasses

import pytest

from conftest import READER_DSN, scalar

from plugin.core.audit import AuditError, AuditStore
from plugin.core.pack import load_pack
from plugin.core.pipeline import Pipeline
from plugin.core.user_examples import approved_example, with_user_examples

PACK = "knowledge/massachusetts"
QUESTION = "crashes on the worst roads at dusk"


def _approved_entry(tmp_path, pipeline, frame_question: str, asked: str) -> AuditStore:
    """An audit entry for `asked` whose final frame is the one `frame_question` gets, approved by a reviewer."""
    a = pipeline.ask(frame_question)
    entry = dict(pipeline.audit_log[-1], question=asked)
    store = AuditStore()
    e = store.add(entry)
    with pytest.raises(AuditError):
        store.promote(e["id"], tmp_path)  # not approved yet: never an example
    store.review(e["id"], "approved", "checked against the dusk count", "reviewer")
    store.promote(e["id"], tmp_path, load_pack(PACK).id)
    return store


def test_promoted_example_is_reused_for_the_same_question(tmp_path, pipeline, admin):
    base = load_pack(PACK)
    before = Pipeline(base, READER_DSN, audit=lambda e: None)
    assert before.ask(QUESTION).frame["intent"] != pipeline.ask("crashes at dusk").frame["intent"]
    _approved_entry(tmp_path, pipeline, "crashes at dusk", QUESTION)

    taught = with_user_examples(base, tmp_path)
    assert taught.content_hash != base.content_hash and approved_example(taught, "Crashes on the worst roads, at dusk?")
    p = Pipeline(taught, READER_DSN, audit=lambda e: None)
    a = p.ask("Crashes on the worst roads at dusk")
    assert a.status == "answered" and a.recipe["id"] == "approved_example"
    assert a.rows[0][0] == scalar(admin, "SELECT count(*) FROM ma.massdot_crash WHERE ambnt_light_descr = 'Dusk'")
    assert approved_example(taught, "crashes at dawn") is None


def test_examples_approved_on_another_pack_are_not_used(tmp_path, pipeline):
    _approved_entry(tmp_path, pipeline, "crashes at dusk", QUESTION)
    foreign = dataclasses.replace(load_pack(PACK), id="another-pack")
    assert with_user_examples(foreign, tmp_path) is foreign
