"""The peer suites in `make test`: other projects' own SQL-checker test cases through the guard (no false accept;
each false refusal named with its reason), the accepted ones run by the reader with the database unchanged, and the
EXPLAIN property over the peers, a seeded sample of the hostile corpus and the bench's reference SQL."""
from __future__ import annotations

import pytest

from .conftest import record
from .peer_suite import load_peer_cases
from .suite import run_peer_suite

# Refusals by design that the peers' read-only checkers accept: dollar-quoted and E'' strings (read differently by
# tokenizers), VALUES as a statement, two stars in one SELECT list or a bare * over a join (bounded star expansion)
BY_DESIGN = {"forbidden_statement", "not_select", "column_not_allowed"}


def test_peer_cases_keep_their_origin():
    cases = load_peer_cases()
    assert len(cases) >= 1000
    assert all(c.repository and c.path and c.test and c.sql and c.expect in ("accept", "refuse", "invalid")
               for c in cases)
    assert {c.repository for c in cases} >= {"apache/superset", "pgadmin-org/pgadmin4", "crystaldba/postgres-mcp",
                                              "awslabs/mcp", "tobymao/sqlglot", "simonw/datasette"}


@pytest.fixture(scope="module")
def peers(pack):
    fig, lines = run_peer_suite(pack, per_base=1, compiled=False)
    record("", *lines)
    return fig, lines


def test_no_false_accept_and_every_false_refusal_has_its_reason(peers):
    fig, lines = peers
    assert not fig["false_accepts"], [o.case.sql for o in fig["false_accepts"]]
    assert all(o.report.code in BY_DESIGN and o.report.reason for o in fig["false_refusals"])
    assert any(line.lstrip().startswith("TOTAL") for line in lines)


def test_accepted_peer_statements_leave_the_database_unchanged(peers):
    assert peers[0]["db_problems"] == []


def test_planned_relations_are_the_checked_relations(peers):
    plans = peers[0]["plans"]
    assert not [c for c in plans if c.broken]
    assert sum(c.equal for c in plans) >= 400  # peers, hostile sample and reference SQL that PostgreSQL plans
