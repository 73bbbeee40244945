"""The audit store (pure Python): ids, secrets scrubbed, tolerant reading, review, promotion, JSONL."""

import json
import string

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from plugin.core.audit import AuditError, AuditStore, scrub

FRAME = {"version": "1", "intent": "count", "target": "crash", "measure": {"kind": "count"}}


def entry(question="how many crashes", status="answered", **extra):
    e = {"time": "2026-11-30T10:00:00+00:00", "question": question, "status": status, "answer": "42",
         "frame": FRAME if status == "answered" else {}, "sql": "SELECT 1", "result_hash": "abc123",
         "pack": {"id": "demo", "version": "1", "hash": "ffff"}, "repairs": [], "plan": [], "timings_ms": {}}
    e.update(extra)
    return e


def filled(n=3) -> AuditStore:
    store = AuditStore()
    for i in range(n):
        store.add(entry(f"question {i}"))
    return store


def test_add_gives_ids_order_and_frame_hash():
    store = filled(3)
    ids = [e["id"] for e in store.entries]
    assert len(set(ids)) == 3 and [e["seq"] for e in store.entries] == [1, 2, 3]
    assert all(e["frame_hash"] and e["review"]["status"] is None and e["replays"] == [] for e in store.entries)
    follow = store.add(entry("only at night"), follow_up_of=ids[0], layer_ids=["l1"], connection="work db")
    assert follow["follow_up_of"] == ids[0] and follow["layer_ids"] == ["l1"] and follow["connection"] == "work db"


def test_secrets_never_enter_the_history():
    e = entry(error="cannot connect: host=db password=hunter2 user=x",
              dsn="host=db password=hunter2", notes=["postgresql://me:hunter2@db/x"],
              guard={"conninfo": "password=hunter2", "ok": True})
    stored = AuditStore().add(e)
    text = json.dumps(stored)
    assert "hunter2" not in text
    assert "dsn" not in stored and "conninfo" not in stored["guard"] and stored["guard"]["ok"] is True
    assert "password=***" in stored["error"] and "me:***@db" in stored["notes"][0]
    assert scrub({"PassWord": "x", "a": ["pwd='a b'"]}) == {"a": ["pwd=***"]}


def test_blocks_round_trip_identically():
    store = filled(4)
    store.review(store.entries[1]["id"], "approved", "fine", "ana")
    back = AuditStore.from_blocks(store.to_blocks())
    assert back.entries == store.entries and back.problems == []
    assert AuditStore.from_json(store.to_json()).entries == store.entries


def test_damaged_blocks_are_reported_and_the_others_kept():
    store = filled(5)
    blocks = store.to_blocks()
    ids = list(blocks)
    blocks[ids[0]] = blocks[ids[0]][:40]                                  # cut short
    blocks[ids[1]] = blocks[ids[1]].replace('"answered"', '"maybe"')      # unknown status
    blocks[ids[2]] = json.dumps(["not", "an", "entry"])                   # wrong shape
    back = AuditStore.from_blocks(blocks)
    assert [e["id"] for e in back.entries] == ids[3:]
    assert len(back.problems) == 3
    assert any("not valid JSON" in p for p in back.problems)
    assert any("maybe" in p and "question 1" in p for p in back.problems)


def test_a_broken_document_is_salvaged_entry_by_entry():
    store = filled(4)
    text = store.to_json()
    second = store.entries[1]["id"]
    i = text.index(second)
    broken = text[:i] + "\u0000<<oops" + text[i + 40:]   # a hand edit wrecked the second entry
    back = AuditStore.from_json(broken)
    assert "not valid JSON" in back.problems[0]
    assert [e["question"] for e in back.entries] == ["question 0", "question 2", "question 3"]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2), st.text(alphabet=string.printable, max_size=30), st.integers(0, 400))
def test_any_edit_to_one_block_never_costs_the_others(which, junk, at):
    store = filled(3)
    blocks = store.to_blocks()
    key = list(blocks)[which]
    text = blocks[key]
    blocks[key] = text[:at] + junk + text[at + len(junk):]
    back = AuditStore.from_blocks(blocks)  # never raises
    others = [e for e in store.entries if e["id"] != key]
    assert all(e in back.entries for e in others)
    assert len(back.entries) + len(back.problems) == 3


def test_review_keeps_its_history_and_rejects_unknown_verdicts():
    store = filled(1)
    eid = store.entries[0]["id"]
    with pytest.raises(AuditError):
        store.review(eid, "maybe", "")
    store.review(eid, "rejected", "wrong town", "ana")
    e = store.review(eid, "approved", "fixed upstream", "ben")
    assert e["review"]["status"] == "approved" and e["review"]["reviewer"] == "ben"
    assert [h["status"] for h in e["review"]["history"]] == ["rejected", "approved"]
    with pytest.raises(AuditError):
        store.get("nope")


def test_only_approved_answered_entries_become_examples(tmp_path):
    store = AuditStore()
    ok = store.add(entry("crashes by town"))
    bad = store.add(entry("asdf", status="clarify"))
    with pytest.raises(AuditError, match="approve"):
        store.promote(ok["id"], tmp_path)
    store.review(bad["id"], "approved", "")
    with pytest.raises(AuditError, match="answered"):
        store.promote(bad["id"], tmp_path)
    store.review(ok["id"], "approved", "good", "ana")
    path = store.promote(ok["id"], tmp_path)
    store.promote(ok["id"], tmp_path)  # twice: still one example
    data = yaml.safe_load(path.read_text())
    assert data["pack"] == "demo"
    (example,) = data["examples"]
    assert example["question"] == "crashes by town" and example["frame"] == FRAME
    assert example["source"]["approved_by"] == "ana" and ok["promoted"]["path"] == str(path)
    store.review(ok["id"], "rejected", "changed my mind")
    with pytest.raises(AuditError):
        store.promote(ok["id"], tmp_path)


def test_filter_and_replay_records():
    store = filled(3)
    store.add(entry("crashes in paris", status="clarify"))
    store.review(store.entries[0]["id"], "approved")
    assert [e["question"] for e in store.filter(status="clarify")] == ["crashes in paris"]
    assert len(store.filter(text="QUESTION")) == 3 and len(store.filter(text="question 2")) == 1
    assert len(store.filter(review="approved")) == 1 and len(store.filter(review="unreviewed")) == 3
    rec = store.record_replay(store.entries[0]["id"], "abc123", 1, "answered")
    assert rec["match"] is True
    assert store.record_replay(store.entries[0]["id"], "zzz", 1, "answered")["match"] is False


def test_jsonl_has_one_entry_per_line(tmp_path):
    store = filled(3)
    path = store.write_jsonl(tmp_path / "a.jsonl")
    assert [json.loads(line)["question"] for line in path.read_text().splitlines()] == [
        "question 0", "question 1", "question 2"]
