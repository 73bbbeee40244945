"""The guard's column rule is per table: every column reference resolves, through WITH queries and subqueries
(correlated, LATERAL, USING), to a column the pack declares for that very table or to an output of the WITH
query or subquery it names; a star over a pack table reads only the declared columns.

Names come from the pack. `narrow` is the pack without one declared field H of a table T: H is still a real
column of T in the database, so it stands for any column the pack does not declare.
"""
from __future__ import annotations

import copy
import time
from types import SimpleNamespace

import pytest
import sqlglot
from sqlglot import exp

from plugin.core.execute import Executor
from plugin.core.guard import Guard, declared_columns

from .common import READER_DSN
from .dbprobe import suite_lock


@pytest.fixture(scope="module", autouse=True)
def locked():
    with suite_lock():  # no fault test of another run restarts the server meanwhile
        yield


@pytest.fixture(scope="module")
def n(pack) -> SimpleNamespace:
    """T: a pack table with key K and fields F, H; C: a column another table U declares and T does not."""
    decl = declared_columns(pack)
    for e in pack.entities.values():
        fields = [f for f in e.fields if f not in (e.key, "geom")]
        others = [(t, c) for t, cols in decl.items() if t != e.table for c in cols if c not in decl[e.table]]
        if len(fields) >= 2 and others:
            u, c = others[0]
            return SimpleNamespace(S=pack.schema, N=e.table, T=f"{pack.schema}.{e.table}", K=e.key, F=fields[0],
                                   H=fields[-1], U=f"{pack.schema}.{u}", C=c)
    pytest.skip("the pack has no two tables to tell apart")


@pytest.fixture(scope="module")
def guard(pack) -> Guard:
    return Guard(pack)


@pytest.fixture(scope="module")
def narrow(pack, n) -> Guard:
    p = copy.deepcopy(pack)
    for e in p.entities.values():
        if e.table == n.N:
            e.fields.pop(n.H, None)
    return Guard(p)


@pytest.fixture(scope="module")
def executor():
    ex = Executor(READER_DSN, timeout_ms=10_000)
    yield ex
    ex.close()


def fill(sql: str, n: SimpleNamespace) -> str:
    return sql.format(**vars(n))


def test_a_column_of_another_table_is_refused_naming_both(guard, n):
    for sql in ["SELECT {C} FROM {T}", "SELECT a.{C} FROM {T} AS a", "SELECT a.{C} FROM {T} AS a CROSS JOIN {U} AS b"]:
        rep = guard.check(fill(sql, n))
        assert not rep.ok and rep.code == "column_not_allowed", (sql, rep)
    rep = guard.check(fill("SELECT a.{C} FROM {T} AS a", n))
    assert n.C in rep.reason and n.N in rep.reason
    assert guard.check(fill("SELECT b.{C} FROM {T} AS a CROSS JOIN {U} AS b LIMIT 1", n)).ok


@pytest.mark.parametrize("sql", [
    # an undeclared real column, named outright or next to an alias of the same name
    "SELECT {H} FROM {T}",
    "SELECT t.{H} FROM {T} AS t",
    "SELECT t.{H} FROM {T} AS t, (SELECT 1 AS {H}) AS z",
    # through a WITH query or subquery that does not project it (a star over T projects the declared columns)
    "WITH c AS (SELECT t.{K} FROM {T} AS t) SELECT c.{F} FROM c",
    "WITH c AS (SELECT * FROM {T} AS t) SELECT c.{H} FROM c",
    "WITH c AS (SELECT t.* FROM {T} AS t) SELECT x.{H} FROM c AS x",
    "SELECT z.{F} FROM (SELECT t.{K} FROM {T} AS t) AS z",
    "WITH a AS (SELECT * FROM {T} AS t), b AS (SELECT * FROM a) SELECT b.{H} FROM b",
    # a WITH query named like the table does not shadow the schema-qualified table
    "WITH {N} AS (SELECT 1 AS {H}) SELECT t.{H} FROM {T} AS t",
    "WITH {N} AS (SELECT 1 AS {H}) SELECT {S}.{N}.{H} FROM {T}",
    # correlated subqueries: the innermost FROM item of that name is the one read
    "SELECT (SELECT z.{H} FROM {T} AS z LIMIT 1) AS v FROM (SELECT 1 AS {H}) AS z",
    "SELECT t.{K} FROM {T} AS t WHERE EXISTS (SELECT 1 FROM {U} AS u WHERE t.{H} IS NOT NULL)",
    "SELECT t.{K} FROM {T} AS t WHERE t.{K} IN (SELECT u.{K} FROM {T} AS u WHERE u.{H} IS NOT NULL)",
    # LATERAL: the subquery's outputs only, and the outer item's declared columns only
    "SELECT n.{F} FROM {T} AS s CROSS JOIN LATERAL (SELECT l.{K} FROM {T} AS l "
    "WHERE ST_DWithin(l.geom, s.geom, 10) OFFSET 0) AS n",
    "SELECT n.v FROM {U} AS s CROSS JOIN LATERAL (SELECT l.{H} AS v FROM {T} AS l OFFSET 0) AS n",
    "SELECT DISTINCT ON (n.{K}) n.{K} FROM {T} AS s CROSS JOIN LATERAL (SELECT l.{K} FROM {T} AS l "
    "WHERE l.{H} = s.{H} OFFSET 0) AS n",
    # USING
    "SELECT a.{K} FROM {T} AS a JOIN {T} AS b USING ({H})",
    "SELECT {H} FROM {T} AS a JOIN {T} AS b USING ({K})",
    # whole-row references carry every real column
    "SELECT t FROM {T} AS t",
    "SELECT t::text AS x FROM {T} AS t",
    "SELECT length(t::text) AS x FROM {T} AS t",
    "SELECT concat(t.*) AS x FROM {T} AS t",
    "SELECT count(t.*) AS x FROM {T} AS t",
    "SELECT (t).{H} AS x FROM {T} AS t",
    # stars that could not be bounded or checked column by column
    "SELECT *, * FROM {T}",
    "SELECT t.*, u.* FROM {T} AS t CROSS JOIN {U} AS u",
    "SELECT * FROM {T} AS t CROSS JOIN {U} AS u",
    # a reference that resolves to nothing PostgreSQL would find in scope
    "WITH c AS (SELECT t.{K} AS k) SELECT c.k FROM c, {T} AS t",
    "SELECT q.{K} FROM {T} AS t",
])
def test_refused(narrow, n, sql):
    rep = narrow.check(fill(sql, n))
    assert not rep.ok and rep.code == "column_not_allowed", (rep.code, rep.reason, rep.sql)


def reads(sql: str, table: str, column: str) -> bool:
    """Whether `sql` names `column` of an alias of pack table `table` (the guard's output qualifies every column)."""
    tree = sqlglot.parse_one(sql, read="postgres")
    aliases = {t.alias_or_name for t in tree.find_all(exp.Table) if t.name == table}
    return any(c.name == column and c.table in aliases for c in tree.find_all(exp.Column))


@pytest.mark.parametrize("sql", [
    # an alias named like the undeclared column: the guard either refuses or emits SQL that says what it read
    "SELECT t.{K} AS {H} FROM {T} AS t WHERE {H} IS NOT NULL",
    "SELECT 1 AS {H} FROM {T} AS t GROUP BY {H}",
    "SELECT count(*) AS {H} FROM {T} AS t HAVING max({H}) IS NOT NULL",
    "SELECT 1 AS {H} FROM {T} AS t ORDER BY {H} || ''",
    "SELECT 1 AS {H} FROM {T} AS t ORDER BY {H}",
    "SELECT {H} FROM {T} AS t, (SELECT 1 AS {H}) AS z",
    "SELECT (SELECT {H} FROM {T} AS b LIMIT 1) AS {H} FROM (SELECT 1 AS {H}) AS z",
    "SELECT t.{K} FROM {T} AS t WHERE EXISTS (SELECT 1 AS {H} FROM {U} AS u ORDER BY {H})",
])
def test_an_alias_never_stands_for_the_undeclared_column(narrow, n, sql):
    rep = narrow.check(fill(sql, n))
    assert not rep.ok or not reads(rep.sql, n.N, n.H), rep.sql
    assert rep.ok or rep.code == "column_not_allowed"


def test_refusal_names_the_table_and_the_column(narrow, n):
    rep = narrow.check(fill("SELECT t.{H} FROM {T} AS t", n))
    assert n.H in rep.reason and n.N in rep.reason
    rep = narrow.check(fill("WITH c AS (SELECT t.{K} FROM {T} AS t) SELECT c.{F} FROM c", n))
    assert "c." + n.F in rep.reason


def run(narrow, executor, n, sql: str):
    rep = narrow.check(fill(sql, n))
    assert rep.ok, (rep.code, rep.reason)
    assert narrow.check(rep.sql).sql == rep.sql  # what runs is a fixpoint of the guard
    return rep, executor.run(rep.sql, cap=10)


@pytest.mark.parametrize("sql", [
    "SELECT * FROM {T} LIMIT 2",
    "SELECT t.* FROM {T} AS t LIMIT 2",
    "WITH load AS (SELECT * FROM {T} AS t), f AS (SELECT * FROM load AS t) SELECT * FROM f AS r LIMIT 2",
    "SELECT r.* FROM (SELECT t.* FROM {T} AS t LIMIT 2) AS r",
])
def test_a_star_over_a_pack_table_reads_only_its_declared_columns(narrow, executor, n, sql):
    rep, res = run(narrow, executor, n, sql)
    assert res.columns == narrow.declared[n.N] and n.H not in res.columns


def test_a_star_over_a_with_query_stays_a_star(narrow, n):
    rep = narrow.check(fill("WITH load AS (SELECT * FROM {T} AS t) SELECT * FROM load AS r", n))
    assert rep.ok and rep.sql.rstrip().endswith("*\nFROM load AS r")


@pytest.mark.parametrize("sql", [
    # the name resolves to the only source that has it; the emitted SQL says which, so PostgreSQL reads that one
    "SELECT {H} FROM {T} AS t, (SELECT 1 AS {H}) AS z LIMIT 2",
    "SELECT (SELECT {H} FROM {T} AS b LIMIT 1) AS {H} FROM (SELECT 1 AS {H}) AS z",
    "WITH {N} AS (SELECT 1 AS {H}) SELECT t.{H} FROM {N} AS t",
])
def test_a_name_made_known_by_an_alias_reads_the_alias(narrow, executor, n, sql):
    rep, res = run(narrow, executor, n, sql)
    assert res.rows and all(r == (1,) for r in res.rows), (rep.sql, res.rows)


@pytest.mark.parametrize("sql", [
    "SELECT t.{K} FROM {T} AS t WHERE EXISTS (SELECT 1 FROM {T} AS u WHERE u.{K} = t.{K}) LIMIT 1",
    "SELECT t.{K}, (SELECT count(*) FROM {T} AS u WHERE u.{K} = t.{K}) AS c FROM {T} AS t LIMIT 1",
    "SELECT DISTINCT ON (n.{K}) n.{K} FROM (SELECT * FROM {T} LIMIT 3) AS s CROSS JOIN LATERAL "
    "(SELECT * FROM {T} AS l WHERE ST_DWithin(l.geom, s.geom, 10) OFFSET 0) AS n",
    "SELECT a.{K}, {K} AS k2 FROM {T} AS a JOIN {T} AS b USING ({K}) LIMIT 1",
    "SELECT t.{K} AS x FROM {T} AS t ORDER BY x LIMIT 1",
    "SELECT DISTINCT ON (x) t.{K} AS x FROM {T} AS t ORDER BY x LIMIT 1",
    "SELECT t.{K} AS x FROM {T} AS t UNION ALL SELECT u.{K} FROM {T} AS u ORDER BY x LIMIT 1",
    "WITH c(a, b) AS (SELECT t.{K}, t.{F} FROM {T} AS t) SELECT c.a, c.b FROM c LIMIT 1",
    "SELECT count(*) FROM {T}",
])
def test_accepted_and_runs(narrow, executor, n, sql):
    run(narrow, executor, n, sql)


def test_output_names_are_postgresql_s_own(narrow, executor, n):
    """Qualifying adds no names: an unaliased count(*) is still `count`, a column still its own name."""
    rep, res = run(narrow, executor, n, "SELECT count(*), max(t.{K}) FROM {T} AS t")
    assert res.columns == ["count", "max"]


def test_star_expansion_is_bounded_before_it_starts(guard, n):
    """Stars are expanded to see what flows through WITH queries; a chain built to multiply that work (each
    WITH query a star over a wide one before it) is refused before anything is expanded."""
    wide = ", ".join(f"1 AS a{i}" for i in range(300))
    chain = "".join(f", c{i} AS (SELECT * FROM c{i - 1})" for i in range(1, 64))
    sql = f"WITH c0 AS (SELECT t.*, {wide} FROM {n.T} AS t){chain} SELECT c63.{n.K} FROM c63"
    t0 = time.thread_time()
    rep = guard.check(sql)
    assert time.thread_time() - t0 < 1.0
    assert rep.code == "too_large", rep
